// Offline at the table (issue 15): the phone's queue of entries, kept in IndexedDB, sent in order.
//
// Every tap of a round, void, close or payment form becomes an entry with an idempotency key made here, in
// the phone, and stored in IndexedDB *before* the form is first sent; the key goes in the form's
// `form_token`, which the server checks in the write's own transaction. So an entry may be sent again any
// number of times (the connection dropped mid-request, the page was reloaded, two tabs sent it): it is one
// write. Online, with nothing waiting, the form is posted as without JavaScript (errors shown by the server
// next to the field); otherwise it waits in the queue (shown as pending, with the round number it will be)
// and is sent in order as soon as the server answers. Each entry ends saved (struck from the queue),
// refused with its rule, or in conflict with another phone's round (shown with that round); a refused or
// conflicting entry holds back the later entries of its match until the leader fixes or drops it.
// The service worker (/sw.js) keeps the pages for when the network is gone.
(function () {
  "use strict";
  var box = document.getElementById("offline");
  if (!box || !window.indexedDB || !window.fetch || !window.URLSearchParams || !window.DOMParser) return;
  var bar = document.getElementById("offline-bar");
  var line = document.getElementById("offline-line"), said = document.getElementById("offline-said");
  var queueBox = document.getElementById("offline-queue");
  var entriesBox = document.getElementById("offline-entries");
  var nextBox = document.getElementById("offline-next");
  var copyAt = parseInt(document.documentElement.getAttribute("data-offline-copy") || "0", 10);
  // The page this one stands for (referee/pages/addresses.py): the match page also when the address bar shows
  // a refused round's POST address. Entries are filed under it and compared with it, never with the bar.
  var here = box.dataset.page ? new URL(box.dataset.page, location.href).pathname : location.pathname;
  var unreachable = false;
  // How many entries the queue sent just before this page was loaded again (said once, on this page).
  var sentBefore = sessionStorage.getItem("referee-sent");
  sessionStorage.removeItem("referee-sent");
  if (sentBefore) {  // the page reloaded after a send: its line is there at once, so the content does not move down
    line.textContent = t("sent-short", { n: sentBefore });
    bar.hidden = box.hidden = false;
  }

  function t(name, vars) {
    var s = box.getAttribute("data-t-" + name) || "";
    Object.keys(vars || {}).forEach(function (k) { s = s.split("{" + k + "}").join(String(vars[k])); });
    return s;
  }

  if ("serviceWorker" in navigator && box.dataset.sw) {
    navigator.serviceWorker.register(box.dataset.sw, { scope: "/" }).catch(function () {});
  }
  // Issue 44.2: not a secure context (plain http from another machine), so no service worker and no Cache Storage:
  // the leader's page says so in one line (templates/_offline.html), and the offline bar says to keep the page open.
  var secure = window.isSecureContext !== false;
  var insecure = document.getElementById("insecure");
  if (insecure && !secure) insecure.hidden = false;

  // --- the queue in IndexedDB ------------------------------------------------------------------------
  var DB = "referee-offline", STORE = "queue";

  function openDb() {
    return new Promise(function (resolve, reject) {
      var req = indexedDB.open(DB, 1);
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE, { keyPath: "key" }); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }

  function withStore(mode, fn) {
    return openDb().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode), req = fn(tx.objectStore(STORE));
        tx.oncomplete = function () { db.close(); resolve(req ? req.result : undefined); };
        tx.onerror = tx.onabort = function () { db.close(); reject(tx.error); };
      });
    });
  }

  function all() {
    return withStore("readonly", function (s) { return s.getAll(); }).then(function (list) {
      return (list || []).sort(function (a, b) { return a.order - b.order; });
    });
  }
  function put(entry) { return withStore("readwrite", function (s) { return s.put(entry); }); }
  function drop(key) { return withStore("readwrite", function (s) { return s.delete(key); }); }

  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return "q-" + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // --- which forms are queued --------------------------------------------------------------------------
  var KINDS = [
    [/^\/matches\/(\d+)\/rounds$/, "round"],
    [/^\/matches\/(\d+)\/rounds\/(\d+)\/void$/, "void"],
    [/^\/matches\/(\d+)\/close$/, "close"],
    [/^\/nights\/(\d+)\/payments$/, "payment"],
    [/^\/nights\/(\d+)\/payments\/(\d+)\/void$/, "payvoid"]
  ];
  var NIGHT_KINDS = ["payment", "payvoid"];  // entries of the settlement page (a night's), not of a match

  function kindOf(form) {
    if ((form.getAttribute("method") || "").toLowerCase() !== "post") return null;
    var path = new URL(form.action || location.href, location.href).pathname;
    for (var i = 0; i < KINDS.length; i++) {
      var m = path.match(KINDS[i][0]);
      if (m) {
        var kind = KINDS[i][1];
        return { kind: kind, path: path, id: m[1], seq: m[2] ? parseInt(m[2], 10) : null,
                 scope: (NIGHT_KINDS.indexOf(kind) >= 0 ? "n" : "m") + m[1] };
      }
    }
    return null;
  }

  // The page a queued entry belongs to after it is sent (as the service worker's redirect).
  function pageOf(entry) {  // where the server sends it (a closed match stays on its own page, issue 19)
    if (NIGHT_KINDS.indexOf(entry.kind) < 0) return "/matches/" + entry.id;
    // A payment of the leader plan comes back to the leader plan (issue 26), as the server's redirect does.
    var plan = new URLSearchParams(entry.body || "").get("plan");
    return "/nights/" + entry.id + "/settlement" + (plan === "leader" ? "?plan=leader" : "");
  }

  // What was tapped, in the form's own words (the inputs' labels), so the leader recognises the entry.
  function describe(form) {
    var parts = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit" || el.disabled) return;
      var label = el.getAttribute("aria-label") || (el.labels && el.labels[0] ? el.labels[0].textContent : "");
      label = (label || "").replace(/\s+/g, " ").trim();
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked) parts.push(label || el.value);
      } else if (el.tagName === "SELECT") {
        if (el.selectedOptions[0]) parts.push((label ? label + ": " : "") + el.selectedOptions[0].textContent.trim());
      } else if (el.value && el.value.trim()) {
        parts.push((label ? label + ": " : "") + el.value.trim());
      }
    });
    // A form on a listed item (a payment's Void) names the item: which payment it voids.
    var item = form.closest("li"), what = item && item.querySelector(".what");
    if (what) parts.unshift(what.textContent.replace(/\s+/g, " ").trim());
    return parts.join(", ").slice(0, 300);
  }

  function labelOf(e) {
    if (e.kind === "round") {  // in the words of the page it was entered on ("Deal 3" in Schloapfer)
      var noun = e.noun || box.getAttribute("data-t-round") || "";
      return noun.split("{n}").join(String(e.expected || "?"));
    }
    if (e.kind === "void") return t("void", { n: e.seq });
    return t(e.kind);
  }

  // --- taking a tap ----------------------------------------------------------------------------------
  function slots() {
    try { return JSON.parse(sessionStorage.getItem("referee-fix") || "{}"); } catch (err) { return {}; }
  }

  function enqueue(form, k, list, submitter) {
    var waiting = list.filter(function (e) { return e.scope === k.scope; });
    var data = new FormData(form);
    // The tapped button's own value (Knaker's dot buttons) goes with the form, as in a post without JavaScript.
    if (submitter && submitter.name) data.set(submitter.name, submitter.value);
    var key = newKey();
    data.set("form_token", key);
    var fix = slots(), slot = fix[k.path] || null;
    var expected = null;
    if (k.kind === "round") {
      expected = parseInt(data.get("expected_seq"), 10) || null;
      waiting.forEach(function (e) {
        if (e.kind === "round" && e.expected && expected && (!slot || e.order < slot.order)) {
          expected = Math.max(expected, e.expected + 1);
        }
      });
      if (slot && slot.expected) expected = slot.expected;
      if (expected) data.set("expected_seq", String(expected));
    }
    var direct = navigator.onLine && !copyAt && !unreachable && waiting.length === 0;
    var checker = window.RefereeOfflineCheck;
    var checks = !direct && !slot && k.kind === "round" && checker && checker.match.match === parseInt(k.id, 10);
    if (checks) saying(form, t("checking"));  // taken away by the submit handler: stored, refused or not kept
    var checked = checks ? checker.check(form, list, submitter) : Promise.resolve(null);
    return checked.then(function (verdict) {
      if (verdict && verdict.refused) return { refused: verdict.refused };
      var entry = make();
      if (verdict) { entry.after = verdict.after; entry.view = verdict.view; }
      if (slot) { delete fix[k.path]; sessionStorage.setItem("referee-fix", JSON.stringify(fix)); }
      return put(entry).then(function () { return { entry: entry, direct: direct }; });
    });

    function make() { return {
      key: key, order: slot ? slot.order : Date.now() + Math.random() / 2, kind: k.kind, id: k.id, seq: k.seq,
      scope: k.scope, action: k.path, page: here, night: box.dataset.night || "",
      noun: box.getAttribute("data-t-round") || "",
      body: new URLSearchParams(data).toString(), expected: expected, what: describe(form),
      status: direct ? "sent" : "pending", message: "", other: "", created: Date.now()
    }; }
  }

  // The form posted as without JavaScript, with the entry's key (and the tapped button's value, which a
  // scripted submit leaves out); the fields added for it are taken away again at once (the post is built).
  function nativeSubmit(form, values) {
    var added = [];
    Object.keys(values).forEach(function (name) {
      var input = form.querySelector('input[name="' + name + '"]');
      if (!input) {
        input = document.createElement("input");
        input.type = "hidden"; input.name = name; form.appendChild(input);
        added.push(input);
      }
      input.value = values[name];
    });
    HTMLFormElement.prototype.submit.call(form);
    added.forEach(function (input) { input.remove(); });
  }

  function postNatively(form, entry, submitter) {
    var params = new URLSearchParams(entry.body), values = {};
    ["form_token", "expected_seq"].forEach(function (name) { if (params.has(name)) values[name] = params.get(name); });
    if (submitter && submitter.name) values[submitter.name] = submitter.value;
    nativeSubmit(form, values);
  }

  // Online with nothing waiting: the entry is sent at once. Saved (the server's redirect): the page it leads to
  // is opened, with the server's "Round 5 saved". Refused, in conflict or expired (nothing was stored): the
  // same form is posted as without JavaScript, so the server shows its answer at the form, as it always did.
  // Not reached (no answer, 5xx): the entry waits in the queue, shown as pending, and is sent again later.
  function sendNow(form, entry, submitter) {
    sending(entry);
    fetch(entry.action, {
      method: "POST", body: entry.body, credentials: "same-origin", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" }
    }).then(function (r) {
      if (r.type === "opaqueredirect" || (r.status >= 200 && r.status < 300)) {
        return drop(entry.key).then(function () { location.href = pageOf(entry); });
      }
      if (r.status === 429 || r.status >= 500) return waitInQueue();
      return drop(entry.key).then(function () { postNatively(form, entry, submitter); });
    }, waitInQueue);

    function waitInQueue() {
      entry.status = "pending";
      unreachable = true;
      return put(entry).then(function () {
        afterQueued(form, { kind: entry.kind, id: entry.id });
        return refresh();
      }).then(function () {
        setTimeout(flush, 500);  // an answer lost on the way (the round may be saved): asked again at once
      });
    }
  }

  function afterQueued(form, k) {
    sentBefore = null;  // "1 waiting entry was sent and saved" was about the last batch, not this new entry
    form.reset();
    delete form.dataset.liveDirty;
    delete form.dataset.offlineBusy;
    Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) {
      setTimeout(function () { b.disabled = false; }, 0);
    });
    if (k.kind === "void" && here !== "/matches/" + k.id) location.href = "/matches/" + k.id;
  }

  // What the phone is doing while Save is disabled, in the save bar's status line next to the button: the engine
  // in the phone checks the round before it is kept, which takes up to 15 s on a cold phone (issue 29).
  function saying(form, text) {
    var status = form.querySelector("[data-bar-status]");
    if (status) status.textContent = text;
  }

  // The engine in this phone refused the round: said at the form, as the server would, with the taps kept.
  function refusedHere(form, message) {
    var p = document.createElement("p");
    p.className = "error offline-check";
    p.setAttribute("role", "alert");
    p.textContent = message;
    form.insertBefore(p, form.firstChild);
    delete form.dataset.offlineBusy;
    Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) {
      setTimeout(function () { b.disabled = false; }, 0);
    });
    p.scrollIntoView({ block: "center" });
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target, k = kindOf(form);
    if (!k) return;
    if ((k.kind === "close" || k.kind === "payvoid") && !form.querySelector('input[name="confirm"]')) {
      // A close or a payment's void asks once more (issue 19): with a network the server's confirmation page
      // asks (the plain post); with none, the phone asks here and the entry carries the answer.
      if (navigator.onLine && !copyAt && !unreachable) return;
      if (!window.confirm(t(k.kind + "-ask"))) { ev.preventDefault(); return; }
      var yes = document.createElement("input");
      yes.type = "hidden"; yes.name = "confirm"; yes.value = "yes";
      form.appendChild(yes);
    }
    ev.preventDefault();
    if (form.dataset.offlineBusy) return;  // one tap, one entry: a second tap while it is taken is ignored
    form.dataset.offlineBusy = "1";
    var said = form.querySelector(".offline-check");
    if (said) said.remove();
    var submitter = ev.submitter || null;
    all().then(function (list) { return enqueue(form, k, list, submitter); }).then(function (r) {  // stored:
      saying(form, "");
      if (r.refused) { refusedHere(form, r.refused); return; }
      if (r.direct) { sendNow(form, r.entry, submitter); return; }
      afterQueued(form, k);
      // The form stays in view for the next round (issue 42.8); the line at the top says that the entry waits.
      refresh().then(flush);
    }, function () {
      // Not stored (no IndexedDB: private mode, storage full): the form goes as without JavaScript.
      saying(form, "");
      delete form.dataset.offlineBusy;
      var values = {};
      if (submitter && submitter.name) values[submitter.name] = submitter.value;
      nativeSubmit(form, values);
    });
  }, true);

  // --- sending the queue -------------------------------------------------------------------------------
  function messageOf(doc) {
    var found = ["main [role=alert]", "main .error", "main .flash.error", "main h1", "h1"].map(function (sel) {
      return doc.querySelector(sel);
    }).filter(Boolean)[0];
    return found ? found.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function freshToken(entry) {
    return fetch(entry.page, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
      var input = new DOMParser().parseFromString(html, "text/html").querySelector('input[name="csrf_token"]');
      if (!input) return false;
      var params = new URLSearchParams(entry.body);
      params.set("csrf_token", input.value);
      entry.body = params.toString();
      return put(entry).then(function () { return true; });
    });
  }

  // The rounds this phone is sending or has just sent ("match:round"), so that the live stream's news of them
  // is not said to come from another phone (issue 28). Marked before the post: the stream may be faster than
  // the answer. A round that ends in conflict was another phone's, and is shown as such in the queue.
  var mine = {};
  function sending(entry) {
    if (entry.kind === "round" && entry.expected) mine[entry.id + ":" + entry.expected] = Date.now();
  }
  function own(match, round) {
    var at = mine[String(match) + ":" + String(round)];
    return !!at && Date.now() - at < 120000;
  }

  // One entry to the server: "saved", "refused", "conflict", or "offline" (not reached; try again later).
  function send(entry, retried) {
    sending(entry);
    return fetch(entry.action, {
      method: "POST", body: entry.body, credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" }
    }).then(function (r) {
      if (r.status === 429 || r.status >= 500) return "offline";
      if (r.ok) return "saved";
      return r.text().then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        if (r.status === 400 && !retried) {
          return freshToken(entry).then(function (ok) { return ok ? send(entry, true) : refuse(doc); },
                                        function () { return "offline"; });
        }
        if (r.status === 409) {
          entry.status = "conflict";
          entry.message = messageOf(doc);
          var other = entry.expected && doc.querySelector("#round-" + entry.expected + " .what");
          entry.other = other ? other.textContent.replace(/\s+/g, " ").trim() : "";
          return "conflict";
        }
        return refuse(doc);
      });
    }, function () { return "offline"; });

    function refuse(doc) {
      entry.status = "refused";
      entry.message = messageOf(doc);
      return "refused";
    }
  }

  function sendAll() {
    return all().then(function (list) {
      var blocked = {}, saved = 0, changed = 0, reached = true, chain = Promise.resolve();
      list.forEach(function (e) {
        chain = chain.then(function () {
          if (!reached) return;
          if (e.status === "refused" || e.status === "conflict" || blocked[e.scope]) { blocked[e.scope] = true; return; }
          return send(e).then(function (outcome) {
            if (outcome === "offline") { reached = false; return; }
            if (outcome === "saved") { saved += 1; return drop(e.key); }
            if (outcome === "conflict") changed += 1;  // the match moved on elsewhere: the page is stale
            blocked[e.scope] = true;
            return put(e);
          });
        });
      });
      return chain.then(function () { return { saved: saved, changed: changed, reached: reached }; });
    });
  }

  var flushing = null, again = false;
  function flush() {
    if (flushing) { again = true; return flushing; }
    var run = function () { return sendAll(); };
    flushing = (navigator.locks ? navigator.locks.request("referee-queue", run) : run()).then(function (r) {
      unreachable = !r.reached;
      if (unreachable && window.RefereeOfflineCheck) window.RefereeOfflineCheck.start();
      if ((r.saved || r.changed) && !document.querySelector("main form[data-live-dirty]")) {
        if (r.saved) sessionStorage.setItem("referee-sent", String(r.saved));
        location.reload();  // the page as it is now on the server (network first)
        return;
      }
      if (r.saved || r.changed) {  // a form is being filled in: the live page swaps all but it (live.js)
        if (r.saved) sentBefore = String(r.saved);
        document.dispatchEvent(new CustomEvent("live:refresh"));
      }
      return refresh();
    }, function () { return refresh(); }).then(function () {
      flushing = null;
      if (again) { again = false; flush(); }
    });
    return flushing;
  }

  // --- showing it ---------------------------------------------------------------------------------------
  function hhmm(ms) {
    var d = new Date(ms);
    return ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
  }

  function button(text, cls, onTap) {
    var b = document.createElement("button");
    b.type = "button"; b.className = cls; b.textContent = text;
    b.addEventListener("click", onTap);
    return b;
  }

  function formFor(entry) {
    if (entry.page !== here) return null;
    return Array.prototype.find.call(document.querySelectorAll("main form"), function (f) {
      var k = kindOf(f);
      return k && k.path === entry.action;
    }) || null;
  }

  function dropEntry(entry, list) {
    var later = entry.kind === "round" && entry.status === "refused" && entry.expected ? list.filter(function (e) {
      return e.scope === entry.scope && e.kind === "round" && e.order > entry.order && e.expected > entry.expected;
    }) : [];
    return drop(entry.key).then(function () {
      // A refused round never took its number: the rounds entered after it move up by one.
      return Promise.all(later.map(function (e) {
        e.expected -= 1;
        var params = new URLSearchParams(e.body);
        params.set("expected_seq", String(e.expected));
        e.body = params.toString();
        return put(e);
      }));
    });
  }

  function fixEntry(entry, form) {
    var params = new URLSearchParams(entry.body);
    form.reset();
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit") return;
      if (el.type === "radio") el.checked = params.get(el.name) === el.value;
      else if (el.type === "checkbox") el.checked = params.has(el.name);
      else if (params.has(el.name)) el.value = params.get(el.name);
    });
    form.dataset.liveDirty = "1";
    var fix = slots();
    fix[entry.action] = { order: entry.order, expected: entry.expected };
    sessionStorage.setItem("referee-fix", JSON.stringify(fix));
    return drop(entry.key).then(function () {
      form.scrollIntoView({ block: "start" });
    });
  }

  function entryView(e, list, blockedScopes) {
    var li = document.createElement("li");
    var status = e.status === "refused" || e.status === "conflict" ? e.status
      : (blockedScopes[e.scope] ? "blocked" : "pending");
    li.className = "offline-entry " + status;
    li.dataset.key = e.key;
    var head = document.createElement("p");
    var what = document.createElement("strong");
    what.textContent = labelOf(e);
    var tag = document.createElement("span");
    tag.className = "offline-tag";
    tag.textContent = t(status);
    head.appendChild(what); head.appendChild(document.createTextNode(" ")); head.appendChild(tag);
    li.appendChild(head);
    if (e.what) {
      var detail = document.createElement("p");
      detail.className = "offline-what"; detail.textContent = e.what;
      li.appendChild(detail);
    }
    if (e.message) {
      var msg = document.createElement("p");
      msg.className = "offline-message"; msg.setAttribute("role", "alert"); msg.textContent = e.message;
      li.appendChild(msg);
    }
    if (e.other) {
      var other = document.createElement("p");
      other.className = "offline-other"; other.textContent = t("other", { n: e.expected }) + " " + e.other;
      li.appendChild(other);
    }
    if (e.page !== here && status !== "pending") {
      var where = document.createElement("p");
      var link = document.createElement("a");
      link.href = e.page; link.textContent = t("elsewhere");
      where.appendChild(link); li.appendChild(where);
    }
    if (status === "refused" || status === "conflict") {
      var actions = document.createElement("p");
      actions.className = "offline-actions";
      var form = formFor(e);
      if (form) actions.appendChild(button(t("fix"), "offline-fix", function () { fixEntry(e, form).then(refresh); }));
      actions.appendChild(button(t("drop"), "offline-drop danger", function () {
        if (window.confirm(t("drop-ask"))) dropEntry(e, list).then(refresh).then(flush);
      }));
      li.appendChild(actions);
    }
    return li;
  }

  function render(list) {
    var night = box.dataset.night, match = box.dataset.match;
    var waiting = list.length;
    var shown = list.filter(function (e) { return !night || e.night === night; });
    var lines = [], short = [];  // the sentences (a tap away), and the one line they are said in
    if (copyAt) { lines.push(t("copy", { time: hhmm(copyAt) })); short.push(t("copy-short", { time: hhmm(copyAt) })); }
    if (!navigator.onLine) { lines.push(t("offline")); short.push(t("offline-short")); }
    if (!navigator.onLine && !secure) lines.push(t("keep-open"));
    else if (unreachable && waiting) {
      lines.push(t("unreachable"));
      if (navigator.onLine) short.push(t("unreachable-short"));  // "no network" says it already
    }
    if (waiting === 1) lines.push(t("wait-one"));
    else if (waiting > 1) lines.push(t("wait-many", { n: waiting }));
    if (waiting) short.push(t("wait-short", { n: waiting }));
    if (sentBefore) {
      lines.push(sentBefore === "1" ? t("sent-one") : t("sent", { n: sentBefore }));
      short.push(t("sent-short", { n: sentBefore }));
    }
    said.textContent = lines.join(" ");
    if (line.textContent !== short.join(" · ")) line.textContent = short.join(" · ");
    // Issue 42.8: once shown, the line keeps its place for the page's life (invisible with nothing to say), so
    // that nothing below it jumps when the queue is sent; closed again, so that it is one line.
    if (lines.length) bar.dataset.shown = "1";
    bar.hidden = !lines.length && !bar.dataset.shown;
    if (!lines.length) bar.open = false;
    bar.className = "offline-bar" + (!navigator.onLine || copyAt || (unreachable && waiting) ? " is-offline" : "") +
      (lines.length ? "" : " is-quiet");

    var blockedScopes = {};
    entriesBox.replaceChildren.apply(entriesBox, shown.map(function (e) {
      var li = entryView(e, list, blockedScopes);
      if (e.status === "refused" || e.status === "conflict") blockedScopes[e.scope] = true;
      return li;
    }));
    queueBox.hidden = !shown.length;

    var form = match && document.querySelector('main form[action="/matches/' + match + '/rounds"]');
    var rounds = shown.filter(function (e) { return e.kind === "round" && e.id === match && e.expected; });
    if (form && rounds.length) {
      var input = form.querySelector('input[name="expected_seq"]');
      var next = Math.max(parseInt(input && input.value, 10) || 0, rounds[rounds.length - 1].expected + 1);
      nextBox.textContent = t("next", { n: next });
      nextBox.hidden = false;
    } else {
      nextBox.hidden = true;
    }
    var checker = window.RefereeOfflineCheck;
    if (checker && rounds.length && rounds[rounds.length - 1].view) checker.show(rounds[rounds.length - 1].view);
    box.hidden = bar.hidden;
    document.documentElement.setAttribute("data-offline-waiting", String(waiting));
  }

  function refresh() { return all().then(render, function () {}); }

  // --- on load --------------------------------------------------------------------------------------------
  // The form whose answer this page is has been dealt with by the server: saved (data-done) or shown here with
  // its refusal or conflict (data-posted). Any other entry still marked as sent went without an answer: it
  // waits, and its resend is harmless (same key).
  function start() {
    return all().then(function (list) {
      var done = (box.dataset.done || "").split(" "), posted = box.dataset.posted;
      return Promise.all(list.filter(function (e) { return done.indexOf(e.key) >= 0 || e.key === posted; })
        .map(function (e) { return drop(e.key); }));
    }).then(refresh).then(function () {
      if (navigator.onLine) return all().then(function (list) { if (list.length) flush(); });
    });
  }

  // Keep the open night's pages in the service worker's cache (its matches, the settlement, the void pages),
  // each at most once a minute, so that they open without a network even if never opened before.
  function keepNightPages() {
    var sw = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (!sw || copyAt || !navigator.onLine || !box.dataset.night) return;
    var kept;
    try { kept = JSON.parse(sessionStorage.getItem("referee-kept") || "{}"); } catch (err) { kept = {}; }
    var now = Date.now(), urls = [];
    document.querySelectorAll("main a[href]").forEach(function (a) {
      var path = new URL(a.href, location.href).pathname;
      if (/^\/(matches\/\d+(\/rounds\/\d+\/void)?|nights\/\d+(\/settlement)?)$/.test(path) &&
          path !== location.pathname && urls.indexOf(path) < 0 && !(now - (kept[path] || 0) < 60000)) {
        urls.push(path);
        kept[path] = now;
      }
    });
    sessionStorage.setItem("referee-kept", JSON.stringify(kept));
    if (urls.length) sw.postMessage({ type: "keep", urls: urls });
  }

  // The live page fetched this page from the server: it is no longer the offline copy it was loaded as.
  document.addEventListener("live:updated", function (ev) {
    if (!copyAt || !ev.detail || !ev.detail.fresh) return;
    copyAt = 0;
    document.documentElement.removeAttribute("data-offline-copy");
    refresh();
  });
  window.addEventListener("online", function () { unreachable = false; flush(); });
  window.addEventListener("offline", refresh);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) flush(); });
  setInterval(function () {
    all().then(function (list) {
      if (list.some(function (e) { return e.status !== "refused" && e.status !== "conflict"; })) flush();
    }, function () {});
  }, 8000);
  window.RefereeQueue = { all: all, flush: flush, own: own };
  start();
  if (document.readyState === "complete") keepNightPages();
  else window.addEventListener("load", function () { setTimeout(keepNightPages, 300); });
})();
