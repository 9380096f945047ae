// A round tapped with no network, checked by the engine in this phone (issue 16): the same parser and rules as
// the server's page (referee/round_parse, referee/browser.py "round/form", run by static/js/pyengine.js).
// A round the engine refuses is refused at the tap, with its rule, in the page's language, instead of waiting
// in the queue; a legal one waits with the state it leads to, so that the next round is checked against that
// state and the match page shows the state as the leader expects it. Used by static/js/offline.js.
(function () {
  "use strict";
  var box = document.getElementById("offline");
  var raw = box && box.getAttribute("data-match-state");
  if (!raw || !window.RefereeEngine) return;
  var match;
  try { match = JSON.parse(raw); } catch (err) { return; }
  var started = false;
  var engine = window.RefereeEngine;
  // The engine's files (versioned URLs, templates/_pyengine.html), kept in the phone's cache for no network.
  var FILES = engine.files.map(function (u) { return new URL(u, location.href).href; });
  var KEEP = "referee-files";
  var offer = document.getElementById("engine-offer");

  // Whether the engine's files are in the phone's cache: with no network the engine can start only from there
  // (and trying without them would only fail slowly).
  function kept() {
    if (!window.caches || !FILES.length) return Promise.resolve(false);
    return Promise.all(FILES.map(function (u) { return caches.match(u); }))
      .then(function (hits) { return hits.every(Boolean); }, function () { return false; });
  }

  function start() {
    if (started) return Promise.resolve(true);
    return kept().then(function (ok) {
      if (!ok || started) return ok;
      started = true;
      window.RefereeEngine.load().catch(function () { started = false; });
      return true;
    });
  }

  // What the offer says: the button (how big), the progress of a fetch, ready, or failed. The bar moves with every
  // per cent; the status line (a live region, read aloud) only at the start, every 25 % and at the end (issue 50.8:
  // about a hundred "7 %" messages were read out).
  var saidStep = null;
  function say(state, percent) {
    if (!offer) return;
    var button = offer.querySelector("button"), status = offer.querySelector("[role=status]");
    var bar = offer.querySelector("progress");
    offer.hidden = false;
    offer.dataset.state = state;
    button.hidden = state !== "offer" && state !== "failed";
    bar.hidden = state !== "progress";
    if (state === "progress") bar.value = percent;
    var step = state === "progress" ? state + Math.floor((percent || 0) / 25) : state;
    if (step === saidStep) return;
    saidStep = step;
    var shown = state === "progress" ? Math.floor((percent || 0) / 25) * 25 : percent;
    var text = offer.dataset["t" + state.charAt(0).toUpperCase() + state.slice(1)] || "";
    status.textContent = text.split("{percent}").join(String(shown || 0));
  }

  // One file into the cache, read as it comes so that the progress moves; sizes are of the decoded bytes.
  function keepOne(cache, url, progress) {
    return cache.match(url).then(function (hit) {
      if (hit) return;
      return fetch(url, { headers: { "X-Referee-Keep": "1" } }).then(function (resp) {
        if (!resp.ok) throw new Error(url + ": " + resp.status);
        var reader = resp.body.getReader(), chunks = [];
        function pump() {
          return reader.read().then(function (r) {
            if (r.done) return;
            chunks.push(r.value);
            progress(r.value.length);
            return pump();
          });
        }
        return pump().then(function () {
          var headers = new Headers(resp.headers);
          headers.delete("Content-Length");
          headers.delete("Content-Encoding");
          return cache.put(url, new Response(new Blob(chunks), { status: 200, headers: headers }));
        });
      });
    });
  }

  // An older version's files (Pyodide's folder, the bundle, the worker) go once this one is kept.
  function prune(cache) {
    return cache.keys().then(function (requests) {
      return Promise.all(requests.filter(function (r) {
        var path = new URL(r.url).pathname;
        return (path.indexOf("/static/pyodide/") === 0 || path === "/static/js/pyengine-worker.mjs") &&
          FILES.indexOf(r.url) < 0;
      }).map(function (r) { return cache.delete(r); }));
    });
  }

  var fetching = null;
  // Fetch the engine's files into the phone's cache, one after the other, showing the progress.
  function keepFiles() {
    if (fetching) return fetching;
    var raw = parseInt(offer ? offer.dataset.rawBytes : "0", 10) || 1, got = 0;
    say("progress", 0);
    fetching = caches.open(KEEP).then(function (cache) {
      return FILES.reduce(function (chain, url) {
        return chain.then(function () {
          return keepOne(cache, url, function (n) {
            got += n;
            say("progress", Math.min(99, Math.floor(100 * got / raw)));
          });
        });
      }, Promise.resolve()).then(function () { return prune(cache); });
    }).then(function () {
      if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(function () {});
      say("ready");
      engine.warm();  // the phone holds the engine now: started in idle time (issue 49.2)
      return true;
    }, function () {
      fetching = null;
      say("failed");
      return false;
    });
    return fetching;
  }

  // Issue 29: only on this (a leader's) phone, and only when wanted: on its own when the phone says it saves
  // no data (navigator.connection.saveData false), else after asking, with the size. A phone that does not
  // say (no navigator.connection: Safari, Firefox) is asked.
  // Not on a page that is no secure context (issue 44.2: plain http from another machine): the browser gives it no
  // Cache Storage and no service worker, so the phone could not be made ready; the page says why instead.
  function offerFiles() {
    if (!window.isSecureContext || !window.caches || !FILES.length || !navigator.onLine) return;
    kept().then(function (ok) {
      if (ok) return;
      var connection = navigator.connection;
      if (connection && connection.saveData === false) keepFiles();
      else say("offer");
    });
  }
  if (offer) offer.querySelector("button").addEventListener("click", function () { keepFiles(); });

  function fields(form, submitter) {
    var out = {};
    new FormData(form).forEach(function (value, name) {
      if (typeof value === "string" && ["csrf_token", "form_token", "expected_seq"].indexOf(name) < 0) out[name] = value;
    });
    if (submitter && submitter.name) out[submitter.name] = submitter.value;
    return out;
  }

  // The state the next round starts from: the page's, or the one the last waiting round of this match leads to.
  // Null when that cannot be known (an entry refused by the server, or one that waits unchecked).
  function projected(entries) {
    var mine = entries.filter(function (e) { return e.kind === "round" && e.id === String(match.match); });
    if (mine.some(function (e) { return e.status === "refused" || e.status === "conflict"; })) return null;
    var after = mine.filter(function (e) { return e.expected >= match.next; });
    if (!after.length) return { state: match.state, view: null };
    var last = after[after.length - 1];
    if (after.some(function (e) { return !e.after; })) return null;
    return { state: last.after, view: last.view || null };
  }

  // {refused: message} | {after, view} | null (not checked: the engine is not at hand; the server will judge).
  function check(form, entries, submitter) {
    var base = projected(entries);
    if (!base) return Promise.resolve(null);
    var body = { game: match.game, digits: match.digits, state: base.state, players: match.players,
                 form: fields(form, submitter) };
    return start().then(function (ok) {
      if (!ok) return null;
      var asked = window.RefereeEngine.ask("round/form", body);
      var timeout = new Promise(function (resolve) { setTimeout(function () { resolve(null); }, 15000); });
      return Promise.race([asked, timeout]);
    }).then(function (answer) {
      if (!answer) return null;
      if (answer.status === 200) return { after: answer.body.snapshot, view: answer.body.state };
      return { refused: answer.body.error, rule: answer.body.rule || null };
    }, function () { return null; });
  }

  // The page as the leader expects it after the waiting rounds (static/js/glance.js: the boxes at a glance and the
  // balances), marked, so they are not taken for the server's word; then the round form's names.
  function show(view) {
    if (!view || !window.RefereeGlance) return;
    window.RefereeGlance.show(view, { currency: match.currency, digits: match.digits, mark: "offline-expected",
                                    note: box.getAttribute("data-t-expected") });
    var form = document.querySelector("main #round-form[data-svangare]");
    if (!form || typeof view.svangare !== "string") return;
    // The texts naming the svängare or the one the sväng passes to, from their templates ("{name}").
    var bar = form.querySelector("[data-bar-summary]"), passed = form.querySelector("#passed");
    if (bar && bar.dataset.emptyFor) {
      var empty = bar.dataset.emptyFor.split("{name}").join(view.svangare);
      if (bar.textContent === bar.dataset.empty) bar.textContent = empty;
      bar.dataset.empty = empty;
    }
    var label = passed && passed.parentNode.querySelector("span");
    if (passed && passed.dataset.sayFor && typeof view.passed_svangare === "string") {
      passed.dataset.say = passed.dataset.sayFor.split("{name}").join(view.passed_svangare);
      if (label) label.textContent = passed.dataset.say;
    }
    form.dataset.svangare = view.svangare;
    form.dataset.passedSvangare = view.passed_svangare || "";
    var svTag = form.querySelector(".tag.sv"), dealTag = form.querySelector(".player-row th .tag:not(.sv)");
    form.querySelectorAll(".player-row").forEach(function (row) {
      var name = row.dataset.name;
      row.classList.toggle("svangare", name === view.svangare);
      row.classList.toggle("passed-svangare", name === view.passed_svangare);
      var th = row.querySelector("th");
      if (dealTag && name === view.dealer) tagTo(th, dealTag);
      if (svTag && name === view.svangare) tagTo(th, svTag);
    });
  }

  // A tag after the name with a space before it, as the server writes it ("Göran svängar"): with none the
  // name and the tag are one word that cannot wrap, and the row widens the page (issue 28).
  function tagTo(th, tag) {
    if (tag.parentNode === th) return;
    th.appendChild(document.createTextNode(" "));
    th.appendChild(tag);
  }

  window.addEventListener("offline", start);
  if (!navigator.onLine || document.documentElement.hasAttribute("data-offline-copy")) start();
  // Issue 49.2: a phone that holds the engine starts it in idle time (not when it says it saves data: see
  // RefereeEngine.warm), online or not, so that the first round with no network is checked at once.
  function warmIfKept() {
    kept().then(function (ok) { if (ok) engine.warm(); });
  }
  function afterLoad() { setTimeout(offerFiles, 1000); warmIfKept(); }
  if (document.readyState === "complete") afterLoad();
  else window.addEventListener("load", afterLoad);
  window.RefereeOfflineCheck = { check: check, start: start, show: show, match: match, keepFiles: keepFiles };
})();
