// Copy buttons of the settlement's bank details (templates/pages/_pay.html).
// The IBAN and the amount are plain, selectable text without JavaScript; with it, a tap copies
// the exact text a banking app's field takes. navigator.clipboard needs a secure context
// (HTTPS or localhost); elsewhere a hidden textarea and execCommand("copy") do it.
(function () {
  "use strict";

  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "copy-buffer";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(
        function () { return true; },
        function () { return fallback(text); });
    }
    return Promise.resolve(fallback(text));
  }

  // Delegated from the document, so it keeps working after live.js swaps <main>.
  document.addEventListener("click", function (ev) {
    var button = ev.target.closest ? ev.target.closest("button[data-copy]") : null;
    if (!button) return;
    copy(button.dataset.copy).then(function (ok) {
      var box = button.closest(".pay");
      var status = box ? box.querySelector(".copied") : null;
      if (status) status.textContent = ok ? button.dataset.done : button.dataset.failed;
      button.classList.toggle("done", ok);
    });
  });
})();
