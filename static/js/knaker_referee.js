// Knaker referee page: cards are added, lays started and steps undone here, without a round trip;
// the verdict (and the server's view of the cards) comes from POST /referee/knaker/verdict.
// Without this script every button posts the whole form and the page answers the same way.
(function () {
  "use strict";
  var form = document.getElementById("kr-form");
  if (!form || !window.fetch || !window.FormData) return;

  var pileField = form.elements.pile, laysField = form.elements.lays, historyField = form.elements.history;
  var SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var NAMES = JSON.parse(form.dataset.names || "{}");
  var MAX_HISTORY = 40;
  var asked = 0;  // the number of the latest question: older answers are dropped

  function lays() {
    var text = laysField.value.trim();
    if (!text) return [];
    return text.split(";").map(function (part) {
      var i = part.indexOf(":");
      return { source: part.slice(0, i).trim(), cards: part.slice(i + 1).split(/\s+/).filter(Boolean) };
    });
  }
  function setLays(list) {
    laysField.value = list.map(function (l) { return l.source + ":" + l.cards.join(" "); }).join(";");
  }
  function pile() { return pileField.value.split(/\s+/).filter(Boolean); }
  function history() {
    try { var h = JSON.parse(historyField.value || "[]"); return Array.isArray(h) ? h : []; } catch (e) { return []; }
  }
  function setHistory(h) {
    historyField.value = JSON.stringify(h.slice(-MAX_HISTORY));
    document.getElementById("kr-undo").disabled = h.length === 0;
  }
  function snapshot() { return [pileField.value, laysField.value]; }
  function restore(snap) { pileField.value = snap[0]; laysField.value = snap[1]; }
  function checked(name) { var el = form.querySelector('input[name="' + name + '"]:checked'); return el ? el.value : ""; }

  // --- drawing the cards at once (the server's answer redraws them a moment later) ---
  function chip(code) {
    var span = document.createElement("span"), mine = code.slice(-1) === "*";
    code = code.replace("*", "");
    var rank = code.slice(0, -1), suit = code.slice(-1), joker = rank === "X";
    span.className = "kr-card" + ("HDR".indexOf(suit) >= 0 ? " red" : "") + (mine ? " mine" : "");
    span.dataset.code = code;
    span.textContent = joker ? "\u2605" : rank + SYMBOL[suit];
    span.setAttribute("role", "img");  // said as its name ("spader fem"), as the server draws it
    span.setAttribute("aria-label", NAMES[code] || code);
    return span;
  }
  function sourceLabel(src) {
    var span = form.querySelector('input[name="source"][value="' + src + '"] + span');
    return span ? span.textContent : src;
  }
  function draw() {
    var pileBox = document.getElementById("kr-pile"), laysBox = document.getElementById("kr-lays");
    pileBox.textContent = "";
    pile().forEach(function (code) { pileBox.appendChild(chip(code)); });
    if (!pileBox.children.length) {
      var none = document.createElement("span"); none.className = "muted kr-empty"; none.textContent = form.dataset.empty;
      pileBox.appendChild(none);
    }
    laysBox.textContent = "";
    lays().forEach(function (l) {
      var li = document.createElement("li"), src = document.createElement("span");
      src.className = "kr-src"; src.textContent = sourceLabel(l.source); li.appendChild(src);
      l.cards.forEach(function (code) { li.appendChild(chip(code)); });
      if (!l.cards.length) {
        var next = document.createElement("span"); next.className = "muted kr-empty"; next.textContent = form.dataset.nextLay;
        li.appendChild(next);
      }
      laysBox.appendChild(li);
    });
    var hint = document.getElementById("kr-no-lays");
    if (hint) hint.hidden = laysBox.children.length > 0;
  }

  // The verdict's live region stays the same node: a screen reader reads a live region's changes, not a
  // region put in its place, so the server's fresh box lends its classes and contents to the old one.
  function setVerdict(html) {
    var box = document.getElementById("kr-verdict"), tmp = document.createElement("div");
    tmp.innerHTML = html;
    var fresh = tmp.querySelector("#kr-verdict") || tmp;
    box.className = fresh.className || "kr-verdict";
    box.replaceChildren.apply(box, Array.prototype.slice.call(fresh.childNodes));
  }

  // --- asking the referee ---
  function ask(undoTap) {
    var n = ++asked;
    document.getElementById("kr-verdict").classList.add("kr-busy");
    fetch(form.dataset.verdictUrl, { method: "POST", body: new FormData(form), credentials: "same-origin",
                                     headers: { Accept: "application/json" } })
      .then(function (resp) { if (!resp.ok) throw new Error(resp.status); return resp.json(); })
      .then(function (answer) {
        if (n !== asked) return;
        if (!answer.ok && undoTap) {  // an impossible card: take the tap back, keep the message
          restore(undoTap); var h = history(); h.pop(); setHistory(h);
          draw();
        } else {
          document.getElementById("kr-board").outerHTML = answer.board;
        }
        setVerdict(answer.verdict);
      })
      .catch(function () {
        if (n !== asked) return;
        if (window.RefereeEngine && lays().some(function (l) { return l.cards.length; })) {
          askHere(n);  // no network: the same engine, in this browser
          return;
        }
        var box = document.getElementById("kr-verdict");
        box.classList.remove("kr-busy");
        box.textContent = "";
        var p = document.createElement("p"); p.className = "error"; p.setAttribute("role", "alert");
        p.textContent = form.dataset.offline; box.appendChild(p);
        form.classList.add("kr-offline");  // show the "Ask" button again
      });
  }

  // --- the same question to the engine in this browser (static/js/pyengine.js), offline ---
  function requestJson() {  // as request_json() in referee/pages/referee/knaker_pile.py
    var handicaps = [];
    form.querySelectorAll("input[data-handicap]:checked").forEach(function (el) { handicaps.push(el.name); });
    return {
      pile: pile().map(function (c) { return c.slice(-1) === "*" ? { card: c.slice(0, -1), by: "self" } : c; }),
      lays: lays().filter(function (l) { return l.cards.length; })
        .map(function (l) { return { cards: l.cards, source: l.source }; }),
      source: checked("source") || "hand",
      instick: !!(form.elements.instick && form.elements.instick.checked),
      last_card: !!(form.elements.last_card && form.elements.last_card.checked),
      dots: parseInt(checked("dots") || (form.elements.dots && form.elements.dots.value) || "0", 10) || 0,
      double_deck: !!(form.elements.double_deck && form.elements.double_deck.checked),
      handicaps: handicaps
    };
  }
  function line(cls, text, id) {
    var p = document.createElement("p"); p.className = cls; p.textContent = text;
    if (id) p.id = id;
    return p;
  }
  function askHere(n) {
    var box = document.getElementById("kr-verdict");
    box.textContent = "";
    box.appendChild(line("muted kr-local", form.dataset.loadingEngine, "kr-local"));
    window.RefereeEngine.ask("knaker/play", requestJson()).then(function (answer) {
      if (n !== asked) return;
      box.classList.remove("kr-busy");
      box.textContent = "";
      var v = answer.body;
      if (answer.status !== 200) {
        box.appendChild(line("error kr-error", v.error, "kr-error"));
      } else {
        var div = document.createElement("div");
        div.className = "kr-answer " + (v.legal ? "legal" : "illegal"); div.id = "kr-answer";
        div.appendChild(line("kr-yes", v.legal ? "\u2713 " + form.dataset.yes : "\u2717 " + form.dataset.no, "kr-yes"));
        var rule = line("kr-rule", ""), strong = document.createElement("strong"), span = document.createElement("span");
        strong.id = "kr-rule"; strong.textContent = v.rule; span.id = "kr-rule-text"; span.textContent = " " + v.rule_text;
        rule.appendChild(strong); rule.appendChild(span); div.appendChild(rule);
        div.appendChild(line("kr-reason", v.reason, "kr-reason"));
        box.appendChild(div);
      }
      box.appendChild(line("muted kr-local", form.dataset.localEngine, "kr-local"));
    }).catch(function () {
      if (n !== asked) return;
      box.classList.remove("kr-busy");
      box.textContent = "";
      box.appendChild(line("error", form.dataset.offline));
      form.classList.add("kr-offline");
    });
  }

  function change(apply) {
    var before = snapshot();
    apply();
    if (before[0] === pileField.value && before[1] === laysField.value) return;
    var h = history(); h.push(before); setHistory(h);
    draw();
    return before;
  }

  form.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button");
    if (!btn || btn.type !== "submit") return;
    if (btn.name === "add") {
      ev.preventDefault();
      var value = btn.value, code = value.charAt(0) === "X" ? value : value + (checked("suit") || "S");
      var before = change(function () {
        if (checked("target") === "lay") {
          var list = lays(), source = checked("source") || "hand";
          if (!list.length) list.push({ source: source, cards: [] });
          list[list.length - 1].cards.push(code);
          setLays(list);
        } else {
          pileField.value = pile().concat([code]).join(" ");
        }
      });
      ask(before);
    } else if (btn.value === "new_lay") {
      ev.preventDefault();
      change(function () {
        var list = lays();
        if (list.length && list[list.length - 1].cards.length) { list.push({ source: checked("source") || "hand", cards: [] }); setLays(list); }
      });
      ask(null);
    } else if (btn.value === "undo") {
      ev.preventDefault();
      var h = history();
      if (!h.length) return;
      restore(h.pop()); setHistory(h);
      var list = lays(), radio;
      if (list.length) {  // the source toggle shows the source of the lay being built
        radio = form.querySelector('input[name="source"][value="' + list[list.length - 1].source + '"]');
        if (radio) radio.checked = true;
      }
      draw();
      ask(null);
    }
  });

  form.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t.name === "suit") {
      document.querySelectorAll("#kr-ranks .kr-suit-mark").forEach(function (s) { s.textContent = SYMBOL[t.value]; });
      document.getElementById("kr-ranks").classList.toggle("red", t.value === "H" || t.value === "D");
      return;
    }
    if (t.name === "target" || t.name === "typed") return;
    if (t.name === "source") {  // the source belongs to the lay being built
      var list = lays();
      if (list.length) { list[list.length - 1].source = t.value; setLays(list); draw(); }
    }
    ask(null);
  });

  // Enter in the typed cards adds them (not the first button of the form).
  var typed = document.getElementById("kr-typed");
  if (typed) {
    typed.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { ev.preventDefault(); document.getElementById("kr-type").click(); }
    });
  }
})();
