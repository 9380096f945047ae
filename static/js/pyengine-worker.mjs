// The engine's worker: Pyodide and the engine bundle run here, off the page's main thread, so the
// page stays responsive while WebAssembly compiles and Python starts. Messages in: {id, name, data,
// lang}; out: {id, answer} or {id, error}, and {progress} while loading. See static/js/pyengine.js.
const base = new URL("../pyodide/", import.meta.url).href;
let door = null;

async function start() {
  const started = performance.now();
  postMessage({ progress: "runtime" });
  const { loadPyodide } = await import(base + "pyodide.mjs");
  const py = await loadPyodide({ indexURL: base });
  postMessage({ progress: "engine" });
  const resp = await fetch(base + "referee_engine.zip");
  if (!resp.ok) throw new Error("engine bundle: " + resp.status);
  py.unpackArchive(await resp.arrayBuffer(), "zip", { extractDir: "/referee_engine" });
  py.runPython("import sys\nsys.path.insert(0, '/referee_engine')\nimport referee.browser");
  const ask = py.pyimport("referee.browser").ask;
  postMessage({ progress: "ready", loadMs: Math.round(performance.now() - started) });
  return ask;
}

onmessage = async (ev) => {
  const { id, name, data, lang } = ev.data;
  try {
    if (!door) door = start();
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
