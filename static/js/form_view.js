// The round form in view when a match page loads (issues 42.3, 42.4, 50.3); every page works without it.
//
// - After a save (the note #saved above the next round's form): every player row of the form above the fixed
//   Save bar, scrolled no further than needed, so that the state above the form stays in view when there is room;
//   never past the note (or, with more rows than the screen holds, past the first row). The note is written
//   again once the page has loaded, so that a screen reader announces what was saved.
// - After a refusal: the first wrong field (aria-invalid) and its reason (aria-describedby) in view, above the
//   bar, and the focus on that field (else on the reason), not at the top of the page.
(function () {
  var main = document.querySelector("main");
  // Only a leader's match page, with its round form (a guest's page and every other page are left alone).
  if (!main || !main.querySelector("#round-form, #kn-form, #kul-form")) return;
  var MARGIN = 8;

  function top(el) { return el.getBoundingClientRect().top + window.scrollY; }
  function bottom(el) { return el.getBoundingClientRect().bottom + window.scrollY; }
  function shown(el) { return !!el && el.getClientRects().length > 0 && el.getBoundingClientRect().height > 0; }
  // The band the bars leave free: below the offline bar (sticky), above the Save bar (fixed).
  function band() {
    var bar = document.querySelector(".savebar"), sticky = document.querySelector("#offline-bar:not([hidden])");
    var from = shown(sticky) ? sticky.getBoundingClientRect().bottom : 0;
    var pinned = shown(bar) && getComputedStyle(bar).position === "fixed";  // not at large text (thumb.css)
    var to = pinned ? bar.getBoundingClientRect().top : window.innerHeight;
    return { from: from + MARGIN, to: to - MARGIN };
  }
  // Scroll so that the page from `first` to `last` (page coordinates) lies in the band, scrolled no further
  // than needed and never past `most` (a point above `first` that should stay in view); when `most` to `last`
  // does not fit, never past `first`.
  function show(first, last, most) {
    var b = band(), high = most === undefined ? first : Math.min(most, first);
    var cap = last - high > b.to - b.from ? first - b.from : high - b.from;
    window.scrollTo(0, Math.max(0, Math.min(last - b.to, cap)));
  }

  var note = document.getElementById("saved");
  var wrong = Array.prototype.filter.call(main.querySelectorAll("[aria-invalid=true]"), shown)[0];
  var reason = main.querySelector("#round-error, .row-error [role=alert], .error[role=alert]");

  function afterRefusal() {
    // The field with its reason: the reason may stand above it (SK-8, over the rows) or next to it (the stake).
    var row = wrong ? (wrong.closest(".row-error, tr, li, .sw-row, details") || wrong) : reason;
    show(Math.min(top(row), top(reason || row)), Math.max(bottom(row), bottom(reason || row)));
  }
  function afterSave() {
    var form = main.querySelector("#saved ~ form, #saved ~ section form, #saved ~ * form") ||
      main.querySelector("form[id]");
    if (!form) return;
    var rows = form.querySelector("[data-rows]");
    if (!shown(rows)) rows = form;
    var first = shown(rows.firstElementChild) ? rows.firstElementChild : rows;
    show(top(first), bottom(rows), top(note));
  }
  var place = wrong || reason ? afterRefusal : note ? afterSave : null;
  if (!place) return;
  // The queue's way to the page after a save is location.href to the page itself (static/js/offline.js), which
  // Chrome treats as a reload and scrolls back to where the old page was, after load: not here.
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";
  place();
  // The browser's own scroll to #saved may come after this script: place again at load, unless the leader
  // has scrolled or tapped since.
  var moved = false;
  ["touchstart", "wheel", "keydown"].forEach(function (name) {
    window.addEventListener(name, function () { moved = true; }, { once: true, passive: true });
  });
  window.addEventListener("load", function () { if (!moved) place(); });

  if (wrong || reason) {
    var target = wrong;
    if (wrong && wrong.type === "radio") {  // a group's checked choice, where Tab would land in it
      target = main.querySelector('input[type=radio][name="' + wrong.name + '"]:checked') || wrong;
    }
    if (!target) {
      target = reason;
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    }
    target.focus({ preventScroll: true });
  }
  // What was saved, said once the page has loaded: a status region announces what changes in it, not what it
  // held at load (the note itself is plain text, shown at once, with or without JavaScript).
  var say = document.getElementById("saved-say");
  if (note && say) {
    window.setTimeout(function () { say.textContent = note.textContent.replace(/\s+/g, " ").trim(); }, 300);
  }
})();
