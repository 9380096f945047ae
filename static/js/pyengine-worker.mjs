// The engine's worker: Pyodide and the engine bundle run here, off the page's main thread, so the
// page stays responsive while WebAssembly compiles and Python starts. Messages in: {id, name, data,
// lang}; out: {id, answer} or {id, error}, and {progress} while loading. See static/js/pyengine.js.
//
// Issue 49: a normal start spends ~90 % of its time in CPython starting itself and importing the engine.
// After the first normal start this phone keeps a memory snapshot of that interpreter (Pyodide's
// makeMemorySnapshot, 31.5 MB as it is in Cache Storage: gunzipping it cost ~0.25 s of each start, keyed by Pyodide's versioned folder and the engine
// bundle's versioned URL), and later starts resume from it. A snapshot that is missing, made for another
// engine or Pyodide (a stale key), or refused by loadPyodide is dropped and the start is a normal one.
// Nothing of the engine's rules is in JavaScript: the snapshot is the same Python, imported.
let door = null;
const SNAPSHOTS = "referee-engine-snapshot";

// The snapshot's key: one per Pyodide build and engine bundle (both URLs carry their version).
function snapshotKey(where) {
  const u = new URL("engine-snapshot", new URL(where.base, self.location.href));
  u.searchParams.set("bundle", new URL(where.bundle, self.location.href).pathname);
  return u.href;
}

async function readSnapshot(key) {
  if (!self.caches) return null;
  try {
    const hit = await (await caches.open(SNAPSHOTS)).match(key);
    if (!hit) return null;
    return new Uint8Array(await hit.arrayBuffer());
  } catch (err) {
    return null;
  }
}

// Keep this start's interpreter for the next one (and drop every other snapshot: another engine's or Pyodide's).
async function keepSnapshot(py, key) {
  if (!self.caches) return;
  try {
    const bytes = py.makeMemorySnapshot();
    const cache = await caches.open(SNAPSHOTS);
    for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
    await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
    postMessage({ progress: "snapshot-kept", bytes: bytes.length });
  } catch (err) {
    postMessage({ progress: "snapshot-failed", why: String(err) });
  }
}

async function dropSnapshot(key) {
  try { await (await caches.open(SNAPSHOTS)).delete(key); } catch (err) { /* nothing kept */ }
}

// `where`: Pyodide's versioned folder and the engine bundle's versioned URL (static/js/pyengine.js).
async function start(where) {
  const base = new URL(where.base, self.location.href).href;
  const started = performance.now();
  const phases = {};
  let mark = started;
  const phase = (name) => { const now = performance.now(); phases[name] = Math.round(now - mark); mark = now; };
  postMessage({ progress: "runtime" });
  const { loadPyodide } = await import(base + "pyodide.mjs");
  phase("script");
  const key = snapshotKey(where);
  const snapshot = await readSnapshot(key);
  phase("snapshot_read");
  let py = null, from = "normal";
  if (snapshot) {
    try {
      py = await loadPyodide({ indexURL: base, _loadSnapshot: snapshot });
      from = "snapshot";
    } catch (err) {
      await dropSnapshot(key);  // refused: the next start makes a fresh one
      py = null;
    }
  }
  if (!py) py = await loadPyodide({ indexURL: base, _makeSnapshot: self.caches !== undefined });
  phase("pyodide");
  postMessage({ progress: "engine" });
  const resp = await fetch(new URL(where.bundle, self.location.href).href);
  if (!resp.ok) throw new Error("engine bundle: " + resp.status);
  // The bundle's files (the translations the engine reads, any module imported late) are in no snapshot.
  py.unpackArchive(await resp.arrayBuffer(), "zip", { extractDir: "/referee_engine" });
  phase("bundle");
  if (from === "normal") py.runPython("import sys\nsys.path.insert(0, '/referee_engine')\nimport referee.offline.browser");
  const ask = py.pyimport("referee.offline.browser").ask;
  phase("import");
  const loadMs = Math.round(performance.now() - started);
  postMessage({ progress: "ready", loadMs, from, phases });
  // Kept for the next page after a normal start, once the questions already waiting are answered (they resume
  // before this timer): making it takes ~0.1 s here, packing it runs off this thread.
  if (from === "normal" && self.caches) setTimeout(() => keepSnapshot(py, key), 0);
  return ask;
}

onmessage = async (ev) => {
  const { id, name, data, lang, where } = ev.data;
  try {
    if (!door) door = start(where);
    const ask = await door;
    if (name === null) { postMessage({ id, answer: null }); return; }
    const t0 = performance.now();
    const answer = JSON.parse(ask(name, JSON.stringify(data), lang));
    answer.ms = performance.now() - t0;
    postMessage({ id, answer });
  } catch (err) {
    door = null;  // a later question tries again
    postMessage({ id, error: String(err) });
  }
};
