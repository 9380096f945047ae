// The service worker (issue 15), served as /sw.js by referee/pages/offline.py, which puts SHELL (the
// versioned URLs of the app's styles, scripts, icon and manifest) and VERSION in front of this file.
//
// - Pages: network first, always. A page that arrives is stored in Cache Storage (the HTTP cache keeps
//   nothing: pages are `private, no-store`); only when the network fails is the stored copy served, marked
//   `data-offline-copy` with the time it was saved, so the page says "offline copy from HH:MM" and a stale
//   page never passes for a fresh one.
// - Static files with ?v= or under /static/pyodide/<version>/ (content hashes, immutable): from the cache, else
//   fetched and stored. Other static files: network first, stored as they come, from the cache only when the
//   network fails. The in-browser engine's files are fetched into the cache by the page itself
//   (static/js/offline_check.js, header X-Referee-Keep, with progress), only on a leader's phone that asked.
// - Form posts are never touched: static/js/offline.js sends the round, void, close and payment forms itself
//   (an entry of its queue in IndexedDB, keyed before the first send); other forms go as they are.
// - The API, the live stream and the printed sheets are never cached.
// - No secret in a kept page (issues 25.5, 45.2): the answer itself says whether it holds one, whichever page it
//   is (X-Referee-Secret, referee/pages/secret_pages.py): "parts" is kept without the parts marked
//   <!--secret-->...<!--/secret--> (an edit link and its QR code, a group link, a tournament table's link),
//   "page" never (a group page, whose address is its token; a page that shows a secret unmarked), and an older
//   copy of it goes. This file keeps no list of secret addresses. Each page of a night says which night and what
//   this phone may do there (X-Referee-Night, X-Referee-Right: edit, view, none); when that is less than before
//   (a revoked edit link, the cookie gone), the copies kept with more go.
"use strict";

const SHELL_CACHE = "referee-shell-" + VERSION;
// Copies kept before the pages said whether they hold a secret (the organiser's page, with its tables' links)
// were in "referee-pages": dropped whole when this worker starts.
const PAGES = "referee-pages-2";
const FILES = "referee-files";
const SAVED_AT = "X-Referee-Saved-At";
const NOT_KEPT = /^\/(api|lang)\/|\.(pdf|csv|json)$|^\/sw\.js$/;
const MARKED = /<!--secret-->[\s\S]*?<!--\/secret-->/g;
const HOLDS_SECRET = "X-Referee-Secret";
const NIGHT = "X-Referee-Night";
const RIGHT = "X-Referee-Right";
const RIGHTS = { none: 0, view: 1, edit: 2 };
const ENGINE_VERSIONED = /^\/static\/pyodide\/[0-9a-f]{12}\//;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL_CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => (k.startsWith("referee-shell-") && k !== SHELL_CACHE) ||
      (k.startsWith("referee-pages") && k !== PAGES)).map((k) => caches.delete(k))))
    .then(prunePages)
    .then(() => self.clients.claim()));
});

// Pages kept longer than two weeks are of nights long over: dropped when a new worker starts, and so are copies
// under an address not kept any more.
async function prunePages() {
  const cache = await caches.open(PAGES);
  const old = Date.now() - 14 * 24 * 3600 * 1000;
  for (const request of await cache.keys()) {
    const hit = await cache.match(request, { ignoreVary: true });
    if (!hit || parseInt(hit.headers.get(SAVED_AT) || "0", 10) < old || !keepable(new URL(request.url))) {
      await cache.delete(request, { ignoreVary: true });
    }
  }
}

// The copies of a night's pages kept while this phone could do more there than ``right`` says it can now.
async function dropRight(night, right) {
  const cache = await caches.open(PAGES);
  const now = RIGHTS[right] || 0;
  for (const request of await cache.keys()) {
    const hit = await cache.match(request, { ignoreVary: true });
    if (!hit || (hit.headers.get(NIGHT) === night && (RIGHTS[hit.headers.get(RIGHT)] || 0) > now)) {
      await cache.delete(request, { ignoreVary: true });
    }
  }
}

// A page as it may be kept: without its marked secrets; none (and no older copy) if the server says the page
// itself holds one.
async function storePage(key, response) {
  const cache = await caches.open(PAGES);
  const said = response.headers.get(HOLDS_SECRET);
  if (said && said !== "parts") {
    await cache.delete(key, { ignoreVary: true });
    return;
  }
  const html = (await response.clone().text()).replace(MARKED, "");
  const headers = new Headers(response.headers);
  headers.set(SAVED_AT, String(Date.now()));
  headers.delete("Content-Length");
  await cache.put(key, new Response(html, { status: response.status, statusText: response.statusText, headers }));
}

