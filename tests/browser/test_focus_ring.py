"""The keyboard's focus ring stands out from what is around it: at least 3:1 (issue 50, point 6; WCAG 1.4.11).

A phone at 390×844 in Swedish and German walks the trick referee and the Knaker referee by Tab: a tap target
drawn by its label (a suit's radio, whose ring is drawn on its visible box), a button and a text field. For each
the test reads the computed outline (style, width, colour) and the background it is drawn on (the nearest
ancestor's non-transparent background: the ring lies outside the control) and computes the WCAG contrast ratio
itself. Screenshots of a focused control in ``test-artifacts/browser/focus-ring-*``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import LOCALES, PHONE, LiveServer, watch

pytestmark = pytest.mark.browser

#: What carries the ring of the focused element, and what lies behind it.
RING = """el => {
  const target = el.matches('.pick input, .toggle input') ? el.nextElementSibling : el;
  const cs = getComputedStyle(target);
  let at = target.parentElement, bg = 'rgb(255, 255, 255)';
  while (at) {
    const c = getComputedStyle(at).backgroundColor;
    if (c !== 'transparent' && !/^rgba\\(.*, 0\\)$/.test(c)) { bg = c; break; }
    at = at.parentElement;
  }
  return {style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), color: cs.outlineColor, bg: bg,
          what: el.outerHTML.slice(0, 80)};
}"""


def rgb(text: str) -> tuple[float, float, float]:
    parts = [float(x) for x in re.findall(r"[\d.]+", text)[:3]]
    assert len(parts) == 3, text
    return parts[0], parts[1], parts[2]


def luminance(color: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(rgb(a)), luminance(rgb(b))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula() -> None:
    assert round(contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)"), 1) == 21.0
    assert round(contrast("rgb(240, 180, 41)", "rgb(255, 255, 255)"), 2) == 1.86  # the old amber ring, on white


def tab_to(page: Any, selector: str) -> dict[str, Any]:
    """Press Tab until ``selector`` has the focus (the keyboard's way, so :focus-visible applies); its ring."""
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return dict(page.evaluate_handle("() => document.activeElement").evaluate(RING))
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_focus_ring_has_3_to_1_contrast(live_server: LiveServer, browser: Any, artifacts: Path, lang: str) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, locale=LOCALES[lang])
    context.set_default_timeout(20_000)
    page = context.new_page()
    watched = watch(page, artifacts, f"focus-ring-{lang}-")
    pages = {
        "/referee/tricks/svangknack?players=Anna,Bo,Cia&leader=Anna&trump=H": (
            "input[name=suit]", "button.tr-rank", "#tr-players"),
        "/referee/knaker": ("input[name=target]", "#kr-lay", "#kr-undo:not([disabled]), button[value=new_lay]"),
    }
    for path, selectors in pages.items():
        page.goto(f"{live_server.url}/lang/{lang}?next={quote(path, safe='')}")
        page.locator("body").click(position={"x": 2, "y": 2})
        for selector in selectors:
            ring = tab_to(page, selector)
            assert ring["style"] not in ("none", "auto") and ring["width"] >= 2, ring
            ratio = contrast(ring["color"], ring["bg"])
            assert ratio >= 3, f"{path} {ring['what']}: focus ring {ring['color']} on {ring['bg']} is {ratio:.2f}:1"
        watched.shot(path.strip("/").split("?")[0].replace("/", "-"), full=False)
    assert not watched.problems, watched.problems
    context.close()
