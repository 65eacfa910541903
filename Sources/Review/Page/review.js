// handpose review: the page. Lists clips by how well their hands were found, plays a clip with its
// keypoints drawn over it, and edits the annotation segments on a timeline. Plain JavaScript with no
// framework or build step, because the machines it runs on are offline and nothing is installed: ES
// modules, loaded by index.html as <script type="module">, each importing the others as
// "./NAME.js?token={{TOKEN}}" (the server fills in the token: a module's imports carry no header). The
// routes and JSON it relies on are fixed in the page <-> server contract (Sources/Review/API.md).
// This module starts the page: it routes between the list and a clip's page and wires the controls.

import { $, app } from "./state.js?token={{TOKEN}}";
import { renderBar, setStatus, showError } from "./bar.js?token={{TOKEN}}";
import { followSegmentEditor, loadAnnotations, save } from "./segments.js?token={{TOKEN}}";
import { renderTable, showListPage } from "./clip-list.js?token={{TOKEN}}";
import { showClipPage } from "./clip-page.js?token={{TOKEN}}";
import { followVideo, togglePlay } from "./player.js?token={{TOKEN}}";
import { followTimeline, nameLanes } from "./timeline.js?token={{TOKEN}}";
import { onKey } from "./keys.js?token={{TOKEN}}";

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

// The controls of the bar and the list (the segment editor wires its own).
function followControls() {
  $("play").addEventListener("click", togglePlay);
  $("save").addEventListener("click", save);
  $("reload").addEventListener("click", reloadFromDisk);
  $("class-filter").addEventListener("change", renderTable);
}

// ---- Start

function route() {
  const match = location.hash.match(/^#\/clip\/(.+)$/);
  (match ? showClipPage(decodeURIComponent(match[1])) : showListPage()).catch(showError);
}

async function start() {
  followVideo();
  followControls();
  followSegmentEditor();
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