function keepable(url) {
  return url.origin === self.location.origin && !NOT_KEPT.test(url.pathname) && !url.pathname.startsWith("/static/");
}

async function store(cacheName, key, response) {
  const body = await response.clone().arrayBuffer();
  const headers = new Headers(response.headers);
  headers.set(SAVED_AT, String(Date.now()));
  const cache = await caches.open(cacheName);
  await cache.put(key, new Response(body, { status: response.status, statusText: response.statusText, headers }));
}

async function offlineCopy(request) {
  const url = new URL(request.url);
  const cache = await caches.open(PAGES);
  // Pages vary by the session cookie (Vary: Cookie); the copies in this phone are all of this phone's session.
  const hit = await cache.match(url.href, { ignoreVary: true }) ||
    await cache.match(url.origin + url.pathname, { ignoreVary: true });
  if (!hit) return notSaved();
  const saved = hit.headers.get(SAVED_AT) || "0";
  const html = (await hit.text()).replace(/<html\b/i, '<html data-offline-copy="' + saved + '"');
  const headers = new Headers(hit.headers);
  headers.delete("Content-Length");
  return new Response(html, { status: 200, headers });
}

function notSaved() {
  const html = '<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>referee</title><main style="font:1.1rem system-ui;padding:1rem">' +
    '<p lang="sv">Ingen anslutning, och sidan finns inte sparad i telefonen.</p>' +
    '<p lang="de">Keine Verbindung, und die Seite ist auf diesem Telefon nicht gespeichert.</p>' +
    '<p lang="en">No network, and this page is not saved on this phone.</p><p><a href="/">referee</a></p></main>';
  return new Response(html, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": "default-src 'self'; style-src 'unsafe-inline'" } });
}

async function page(event) {
  const request = event.request;
  try {
    const response = await fetch(request);
    const url = new URL(response.url || request.url);
    const type = response.headers.get("Content-Type") || "";
    const night = response.headers.get(NIGHT), right = response.headers.get(RIGHT);
    const copy = response.status === 200 && type.startsWith("text/html") && keepable(url) ? response.clone() : null;
    // Dropped before the new copy is stored (in order: the drop must not take the page just kept).
    event.waitUntil((night && right !== "edit" ? dropRight(night, right) : Promise.resolve())
      .then(() => copy ? storePage(url.href, copy) : null));
    return response;
  } catch (err) {
    return offlineCopy(request);
  }
}

async function versioned(request) {
  const hit = await caches.match(request.url);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.status === 200) await store(FILES, request.url, response);
  return response;
}

async function fresh(request) {
  try {
    const response = await fetch(request);
    if (response.status === 200) await store(FILES, request.url, response);
    return response;
  } catch (err) {
    const hit = await caches.match(request.url, { ignoreSearch: true });
    if (hit) return hit;
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== "GET" || url.pathname === "/sw.js" || url.pathname.startsWith("/api/")) return;
  if (url.pathname.startsWith("/static/")) {
    if (request.headers.get("X-Referee-Keep")) return;  // the page keeps it itself (static/js/offline_check.js)
    event.respondWith(url.searchParams.has("v") || ENGINE_VERSIONED.test(url.pathname) ? versioned(request) : fresh(request));
    return;
  }
  if (request.headers.get("Accept") === "text/event-stream") return;
  event.respondWith(page(event));
});

// The page asks for the pages of the open night to be kept (its matches, the settlement), so that they open
// without a network even if the leader never opened them before the network went.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "keep" || !Array.isArray(data.urls)) return;
  event.waitUntil(Promise.all(data.urls.slice(0, 40).map(async (href) => {
    const url = new URL(href, self.location.origin);
    if (!keepable(url)) return;
    // A void page changes only when its round is voided: kept once, not fetched again on every visit.
    if (/\/void$/.test(url.pathname) && await caches.match(url.href, { ignoreVary: true })) return;
    try {
      const response = await fetch(url.href, { credentials: "same-origin", headers: { "X-Keep": "1" } });
      if (response.status === 200 && !response.redirected) await storePage(url.href, response);
    } catch (err) { /* offline: the copy already stored stays */ }
  })));
});
