// The clip page (#/clip/<path>): the clip, its keypoints and its segments loaded and shown.

import { $, app, el, overlay, publishState, still, video } from "./state.js?token={{TOKEN}}";
import { api, errorText, getJSON, mediaURL } from "./api.js?token={{TOKEN}}";
import { setStatus, showError, statusAtRest } from "./bar.js?token={{TOKEN}}";
import { renderSegments } from "./segments.js?token={{TOKEN}}";

export async function showClipPage(path) {
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

export function leaveClipPage() {
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
