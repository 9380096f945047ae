// The referee's engine in this browser: the same Python engine as the server, run by Pyodide in a
// worker (static/js/pyengine-worker.mjs), so the page never waits for WebAssembly. `ask()` answers a
// question exactly as the JSON API would: {status, body}. Pages that need answers without a network
// mark an element `data-pyengine-warm`: the engine then starts in idle time after the page's load
// event (and its files are cached for when the network goes). Progress goes to every element with
// `data-pyengine-status` (texts in `data-pyengine-<state>`: loading, ready, failed).
// The script tag (templates/_pyengine.html) names the engine's versioned URLs: data-worker, data-base (Pyodide's
// folder, its version in the path), data-bundle (the engine bundle), data-files (all of them, to keep offline).
(function () {
  "use strict";
  var root = document.documentElement;
  var script = document.currentScript;
  var data = (script && script.dataset) || {};
  var workerUrl = data.worker || "/static/js/pyengine-worker.mjs";
  var where = { base: data.base || "/static/pyodide/", bundle: data.bundle || "/static/pyodide/referee_engine.zip" };
  var worker = null, ready = null, waiting = {}, next = 1;

  function say(state) {
    root.setAttribute("data-pyengine", state);
    document.querySelectorAll("[data-pyengine-status]").forEach(function (el) {
      var t = el.getAttribute("data-pyengine-" + state);
      el.textContent = t || "";
      el.hidden = !t;
    });
  }

  function post(name, data, lang) {
    if (!worker) {
      say("loading");
      worker = new Worker(workerUrl, { type: "module" });
      worker.onmessage = function (ev) {
        var msg = ev.data;
        if (msg.progress) {
          if (msg.progress === "ready") {
            RefereeEngine.loadMs = msg.loadMs;
            RefereeEngine.started = { from: msg.from, phases: msg.phases };  // issue 49: snapshot or normal
            say("ready");
          } else if (msg.progress === "snapshot-kept" || msg.progress === "snapshot-failed") {
            RefereeEngine.snapshot = msg.progress;
          }
          return;
        }
        var w = waiting[msg.id];
        delete waiting[msg.id];
        if (!w) return;
        if (msg.error) { say("failed"); w.reject(new Error(msg.error)); } else w.resolve(msg.answer);
      };
    }
    return new Promise(function (resolve, reject) {
      var id = next++;
      waiting[id] = { resolve: resolve, reject: reject };
      worker.postMessage({ id: id, name: name, data: data, lang: lang, where: where });
    });
  }

  function lang() { return (root.getAttribute("lang") || "en").slice(0, 2); }

  var RefereeEngine = {
    loadMs: null,
    /** How the engine started ({from: "snapshot" | "normal", phases: {name: ms}}), and whether this start's
     *  snapshot was kept for the next page ("snapshot-kept" | "snapshot-failed"): for tests and bench/phone.py. */
    started: null,
    snapshot: null,
    /** Every file the engine needs (versioned URLs), and their bytes on the wire: what a phone keeps offline. */
    files: (data.files || "").split(" ").filter(Boolean),
    bytes: parseInt(data.bytes || "0", 10),
    /** Start the engine now (idempotent); resolves when it can answer. */
    load: function () {
      if (!ready) ready = post(null, null, "en").catch(function (err) { ready = null; throw err; });
      return ready;
    },
    /** Start it in idle time, so that it is ready (and its files cached) before the network goes; not on a phone
     *  that says it saves data (issue 49.2: a start costs CPU and the interpreter's memory while the page lives). */
    warm: function () {
      if (navigator.connection && navigator.connection.saveData) return;
      var go = function () { RefereeEngine.load().catch(function () {}); };
      if (window.requestIdleCallback) window.requestIdleCallback(go, { timeout: 3000 });
      else setTimeout(go, 500);
    },
    /** The API's answer to `name` ("knaker/play", "round/check", …) for `data`: {status, body, ms}. */
    ask: function (name, data, language) {
      return RefereeEngine.load().then(function () { return post(name, data, language || lang()); });
    }
  };
  window.RefereeEngine = RefereeEngine;
  if (document.querySelector("[data-pyengine-warm]")) {
    if (document.readyState === "complete") RefereeEngine.warm();
    else window.addEventListener("load", RefereeEngine.warm);
  }
})();
