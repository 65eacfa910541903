// handpose review: the page. Lists clips by how well their hands were found, plays a clip with its
// keypoints drawn over it, and edits the annotation segments on a timeline. Plain JavaScript with no
// framework or build step, because the machines it runs on are offline and nothing is installed.
// The routes and JSON it relies on are fixed in the page <-> server contract (Sources/Review/API.md).
"use strict";

// ---- Constants

// Read once: every fetch sends it as a header, media URLs carry it in their query.
const TOKEN = new URLSearchParams(location.search).get("token") || "";
// The same colours as `handpose render` (Sources/Rendering/Overlay.swift, "ours").
const HAND_COLORS = { left: "rgb(60,220,255)", right: "rgb(255,90,60)" };
const UNKNOWN_HAND_COLOR = "rgb(200,200,200)";
const BODY_COLOR = "rgb(230,230,230)";
// Keypoint times are written rounded (to the microsecond); a frame counts as shown from 1 ms before its t.
const TIME_TOLERANCE = 0.001;
// How near a segment bar's edge (CSS px) a drag moves that edge rather than the whole bar.
const EDGE_GRAB = 6;
// The server refuses end <= start; dragging and typing keep a segment at least this long (s).
const MIN_SEGMENT = 0.01;
// Without keypoint frames there are no frame times to step between; a thirtieth of a second is a common frame.
const STEP_WITHOUT_FRAMES = 1 / 30;
const CHANGED_ON_DISK = "The annotation file changed on disk since this page loaded; your edits were not saved.";

// ---- State: everything the page knows, in one place

