// The timeline under the video: hands, presence, track changes, segments, the current time; click to
// seek, drag a segment bar's edge or body to move it.

import { $, app, clamp, clipSegments, el, MIN_SEGMENT, round3, segmentEnd, segmentStart, timeline, video } from "./state.js?token={{TOKEN}}";
import { edited, select } from "./segments.js?token={{TOKEN}}";
import { seek } from "./player.js?token={{TOKEN}}";

// How near a segment bar's edge (CSS px) a drag moves that edge rather than the whole bar.
const EDGE_GRAB = 6;

// Lanes top to bottom, in CSS px: [top, height].
const LANES = { axis: [0, 16], hands: [18, 12], presence: [33, 22], tracks: [58, 10] };
const SEGMENTS_TOP = 74, SEGMENT_ROW = 22, SEGMENT_BAR = 18;

// The lanes' names, in a column left of the canvas so the canvas's whole width is the clip's time.
export function nameLanes() {
  const names = [["hands", LANES.hands[0]], ["presence", LANES.presence[0] + 5], ["track changes", LANES.tracks[0] - 2],
    ["segments", SEGMENTS_TOP + 3]];
  $("lane-names").replaceChildren(...names.map(([name, top]) => {
    const span = el("span", {}, name);
    span.style.top = `${top}px`;
    return span;
  }));
}

// Places this clip's segments in rows (none overlapping within a row) and sizes the canvas.
export function layoutTimeline() {
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

export function drawTimeline(time = video.currentTime) {
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
export function followTimeline() {
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
