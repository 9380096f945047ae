// Schwimmen / 31: the card picker, used cards greyed, each hand's value live.
// Progressive only: the picker just fills the per-player text fields ("AC KC 9C")
// that the form sends anyway, and the server computes the values and losers when
// the game is saved. The preview counts as SW-2/SW-3 do.
(function () {
  "use strict";
  var SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var LETTER = { "\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C" };
  var ORDER = { D: 0, H: 1, S: 2, C: 3 };  // clubs > spades > hearts > diamonds
  var RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  var DECK_RANKS = { 32: RANKS.slice(5), 36: RANKS.slice(4), 52: RANKS };

  function value(rank) { return rank === "A" ? 11 : (rank === "K" || rank === "Q" || rank === "J") ? 10 : parseInt(rank, 10); }

  // The same reading of typed cards as the server's (round_forms/schwimmen.py, card_codes).
  function codes(text) {
    var out = [];
    var cleaned = text.slice(0, 60).replace(/[\u2660\u2665\u2666\u2663]/g, function (s) { return LETTER[s]; });
    cleaned.trim().split(/[\s,;/]+/).forEach(function (tok) {
      if (!tok) return;
      var up = tok.toUpperCase(), re = /(10|[2-9JQKAT])([SHDC])|([SHDC])(10|[2-9JQKAT])/g, m, found = [], joined = "";
      while ((m = re.exec(up)) !== null) {
        joined += m[0];
        var rank = m[1] || m[4], suit = m[2] || m[3];
        found.push((rank === "T" ? "10" : rank) + suit);
      }
      if (found.length && joined === up) { out.push.apply(out, found); } else { out.push(tok); }
    });
    return out;
  }

  function card(code) { return { rank: code.slice(0, -1), suit: code.slice(-1), code: code }; }

  // A text with the suit symbols, hearts and diamonds in red (DOM nodes, no HTML parsing).
  function suited(el, text) {
    el.textContent = "";
    text.split(/([\u2665\u2666])/).forEach(function (part) {
      if (!part) return;
      if (part === SYMBOL.H || part === SYMBOL.D) {
        var s = document.createElement("span"); s.className = "suit-red"; s.textContent = part; el.appendChild(s);
      } else { el.appendChild(document.createTextNode(part)); }
    });
  }

  function half(h) { return h % 2 ? Math.floor(h / 2) + "\u00bd" : String(h / 2); }

  // "♣ A K 9 = 30" for three cards (SW-2, SW-3; Feuer = three aces = 32 when on).
  function explain(cards, feuer) {
    var ranks = cards.map(function (c) { return c.rank; });
    if (ranks[0] === ranks[1] && ranks[1] === ranks[2]) {
      if (ranks[0] === "A" && feuer) return ranks.join(" ") + " (Feuer) = 32";
      return ranks.join(" ") + " (three of a kind) = 30\u00bd";
    }
    var totals = { S: 0, H: 0, D: 0, C: 0 }, best = null;
    cards.forEach(function (c) { totals[c.suit] += value(c.rank); });
    Object.keys(totals).forEach(function (s) {
      if (best === null || totals[s] > totals[best] || (totals[s] === totals[best] && ORDER[s] > ORDER[best])) best = s;
    });
    var scoring = cards.filter(function (c) { return c.suit === best; }).sort(function (a, b) {
      return value(b.rank) - value(a.rank) || RANKS.indexOf(b.rank) - RANKS.indexOf(a.rank);
    });
    return SYMBOL[best] + " " + scoring.map(function (c) { return c.rank; }).join(" ") + " = " + half(2 * totals[best]);
  }

  // What the preview says about one hand's text: its value, or what is missing or wrong.
  // ``words`` are the page's translations: {notcard: "not in this deck", twice: "twice"}.
  function preview(list, deck, feuer, words) {
    if (!list.length) return "";
    var ranks = DECK_RANKS[deck] || DECK_RANKS[32];
    for (var i = 0; i < list.length; i++) {
      var c = card(list[i]);
      if (ranks.indexOf(c.rank) < 0 || !SYMBOL[c.suit]) return list[i] + ": " + words.notcard;
      if (list.indexOf(list[i]) !== i) return list[i] + ": " + words.twice;
    }
    if (list.length !== 3) return list.length + "/3";
    return explain(list.map(card), feuer);
  }

  // --- the game form ----------------------------------------------------------
  document.querySelectorAll("form.sw-form").forEach(function (form) {
    // A refused game comes back as the whole page: show the error, not the top of the page.
    var error = form.querySelector(".error[role=alert]");
    if (error) error.scrollIntoView({ block: "center" });
  });
  RefereeBind.each("form.sw-form", function (form) {  // and the fresh form after a live swap (bind.js)
    var picker = form.querySelector(".sw-picker");
    var rows = Array.prototype.slice.call(form.querySelectorAll(".sw-hand"));
    if (!picker || !rows.length) return;
    var deck = parseInt(form.dataset.deck, 10), feuer = form.dataset.feuer === "on";
    var words = { notcard: form.dataset.tNotcard || "?", twice: form.dataset.tTwice || "2x" };
    form.classList.add("sw-js-on");
    picker.hidden = false;
    var active = 0;

    function input(i) { return rows[i].querySelector("input"); }
    function hand(i) { return codes(input(i).value); }

    function activate(i) {
      active = i;
      rows.forEach(function (r, k) { r.classList.toggle("active", k === i); });
      refresh();
    }

    function refresh() {
      var owner = {};
      rows.forEach(function (r, i) {
        var list = hand(i);
        list.forEach(function (code) { if (!(code in owner)) owner[code] = i; });
        var out = r.querySelector(".sw-live"), text = preview(list, deck, feuer, words);
        suited(out, text);
        out.classList.toggle("done", list.length === 3);
      });
      picker.querySelectorAll(".sw-card").forEach(function (b) {
        var who = owner[b.dataset.card];
        var mine = who === active, used = who !== undefined && !mine;
        b.classList.toggle("mine", mine);
        b.classList.toggle("used", used);
        b.disabled = used;
        b.setAttribute("aria-pressed", mine ? "true" : "false");
      });
    }

    picker.addEventListener("click", function (ev) {
      var b = ev.target.closest(".sw-card");
      if (!b || b.disabled) return;
      var list = hand(active), code = b.dataset.card, at = list.indexOf(code);
      if (at >= 0) { list.splice(at, 1); } else if (list.length < 3) { list.push(code); } else { return; }
      input(active).value = list.join(" ");
      if (list.length === 3) {
        for (var k = 1; k <= rows.length; k++) {
          var next = (active + k) % rows.length;
          if (hand(next).length < 3) { activate(next); return; }
        }
      }
      refresh();
    });

    rows.forEach(function (r, i) {
      // Tapping the name chooses the hand without opening the keyboard; typing still works in the field.
      r.querySelector("label").addEventListener("click", function (ev) { ev.preventDefault(); activate(i); });
      input(i).addEventListener("focus", function () { if (active !== i) activate(i); });
      input(i).addEventListener("input", refresh);
    });

    var first = 0;
    while (first < rows.length - 1 && hand(first).length >= 3) first++;
    activate(first);
  });

  // --- the hand-value page ------------------------------------------------------
  document.querySelectorAll("form.sw-ref-form").forEach(function (form) {
    var result = document.getElementById("sw-result");
    var boxes = Array.prototype.slice.call(form.querySelectorAll('input[name="card"]'));

    function limit() {
      var full = boxes.filter(function (b) { return b.checked; }).length >= 3;
      boxes.forEach(function (b) { b.disabled = full && !b.checked; });
    }

    // Quick taps send several questions at once and their answers may come back in any order: only the
    // answer to the latest question is shown, so an older one cannot overwrite the value of three cards.
    var asked = 0;
    function update() {
      limit();
      var n = ++asked;
      var params = new URLSearchParams(new FormData(form));
      params.set("fragment", "1");
      fetch(form.action + "?" + params.toString(), { headers: { Accept: "text/html" } })
        .then(function (resp) { return resp.ok ? resp.text() : Promise.reject(resp.status); })
        .then(function (html) {
          if (n !== asked) return;
          result.innerHTML = html;
          history.replaceState(null, "", form.action + "?" + new URLSearchParams(new FormData(form)).toString());
        })
        .catch(function () { if (n === asked) form.submit(); });
    }

    form.addEventListener("change", function (ev) {
      if (ev.target.name === "deck") {  // another deck: other cards; keep the chosen ones it has
        var ranks = DECK_RANKS[ev.target.value] || DECK_RANKS[32];
        boxes.forEach(function (b) { if (ranks.indexOf(b.value.slice(0, -1)) < 0) b.checked = false; b.disabled = false; });
        form.submit();
        return;
      }
      update();
    });
    form.classList.add("sw-js-on");
    limit();
  });
})();
