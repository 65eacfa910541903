// The bar at the top, on every page: the status line, the annotation file and its diagnostics, Save.

import { $, app, CHANGED_ON_DISK, el } from "./state.js?token={{TOKEN}}";

export function setStatus(text, kind = "") {
  $("status").textContent = text;
  $("status").className = kind;
}

export function showError(err) {
  setStatus(err.message, "error");
}

// What the status line says when nothing is happening: a refused save stays said until reloaded.
export function statusAtRest() {
  if (!$("reload").hidden) setStatus(CHANGED_ON_DISK, "error");
  else if (app.annotations && !app.annotations.editable) setStatus(`Read-only: ${app.annotations.readOnlyReason}`, "dirty");
  else if (app.dirty) setStatus("Unsaved changes (Ctrl+S saves).", "dirty");
  else setStatus("");
}

export function renderBar() {
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
