"""Measurements for "one thumb at a noisy table" (issue 19), shared by the per-game browser tests.

- :func:`small_targets`: every interactive element (buttons, links outside
  running text, inputs, selects, summaries) measured in the page (its
  ``getBoundingClientRect``, one ``evaluate`` per page); anything under
  44×44 CSS px is reported. A checkbox or radio counts with its label,
  because a tap on the label is a tap on it (the pages hide the native box
  inside a big label).
- :func:`save_in_view`: the primary action's box lies inside the viewport.
- :func:`axe_violations`: axe-core (from the npm registry, ``make axe``) run
  in the page; the page's CSP forbids inline scripts, but Playwright's
  ``evaluate`` runs in the page's main world regardless of it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.browser.conftest import PHONE
from tests.components import missing

MIN = 44
#: The table the one-thumb tests play at: eight players, the most a phone's forms must fit.
PLAYERS = ["Anna", "Bo", "Cia", "Dan", "Eva", "Fia", "Gustav", "Hanna"]
ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules.axe" / "package" / "axe.min.js"

INTERACTIVE = ("a[href], button, input:not([type=hidden]), select, textarea, summary, "
               "[role=button], [tabindex]:not([tabindex='-1'])")

#: Every visible interactive element smaller than MIN×MIN CSS px, measured in the page in one call (one
#: round trip per page instead of several per element: the one-thumb tests measure thousands of elements).
#: - visible as Playwright's ``is_visible`` has it: rendered (``checkVisibility``), ``visibility: visible``,
#:   a box wider and taller than 0; a checkbox or radio is measured even when hidden, with its labels,
#:   because a tap on its label is a tap on it (the pages hide the native box inside a big label);
#: - a link in running text (WCAG 2.5.8's "inline" exception: in a paragraph with other words) is exempt;
#: - the best of an element's boxes counts (its own or a visible label's), by its shorter side.
_SMALL_TARGETS = """([selector, min]) => {
  const visible = el => {
    const style = getComputedStyle(el);
    if (style.display === 'contents') return Array.from(el.children).some(visible);
    if (el.checkVisibility && !el.checkVisibility()) return false;
    if (style.visibility !== 'visible') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const inText = el => {
    if (el.tagName !== 'A') return false;
    const p = el.closest('p');
    if (!p) return false;
    const rest = p.innerText.replace(el.innerText, '');
    return /[\\p{L}\\p{N}]{2,}/u.test(rest);
  };
  const describe = el => {
    const id = el.id ? '#' + el.id : '';
    const name = el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : '';
    const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${id}${name} "${text}"`;
  };
  const found = [];
  for (const el of document.querySelectorAll(selector)) {
    const box = el.type === 'checkbox' || el.type === 'radio';
    if (!box && !visible(el)) continue;
    if (inText(el)) continue;
    const rects = [el.getBoundingClientRect()];
    if (box) for (const label of el.labels || []) if (visible(label)) rects.push(label.getBoundingClientRect());
    const sized = rects.filter(r => r.width > 0 && r.height > 0);
    if (!sized.length) continue;
    const best = sized.reduce((a, b) => Math.min(b.width, b.height) > Math.min(a.width, a.height) ? b : a);
    if (best.width < min - 0.5 || best.height < min - 0.5) {
      found.push(`${describe(el)} ${best.width.toFixed(0)}×${best.height.toFixed(0)}`);
    }
  }
  return found;
}"""


def open_details(page: Any) -> None:
    """Open every <details> so the controls inside are measured too (marked, to be closed again)."""
    page.evaluate("document.querySelectorAll('details:not([open])').forEach(d => {"
                  " d.open = true; d.dataset.measureOpened = '1'; })")


def close_details(page: Any) -> None:
    """Close what :func:`open_details` opened: the page is left as the user had it."""
    page.evaluate("document.querySelectorAll('details[data-measure-opened]').forEach(d => {"
                  " d.open = false; delete d.dataset.measureOpened; })")


def small_targets(page: Any) -> list[str]:
    """Every visible interactive element smaller than 44×44 CSS px, described, with its size."""
    return list(page.evaluate(_SMALL_TARGETS, [INTERACTIVE, MIN]))


def assert_targets(page: Any, where: str) -> int:
    """Fail with the list of small targets; returns how many elements were measured."""
    open_details(page)
    small = small_targets(page)
    close_details(page)
    assert not small, f"{where}: targets under {MIN}×{MIN} px: {small}"
    return int(page.locator(INTERACTIVE).count())


def save_in_view(page: Any, selector: str) -> dict[str, float]:
    """The primary button's box, asserted to lie wholly inside the 390×844 viewport."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] + 0.5, (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, (selector, box)
    assert box["width"] >= MIN and box["height"] >= MIN, (selector, box)
    return dict(box)


def axe_violations(page: Any) -> list[str]:
    """axe-core's violations on the current page, one line each (rule, impact, where)."""
    if not AXE.exists():
        missing(f"axe-core ({AXE}; `make axe`, which `make test` runs)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("""async () => {
      const r = await axe.run(document, {resultTypes: ['violations']});
      const where = v => v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ');
      return r.violations.map(v => `${v.id} (${v.impact}): ${where(v)}`);
    }""")
    return list(result)


def assert_axe(page: Any, where: str) -> None:
    found = axe_violations(page)
    assert not found, f"axe on {where} ({page.url}): {found}"


def every_language(page: Any, base: str, paths: list[str]) -> None:
    """axe and the target sizes on every page in sv, de and en (the language switch, as a user taps it)."""
    for code in ("sv", "de", "en"):
        for path in paths:
            page.goto(f"{base}/lang/{code}?next={path}")
            assert page.locator("html").get_attribute("lang") == code
            assert_axe(page, f"{path} [{code}]")
            assert_targets(page, f"{path} [{code}]")


def start_match(page: Any, base: str, night_url: str, game: str, sit_out: tuple[str, ...] = (),
                stake: str = "1.00", options: dict[str, str] | None = None) -> tuple[str, str]:
    """A new match through the new-match page (measured and checked with axe); returns its and the form's path."""
    page.goto(night_url)
    page.get_by_role("link", name="New match").tap()
    page.get_by_role("heading", name="New match").wait_for()
    select = page.locator('select[name="game"]')
    if select.input_value() != game:
        with page.expect_navigation():
            select.select_option(game)
    form_path = page.url.removeprefix(base).split("?")[0]
    for name in sit_out:
        page.locator("#seats .seat", has_text=name).locator("label").tap()
    for name, value in (options or {}).items():
        field = page.locator(f'[name="opt_{name}"]')
        if field.get_attribute("type") == "checkbox":
            field.set_checked(value == "on")
        else:
            field.select_option(value)
    page.get_by_label("First dealer").select_option("Anna")
    page.get_by_label("Stake").fill(stake)
    assert_targets(page, f"new {game} match")
    assert_axe(page, f"new {game} match")
    page.get_by_role("button", name="Start the match").tap()
    page.wait_for_url(re.compile(r".*/matches/\d+$"))
    return page.url.removeprefix(base), form_path


def close_confirmed(page: Any) -> None:
    """Close the match the way the leader does: the close box, the confirmation page (measured), Confirm."""
    page.locator("details.close-box summary").tap()
    page.locator("details.close-box").get_by_role("button", name="Close the match").tap()
    page.get_by_role("heading", name="Close the match?").wait_for()
    assert_targets(page, "close confirmation")
    assert_axe(page, "close confirmation")
    page.locator("#confirm-close").tap()
    page.locator(".flash.ok", has_text="The match is closed").wait_for()
    assert page.locator("#finished, #end").count() >= 1
    assert page.locator("#save-round, #kn-save, details.close-box").count() == 0


def visit_void_page(page: Any, base: str, match_path: str, seq: int) -> str:
    """Open round ``seq``'s void page from the history (measured and checked with axe), go back to the
    match; returns the void page's path for :func:`every_language`."""
    page.locator(f"#round-{seq} a.void-link").tap()
    page.get_by_role("heading", name=re.compile(r"^Void (round|deal|game) \d+$")).wait_for()  # the game's word
    void_path = page.url.removeprefix(base)
    assert_targets(page, "void page")
    assert_axe(page, "void page")
    page.goto(base + match_path)
    return void_path


def close_and_check(page: Any) -> None:
    """:func:`close_confirmed`, then the closed match page measured and checked with axe."""
    close_confirmed(page)
    assert_targets(page, "closed match")
    assert_axe(page, "closed match")
