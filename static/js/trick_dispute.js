// The trick referee's dispute mode: the trick as it lies, tapped card by card (suit row, rank row; the
// suit stays chosen, so following suit is one tap), the card in question tapped in the trick, the facts
// known of that player's hand offered by the referee itself. Every tap asks the referee (the JSON API;
// the engine in this browser when there is no network: static/js/ask_engine.js) and the verdict is drawn under the trick. No rule
// is decided here: which facts matter, the verdict and who wins all come from the engine's answer.
// Without this script the form posts and the server answers from the same engine.
(function () {
  "use strict";
  var form = document.getElementById("td-form");
  if (!form || !window.fetch) return;
  var el = function (id) { return document.getElementById(id); };
  var box = el("td-verdict"), slots = el("td-slots"), trickField = el("td-trick"), known = el("td-known");
  var facts = el("td-facts"), legend = el("td-known-legend"), ranks = el("td-ranks");
  var asked = 0, question = null, names = JSON.parse(form.dataset.names || "{}");
  document.documentElement.classList.add("td-on");
  form.querySelectorAll(".td-js").forEach(function (e) { e.hidden = false; });

  function checked(name) { var e = form.querySelector('input[name="' + name + '"]:checked'); return e ? e.value : ""; }
  function trick() { return trickField.value.split(/[\s,;/]+/).filter(Boolean).map(function (c) { return c.toUpperCase(); }); }
  function players() {
    var boxes = form.querySelectorAll('input[name="players"][type="checkbox"]');
    if (boxes.length) return Array.prototype.filter.call(boxes, function (b) { return b.checked; }).map(function (b) { return b.value; });
    return form.elements.players.value.split(",").map(function (p) { return p.trim(); }).filter(Boolean);
  }
  function leader() { var e = el("td-leader"); return e ? e.value.trim() : checked("leader"); }
  // Who sits at each position of the trick: the leader, then clockwise (the contract's seat order).
  function order() {
    var ps = players(), at = ps.indexOf(leader());
    if (at < 0) return [];
    return ps.map(function (_, i) { return ps[(at + i) % ps.length]; });
  }
  function node(tag, cls, text, id) {
    var e = document.createElement(tag); if (cls) e.className = cls; if (text) e.textContent = text; if (id) e.id = id; return e;
  }
  function label(code) {
    var sym = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" }[code.slice(-1)];
    return sym ? code.slice(0, -1) + sym : code;
  }
  function fill(text, player) { return text.replace("%(player)s", player); }

  function drawSlots() {
    var cards = trick(), seats = order(), n = Math.max(seats.length, cards.length, 1);
    slots.textContent = "";
    for (var i = 0; i < n; i++) {
      var who = seats[i] || "";
      if (i < cards.length) {
        var lab = node("label", "pick td-slot"), input = document.createElement("input"), span = node("span");
        span.setAttribute("aria-hidden", "true");  // the input's name says it in words
        input.type = "radio"; input.name = "card"; input.value = cards[i]; input.checked = cards[i] === question;
        // Said in words ("Anna: spader tio"): a screen reader reads "10♠" as a number and a symbol.
        input.setAttribute("aria-label", (who ? who + ": " : "") + (names[cards[i]] || cards[i]));
        span.appendChild(node("small", "", who));
        span.appendChild(node("b", /[HD]$/.test(cards[i]) ? "red" : "", label(cards[i])));
        lab.appendChild(input); lab.appendChild(span); slots.appendChild(lab);
      } else {
        var empty = node("span", "td-slot td-empty" + (i === cards.length ? " td-next" : ""));
        empty.appendChild(node("small", "", who)); empty.appendChild(node("b", "", "\u2013"));
        slots.appendChild(empty);
      }
    }
    // Cards on the table are greyed out in the rank row of the chosen suit; a full trick takes no more.
    var suit = checked("suit"), full = seats.length && cards.length >= seats.length;
    ranks.querySelectorAll("button").forEach(function (b) {
      var used = !!suit && cards.indexOf(b.value + suit) >= 0;
      b.classList.toggle("td-used", used);
      b.disabled = !suit || full || used;
    });
  }

  function drawFacts(v) {
    var keep = {};
    (v ? v.known : []).forEach(function (k) { keep[k] = true; });
    facts.textContent = "";
    if (!v || !v.facts.length) { known.hidden = true; return; }
    legend.textContent = fill(form.dataset.known, v.player);
    v.facts.forEach(function (f) {
      var lab = node("label", "toggle"), input = document.createElement("input");
      input.type = "checkbox"; input.name = "known"; input.value = f.id; input.checked = !!keep[f.id];
      lab.appendChild(input); lab.appendChild(node("span", "", f.label)); facts.appendChild(lab);
    });
    known.hidden = false;
  }

  function draw(answer, local) {
    box.textContent = "";
    var v = answer.body;
    if (answer.status !== 200) { box.appendChild(node("p", "error", v.error, "td-error")); drawFacts(null); return; }
    var div = node("div", "td-answer " + (v.legal ? "legal" : "illegal"), "", "td-answer");
    var yes = node("p", "td-yes", (v.legal ? "\u2713 " + form.dataset.yes : "\u2717 " + form.dataset.no) + " ", "td-yes");
    yes.appendChild(node("strong", "", v.rule, "td-rule"));
    div.appendChild(yes);
    div.appendChild(node("p", "td-reason", v.reason, "td-reason"));
    if (v.winner) div.appendChild(node("p", "td-won", fill(form.dataset.won, v.winner), "td-won"));
    if (local) div.appendChild(node("p", "muted td-local", form.dataset.local, "td-local"));
    box.appendChild(div);
    drawFacts(v);
  }

  function request() {
    var data = { game: form.dataset.game, players: players(), leader: leader(), trick: trick(),
                 known: Array.prototype.map.call(facts.querySelectorAll("input:checked"), function (b) { return b.value; }) };
    if (question) data.card = question;
    if (form.dataset.trumps !== undefined) data.trump = checked("trump");
    return data;
  }

  function ask() {
    drawSlots();
    var n = ++asked, data = request();
    if (!data.trick.length) { box.textContent = ""; drawFacts(null); return; }
    if (form.dataset.trumps !== undefined && !data.trump) {
      box.textContent = ""; box.appendChild(node("p", "error", form.dataset.trumpFirst, "td-error")); return;
    }
    var failed = function () { if (n === asked) { box.textContent = ""; box.appendChild(node("p", "error", form.dataset.offline)); } };
    window.RefereeAsk(form.dataset.api, "tricks/dispute", data).then(function (r) { if (n === asked) draw(r.answer, r.local); },
                                                                    failed);
  }

  // A new card in question (a card added, one tapped in the trick) starts with nothing known of its hand.
  function setQuestion(code) { question = code; facts.textContent = ""; }

  form.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button");
    if (!btn) return;
    if (btn.classList.contains("td-rank")) {
      ev.preventDefault();
      var cards = trick(), code = btn.value + checked("suit");
      cards.push(code);
      trickField.value = cards.join(" ");
      setQuestion(code);
      ask();
    } else if (btn.id === "td-undo") {
      ev.preventDefault();
      var left = trick().slice(0, -1);
      trickField.value = left.join(" ");
      setQuestion(left.length ? left[left.length - 1] : null);
      ask();
    }
  });
  form.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t.name === "suit") { drawSlots(); return; }
    if (t.name === "card") setQuestion(t.value);
    if (t.name === "trump" && form.dataset.deal) {
      try { sessionStorage.setItem("td-trump:" + form.dataset.deal, t.value); } catch (e) { /* private mode */ }
    }
    ask();
  });
  trickField.addEventListener("input", function () { var c = trick(); setQuestion(c.length ? c[c.length - 1] : null); ask(); });
  form.addEventListener("submit", function (ev) { ev.preventDefault(); ask(); });

  // The trumps of the deal in progress, tapped once for this deal on this phone, stay chosen for its next dispute.
  if (form.dataset.deal && !checked("trump")) {
    var kept = null;
    try { kept = sessionStorage.getItem("td-trump:" + form.dataset.deal); } catch (e) { kept = null; }
    var radio = kept && form.querySelector('input[name="trump"][value="' + kept + '"]');
    if (radio) radio.checked = true;
  }
  question = checked("card") || (trick().length ? trick()[trick().length - 1] : null);
  ask();
})();
