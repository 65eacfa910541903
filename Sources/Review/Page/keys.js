// Keyboard (document-wide; typing in a field is left alone).

import { $, app } from "./state.js?token={{TOKEN}}";
import { deleteSelected, newSegmentHere, save, select, setEndHere, setStartHere } from "./segments.js?token={{TOKEN}}";
import { stepFrame, togglePlay } from "./player.js?token={{TOKEN}}";

const KEYS = {
  " ": togglePlay,
  ArrowLeft: () => stepFrame(-1),
  ArrowRight: () => stepFrame(1),
  "[": setStartHere,
  "]": setEndHere,
  n: newSegmentHere,
  Delete: deleteSelected,
  Backspace: deleteSelected,
  l: () => { if (app.selected) { $("segment-label").focus(); $("segment-label").select(); } },
  Escape: () => select(null),
};

export function onKey(e) {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "s") {
    e.preventDefault();  // not the browser's "save page"
    save();
    return;
  }
  if (e.target.closest("input, textarea, select, [contenteditable]")) {
    if (e.key === "Escape") e.target.blur();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "s") {
    e.preventDefault();
    save();
    return;
  }
  const action = app.clip && KEYS[e.key];
  if (!action) return;
  e.preventDefault();  // Space must not scroll or press a focused button
  action();
}