const app = {
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

const $ = (id) => document.getElementById(id);
const video = $("video");
const still = $("still");
const overlay = $("overlay");
const timeline = $("timeline");

// Builds an element; children are strings (added as text, never parsed as HTML) or elements.
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

const round3 = (v) => Math.round(v * 1000) / 1000;
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

// ---- Test hooks: window.reviewState mirrors the page for the browser tests

function publishState() {
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

// ---- Talking to the server

// Resolves to {status, ok, body}; rejects only when the server cannot be reached.
async function api(path, options = {}) {
  let response;
  try {
    response = await fetch(path, { ...options, headers: { ...options.headers, "X-Handpose-Token": TOKEN } });
  } catch (err) {
    throw new Error(`Could not reach the handpose review server (${err.message}); is it still running?`);
  }
  const text = await response.text();
  let body = null;
  try { body = JSON.parse(text); } catch { body = null; }
  return { status: response.status, ok: response.ok, body };
}

function errorText(reply, what) {
  if (reply.status === 401 || reply.status === 403) {
    return "The server refused this page's token: open the address `handpose review` printed, token included.";
  }
  return (reply.body && reply.body.error) || `${what}: the server answered ${reply.status}.`;
}

async function getJSON(path, what) {
  const reply = await api(path);
  if (!reply.ok) throw new Error(errorText(reply, what));
  return reply.body;
}

const mediaURL = (path) =>
  "/media/" + path.split("/").map(encodeURIComponent).join("/") + "?token=" + encodeURIComponent(TOKEN);

// ---- Status line, annotation file and diagnostics (the bar at the top, on every page)

function setStatus(text, kind = "") {
  $("status").textContent = text;
  $("status").className = kind;
}

function showError(err) {
  setStatus(err.message, "error");
}

// What the status line says when nothing is happening: a refused save stays said until reloaded.
function statusAtRest() {
  if (!$("reload").hidden) setStatus(CHANGED_ON_DISK, "error");
  else if (app.annotations && !app.annotations.editable) setStatus(`Read-only: ${app.annotations.readOnlyReason}`, "dirty");
  else if (app.dirty) setStatus("Unsaved changes (Ctrl+S saves).", "dirty");
  else setStatus("");
}

function renderBar() {
  const ann = app.annotations;
  $("annotation-file").textContent = ann ? `${ann.file} (${ann.format}${ann.editable ? "" : ", read-only"})` : "no annotation file (read-only)";
  $("annotation-file").title = ann ? ann.file : "";
  const diagnostics = ann ? ann.diagnostics || [] : [];
  $("diagnostics-box").hidden = !ann;
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  $("diagnostics-count").textContent = diagnostics.length === 0 ? "no diagnostics"
    : `${diagnostics.length} diagnostic${diagnostics.length === 1 ? "" : "s"}` + (errors ? ` (${errors} errors)` : "");
  $("diagnostics").replaceChildren(...diagnostics.map((d) =>
    el("li", { className: d.severity }, d.line != null ? `line ${d.line}: ` : "", `${d.severity}: ${d.message}`)));
  $("save").disabled = !ann || !ann.editable || !app.dirty || app.saving;
}

// ---- Annotations: load, edit, save

async function loadAnnotations() {
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

// The open clip's segments, in file order.
function clipSegments() {
  return app.clip ? app.segments.filter((s) => s.clip === app.clip.path) : [];
}

const segmentStart = (s) => (s.start == null ? 0 : s.start);
const segmentEnd = (s) => (s.end == null ? app.duration || 0 : s.end);

// After any change to a segment: mark unsaved and redraw what shows segments.
function edited() {
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
    video: mine.length ? mine[0].video : app.clip.path,  // spelled as the file already names this clip
    clip: app.clip.path, label: newLabel(), start, end,
  };
  const at = mine.length ? app.segments.indexOf(mine[mine.length - 1]) + 1 : app.segments.length;
  app.segments.splice(at, 0, segment);
  app.selected = segment;
  edited();
}

function setStartHere() {
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

function setEndHere() {
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

function newSegmentHere() {
  if (!canEdit(false)) return;
  if (app.clip.kind === "image") return addSegment(null, null);
  const now = round3(video.currentTime);
  if (now > app.duration - MIN_SEGMENT) return setStatus("No room for a segment after the clip's end.", "error");
  addSegment(now, round3(Math.min(now + 1, app.duration)));
}

function deleteSelected() {
  if (!app.selected || !canEdit(false)) return;
  app.segments.splice(app.segments.indexOf(app.selected), 1);
  app.selected = null;
  edited();
}

function select(segment) {
  app.selected = segment;
  renderSegments();
  drawTimeline();
  publishState();
}

async function save() {
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

async function reloadFromDisk() {
  if (app.dirty && !confirm("Discard your unsaved edits and load the annotation file as it is on disk now?")) return;
  try {
    await loadAnnotations();
  } catch (err) {
    return showError(err);
  }
  renderBar();
  route();  // redraws the page from the file as loaded; says so after route's status reset
  setStatus("Loaded the annotation file from disk.");
}

// ---- The clip list (#/)

// value: what a column sorts by (null sorts lowest); cell: what the row shows.
const COLUMNS = [
  { key: "path", title: "Clip", value: (c) => c.path, cell: (c) => el("a", { href: clipHash(c.path) }, c.path) },
  { key: "labels", title: "Class", value: (c) => c.labels.join(", ") || null, cell: (c) => c.labels.join(", ") || "–" },
  { key: "frames", title: "Frames", className: "num", value: (c) => c.frames, cell: (c) => c.frames ?? "–" },
  {
    key: "detectionRate", title: "Detection rate", className: "num rate", value: (c) => c.detectionRate,
    cell: (c) => c.detectionRate == null ? "–" : `${(c.detectionRate * 100).toFixed(1)} %`,
  },
  {
    key: "longestGap", title: "Longest gap", className: "num", value: (c) => c.longestGap,
    cell: (c) => c.longestGap == null ? "–"
      : `${c.longestGap} fr` + (c.longestGapSeconds == null ? "" : ` · ${c.longestGapSeconds.toFixed(2)} s`),
  },
  {
    key: "keypoints", title: "Keypoints", value: (c) => (c.keypoints ? 1 : 0),
    cell: (c) => (c.keypoints ? "yes" : el("span", { className: "badge" }, "no keypoints")),
  },
];

const clipHash = (path) => "#/clip/" + encodeURIComponent(path);

function compareClips(a, b, column) {
  const x = column.value(a), y = column.value(b);
  let order = 0;
  if (x == null || y == null) order = (x == null ? 0 : 1) - (y == null ? 0 : 1);
  else order = typeof x === "string" ? x.localeCompare(y) : x - y;
  if (!app.sort.ascending) order = -order;
  return order || a.path.localeCompare(b.path);
}

async function showListPage() {
  const ticket = ++app.route;
  leaveClipPage();
  $("list-page").hidden = false;
  $("clip-page").hidden = true;
  document.title = "handpose review";
  statusAtRest();
  publishState();
  try {
    const clips = await getJSON("/api/clips", "Listing the clips");
    if (ticket !== app.route) return;
    app.clips = clips;
  } catch (err) {
    showError(err);
  }
  renderFilter();
  renderTable();
}

function renderFilter() {
  const select = $("class-filter");
  const chosen = select.value;
  const classes = app.clips ? app.clips.classes : [];
  select.replaceChildren(el("option", { value: "" }, "all classes"), ...classes.map((c) => el("option", { value: c }, c)));
  select.value = classes.includes(chosen) ? chosen : "";
}

function renderTable() {
  $("clip-columns").replaceChildren(...COLUMNS.map((column) => {
    const sorted = app.sort.key === column.key;
    const th = el("th", { className: column.className || "" },
      el("button", { type: "button", className: "sort" }, column.title, sorted ? (app.sort.ascending ? " ▲" : " ▼") : ""));
    th.dataset.key = column.key;
    th.setAttribute("aria-sort", sorted ? (app.sort.ascending ? "ascending" : "descending") : "none");
    th.addEventListener("click", () => sortBy(column.key));
    return th;
  }));
  const all = app.clips ? app.clips.clips : [];
  const wanted = $("class-filter").value;
  const column = COLUMNS.find((c) => c.key === app.sort.key);
  const rows = all.filter((c) => !wanted || c.labels.includes(wanted)).sort((a, b) => compareClips(a, b, column));
  $("clip-rows").replaceChildren(...rows.map((clip) => {
    const tr = el("tr", { className: clip.keypoints ? "" : "no-keypoints" },
      ...COLUMNS.map((c) => el("td", { className: c.className || "" }, c.cell(clip))));
    tr.dataset.path = clip.path;
    if (clip.detectionRate != null) tr.style.setProperty("--rate", `${clip.detectionRate * 100}%`);
    return tr;
  }));
  $("clip-count").textContent = wanted ? `${rows.length} of ${all.length} clips` : `${all.length} clips`;
}

function sortBy(key) {
  app.sort = { key, ascending: app.sort.key === key ? !app.sort.ascending : true };
  renderTable();
}

// ---- The clip page (#/clip/<path>)

async function showClipPage(path) {
  const ticket = ++app.route;
  leaveClipPage();
  $("list-page").hidden = true;
  $("clip-page").hidden = false;
  document.title = `${path} · handpose review`;
  $("clip-title").textContent = path;
  $("clip-info").textContent = "";
  $("clip-body").hidden = true;
  $("timeline-box").hidden = true;
  statusAtRest();
  try {
    if (!app.clips) app.clips = await getJSON("/api/clips", "Listing the clips");
    if (ticket !== app.route) return;
    const clip = app.clips.clips.find((c) => c.path === path);
    if (!clip) return setStatus(`There is no clip ${path} under the root folder.`, "error");
    app.clip = clip;
    app.duration = clip.duration;
    const reply = await api("/api/keypoints?clip=" + encodeURIComponent(path));
    if (ticket !== app.route) return;
    if (reply.ok) app.keypoints = reply.body;
    else if (reply.status === 404) setStatus("This clip has no keypoint file: nothing to draw.", "");
    else throw new Error(errorText(reply, "Loading the keypoints"));
  } catch (err) {
    showError(err);
    if (!app.clip) return;
  }
  renderClipInfo();
  $("class-names").replaceChildren(
    ...[...new Set([...app.clips.classes, ...app.segments.map((s) => s.label)])].map((c) => el("option", { value: c })));
  const image = app.clip.kind === "image";
  $("clip-body").hidden = false;
  video.hidden = image;
  still.hidden = !image;
  $("play").disabled = image;
  $("timeline-box").hidden = image;
  if (image) still.src = mediaURL(path);
  else video.src = mediaURL(path);
  renderSegments();
  publishState();
}

function leaveClipPage() {
  if (!app.clip) return;
  app.clip = null;
  app.keypoints = null;
  app.selected = null;
  app.drawnFrame = -1;
  app.layout = null;
  app.drag = null;
  video.pause();
  video.removeAttribute("src");
  video.load();
  still.removeAttribute("src");
  overlay.getContext("2d").clearRect(0, 0, overlay.width, overlay.height);
}

function renderClipInfo() {
  const c = app.clip;
  const parts = [c.kind];
  if (c.frames != null) parts.push(`${c.frames} frames`);
  if (c.fps) parts.push(`${c.fps} fps`);
  if (c.duration != null) parts.push(`${c.duration.toFixed(2)} s`);
  if (c.detectionRate != null) parts.push(`hands in ${(c.detectionRate * 100).toFixed(1)} % of frames`);
  $("clip-info").textContent = parts.join(" · ");
}

// The stage shows the clip at up to twice its size; the overlay keeps the clip's pixel size and is
// scaled by CSS, so a landmark (x, y) is at canvas pixel (x * width, y * height).
function fitStage(width, height) {
  overlay.width = width;
  overlay.height = height;
  $("stage").style.setProperty("--clip-width", `${width}px`);
  $("stage").style.setProperty("--clip-aspect", width / height);
}

// ---- The overlay: the hands of the keypoint frame shown

// Largest t <= time (+ tolerance), by binary search: frames need not be evenly spaced.
function frameAt(frames, time) {
  const limit = time + TIME_TOLERANCE;
  let lo = 0, hi = frames.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid].t <= limit) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}

function drawAt(time) {
  if (!app.clip) return;
  const ctx = overlay.getContext("2d");
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  const frames = app.keypoints ? app.keypoints.frames : [];
  app.drawnFrame = frameAt(frames, time);
  if (app.drawnFrame >= 0) {
    drawBodies(ctx, frames[app.drawnFrame].bodies || [], app.keypoints.bodyBones || []);
    drawHands(ctx, frames[app.drawnFrame].hands, app.keypoints.bones);
  }
  renderTime(time);
  drawTimeline(time);
  publishState();
}

// Bodies (extract --body) under the hands, light grey; bones and joints whose landmark is less than half
// visible drawn faint.
function drawBodies(ctx, bodies, bones) {
  const W = overlay.width, H = overlay.height;
  const scale = Math.max(1, Math.min(W, H) / 256);
  ctx.lineCap = "round";
  ctx.lineWidth = 1.5 * scale;
  for (const body of bodies) {
    const points = body.landmarks.map(([x, y]) => [x * W, y * H]);
    const seen = (j) => (body.visibility[j] || 0) >= 0.5;
    for (const [a, b] of bones) {
      if (!points[a] || !points[b]) continue;
      ctx.globalAlpha = seen(a) && seen(b) ? 0.9 : 0.3;
      ctx.strokeStyle = BODY_COLOR;
      ctx.beginPath();
      ctx.moveTo(...points[a]);
      ctx.lineTo(...points[b]);
      ctx.stroke();
    }
    points.forEach(([x, y], j) => {
      ctx.globalAlpha = seen(j) ? 0.9 : 0.3;
      ctx.fillStyle = BODY_COLOR;
      ctx.beginPath();
      ctx.arc(x, y, 2.5 * scale, 0, 2 * Math.PI);
      ctx.fill();
    });
  }
  ctx.globalAlpha = 1;
}

function drawHands(ctx, hands, bones) {
  const W = overlay.width, H = overlay.height;
  const scale = Math.max(1, Math.min(W, H) / 256);  // widths chosen at 256 px frames, grown with the frame
  ctx.lineCap = "round";
  ctx.lineWidth = 2 * scale;
  ctx.font = `bold ${Math.round(11 * scale)}px system-ui, sans-serif`;
  for (const hand of hands) {
    const color = HAND_COLORS[hand.chirality] || UNKNOWN_HAND_COLOR;
    const points = hand.landmarks.map(([x, y]) => [x * W, y * H]);
    // A hand extract --complete interpolated (no model saw it): dashed bones, hollow joints, "~".
    const filled = hand.origin === "interpolated";
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.setLineDash(filled ? [4 * scale, 4 * scale] : []);
    ctx.beginPath();
    for (const [a, b] of bones) {
      if (!points[a] || !points[b]) continue;
      ctx.moveTo(...points[a]);
      ctx.lineTo(...points[b]);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    for (const [x, y] of points) {
      ctx.beginPath();
      ctx.arc(x, y, 3.5 * scale, 0, 2 * Math.PI);
      if (filled) ctx.stroke(); else ctx.fill();
    }
    const text = (filled ? "~" : "") + (hand.chirality === "left" ? "L" : hand.chirality === "right" ? "R" : "?") +
      (hand.track == null ? "" : ` #${hand.track}`);
    const [wx, wy] = points[0];
    const width = ctx.measureText(text).width;
    ctx.fillText(text, clamp(wx + 7 * scale, 0, W - width), clamp(wy + 16 * scale, 12 * scale, H - 2));
  }
}

function renderTime(time) {
  const parts = app.clip.kind === "image" ? [] : [`${time.toFixed(3)} / ${(app.duration || 0).toFixed(3)} s`];
  if (app.keypoints) {
    const frames = app.keypoints.frames;
    const frame = frames[app.drawnFrame];
    parts.push(frame ? `frame ${frame.i}` : "before the first frame");
    if (frame) parts.push(`${frame.hands.length} hand${frame.hands.length === 1 ? "" : "s"}`);
  }
  $("time").textContent = parts.join(" · ");
}

// ---- Playback

function togglePlay() {
  if (app.clip.kind === "image") return;
  if (video.paused) {
    if (video.ended) video.currentTime = 0;
    video.play().catch((err) => setStatus(`The browser would not play this clip: ${err.message}`, "error"));
  } else video.pause();
}

function seek(time) {
  video.currentTime = clamp(time, 0, app.duration || video.duration || 0);
}

// Seeks to the next or previous keypoint frame's own t: Chromium keeps media time in microseconds,
// the precision keypoint files write t in, so a seek to t lands inside that frame.
function stepFrame(delta) {
  if (app.clip.kind === "image") return;
  video.pause();
  const frames = app.keypoints ? app.keypoints.frames : [];
  if (!frames.length) return seek(video.currentTime + delta * STEP_WITHOUT_FRAMES);
  const here = frameAt(frames, video.currentTime);
  seek(frames[clamp(here + delta, 0, frames.length - 1)].t);
}

function followVideo() {
  video.addEventListener("loadedmetadata", () => {
    if (!app.clip) return;
    fitStage(video.videoWidth, video.videoHeight);
    if (Number.isFinite(video.duration)) app.duration = video.duration;
    layoutTimeline();
    drawAt(video.currentTime);
  });
  const followsFrames = "requestVideoFrameCallback" in video;
  video.addEventListener("seeked", () => drawAt(video.currentTime));
  video.addEventListener("pause", () => drawAt(video.currentTime));
  // While playing, the clock runs ahead of the frame on screen: leave playback to the frame callback.
  video.addEventListener("timeupdate", () => { if (video.paused || !followsFrames) drawAt(video.currentTime); });
  video.addEventListener("play", () => { $("play").textContent = "Pause"; });
  video.addEventListener("pause", () => { $("play").textContent = "Play"; });
  video.addEventListener("error", async () => {
    if (!app.clip || !video.getAttribute("src")) return;
    const path = app.clip.path;
    let why = video.error ? video.error.message || "decode error" : "error";
    // A refusal of the server (a file it cannot convert, say) says more than the media element can.
    try {
      const reply = await fetch(mediaURL(path), { headers: { Range: "bytes=0-0" } });
      if (!reply.ok) why = (await reply.json()).error || why;
    } catch (_) { /* keep the media element's reason */ }
    if (app.clip && app.clip.path === path) setStatus(`The browser cannot play ${path}: ${why}.`, "error");
  });
  still.addEventListener("load", () => {
    if (!app.clip) return;
    fitStage(still.naturalWidth, still.naturalHeight);
    drawAt(0);
  });
  // While playing, draw for the frame the compositor presents (its mediaTime), not the clock. Asked
  // afresh on each play, as a callback need not outlive a change of source.
  if (followsFrames) {
    let request = 0;
    const onFrame = (now, metadata) => {
      request = 0;
      if (video.paused) return;
      drawAt(metadata.mediaTime);
      request = video.requestVideoFrameCallback(onFrame);
    };
    video.addEventListener("play", () => {
      if (request) video.cancelVideoFrameCallback(request);
      request = video.requestVideoFrameCallback(onFrame);
    });
  }
}

// ---- The segment list and editor beside the video

function renderSegments() {
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

function followControls() {
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
  $("play").addEventListener("click", togglePlay);
  $("save").addEventListener("click", save);
  $("reload").addEventListener("click", reloadFromDisk);
  $("class-filter").addEventListener("change", renderTable);
}

// ---- The timeline under the video: hands, presence, track changes, segments, the current time

// Lanes top to bottom, in CSS px: [top, height].
const LANES = { axis: [0, 16], hands: [18, 12], presence: [33, 22], tracks: [58, 10] };
const SEGMENTS_TOP = 74, SEGMENT_ROW = 22, SEGMENT_BAR = 18;

// The lanes' names, in a column left of the canvas so the canvas's whole width is the clip's time.
function nameLanes() {
  const names = [["hands", LANES.hands[0]], ["presence", LANES.presence[0] + 5], ["track changes", LANES.tracks[0] - 2],
    ["segments", SEGMENTS_TOP + 3]];
  $("lane-names").replaceChildren(...names.map(([name, top]) => {
    const span = el("span", {}, name);
    span.style.top = `${top}px`;
    return span;
  }));
}

// Places this clip's segments in rows (none overlapping within a row) and sizes the canvas.
function layoutTimeline() {
  if (!app.clip || app.clip.kind === "image" || !app.duration) {
    app.layout = null;
    return;
  }
  const width = timeline.clientWidth;
  const rowEnds = [];
  const bars = [];
  const mine = clipSegments().slice().sort((a, b) => segmentStart(a) - segmentStart(b));
  for (const segment of mine) {
    const start = segmentStart(segment), end = segmentEnd(segment);
    let row = rowEnds.findIndex((e) => e <= start);
    if (row < 0) row = rowEnds.push(end) - 1; else rowEnds[row] = end;
    const y0 = SEGMENTS_TOP + row * SEGMENT_ROW;
    bars.push({ segment, x0: (start / app.duration) * width, x1: (end / app.duration) * width, y0, y1: y0 + SEGMENT_BAR });
  }
  const height = SEGMENTS_TOP + Math.max(1, rowEnds.length) * SEGMENT_ROW;
  const ratio = window.devicePixelRatio || 1;
  timeline.style.height = `${height}px`;
  timeline.width = Math.round(width * ratio);
  timeline.height = Math.round(height * ratio);
  app.layout = { width, height, ratio, bars };
  drawTimeline();
}

function drawTimeline(time = video.currentTime) {
  const layout = app.layout;
  if (!layout) return;
  const ctx = timeline.getContext("2d");
  ctx.setTransform(layout.ratio, 0, 0, layout.ratio, 0, 0);
  ctx.clearRect(0, 0, layout.width, layout.height);
  const x = (t) => (t / app.duration) * layout.width;
  drawAxis(ctx, layout, x);
  if (app.keypoints) drawHandLanes(ctx, app.keypoints.frames, x);
  drawSegmentBars(ctx, layout);
  ctx.fillStyle = "#d62d20";
  ctx.fillRect(Math.round(x(time)) - 1, 0, 2, layout.height);
}

function drawAxis(ctx, layout, x) {
  const [top, height] = LANES.axis;
  // A tick every 1, 2, 5, 10... seconds, whichever keeps labels at least 60 px apart.
  const step = [0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600].find((s) => x(s) >= 60) || 1200;
  ctx.fillStyle = "#8a94a3";
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "top";
  for (let t = 0; t <= app.duration + 1e-9; t += step) {
    ctx.fillRect(Math.round(x(t)), top + height - 5, 1, 5);
    const label = `${+t.toFixed(1)} s`;
    ctx.fillText(label, Math.min(x(t) + 3, layout.width - ctx.measureText(label).width - 1), top + 1);
  }
  ctx.fillRect(0, top + height - 1, layout.width, 1);
}

function drawHandLanes(ctx, frames, x) {
  const [handsTop, handsHeight] = LANES.hands;
  const [presTop, presHeight] = LANES.presence;
  const [trackTop, trackHeight] = LANES.tracks;
  ctx.fillStyle = "#f1f3f6";
  ctx.fillRect(0, presTop, x(app.duration), presHeight);
  ctx.beginPath();
  let drawing = false;
  frames.forEach((frame, k) => {
    const x0 = x(frame.t);
    const x1 = x(k + 1 < frames.length ? frames[k + 1].t : app.duration);
    const count = frame.hands.length;
    if (count > 0) {
      // Whole pixels, or neighbouring frames leave faint seams between them.
      ctx.fillStyle = count === 1 ? "#a9bad3" : "#44597a";
      ctx.fillRect(Math.round(x0), handsTop, Math.max(1, Math.round(x1) - Math.round(x0)), handsHeight);
    }
    // Presence line: the best hand's presence score (or handedness when the file has no presence).
    const scores = frame.hands.map((h) => h.presence ?? h.handedness ?? 0);
    if (scores.length) {
      const y = presTop + presHeight - 2 - Math.max(...scores) * (presHeight - 4);
      if (drawing) ctx.lineTo(x0, y); else ctx.moveTo(x0, y);
      ctx.lineTo(x1, y);
      drawing = true;
    } else drawing = false;
    // A tick where the set of track ids differs from the frame before.
    if (k > 0) {
      const ids = (f) => f.hands.map((h) => h.track).sort().join(",");
      if (ids(frame) !== ids(frames[k - 1])) {
        ctx.fillStyle = "#d98a00";
        ctx.fillRect(Math.round(x0) - 1, trackTop, 2, trackHeight);
      }
    }
  });
  ctx.strokeStyle = "#2a78b8";
  ctx.lineWidth = 1.5;
  ctx.stroke();
}

function drawSegmentBars(ctx, layout) {
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  for (const bar of layout.bars) {
    const selected = bar.segment === app.selected;
    const w = Math.max(2, bar.x1 - bar.x0);
    ctx.fillStyle = selected ? "#ffd76e" : "#dce7f7";
    ctx.strokeStyle = selected ? "#b9840b" : "#7f9cc9";
    ctx.lineWidth = 1;
    ctx.fillRect(bar.x0, bar.y0, w, SEGMENT_BAR);
    ctx.strokeRect(bar.x0 + 0.5, bar.y0 + 0.5, w - 1, SEGMENT_BAR - 1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(bar.x0, bar.y0, w, SEGMENT_BAR);
    ctx.clip();
    ctx.fillStyle = "#1d2633";
    ctx.fillText(bar.segment.label || "(no label)", bar.x0 + 5, bar.y0 + SEGMENT_BAR / 2 + 1);
    ctx.restore();
  }
}

// Which segment bar, and which part of it, is under a point: an edge within EDGE_GRAB, else the body.
function barAt(x, y) {
  for (const bar of app.layout ? app.layout.bars : []) {
    if (y < bar.y0 || y > bar.y1 || x < bar.x0 - EDGE_GRAB || x > bar.x1 + EDGE_GRAB) continue;
    const toStart = Math.abs(x - bar.x0), toEnd = Math.abs(x - bar.x1);
    if (Math.min(toStart, toEnd) <= EDGE_GRAB) return { bar, part: toEnd < toStart ? "end" : "start" };
    if (x >= bar.x0 && x <= bar.x1) return { bar, part: "move" };
  }
  return null;
}

function pointerAt(e) {
  const box = timeline.getBoundingClientRect();
  return { x: e.clientX - box.left, y: e.clientY - box.top };
}

const timeAtX = (x) => clamp((x / app.layout.width) * app.duration, 0, app.duration);

// Click seeks; a bar's edge drags that end, its body drags the whole segment. Drags apply the
// pointer's offset from where it went down, so rounding never accumulates.
function followTimeline() {
  timeline.addEventListener("pointerdown", (e) => {
    if (!app.layout) return;
    const { x, y } = pointerAt(e);
    const hit = barAt(x, y);
    timeline.setPointerCapture(e.pointerId);
    if (hit && app.annotations) {
      const s = hit.bar.segment;
      select(s);
      app.drag = { part: hit.part, segment: s, x, start: segmentStart(s), end: segmentEnd(s) };
    } else {
      app.drag = { part: "seek" };
      seek(timeAtX(x));
    }
  });
  timeline.addEventListener("pointermove", (e) => {
    if (!app.layout) return;
    const { x, y } = pointerAt(e);
    const drag = app.drag;
    if (!drag) {
      const hit = barAt(x, y);
      timeline.style.cursor = !hit ? "text" : hit.part === "move" ? "grab" : "ew-resize";
      return;
    }
    if (drag.part === "seek") return seek(timeAtX(x));
    const dt = ((x - drag.x) / app.layout.width) * app.duration;
    const s = drag.segment;
    if (drag.part === "start") s.start = round3(clamp(drag.start + dt, 0, drag.end - MIN_SEGMENT));
    else if (drag.part === "end") s.end = round3(clamp(drag.end + dt, drag.start + MIN_SEGMENT, app.duration));
    else {
      const shift = clamp(dt, -drag.start, app.duration - drag.end);
      s.start = round3(drag.start + shift);
      s.end = round3(drag.end + shift);
    }
    edited();
  });
  const finish = () => { app.drag = null; };
  timeline.addEventListener("pointerup", finish);
  timeline.addEventListener("pointercancel", finish);
  // The canvas narrows when the window does or a scrollbar appears; bars must follow or drags miss them.
  new ResizeObserver(() => {
    if (app.layout && timeline.clientWidth !== app.layout.width) layoutTimeline();
  }).observe(timeline);
}

// ---- Keyboard (document-wide; typing in a field is left alone)

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

function onKey(e) {
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

// ---- Start

function route() {
  const match = location.hash.match(/^#\/clip\/(.+)$/);
  (match ? showClipPage(decodeURIComponent(match[1])) : showListPage()).catch(showError);
}

async function start() {
  followVideo();
  followControls();
  followTimeline();
  nameLanes();
  document.addEventListener("keydown", onKey);
  // In-page navigation keeps edits in memory; leaving the page would lose them.
  window.addEventListener("beforeunload", (e) => {
    if (app.dirty) { e.preventDefault(); e.returnValue = ""; }
  });
  window.addEventListener("hashchange", route);
  try {
    await loadAnnotations();
  } catch (err) {
    showError(err);
  }
  renderBar();
  route();
}

start();
