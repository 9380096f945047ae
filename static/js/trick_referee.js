// The trick referee page: taps add cards to the deal, every tap asks the referee (the JSON API; the
// engine in this browser when there is no network: static/js/ask_engine.js) and the verdict is drawn at once. Without this
// script the "Check" button posts the form and the server answers the same way.
(function () {
  "use strict";
  var form = document.getElementById("tr-form");
  if (!form || !window.fetch) return;
  var deal = form.elements.deal, box = document.getElementById("tr-verdict");
  var enter = document.getElementById("tr-enter"), next = document.getElementById("tr-next");
  var asked = 0;
  form.querySelectorAll(".tr-js").forEach(function (el) { el.hidden = false; });

  function players() { return form.elements.players.value.split(",").map(function (p) { return p.trim(); }).filter(Boolean); }
  function tricks() {
    return deal.value.split("/").map(function (t) { return t.trim().split(/[\s,;]+/).filter(Boolean); })
      .filter(function (t) { return t.length; });
  }
  function checked(name) { var el = form.querySelector('input[name="' + name + '"]:checked'); return el ? el.value : ""; }
  function request() {
    var data = { game: form.dataset.game, players: players(), leader: form.elements.leader.value.trim(), tricks: tricks() };
    if (form.dataset.trumps !== undefined) data.trump = checked("trump") || "S";
    return data;
  }
  function line(tag, cls, text, id) {
    var el = document.createElement(tag); if (cls) el.className = cls; el.textContent = text; if (id) el.id = id; return el;
  }

  function draw(answer, local) {
    box.textContent = "";
    var v = answer.body;
    if (enter) enter.hidden = true;
    if (answer.status !== 200) { box.appendChild(line("p", "error", v.error, "tr-error")); return; }
    if (v.legal) {
      box.appendChild(line("p", "tr-yes legal", "\u2713 " + form.dataset.yes, "tr-yes"));
    } else {
      var div = line("div", "tr-answer illegal", "", "tr-answer");
      div.appendChild(line("p", "tr-yes", "\u2717 " + form.dataset.no, "tr-yes"));
      var rule = line("p", "tr-rule", " " + form.dataset.trick + " " + v.trick + ", " + v.player + ": " + (v.card_name || v.card));
      rule.insertBefore(line("strong", "", v.rule, "tr-rule"), rule.firstChild);
      div.appendChild(rule);
      div.appendChild(line("p", "tr-reason", v.reason, "tr-reason"));
      box.appendChild(div);
    }
    var ol = line("ol", "tr-winners", "", "tr-winners");
    v.winners.forEach(function (w, i) {
      ol.appendChild(line("li", "", form.dataset.trick + " " + (i + 1) + ": " + form.dataset.won + " " + w));
    });
    box.appendChild(ol);
    if (v.round) {
      box.appendChild(line("p", "flash ok", form.dataset.complete, "tr-complete"));
      if (enter) enter.hidden = false;
    }
    if (local) box.appendChild(line("p", "muted tr-local", form.dataset.local, "tr-local"));
    // Who plays next: the winner of the last complete trick leads, the others follow in seat order.
    var seats = players(), ts = tricks(), w = v.winners, last = ts.length ? ts[ts.length - 1] : [];
    var complete = last.length >= seats.length;
    var lead = complete ? w[ts.length - 1] : (ts.length >= 2 ? w[ts.length - 2] : request().leader);
    var at = seats.indexOf(lead), inTrick = complete ? 0 : last.length;
    next.textContent = v.legal && !v.round && at >= 0 ? seats[(at + inTrick) % seats.length] + " \u2013 " + form.dataset.playing : "";
  }

  function ask() {
    var n = ++asked, data = request();
    if (!data.tricks.length) { box.textContent = ""; next.textContent = ""; if (enter) enter.hidden = true; return; }
    window.RefereeAsk(form.dataset.api, "tricks", data).then(function (r) { if (n === asked) draw(r.answer, r.local); },
      function () { if (n === asked) { box.textContent = ""; box.appendChild(line("p", "error", form.dataset.offline)); } });
  }

  function add(code) {
    var ts = tricks(), size = players().length || 1;
    var text = ts.map(function (t) { return t.join(" "); }).join(" / ");
    if (!ts.length) text = code;
    else if (ts[ts.length - 1].length >= size) text += " / " + code;
    else text += " " + code;
    deal.value = text;
    ask();
  }

  form.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button");
    if (!btn) return;
    if (btn.classList.contains("tr-rank")) { ev.preventDefault(); add(btn.value + (checked("suit") || "S")); }
    else if (btn.id === "tr-undo") {
      ev.preventDefault();
      var ts = tricks();
      if (!ts.length) return;
      ts[ts.length - 1].pop();
      deal.value = ts.filter(function (t) { return t.length; }).map(function (t) { return t.join(" "); }).join(" / ");
      ask();
    }
  });
  form.addEventListener("change", function (ev) { if (ev.target.name !== "suit") ask(); });
  deal.addEventListener("input", ask);
  if (deal.value.trim()) ask();
})();
