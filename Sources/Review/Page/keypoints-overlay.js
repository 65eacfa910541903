// The overlay: the hands (and bodies) of one keypoint frame drawn over the clip, and which frame that is.

import { clamp, overlay } from "./state.js?token={{TOKEN}}";

// The same colours as `handpose render` (Sources/Rendering/Overlay.swift, "ours").
const HAND_COLORS = { left: "rgb(60,220,255)", right: "rgb(255,90,60)" };

const UNKNOWN_HAND_COLOR = "rgb(200,200,200)";

const BODY_COLOR = "rgb(230,230,230)";

// Keypoint times are written rounded (to the microsecond); a frame counts as shown from 1 ms before its t.
const TIME_TOLERANCE = 0.001;

// Largest t <= time (+ tolerance), by binary search: frames need not be evenly spaced.
export function frameAt(frames, time) {
  const limit = time + TIME_TOLERANCE;
  let lo = 0, hi = frames.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid].t <= limit) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}

// Bodies (extract --body) under the hands, light grey; bones and joints whose landmark is less than half
// visible drawn faint.
export function drawBodies(ctx, bodies, bones) {
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

// Faces (extract --holistic): the mesh's points, small and faint, under the hands.
export function drawFaces(ctx, faces) {
  const W = overlay.width, H = overlay.height;
  const scale = Math.max(1, Math.min(W, H) / 256);
  ctx.fillStyle = BODY_COLOR;
  ctx.globalAlpha = 0.7;
  for (const face of faces) {
    for (const [x, y] of face.landmarks) {
      ctx.beginPath();
      ctx.arc(x * W, y * H, 1 * scale, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  ctx.globalAlpha = 1;
}

export function drawHands(ctx, hands, bones) {
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
