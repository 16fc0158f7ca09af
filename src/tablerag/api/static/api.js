// The page's only way to the server: the public /v1 API (relative URLs, so a path prefix works).

export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || `http_${status}`;
    this.detail = err.detail || null;
  }
}

function headers(token, extra = {}) {
  const h = { ...extra };
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch (_) {
    body = null;
  }
  return new ApiError(response.status, body);
}

export async function getJson(path, token) {
  const r = await fetch(path, { headers: headers(token, { Accept: "application/json" }) });
  if (!r.ok) throw await failure(r);
  return r.json();
}

export async function postJson(path, body, token) {
  const r = await fetch(path, {
    method: "POST",
    headers: headers(token, { "Content-Type": "application/json", Accept: "application/json" }),
    body: JSON.stringify(body),
  });
  if (!r.ok) throw await failure(r);
  return r.json();
}

export async function getBlobUrl(path, token) {
  const r = await fetch(path, { headers: headers(token) });
  if (!r.ok) throw await failure(r);
  return URL.createObjectURL(await r.blob());
}

// POST /v1/ask as a server-sent event stream: onEvent(kind, data) for each event. Resolves when
// the stream ends; throws ApiError for an HTTP error and TypeError when the connection fails.
export async function askStream(body, token, onEvent, signal) {
  const r = await fetch("v1/ask", {
    method: "POST",
    headers: headers(token, { "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(body),
    signal,
  });
  if (!r.ok) throw await failure(r);
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let kind = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) onEvent(kind, JSON.parse(data.join("\n")));
    }
  }
}
