// The night page tells a phone that saw the night before what changed since (issue 46.2).
// The phone keeps, per night, the fingerprint and the number of events it last showed (localStorage);
// on its next visit, if the fingerprint differs, it asks the server for the events after that point
// (/nights/<id>/changes, an HTML fragment in the page's language) and shows them above the night.
(function () {
  "use strict";
  function check() {
    var box = document.getElementById("night-seen");
    if (!box || box.dataset.checked) return;
    box.dataset.checked = "1";
    var key = "referee-night-seen-" + box.dataset.night;
    var now = { fingerprint: box.dataset.fingerprint, events: Number(box.dataset.events) };
    var before = null;
    try { before = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { before = null; }
    try { localStorage.setItem(key, JSON.stringify(now)); } catch (e) { /* private mode: nothing kept */ }
    if (!before || !before.fingerprint || before.fingerprint === now.fingerprint) return;
    var url = box.dataset.changes + "?after=" + encodeURIComponent(before.events || 0) +
              "&since=" + encodeURIComponent(before.fingerprint);
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (resp) { return resp.ok ? resp.text() : ""; })
      .then(function (html) { if (html) box.innerHTML = html; })
      .catch(function () { /* offline: the notice waits for the next visit */ });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", check);
  else check();
})();
