// The save bar's running summary (issue 19): what was tapped, in one line next to the save button.
// Every checked choice of a round form that carries data-say, grouped by its player row
// ([data-name]); the bar's data-empty text when nothing is tapped. Without JavaScript the bar
// still holds the save button, so nothing depends on this.
(function () {
  function summarise(form, out) {
    var parts = [], byRow = {}, order = [];
    form.querySelectorAll("input[data-say]:checked").forEach(function (input) {
      var row = input.closest("[data-name]"), name = row ? row.dataset.name : "";
      if (!(name in byRow)) { byRow[name] = []; order.push(name); }
      byRow[name].push(input);
    });
    order.forEach(function (name) {
      var inputs = byRow[name], strong = inputs.filter(function (i) { return !i.hasAttribute("data-say-weak"); });
      // A weak choice ("knocked") says nothing more once a strong one ("2 tricks") is tapped in its row.
      var says = (strong.length ? strong : inputs).map(function (i) { return i.dataset.say; });
      parts.push((name ? name + " " : "") + says.join(", "));
    });
    // A typed field that says what it holds (the new stake, SK-13): data-say-value, its value in for {value}.
    form.querySelectorAll("input[data-say-value]").forEach(function (input) {
      if (input.value.trim()) parts.push(input.dataset.sayValue.replace("{value}", input.value.trim()));
    });
    out.textContent = parts.length ? parts.join(" · ") : (out.dataset.empty || "");
    var said = form.querySelector('input[name="said"]');  // sent along: "you had tapped …" (issue 28)
    if (said) said.value = parts.join(" · ");
  }
  RefereeBind.each("form [data-bar-summary]", function (out) {  // and the fresh form's after a live swap
    var form = out.closest("form");
    // app.js's handler (registered first) has already ticked the knock of a player given tricks.
    form.addEventListener("change", function () { summarise(form, out); });
    form.addEventListener("input", function (ev) { if (ev.target.dataset.sayValue) summarise(form, out); });
    // A round queued with no network empties the form (form.reset(), which fires no change): say so.
    form.addEventListener("reset", function () { setTimeout(function () { summarise(form, out); }, 0); });
    summarise(form, out);
  });
})();
// The pinned Save bar's height as --savebar-h on <html> (issue 50.5): the page keeps a focused control clear of
// the bar (thumb.css: scroll-padding-bottom) whatever the text size and however many lines the summary takes.
(function () {
  if (!window.ResizeObserver) return;  // thumb.css's fixed room stands
  var root = document.documentElement;
  RefereeBind.each(".savebar", function (bar) {
    new ResizeObserver(function () {
      if (bar.isConnected) root.style.setProperty("--savebar-h", Math.ceil(bar.getBoundingClientRect().height) + "px");
    }).observe(bar);
  });
})();
