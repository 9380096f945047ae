// Another phone's round while this phone is still tapping (issue 28, point 2). The live stream (live.js) says a
// round of this match was saved elsewhere: the taps in this phone's round form were made for a round that is
// gone. They are taken out of the form (which live.js then swaps for the fresh one, with the new roles) and
// shown apart, from the page's <template id="stale-template"> (templates/pages/_stale_taps.html), with a
// choice: the same round (drop mine) or the next one (post the same taps as the next round, checked by the
// rules like any entry). A round this phone sent itself is never taken for another phone's (RefereeQueue.own).
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !live.dataset.match) return;
  var matchId = parseInt(live.dataset.match, 10);
  var taken = null;

  function roundForm() {
    return document.querySelector('main form[data-live-dirty][action="/matches/' + matchId + '/rounds"]');
  }

  document.addEventListener("live:change", function (ev) {
    var change = ev.detail || {};
    if (change.what !== "round" || change.match !== matchId) return;
    var q = window.RefereeQueue;
    if (q && q.own && q.own(change.match, change.round_no)) return;
    var form = roundForm();
    if (!form) return;
    var bar = form.querySelector("[data-bar-summary]");
    var said = form.querySelector('input[name="said"]');
    var fields = [];
    new FormData(form).forEach(function (value, name) {
      if (typeof value === "string" && ["csrf_token", "form_token", "expected_seq", "said"].indexOf(name) < 0) {
        fields.push([name, value]);
      }
    });
    taken = { said: (said && said.value) || (bar && bar.textContent) || "", fields: fields };
    delete form.dataset.liveDirty;  // not kept: the fresh form comes in its place
  });

  document.addEventListener("live:updated", function () {
    if (!taken) return;
    var shown = taken;
    taken = null;
    var template = document.getElementById("stale-template");
    var form = document.querySelector('main form[action="/matches/' + matchId + '/rounds"]:not(.stale-form)');
    if (!template || !form) return;
    var old = document.getElementById("stale-taps");
    if (old) old.remove();
    var box = template.content.firstElementChild.cloneNode(true);
    var what = box.querySelector(".stale-what");
    what.textContent = shown.said;
    what.hidden = !shown.said;
    var post = box.querySelector("form.stale-form");
    shown.fields.forEach(function (f) {
      var input = document.createElement("input");
      input.type = "hidden"; input.name = f[0]; input.value = f[1];
      post.appendChild(input);
    });
    // "The same round": the box goes, the fresh form stays (no reload needed with a live page).
    // Focus goes to the form, not to <body> with the box (issue 50.2).
    box.querySelector("#stale-drop").addEventListener("click", function (e) {
      e.preventDefault();
      box.remove();
      var first = form.querySelector("input:not([type=hidden]), button");
      if (first) first.focus({ preventScroll: true });
    });
    template.parentNode.insertBefore(box, template);
    box.scrollIntoView({ block: "nearest" });
  });
})();
