// Talking to the server: every request carries the token (the routes and JSON are in Sources/Review/API.md).

// Read once: every fetch sends it as a header, media URLs carry it in their query.
const TOKEN = new URLSearchParams(location.search).get("token") || "";

// Resolves to {status, ok, body}; rejects only when the server cannot be reached.
export async function api(path, options = {}) {
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

export function errorText(reply, what) {
  if (reply.status === 401 || reply.status === 403) {
    return "The server refused this page's token: open the address `handpose review` printed, token included.";
  }
  return (reply.body && reply.body.error) || `${what}: the server answered ${reply.status}.`;
}

export async function getJSON(path, what) {
  const reply = await api(path);
  if (!reply.ok) throw new Error(errorText(reply, what));
  return reply.body;
}

export const mediaURL = (path) =>
  "/media/" + path.split("/").map(encodeURIComponent).join("/") + "?token=" + encodeURIComponent(TOKEN);
