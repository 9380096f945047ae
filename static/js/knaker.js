// Knaker: the big buttons build the game's events in the order things happen.
// The events live in the form's per-player fields (kind_/step_/reason_<seat>, the
// no-JS selects), so "Save game" posts exactly what the selects would; they are
// also kept in localStorage per match and game, because a dot is saved at once
// and reloads the page.
// Bound to the form of the page, and to the fresh one after a live swap (static/js/bind.js).
RefereeBind.each("#kn-form", function (form) {
  "use strict";
  var list = document.getElementById("kn-events");
  var same = document.getElementById("kn-same");
  var save = document.getElementById("kn-save");
  var leftLine = document.getElementById("kn-left");
  var prefix = "knaker:" + form.dataset.match + ":";
  var key = prefix + form.dataset.game;
  var KINDS = ["out", "lost", "disqualified"];
  var rows = Array.prototype.slice.call(form.querySelectorAll(".kn-player"));
  var entries = []; // {pos, kind, reason, tie}: tie = same round of play as the entry before

  function field(pos, name) { return form.querySelector('[name="' + name + "_" + pos + '"]'); }
  function rowOf(pos) { return rows.filter(function (r) { return +r.dataset.pos === pos; })[0]; }
  function nameOf(pos) { return rowOf(pos).dataset.name; }
  function entryOf(pos) { return entries.filter(function (e) { return e.pos === pos; })[0]; }
  function reasonText(reason) { return reason ? list.getAttribute("data-reason-" + reason.replace(/_/g, "-")) || "" : ""; }

  function fromFields() {
    var found = [];
    rows.forEach(function (r) {
      var pos = +r.dataset.pos, kind = field(pos, "kind").value;
      if (KINDS.indexOf(kind) < 0) return;
      var step = parseInt(field(pos, "step").value, 10);
      found.push({pos: pos, kind: kind, reason: field(pos, "reason").value, step: isNaN(step) ? 1000 + pos : step});
    });
    found.sort(function (a, b) { return a.step - b.step || a.pos - b.pos; });
    return found.map(function (e, i) {
      return {pos: e.pos, kind: e.kind, reason: e.reason, tie: i > 0 && found[i - 1].step === e.step};
    });
  }

  function fromStorage() {
    var raw;
    try { raw = JSON.parse(window.localStorage.getItem(key) || "null"); } catch (err) { return null; }
    if (!Array.isArray(raw)) return null;
    var seen = {};
    return raw.filter(function (e) {
      var ok = e && rowOf(e.pos) && KINDS.indexOf(e.kind) >= 0 && !seen[e.pos];
      if (ok) seen[e.pos] = true;
      return ok;
    }).map(function (e, i) {
      return {pos: e.pos, kind: e.kind, reason: e.kind === "lost" ? String(e.reason || "") : "", tie: i > 0 && !!e.tie};
    });
  }

  function store() {
    try {
      window.localStorage.setItem(key, JSON.stringify(entries));
      for (var i = window.localStorage.length - 1; i >= 0; i--) {
        var k = window.localStorage.key(i);
        if (k && k.indexOf(prefix) === 0 && k !== key) window.localStorage.removeItem(k);
      }
    } catch (err) { /* private mode: the fields still hold everything */ }
  }

  function toFields() {
    rows.forEach(function (r) {
      var pos = +r.dataset.pos;
      field(pos, "kind").value = ""; field(pos, "step").value = ""; field(pos, "reason").value = "";
    });
    var step = 0;
    entries.forEach(function (e, i) {
      if (!(e.tie && i > 0)) step += 1;
      field(e.pos, "kind").value = e.kind;
      field(e.pos, "step").value = String(step);
      field(e.pos, "reason").value = e.kind === "lost" ? e.reason : "";
    });
  }

  function words(e) {
    var text = list.dataset[e.kind] || e.kind;
    var why = e.kind === "lost" ? reasonText(e.reason) : "";
    return why ? text + " · " + why : text;
  }

  function button(label, cls, pressed) {
    var b = document.createElement("button");
    b.type = "button"; b.className = cls; b.textContent = label;
    if (pressed !== undefined) b.setAttribute("aria-pressed", pressed ? "true" : "false");
    return b;
  }

  function render() {
    list.textContent = "";
    var step = 0;
    entries.forEach(function (e, i) {
      var tie = e.tie && i > 0;
      if (!tie) step += 1;
      var li = document.createElement("li");
      li.className = tie ? "kn-tie" : "";
      li.dataset.pos = String(e.pos);
      var no = document.createElement("span");
      no.className = "kn-stepno"; no.textContent = tie ? "=" : step + ".";
      var what = document.createElement("span");
      what.className = "kn-what";
      var who = document.createElement("strong"); who.textContent = nameOf(e.pos);
      var how = document.createElement("span"); how.textContent = " " + words(e);
      if (e.kind !== "out") how.className = "kn-lostword";
      what.appendChild(who); what.appendChild(how);
      li.appendChild(no); li.appendChild(what);
      if (i > 0) {
        var t = button(list.dataset.tie, "kn-tie-toggle", tie);
        t.addEventListener("click", function () { e.tie = !e.tie; update(); });
        li.appendChild(t);
      }
      var x = button("✕", "kn-remove");
      x.setAttribute("aria-label", list.dataset.remove + ": " + nameOf(e.pos));
      x.addEventListener("click", function () { entries.splice(entries.indexOf(e), 1); update(); });
      li.appendChild(x);
      list.appendChild(li);
    });

    var left = [];
    rows.forEach(function (r) {
      var pos = +r.dataset.pos, e = entryOf(pos), status = r.querySelector(".kn-status");
      r.classList.toggle("kn-done", !!e);
      status.textContent = e ? words(e) : status.dataset.still;
      if (!e) left.push(r.dataset.name);
    });
    if (left.length > 1) leftLine.textContent = list.dataset.left.replace("@@", left.join(", "));
    else if (left.length === 1) leftLine.textContent = list.dataset.last.replace("@@", left[0]);
    else leftLine.textContent = list.dataset.none;
    save.disabled = left.length > 1;
    save.classList.toggle("primary", left.length <= 1);
    same.disabled = entries.length === 0;
    if (same.disabled) same.setAttribute("aria-pressed", "false");
  }

  function update() { toFields(); store(); render(); }

  function add(pos, kind, reason) {
    if (entryOf(pos)) return;
    var tie = same.getAttribute("aria-pressed") === "true" && entries.length > 0;
    entries.push({pos: pos, kind: kind, reason: reason || "", tie: tie});
    same.setAttribute("aria-pressed", "false");
    update();
  }

  // Start from what the server sent back (a refused save keeps what was tapped), else from storage.
  entries = form.dataset.posted === "1" ? fromFields() : (fromStorage() || fromFields());
  // Disqualification comes from the dots only (a giffelcheat or the 5th dot): drop it when the
  // dot was voided, and a player disqualified by a dot saved just now leaves the game here.
  entries = entries.filter(function (e) { return e.kind !== "disqualified" || rowOf(e.pos).dataset.dq; });
  if (entries.length) entries[0].tie = false;
  rows.forEach(function (r) {
    if (r.dataset.dq && !entryOf(+r.dataset.pos)) entries.push({pos: +r.dataset.pos, kind: "disqualified", reason: "", tie: false});
  });
  update();

  form.addEventListener("click", function (ev) {
    var b = ev.target.closest("button");
    if (!b || b.type !== "button") return;
    var r = b.closest(".kn-player");
    if (!r) return;
    var pos = +r.dataset.pos, reasons = r.querySelector(".kn-reasons"), lost = r.querySelector(".kn-lost");
    if (b.classList.contains("kn-out")) add(pos, "out");
    if (b.classList.contains("kn-lost")) {
      var open = b.getAttribute("aria-expanded") !== "true";
      b.setAttribute("aria-expanded", open ? "true" : "false");
      reasons.hidden = !open;
    }
    if (b.dataset.reason) {
      reasons.hidden = true; lost.setAttribute("aria-expanded", "false");
      add(pos, "lost", b.dataset.reason);
    }
  });
  same.addEventListener("click", function () {
    same.setAttribute("aria-pressed", same.getAttribute("aria-pressed") === "true" ? "false" : "true");
  });
  // One tap sends once; the one-time token guards the server side too.
  form.addEventListener("submit", function () {
    setTimeout(function () {
      form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
    }, 0);
  });
});
