// The hall display's clock and pages (templates/pages/tournament_hall.html, referee/pages/hall.py).
//
// The series' countdown: mm:ss left until the header's data-ends-at (the view's ends_at, ISO 8601 UTC), counted
// here each second from the projector's own clock, so the server is never asked for it. At the time, the clock
// says "Time is up" and every table still playing says "late" in words; it decides nothing. Said in the page's
// polite live region (#announce, outside <main>) only at a few moments the page sees pass (5 minutes left,
// 1 minute left, time up), never every second.
//
// Pages: a hall of more than 16 tables has several sections of tables (data-page), shown one at a time, each for
// TURN ms in turn; the header says which tables are shown. live.js swaps <main> on every change of the night:
// on its "live:updated" the clock and the shown page are put back at once, before the new content is painted.
(function () {
  "use strict";
  var TURN = 12000;
  var shown = 0, turned = Date.now();
  var before = {};  // ends_at -> seconds left at the previous tick, to say each moment once, when it passes

  function pages() {
    var all = document.querySelectorAll(".hall-tables[data-page]");
    if (!all.length) return;
    if (shown >= all.length) shown = 0;
    Array.prototype.forEach.call(all, function (section, i) { section.hidden = i !== shown; });
    var label = document.querySelector(".hall-pages");
    if (label) label.textContent = all[shown].dataset.label;
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }

  function say(text) {
    var region = document.getElementById("announce");
    if (region && text) region.textContent = text;
  }

  function clock() {
    var box = document.querySelector(".hall-clock[data-ends-at]");
    if (!box) return;
    var ends = Date.parse(box.dataset.endsAt);
    if (isNaN(ends)) return;
    var left = Math.max(0, Math.ceil((ends - Date.now()) / 1000));
    var shownLeft = box.querySelector(".hall-left");
    if (left > 0) {
      shownLeft.textContent = two(Math.floor(left / 60)) + ":" + two(left % 60);
    } else {
      shownLeft.textContent = box.dataset.up;
      box.classList.add("up");
      Array.prototype.forEach.call(document.querySelectorAll(".hall-table.on:not(.late)"), function (table) {
        table.classList.add("late");
        var word = table.querySelector("h3 span");
        if (word) word.textContent = box.dataset.late;
      });
    }
    var last = before[box.dataset.endsAt];
    if (last !== undefined) {
      [5, 1, 0].forEach(function (minutes) {
        if (last > minutes * 60 && left <= minutes * 60) say(box.getAttribute("data-said-" + minutes));
      });
    }
    before[box.dataset.endsAt] = left;
  }

  function tick() {
    if (Date.now() - turned >= TURN) { shown += 1; turned = Date.now(); pages(); }
    clock();
  }

  pages();
  clock();
  setInterval(tick, 1000);
  document.addEventListener("live:updated", function () { pages(); clock(); });
})();
