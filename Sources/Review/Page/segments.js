// The annotation segments: loaded, edited (keys, the editor, the timeline's drags all come here),
// listed beside the video, and saved.

import { $, app, CHANGED_ON_DISK, clipSegments, el, MIN_SEGMENT, publishState, round3, segmentEnd, segmentStart, video } from "./state.js?token={{TOKEN}}";
import { api, errorText } from "./api.js?token={{TOKEN}}";
import { renderBar, setStatus, statusAtRest } from "./bar.js?token={{TOKEN}}";
import { seek } from "./player.js?token={{TOKEN}}";
import { drawTimeline, layoutTimeline } from "./timeline.js?token={{TOKEN}}";

export async function loadAnnotations() {
  const reply = await api("/api/annotations");
  if (reply.status === 404) {
    app.annotations = null;
    app.segments = [];
  } else if (!reply.ok) {
    throw new Error(errorText(reply, "Loading the annotations"));
  } else {
    const { file, format, version, diagnostics, segments, editable, readOnlyReason } = reply.body;
    // A file a save would lose data from (the server says why) is shown, not saved.
    app.annotations = { file, format, version, diagnostics, editable: editable !== false, readOnlyReason };
    app.segments = segments.map(({ video, clip, label, start, end }) => ({ video, clip, label, start, end }));
  }
  app.dirty = false;
  app.selected = null;
  $("reload").hidden = true;
}

// After any change to a segment: mark unsaved and redraw what shows segments.
export function edited() {
  app.dirty = true;
  app.edits += 1;
  statusAtRest();
  renderBar();
  renderSegments();
  layoutTimeline();
  publishState();
}

// Edits need an annotation file; time edits also need a clip with time.
function canEdit(needsTime) {
  if (!app.annotations) {
    setStatus("No annotation file: start `handpose review` with --annotations FILE to edit segments.", "error");
    return false;
  }
  if (needsTime && app.clip.kind === "image") {
    setStatus("A still image has no time to set.", "error");
    return false;
  }
  return true;
}

// A new segment's label: the clip's class when it has exactly one, else the last label typed.
function newLabel() {
  const labels = new Set(clipSegments().map((s) => s.label));
  if (labels.size === 1) return [...labels][0];
  return app.lastLabel || "unlabelled";
}

// Inserted after this clip's last segment so the file keeps a clip's segments together.
function addSegment(start, end) {
  const mine = clipSegments();
  const segment = {
    video: mine.length ? mine[0].video : app.clip.path,  // spelled as the file already names this clip (`.` and `..` resolved)
    clip: app.clip.path, label: newLabel(), start, end,
  };
  const at = mine.length ? app.segments.indexOf(mine[mine.length - 1]) + 1 : app.segments.length;
  app.segments.splice(at, 0, segment);
  app.selected = segment;
  edited();
}

export function setStartHere() {
  if (!canEdit(true)) return;
  const now = round3(video.currentTime);
  const segment = app.selected;
  if (!segment) {
    if (now > app.duration - MIN_SEGMENT) return setStatus("No room for a segment after the clip's end.", "error");
    return addSegment(now, round3(app.duration));
  }
  if (now > segmentEnd(segment) - MIN_SEGMENT) return setStatus("A segment's start must come before its end.", "error");
  segment.start = now;
  edited();
}

export function setEndHere() {
  if (!canEdit(true)) return;
  const now = round3(video.currentTime);
  const segment = app.selected;
  if (!segment) {
    if (now < MIN_SEGMENT) return setStatus("No room for a segment before the clip's start.", "error");
    return addSegment(0, now);
  }
  if (now < segmentStart(segment) + MIN_SEGMENT) return setStatus("A segment's end must come after its start.", "error");
  segment.end = now;
  edited();
}

export function newSegmentHere() {
  if (!canEdit(false)) return;
  if (app.clip.kind === "image") return addSegment(null, null);
  const now = round3(video.currentTime);
  if (now > app.duration - MIN_SEGMENT) return setStatus("No room for a segment after the clip's end.", "error");
  addSegment(now, round3(Math.min(now + 1, app.duration)));
}

export function deleteSelected() {
  if (!app.selected || !canEdit(false)) return;
  app.segments.splice(app.segments.indexOf(app.selected), 1);
  app.selected = null;
  edited();
}

export function select(segment) {
  app.selected = segment;
  renderSegments();
  drawTimeline();
  publishState();
}

