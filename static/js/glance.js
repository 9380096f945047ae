// The numbers of a match page set from the match's state as the API gives it (GET /api/matches/<id> "state";
// the engine's state_json): each box at a glance names what of the state it shows (data-expect: the key;
// data-expect-as: "money" or "count"; data-expect-add: "the next one"), and the balances table its players.
// Two users: live.js, with the state the live stream carries after another phone's change (the page itself is
// fetched less often), and offline_check.js, with the state a round waiting in the phone's queue leads to
// (marked, so that it is not taken for the server's word).
(function () {
  "use strict";

  // An amount of the state ("-12.50") as the page shows money: the page's language, the night's currency.
  // Intl takes the decimal text as it is (no float on the way), as Babel does on the server.
  function money(text, currency, digits) {
    if (typeof text !== "string" || !currency) return null;
    try {
      return new Intl.NumberFormat(document.documentElement.lang || "en", {
        style: "currency", currency: currency, currencyDisplay: "symbol",
        minimumFractionDigits: digits, maximumFractionDigits: digits }).format(text)
        .replace(/\u2212/g, "-");  // Swedish minus as the server's page writes it (Babel: "-2,00 kr")
    } catch (err) { return null; }
  }

  // A marked number says so in words too ("(expected)", shown and read by CSS's ::after, static/css/offline.css):
  // colour and italics alone say nothing to a screen reader or to a colour-blind eye (issue 50.6).
  function put(el, text, mark, note) {
    if (!el || text === null || text === undefined) return;
    el.textContent = String(text);
    if (mark) el.classList.add(mark);
    if (mark && note) el.dataset.note = note;
  }

  // view: the state; how: {currency, digits, mark (a class for what was set, or none), note (its words)}.
  function show(view, how) {
    if (!view) return;
    document.querySelectorAll("main .glance [data-expect]").forEach(function (el) {
      var value = view[el.dataset.expect], as = el.dataset.expectAs;
      if (as === "money") value = money(value, how.currency, how.digits);
      else if (as === "count") value = Array.isArray(value) ? value.length : null;
      else if (el.dataset.expectAdd && typeof value === "number") value += parseInt(el.dataset.expectAdd, 10);
      if (typeof value === "string" || typeof value === "number") put(el, value, how.mark, how.note);
    });
    var balances = view.balances || {};
    document.querySelectorAll("main table.balances[data-money] tr").forEach(function (row) {
      var th = row.querySelector("th"), td = row.querySelector("td"), text = th && balances[th.textContent.trim()];
      var shown = td && money(text, how.currency, how.digits);
      if (!shown) return;
      put(td, shown, how.mark, how.note);
      td.classList.toggle("neg", text.trim().charAt(0) === "-");
      td.classList.toggle("pos", text.trim().charAt(0) !== "-" && /[1-9]/.test(text));
    });
  }

  window.RefereeGlance = { money: money, show: show };
})();
