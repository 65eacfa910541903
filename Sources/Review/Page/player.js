// Playback: the video (or still image) followed frame by frame, the overlay and timeline drawn for the
// keypoint frame shown, seeking and stepping between keypoint frames.

import { $, app, clamp, overlay, publishState, still, video } from "./state.js?token={{TOKEN}}";
import { mediaURL } from "./api.js?token={{TOKEN}}";
import { setStatus } from "./bar.js?token={{TOKEN}}";
import { drawBodies, drawFaces, drawHands, frameAt } from "./keypoints-overlay.js?token={{TOKEN}}";
import { drawTimeline, layoutTimeline } from "./timeline.js?token={{TOKEN}}";

// Without keypoint frames there are no frame times to step between; a thirtieth of a second is a common frame.
const STEP_WITHOUT_FRAMES = 1 / 30;

// The stage shows the clip at up to twice its size; the overlay keeps the clip's pixel size and is
// scaled by CSS, so a landmark (x, y) is at canvas pixel (x * width, y * height).
function fitStage(width, height) {
  overlay.width = width;
  overlay.height = height;
  $("stage").style.setProperty("--clip-width", `${width}px`);
  $("stage").style.setProperty("--clip-aspect", width / height);
}

function drawAt(time) {
  if (!app.clip) return;
  const ctx = overlay.getContext("2d");
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  const frames = app.keypoints ? app.keypoints.frames : [];
  app.drawnFrame = frameAt(frames, time);
  if (app.drawnFrame >= 0) {
    drawBodies(ctx, frames[app.drawnFrame].bodies || [], app.keypoints.bodyBones || []);
    drawFaces(ctx, frames[app.drawnFrame].faces || []);
    drawHands(ctx, frames[app.drawnFrame].hands, app.keypoints.bones);
  }
  renderTime(time);
  drawTimeline(time);
  publishState();
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

export function togglePlay() {
  if (app.clip.kind === "image") return;
  if (video.paused) {
    if (video.ended) video.currentTime = 0;
    video.play().catch((err) => setStatus(`The browser would not play this clip: ${err.message}`, "error"));
  } else video.pause();
}

export function seek(time) {
  video.currentTime = clamp(time, 0, app.duration || video.duration || 0);
}

// Seeks to the next or previous keypoint frame's own t: Chromium keeps media time in microseconds,
// the precision keypoint files write t in, so a seek to t lands inside that frame.
export function stepFrame(delta) {
  if (app.clip.kind === "image") return;
  video.pause();
  const frames = app.keypoints ? app.keypoints.frames : [];
  if (!frames.length) return seek(video.currentTime + delta * STEP_WITHOUT_FRAMES);
  const here = frameAt(frames, video.currentTime);
  seek(frames[clamp(here + delta, 0, frames.length - 1)].t);
}

export function followVideo() {
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