export async function save() {
  if (!canEdit(false) || app.saving) return;
  if (!app.dirty) return setStatus("No unsaved changes.");
  app.saving = true;
  const sent = app.edits;
  renderBar();
  setStatus("Saving…");
  const body = {
    version: app.annotations.version,
    segments: app.segments.map(({ video, label, start, end }) => ({ video, label, start, end })),
  };
  let reply;
  try {
    reply = await api("/api/annotations", {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch (err) {
    reply = { status: 0, ok: false, body: { error: err.message } };
  }
  app.saving = false;
  app.lastSave = { status: reply.status, body: reply.body };
  if (reply.status === 200) {
    app.annotations.version = reply.body.version;
    app.annotations.diagnostics = reply.body.diagnostics || [];
    app.dirty = app.edits !== sent;
    $("reload").hidden = true;
    const backup = reply.body.backup ? `; the previous file is kept as ${reply.body.backup}` : "";
    if (app.dirty) statusAtRest();
    else setStatus(`Saved at ${new Date().toLocaleTimeString()}${backup}.`, "saved");
  } else if (reply.status === 409) {
    // Keep the old version: saving again must keep failing until the user reloads.
    setStatus(CHANGED_ON_DISK, "error");
    $("reload").hidden = false;
  } else {
    if (reply.status === 422 && reply.body && reply.body.diagnostics) {
      app.annotations.diagnostics = reply.body.diagnostics;
      $("diagnostics-box").open = true;
    }
    setStatus(`Not saved: ${errorText(reply, "Saving")}`, "error");
  }
  renderBar();
  publishState();
}

// ---- The segment list and editor beside the video

export function renderSegments() {
  if (!app.clip) return;
  const mine = clipSegments();
  const fmt = (v) => (v == null ? "…" : v.toFixed(3));
  $("segment-list").replaceChildren(...mine.map((segment) => {
    const item = el("li", { className: segment === app.selected ? "selected" : "" },
      el("button", { type: "button" }, el("span", { className: "label" }, segment.label || "(no label)"),
        el("span", { className: "times" }, `${fmt(segment.start)} – ${fmt(segment.end)}`)));
    item.firstChild.addEventListener("click", () => {
      select(segment);
      if (app.clip.kind !== "image") seek(segmentStart(segment));
    });
    return item;
  }));
  $("no-segments").hidden = mine.length > 0;
  $("no-segments").textContent = app.annotations ? "No segments on this clip." : "No annotation file, so no segments.";
  $("new-segment").disabled = !app.annotations;
  const segment = app.selected;
  $("segment-editor").hidden = !segment;
  if (!segment) return;
  // Leave alone the field being typed in, or its caret would jump.
  const show = (id, value) => { if (document.activeElement !== $(id)) $(id).value = value; };
  show("segment-label", segment.label);
  show("segment-start", segment.start == null ? "" : segment.start);
  show("segment-end", segment.end == null ? "" : segment.end);
  const timed = app.clip.kind !== "image";
  $("segment-start").disabled = !timed;
  $("segment-end").disabled = !timed;
}

// The selected segment's editor: label, start and end typed, delete; and the New button.
export function followSegmentEditor() {
  $("segment-label").addEventListener("input", (e) => {
    if (!app.selected) return;
    app.selected.label = e.target.value;
    app.lastLabel = e.target.value;
    edited();
  });
  // Start and end typed as numbers; an empty field means the clip's start or end.
  for (const [id, field] of [["segment-start", "start"], ["segment-end", "end"]]) {
    $(id).addEventListener("change", (e) => {
      const segment = app.selected;
      if (!segment) return;
      const value = e.target.value === "" ? null : round3(Number(e.target.value));
      const next = { ...segment, [field]: value };
      if (value != null && (value < 0 || value > app.duration)) {
        setStatus(`The ${field} must lie within the clip (0 to ${app.duration.toFixed(3)} s).`, "error");
      } else if (segmentEnd(next) - segmentStart(next) < MIN_SEGMENT) {
        setStatus("A segment's end must come after its start.", "error");
      } else {
        segment[field] = value;
        return edited();
      }
      e.target.value = segment[field] == null ? "" : segment[field];
    });
  }
  $("segment-delete").addEventListener("click", deleteSelected);
  $("new-segment").addEventListener("click", newSegmentHere);
}
