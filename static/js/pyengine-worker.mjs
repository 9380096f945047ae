// The engine's worker: Pyodide and the engine bundle run here, off the page's main thread, so the
// page stays responsive while WebAssembly compiles and Python starts. Messages in: {id, name, data,
// lang}; out: {id, answer} or {id, error}, and {progress} while loading. See static/js/pyengine.js.
let door = null;

// `where`: Pyodide's versioned folder and the engine bundle's versioned URL (static/js/pyengine.js).
async function start(where) {
  const base = new URL(where.base, self.location.href).href;
  const started = performance.now();
  postMessage({ progress: "runtime" });
  const { loadPyodide } = await import(base + "pyodide.mjs");
  const py = await loadPyodide({ indexURL: base });
  postMessage({ progress: "engine" });
  const resp = await fetch(new URL(where.bundle, self.location.href).href);
  if (!resp.ok) throw new Error("engine bundle: " + resp.status);
  py.unpackArchive(await resp.arrayBuffer(), "zip", { extractDir: "/referee_engine" });
  py.runPython("import sys\nsys.path.insert(0, '/referee_engine')\nimport referee.offline.browser");
  const ask = py.pyimport("referee.offline.browser").ask;
  postMessage({ progress: "ready", loadMs: Math.round(performance.now() - started) });
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
