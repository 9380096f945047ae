// The referee's engine in this browser: the same Python engine as the server, run by Pyodide.
// Loaded lazily: nothing here runs before the page has painted; `RefereeEngine.warm()` starts the
// download in idle time (so the files are cached for when the network is gone) and `ask()` answers
// a question exactly as the JSON API would: {status, body}. Progress goes to every element with
// `data-pyengine-status` (the first load is about 13 MB; later ones come from the cache).
(function () {
  "use strict";
  var root = document.documentElement;
  var base = root.getAttribute("data-pyodide") || "/static/pyodide/";
  var loading = null;

  function say(state, text) {
    root.setAttribute("data-pyengine", state);
    document.querySelectorAll("[data-pyengine-status]").forEach(function (el) {
      var t = el.getAttribute("data-pyengine-" + state);
      el.textContent = t === null ? (text || "") : t;
      el.hidden = !el.textContent;
    });
  }

  function load() {
    if (loading) return loading;
    var started = performance.now();
    say("loading");
    loading = import(base + "pyodide.mjs")
      .then(function (mod) { return mod.loadPyodide({ indexURL: base }); })
      .then(function (py) {
        say("unpacking");
        return fetch(base + "referee_engine.zip").then(function (resp) {
          if (!resp.ok) throw new Error("engine bundle: " + resp.status);
          return resp.arrayBuffer();
        }).then(function (buf) {
          py.unpackArchive(buf, "zip", { extractDir: "/referee_engine" });
          py.runPython("import sys\nsys.path.insert(0, '/referee_engine')\nimport referee.browser");
          var door = py.pyimport("referee.browser");
          RefereeEngine.loadMs = Math.round(performance.now() - started);
          say("ready");
          return door;
        });
      })
      .catch(function (err) {
        loading = null;  // a later question tries again
        say("failed");
        throw err;
      });
    return loading;
  }

  function lang() { return (root.getAttribute("lang") || "en").slice(0, 2); }

  var RefereeEngine = {
    loadMs: null,
    /** Start loading now (idempotent); resolves when the engine can answer. */
    load: load,
    /** Load in idle time, so that the engine is cached before the network goes. */
    warm: function () {
      var go = function () { load().catch(function () {}); };
      if (window.requestIdleCallback) window.requestIdleCallback(go, { timeout: 3000 });
      else setTimeout(go, 500);
    },
    /** The API's answer to `name` ("knaker/play", "round/check", …) for `data`: {status, body}. */
    ask: function (name, data, language) {
      return load().then(function (door) {
        var t0 = performance.now();
        var answer = JSON.parse(door.ask(name, JSON.stringify(data), language || lang()));
        answer.ms = performance.now() - t0;
        answer.local = true;
        return answer;
      });
    }
  };
  window.RefereeEngine = RefereeEngine;
  if (document.querySelector("[data-pyengine-warm]")) {
    if (document.readyState === "complete") RefereeEngine.warm();
    else window.addEventListener("load", RefereeEngine.warm);
  }
})();
