// Small progressive enhancements; every page works without them.

// A refused form is answered with its page at the form's address (a round at POST /matches/N/rounds, a 422;
// referee/pages/addresses.py). The live box is on the pages that are a match's, a night's, a tournament's or
// a settlement's page, and names that page (data-page, empty for a GET): the address bar then shows it, so that
// a reload or a shared address opens the page instead of posting the form again.
(function () {
  var box = document.getElementById("live");
  if (!box || !box.dataset.page || !window.history.replaceState) return;
  var page = new URL(box.dataset.page, location.href);
  if (page.pathname + page.search !== location.pathname + location.search) {
    history.replaceState(history.state, "", page.pathname + page.search + location.hash);
  }
})();

// New match: up/down buttons reorder the seats and renumber the hidden seat fields.
RefereeBind.each("#seats", function (list) {
  function renumber() {
    list.querySelectorAll(".seat").forEach(function (li, i) { li.querySelector(".seat-no").value = i; });
  }
  list.addEventListener("click", function (ev) {
    var btn = ev.target.closest("button"); if (!btn) return;
    var li = btn.closest(".seat");
    if (btn.classList.contains("up") && li.previousElementSibling) list.insertBefore(li, li.previousElementSibling);
    if (btn.classList.contains("down") && li.nextElementSibling) list.insertBefore(li.nextElementSibling, li);
    renumber();
  });
  renumber();
});

// Switching the game on the new-match form reloads it with that game's options.
RefereeBind.each("select[data-autosubmit]", function (sel) {
  sel.addEventListener("change", function () {
    var form = sel.form, hidden = document.createElement("input");
    hidden.type = "hidden"; hidden.name = "action"; hidden.value = sel.dataset.autosubmit;
    form.appendChild(hidden); form.submit();
  });
});

// Round form: tapping tricks (0 too: played and bet, SK-9) marks the player as knocked; tapping the chosen
// count again clears it (a radio alone cannot be untapped); "passed" moves the svängare mark. Bound again to the
// fresh form after a live swap (static/js/bind.js).
RefereeBind.each("#round-form", function (form) {
  var counts = 'input[type="radio"][name^="tricks_"]';
  function remember() {
    form.querySelectorAll(counts).forEach(function (r) { r.dataset.was = r.checked ? "1" : ""; });
  }
  remember();
  // A round queued with no network empties the form (form.reset(), which fires no change): a count tapped
  // for the next round is a new tap, not the old one again.
  form.addEventListener("reset", function () { setTimeout(remember, 0); });
  form.addEventListener("click", function (ev) {
    var t = ev.target;
    if (!t.matches || !t.matches(counts)) return;
    var again = t.dataset.was === "1";
    form.querySelectorAll('input[name="' + t.name + '"]').forEach(function (r) { r.dataset.was = ""; });
    if (again) {
      t.checked = false;
      t.dispatchEvent(new Event("change", { bubbles: true }));
    } else {
      t.dataset.was = "1";
    }
  });
  form.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t.name && t.name.indexOf("tricks_") === 0 && t.checked) {
      var knock = form.querySelector('input[name="knock_' + t.name.slice(7) + '"]');
      if (knock) knock.checked = true;
    }
    if (t.id === "passed") {
      form.querySelectorAll(".player-row").forEach(function (row) {
        var sv = t.checked ? form.dataset.passedSvangare : form.dataset.svangare;
        row.classList.toggle("svangare", row.dataset.name === sv);
      });
    }
  });
  // A double tap sends the form once; the one-time token guards the server side too.
  form.addEventListener("submit", function () {
    var b = form.querySelector("#save-round"); if (b) { setTimeout(function () { b.disabled = true; }, 0); }
  });
});
