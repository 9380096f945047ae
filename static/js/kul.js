// Kul's undo offer (referee/pages/kul_next.py, templates/pages/match_kul.html): one tap voids the deal this phone
// just saved. The offer goes when its seconds are over (data-left-ms, counted by the server from the save), and is
// hidden while the phone is offline or shows a kept copy of the page: an undo is a write that must reach the server
// now (a deal still waiting in the offline queue is taken out of the queue instead). Bound again after the live
// table swaps the page's content (live.js, "live:updated").
(function () {
  "use strict";
  var timer = null;

  function offline() {
    return navigator.onLine === false || document.documentElement.hasAttribute("data-offline-copy");
  }

  function show() {
    var box = document.getElementById("kul-undo");
    if (box) box.hidden = offline();
  }

  function bind() {
    var box = document.getElementById("kul-undo");
    if (timer) { clearTimeout(timer); timer = null; }
    if (!box) return;
    show();
    timer = setTimeout(function () { timer = null; box.remove(); }, parseInt(box.dataset.leftMs, 10) || 0);
    box.addEventListener("submit", function (ev) {  // one tap: a second one while the first is on its way is not sent
      if (box.dataset.sent) { ev.preventDefault(); return; }
      box.dataset.sent = "1";
      if (timer) { clearTimeout(timer); timer = null; }  // the tap came in time: the answer is on its way
    });
  }

  window.addEventListener("online", show);
  window.addEventListener("offline", show);
  document.addEventListener("live:updated", bind);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
