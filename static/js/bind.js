// Binding the page's controls, also after the live page swaps its <main> (issue 50, point 1).
//
// live.js swaps the content of <main> when another phone writes; a script that bound its listeners to the
// elements of the page at load would stay on the old ones (a round form whose Save bar says nothing, whose
// taps tick nothing). So every script that binds to elements inside <main> does it through this one hook:
// RefereeBind.each(selector, fn) calls fn(el) for every element matching selector, now and after every swap
// (live.js calls RefereeBind.run() when the new content is in), once per element: a part live.js kept (a form
// someone is filling in) keeps its listeners and is not bound twice.
(function () {
  "use strict";
  var hooks = [];

  function bindOne(hook) {
    document.querySelectorAll(hook.selector).forEach(function (el) {
      if (hook.done.has(el)) return;
      hook.done.add(el);
      hook.fn(el);
    });
  }

  function each(selector, fn) {
    var hook = { selector: selector, fn: fn, done: new WeakSet() };
    hooks.push(hook);
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { bindOne(hook); });
    else bindOne(hook);
  }

  function run() { hooks.forEach(bindOne); }

  window.RefereeBind = { each: each, run: run };
})();
