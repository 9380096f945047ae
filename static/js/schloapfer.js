// Schloapfer: live help on the deal form and the eye counter. The server checks
// everything again (SL-13, SL-2); both pages work without this script.
(function () {
  "use strict";
  var TOTAL = 152;

  function rowValues(form, skipPos) {
    // The deal form's rows as URL parameters (eyes_<seat> / pass_<seat>).
    var out = {};
    form.querySelectorAll("tr.player-row").forEach(function (row) {
      var pos = row.dataset.pos; if (pos === skipPos) return;
      var pass = row.querySelector('input[name="pass_' + pos + '"]');
      var eyes = row.querySelector('input[name="eyes_' + pos + '"]');
      if (pass && pass.checked) out["pass_" + pos] = "on";
      else if (eyes && eyes.value.trim()) out["eyes_" + pos] = eyes.value.trim();
    });
    return out;
  }

  // --- the deal form ---------------------------------------------------------
  RefereeBind.each("form.sl-deal", function (form) {  // again after a live swap (bind.js)
    var left = form.querySelector("#eyes-left-n");
    function recount() {
      var sum = 0;
      form.querySelectorAll("input.sl-eyes-in").forEach(function (inp) {
        var v = inp.value.trim();
        if (!inp.disabled && /^[0-9]+$/.test(v)) sum += parseInt(v, 10);
      });
      if (left) {
        left.textContent = String(TOTAL - sum);
        left.classList.toggle("neg", sum > TOTAL);
      }
    }
    form.addEventListener("input", function (ev) {
      if (ev.target.classList.contains("sl-eyes-in")) recount();
    });
    // A deal queued with no network empties the form (form.reset(): no input or change events): the passed
    // rows open again and the eyes left are counted anew.
    form.addEventListener("reset", function () {
      setTimeout(function () {
        form.querySelectorAll("tr.player-row").forEach(function (row) {
          var pass = row.querySelector('input[name^="pass_"]'), eyes = row.querySelector("input.sl-eyes-in");
          var passed = !!(pass && pass.checked);
          row.classList.toggle("passed", passed);
          if (eyes) eyes.disabled = passed;
        });
        recount();
      }, 0);
    });
    form.addEventListener("change", function (ev) {
      var t = ev.target;
      if (!t.name || t.name.indexOf("pass_") !== 0) return;
      var row = t.closest("tr");
      var eyes = row.querySelector("input.sl-eyes-in");
      row.classList.toggle("passed", t.checked);
      if (eyes) {
        if (t.checked) { eyes.dataset.was = eyes.value; eyes.value = ""; eyes.disabled = true; }
        else { eyes.disabled = false; if (!eyes.value && eyes.dataset.was) eyes.value = eyes.dataset.was; }
      }
      recount();
    });
    // "count" opens the eye counter with what the form holds now, so nothing typed is lost.
    form.addEventListener("click", function (ev) {
      var a = ev.target.closest("a.sl-count"); if (!a) return;
      var row = a.closest("tr"), url = new URL(a.href, location.href);
      Array.from(url.searchParams.keys()).forEach(function (k) {
        if (/^(eyes|pass)_/.test(k)) url.searchParams.delete(k);
      });
      var vals = rowValues(form, row.dataset.pos);
      Object.keys(vals).forEach(function (k) { url.searchParams.set(k, vals[k]); });
      a.href = url.toString();
    });
    recount();
  });

  // --- the eye counter ---------------------------------------------------------
  RefereeBind.each("#eyes-form", function (form) {
    var total = document.getElementById("eyes-total");
    var cardsN = document.getElementById("cards-n");
    var errorBox = document.getElementById("eyes-error");
    var seq = 0;

    function showError(msg) {
      errorBox.textContent = msg || ""; errorBox.hidden = !msg;
    }
    function setTotal(n) {
      total.textContent = n === null ? "–" : String(n);
      document.querySelectorAll("a.carry").forEach(function (a) {
        var url = new URL(a.href, location.href);
        url.searchParams.set(a.dataset.param, n === null ? "" : String(n));
        url.searchParams.delete(a.dataset.param.replace("eyes_", "pass_"));
        a.href = url.toString();
        a.querySelector(".carry-n").textContent = n === null ? "–" : String(n);
      });
    }
    function update() {
      var trumpInput = form.querySelector('input[name="trump"]:checked');
      var trump = trumpInput ? trumpInput.value : "";
      var cards = Array.from(form.querySelectorAll('input[name="card"]:checked')).map(function (c) { return c.value; });
      cardsN.textContent = String(cards.length);
      form.querySelectorAll("[data-suit]").forEach(function (el) {
        el.classList.toggle("trump", el.dataset.suit === trump);
      });
      form.querySelectorAll("small.sl-e").forEach(function (s) { s.textContent = ""; });
      if (!trump) { setTotal(null); return; }
      var mine = ++seq;
      fetch(form.dataset.api, {
        method: "POST", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({cards: cards, trump: trump})
      }).then(function (resp) {
        return resp.json().then(function (body) { return {ok: resp.ok, body: body}; });
      }).then(function (res) {
        if (mine !== seq) return;  // a later tap already asked again
        if (!res.ok) { showError(res.body.error || "?"); return; }
        showError("");
        res.body.cards.forEach(function (c) {
          var s = form.querySelector('small.sl-e[data-card="' + c.card + '"]');
          if (s) s.textContent = String(c.eyes);
        });
        setTotal(res.body.total);
      }).catch(function () { /* offline: the Count button still works */ });
    }
    form.addEventListener("change", update);
    if (form.querySelector('input[name="trump"]:checked')) update();
  });
})();
