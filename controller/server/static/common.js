// Shared by the pages: the role token, calls to /api/v1, the live stream, card rendering.
// No framework, no build step, nothing fetched from outside this server.
"use strict";
const API = "/api/v1";

function roleToken(page) {
  const params = new URLSearchParams(location.search);
  const key = "cardroom-token-" + page;
  let token = params.get("token");
  if (token) {
    sessionStorage.setItem(key, token);
    params.delete("token");  // keep the secret out of the address bar and the history
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));
  } else {
    token = sessionStorage.getItem(key) || "";
  }
  return token;
}

async function api(token, path, options = {}) {
  const headers = Object.assign({"Authorization": "Bearer " + token}, options.headers || {});
  if (options.body !== undefined && typeof options.body !== "string") {
    headers["Content-Type"] = "application/json";
    options = Object.assign({}, options, {body: JSON.stringify(options.body)});
  }
  const res = await fetch(API + path, Object.assign({}, options, {headers}));
  const type = res.headers.get("content-type") || "";
  const data = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const why = (data && data.error) || res.statusText || "request failed";
    throw new Error(res.status === 401 ? "not signed in: open this page with ?token=..." :
                    res.status === 403 ? "this token's role may not see this page" : why);
  }
  return data;
}

// A live stream with automatic reconnection; onState(message) gets each parsed message.
function liveStream(token, path, onMessage, onStatus) {
  let source = null;
  let retry = 500;
  function open() {
    source = new EventSource(API + path + "?token=" + encodeURIComponent(token));
    source.onopen = () => { retry = 500; onStatus && onStatus(true); };
    source.onmessage = (e) => { onMessage(JSON.parse(e.data)); };
    source.onerror = () => {
      onStatus && onStatus(false);
      source.close();
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 8000);
    };
  }
  open();
  return () => source && source.close();
}

const SUITS = {s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663"};

// One card as an element (four-colour deck); null = face down / not visible.
function cardEl(card, opts = {}) {
  const el = document.createElement("span");
  if (!card) {
    el.className = "card back";
    el.textContent = "\u00a0";
    el.title = "face down";
    return el;
  }
  const rank = card[0] === "T" ? "10" : card[0];
  el.className = "card suit-" + card[1] + (opts.best ? " best" : "") + (opts.dim ? " dim" : "");
  el.textContent = rank + SUITS[card[1]];
  el.dataset.card = card;
  return el;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function chips(n) { return (n === null || n === undefined) ? "" : Number(n).toLocaleString("en-US"); }
