// The live table: follow the night's Server-Sent Events stream (GET /api/nights/<id>/live) and
// update the page in place when another phone writes. No framework; pages work without it.
//
// On a change that concerns this page, the page is fetched again and the content of <main> is
// swapped for the new one, except any part holding a form someone has started to fill in: that
// part stays as it is (what is being tapped is never lost) and a notice says what happened.
// After the swap the controls of the new content are bound (static/js/bind.js: RefereeBind.run(), the one hook
// every script that binds inside <main> goes through), focus is put back on the same control (or the nearest
// thing that is still there, never <body>), and what changed is said in the page's polite live region
// (#announce, outside <main>). Then "live:updated" is dispatched on document.
(function () {
  "use strict";
  var box = document.getElementById("live");
  if (!box || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var version = parseInt(box.dataset.version, 10) || 0;
  var matchId = box.dataset.match ? parseInt(box.dataset.match, 10) : null;
  var busy = false, again = false;
  // A page that follows the whole night (no data-match: the night's and the tournament's pages, the hall
  // display, a player's own view, the settlement) fetches itself at most once a second. At a club evening of
  // 40 tables the night changes a hundred times a second: two hall displays fetching back to back added about a
  // sixth to the server's CPU per round (bench/tournament.py, docs/speed.md). A match's page follows one
  // table's changes and fetches at once.
  // A guest's match page (data-follow-gap) gets the match's state in its stream after each change of it ("state"
  // events), shows the new numbers at once (static/js/glance.js) and fetches itself (the history, the chart) at
  // most once in that many milliseconds: at a club evening 160 phones fetching an 18 kB page after every round
  // took five times the CPU of the rounds themselves (bench/tournament.py). At a table's pace, a round every
  // minute or so, the page is still fetched at once.
  var followGap = parseInt(box.dataset.followGap, 10) || 0;
  var GAP = matchId === null ? 1000 : followGap;
  var told = null;  // the last state the stream told, {version, state}: shown again over an older fetched page
  var last = -Infinity, timer = null;

  function markDirty(ev) {
    var form = ev.target && ev.target.form;
    if (form && (form.method || "").toLowerCase() === "post") form.dataset.liveDirty = "1";
  }
  document.addEventListener("input", markDirty, true);
  document.addEventListener("change", markDirty, true);

  function dirty(el) {
    if (el.matches && el.matches("form[data-live-dirty]")) return true;
    return !!(el.querySelector && el.querySelector("form[data-live-dirty]"));
  }

  function same(a, b) {
    if (a.tagName !== b.tagName) return false;
    if (a.id || b.id) return a.id === b.id;
    return a.className === b.className && a.getAttribute("aria-label") === b.getAttribute("aria-label");
  }

  // --- focus across a swap -------------------------------------------------------------------------------------
  // What the focused control was, so that its twin in the new content can be found: by id, else by its form's
  // address, name and value (a round form's radio), else by a link's address; and its ancestors' ids.
  function focusKey(el) {
    if (!el || el === document.body || !el.closest || !el.closest("main")) return null;
    var key = { el: el, id: el.id, name: el.getAttribute("name"), value: el.getAttribute("value"),
                action: el.form ? el.form.getAttribute("action") : null, href: el.getAttribute("href"), ids: [] };
    for (var up = el.parentElement; up && up.tagName !== "MAIN"; up = up.parentElement) if (up.id) key.ids.push(up.id);
    return key;
  }

  function css(s) { return window.CSS && CSS.escape ? CSS.escape(s) : s.replace(/["\\]/g, "\\$&"); }

  function twin(key) {
    var main = document.querySelector("main");
    if (key.el.isConnected && main.contains(key.el)) return key.el;  // a kept part: the same control
    if (key.id) { var same = document.getElementById(key.id); if (same && main.contains(same)) return same; }
    var found = null;
    if (key.name) {
      Array.prototype.some.call(main.querySelectorAll('[name="' + css(key.name) + '"]'), function (c) {
        var form = c.form ? c.form.getAttribute("action") : null;
        if (form === key.action && c.getAttribute("value") === key.value) { found = c; return true; }
        return false;
      });
      if (found) return found;
    }
    if (key.href) { found = main.querySelector('a[href="' + css(key.href) + '"]'); if (found) return found; }
    for (var i = 0; i < key.ids.length; i++) {
      found = document.getElementById(key.ids[i]);
      if (found && main.contains(found)) return found;
    }
    return main;
  }

  function refocus(key) {
    if (!key || document.activeElement === key.el) return;
    var el = twin(key);
    if (el.tabIndex < 0 && !el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");  // a section, <main>
    el.focus({ preventScroll: true });
  }

  // --- what changed, said --------------------------------------------------------------------------------------
  var said = "";
  function announce(text) {
    var region = document.getElementById("announce");
    if (!region || !text || text === said) return;
    said = text;
    region.textContent = text;
  }

  function apply(doc) {
    var main = document.querySelector("main"), next = doc.querySelector("main");
    if (!main || !next) return;
    var focused = focusKey(document.activeElement);
    var before = version;
    var fresh = Array.prototype.slice.call(next.children);
    Array.prototype.forEach.call(main.children, function (old) {
      if (old === box || !dirty(old)) return;
      for (var i = 0; i < fresh.length; i++) {
        if (same(old, fresh[i])) { fresh[i] = old; return; }
      }
    });
    var nextBox = doc.getElementById("live");
    var fetched = nextBox ? parseInt(nextBox.dataset.version, 10) || 0 : 0;
    version = Math.max(version, fetched);
    var keepNotice = !box.hidden;
    var frag = document.createDocumentFragment();
    Array.prototype.forEach.call(main.querySelectorAll(":scope > link, :scope > script"), function (el) {
      frag.appendChild(el);  // this page's own stylesheet and script stay (the new ones are the same)
    });
    fresh.forEach(function (el) {
      if (el.id === "live") { frag.appendChild(box); return; }
      if (el.tagName === "LINK" || el.tagName === "SCRIPT") return;
      if (el.ownerDocument !== document) {
        el = document.importNode(el, true);
        if (el.tagName === "SECTION") el.classList.add("live-fresh");
      }
      frag.appendChild(el);
    });
    if (box.parentNode !== frag) frag.insertBefore(box, frag.firstChild);
    main.replaceChildren(frag);
    box.hidden = !keepNotice;
    if (window.RefereeBind) window.RefereeBind.run();  // the new content's controls work (bind.js)
    refocus(focused);
    if (fetched > before && nextBox) announce(nextBox.dataset.announce);
    if (told && told.version > fetched) glance(told.state);  // the page was older than what the stream told
    behind(!!(told && told.version > fetched));
    // fresh: the page came from the server, not from the service worker's offline copy (offline.js)
    document.dispatchEvent(new CustomEvent("live:updated", {detail: {
      version: version, fresh: !doc.documentElement.hasAttribute("data-offline-copy")}}));
  }

  // now: this change is not one a guest's gap may hold back (see onChange): the fetch goes at once, or as soon as
  // the one in flight is back (it may have left before the change).
  var urgent = false;
  function refresh(now) {
    if (now === true) urgent = true;
    if (busy) { again = true; return; }
    if (timer) {
      if (!urgent) return;  // a fetch is due already: it will show this change too
      clearTimeout(timer);
      timer = null;
    }
    var wait = urgent ? 0 : last + GAP - Date.now();
    if (wait > 0) { timer = setTimeout(function () { timer = null; refresh(); }, wait); return; }
    urgent = false;
    busy = true;
    last = Date.now();
    fetch(box.dataset.page || location.href, {credentials: "same-origin", headers: {"X-Live": "1"}})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html) apply(new DOMParser().parseFromString(html, "text/html")); })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }

  function glance(state) {
    if (!window.RefereeGlance) return;
    window.RefereeGlance.show(state, { currency: box.dataset.currency, digits: parseInt(box.dataset.digits, 10) || 0 });
  }

  // While the numbers at a glance are newer than the history and the chart below them (a fetch waits out the
  // gap), the notice says so, and goes when a fetch brings the page up to them.
  var behindShown = false;
  function behind(on) {
    if (!box.dataset.behindNotice || on === behindShown) return;
    if (on && !box.hidden) return;  // another notice is up (a form someone is filling in): it stays
    behindShown = on;
    if (on) box.textContent = box.dataset.behindNotice;
    box.hidden = !on;
  }

  function onState(msg) {
    var news;
    try { news = JSON.parse(msg.data); } catch (e) { return; }
    if (!news || news.match !== matchId || !news.state || news.version <= version) return;  // the page is as new
    if (told && news.version <= told.version) return;
    told = { version: news.version, state: news.state };
    glance(news.state);
    if (timer) behind(true);  // the page's fetch waits out the gap (one in flight comes at once: no notice)
  }

  // A round this phone sent itself (its queue, static/js/offline.js) is not another phone's.
  function own(change) {
    var q = window.RefereeQueue;
    return change.what === "round" && !!(q && q.own && q.own(change.match, change.round_no));
  }

  // filling: a form was being filled in when the change came (read before "live:change": stale_taps.js then
  // takes the taps out of the round form and clears its flag, and the notice must still be shown).
  function notice(change, filling) {
    if (matchId === null || change.match !== matchId || own(change) || !filling) return;
    var text = change.what === "round" ? box.dataset.roundNotice.replace("{n}", change.round_no)
                                       : box.dataset.changeNotice;
    box.textContent = text;
    box.hidden = false;
  }

  function onChange(msg) {
    var change;
    try { change = JSON.parse(msg.data); } catch (e) { return; }
    if (!change || change.version <= version) return;
    if (matchId !== null && change.match !== null && change.match !== matchId && change.what !== "night") {
      return;  // another match of the night: nothing on this page changes
    }
    var filling = !!document.querySelector("main form[data-live-dirty]");
    // stale_taps.js takes a round form's taps out before the swap when another phone's round overtook them.
    document.dispatchEvent(new CustomEvent("live:change", {detail: change}));
    notice(change, filling);
    // Only a round waits out a guest's gap (data-follow-gap): its numbers come with the stream's state event. A
    // close, a void or a reopening changes what the page is (a closed match has no dealer, no next round, a
    // banner instead): its state event cannot show that, and at once a match page went on showing the game in
    // play, "the history follows shortly", for up to the gap's 30 s after a close (issue 42.5). They are rare
    // (one close per match), so fetching at once costs nothing the gap was for.
    refresh(change.match === matchId && change.what !== "round");
  }

  // A browser gives up on a stream that was refused (429: the server has as many streams open as it keeps)
  // instead of reconnecting: try again after a while, spread out so that a full table does not come back at once.
  var source = null, gone = false;
  function follow() {
    if (gone) return;
    source = new EventSource(box.dataset.url);
    source.addEventListener("change", onChange);
    if (followGap) source.addEventListener("state", onState);
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED) setTimeout(follow, 30000 + Math.random() * 30000);
    });
  }
  follow();
  document.addEventListener("live:refresh", refresh);  // offline.js: the queue was sent, the page is stale
  window.addEventListener("pagehide", function () { gone = true; if (source) source.close(); });
})();
