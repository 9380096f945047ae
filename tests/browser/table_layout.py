"""Measurements for "at the table, round three" (issue 28): nothing covers Save, the page is never wider.

- :func:`layout_problems`: the page is no wider than the phone (390 CSS px: a page that overflows makes a
  mobile browser widen its layout viewport, so ``innerWidth`` is checked too); the save button lies inside
  the viewport, no other element of the save bar touches its box, and at five points inside it the element
  the finger would hit is the button itself (nothing laid over it: a summary, a bar, a notice).
- :func:`uncovered`: an element (a tapped count, an error row) is on screen and under neither the fixed
  save bar nor the sticky offline bar.

Both return descriptions of what is wrong (empty: all is well), so a test can say after which tap.
"""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import PHONE

_LAYOUT = """([width, save]) => {
  const out = [], de = document.documentElement;
  if (innerWidth > width) out.push(`layout viewport ${innerWidth} px wide`);
  if (de.scrollWidth > width) out.push(`page ${de.scrollWidth} px wide`);
  const b = document.querySelector(save);
  if (!b) return out;
  const r = b.getBoundingClientRect();
  if (r.width === 0) { out.push('save button not shown'); return out; }
  if (r.left < 0 || r.top < 0 || r.right > width + 0.5 || r.bottom > innerHeight + 0.5) {
    out.push(`save button off screen ${JSON.stringify(r)}`);
  }
  const bar = b.closest('.savebar') || b.parentElement;
  bar.querySelectorAll('*').forEach(el => {
    if (el === b || b.contains(el) || el.contains(b)) return;
    const e = el.getBoundingClientRect();
    if (!e.width || !e.height || getComputedStyle(el).visibility === 'hidden') return;
    if (e.left < r.right - 0.5 && e.right > r.left + 0.5 && e.top < r.bottom - 0.5 && e.bottom > r.top + 0.5) {
      out.push(`${el.tagName.toLowerCase()}.${el.className} overlaps the save button`);
    }
  });
  const inset = 10, points = [[r.left + inset, r.top + inset], [r.right - inset, r.top + inset],
    [r.left + inset, r.bottom - inset], [r.right - inset, r.bottom - inset],
    [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
  for (const [x, y] of points) {
    const hit = document.elementFromPoint(x, y);
    if (!hit || !(hit === b || b.contains(hit))) {
      const by = hit ? hit.outerHTML.slice(0, 60) : 'nothing';
      out.push(`save button covered at ${Math.round(x)},${Math.round(y)} by ${by}`);
    }
  }
  return out;
}"""

_UNCOVERED = """(el) => {
  const r = el.getBoundingClientRect(), out = [];
  let top = 0, bottom = innerHeight;
  const bar = document.querySelector('.savebar');
  if (bar && bar.getBoundingClientRect().height) bottom = Math.min(bottom, bar.getBoundingClientRect().top);
  const sticky = document.querySelector('#offline-bar:not([hidden])');
  if (sticky) top = Math.max(top, sticky.getBoundingClientRect().bottom);
  if (r.top < top - 0.5 || r.bottom > bottom + 0.5) {
    out.push(`${el.tagName.toLowerCase()}.${el.className} at ${Math.round(r.top)}-${Math.round(r.bottom)}, ` +
             `visible band ${Math.round(top)}-${Math.round(bottom)}`);
  }
  return out;
}"""


def layout_problems(page: Any, save: str = "#save-round") -> list[str]:
    """What is wrong with the page's width and the save button (empty: nothing)."""
    return list(page.evaluate(_LAYOUT, [PHONE["width"], save]))


def uncovered(locator: Any) -> list[str]:
    """What covers the element or keeps it off screen (empty: it is in the band between the bars)."""
    return list(locator.evaluate(_UNCOVERED))
