// The page's state, in one place, and what every part of the page reads it with: the elements it
// draws on, the open clip's segments, and the test hooks (window.reviewState).

// The server refuses end <= start; dragging and typing keep a segment at least this long (s).
export const MIN_SEGMENT = 0.01;
export const CHANGED_ON_DISK = "The annotation file changed on disk since this page loaded; your edits were not saved.";

export const app = {
  clips: null,         // GET /api/clips
  annotations: null,   // {file, format, version, diagnostics}; null when the server has no annotation file
  segments: [],        // every segment of the file in file order: {video, clip, label, start, end}
  dirty: false,
  edits: 0,            // counts edits, so a save knows whether more came while it was on its way
  saving: false,
  lastSave: null,      // {status, body} of the last PUT
  lastLabel: null,     // the label last typed, for new segments on clips without a single class
  sort: { key: "detectionRate", ascending: true },  // worst first
  route: 0,            // bumped on each navigation so a slow fetch cannot draw over a newer page
  clip: null,          // clip page: the clip's /api/clips entry, else null
  keypoints: null,     // clip page: GET /api/keypoints, null when the clip has none
  duration: null,
  selected: null,      // the selected segment (one of app.segments) or null
  drawnFrame: -1,      // index into app.keypoints.frames of the frame on the overlay
  drag: null,          // timeline pointer drag in progress
  layout: null,        // timeline geometry, see layoutTimeline
};

export const $ = (id) => document.getElementById(id);
export const video = $("video");
export const still = $("still");
export const overlay = $("overlay");
export const timeline = $("timeline");

// Builds an element; children are strings (added as text, never parsed as HTML) or elements.
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

export const round3 = (v) => Math.round(v * 1000) / 1000;
export const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

// The open clip's segments, in file order.
export function clipSegments() {
  return app.clip ? app.segments.filter((s) => s.clip === app.clip.path) : [];
}

export const segmentStart = (s) => (s.start == null ? 0 : s.start);
export const segmentEnd = (s) => (s.end == null ? app.duration || 0 : s.end);

// ---- Test hooks: window.reviewState mirrors the page for the browser tests

export function publishState() {
  const mine = clipSegments();
  const frame = app.keypoints && app.drawnFrame >= 0 ? app.keypoints.frames[app.drawnFrame] : null;
  window.reviewState = {
    page: app.clip ? "clip" : "list",
    clip: app.clip ? app.clip.path : null,
    frameIndex: frame ? frame.i : -1,
    drawnTime: frame ? frame.t : null,
    segments: mine.map(({ video, label, start, end }) => ({ video, label, start, end })),
    selected: mine.indexOf(app.selected),
    dirty: app.dirty,
    lastSave: app.lastSave,
    // Where each of this clip's segment bars is on #timeline, in CSS px from its top left corner.
    timeline: app.layout && {
      width: app.layout.width, height: app.layout.height,
      bars: app.layout.bars.map((b) => ({ index: mine.indexOf(b.segment), x0: b.x0, x1: b.x1, y0: b.y0, y1: b.y1 })),
    },
  };
}
