// The clip list (#/): one row per clip, sortable, filtered by class; worst detection rate first.

import { $, app, el, publishState } from "./state.js?token={{TOKEN}}";
import { getJSON } from "./api.js?token={{TOKEN}}";
import { showError, statusAtRest } from "./bar.js?token={{TOKEN}}";
import { leaveClipPage } from "./clip-page.js?token={{TOKEN}}";

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

export async function showListPage() {
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

export function renderTable() {
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
