"""A refused round points at what is wrong, and a saved one says what was saved (issues 42.4 and 50.3).

On a 390×844 phone, in Swedish and German, read as a screen reader has it (the accessible description Chromium
computes, the focused element, the changes of the live regions after load):

- a Svängknack round where a player goes bet together with a new stake (SK-13): the stake field is invalid,
  described by the reason, both between the bars; the focus is on it; no player row is flagged; the Save bar's
  summary names the new stake;
- a round whose tricks add up to 4 (SK-8): the inputs of the two rows are invalid and described by the reason,
  the rows and the reason between the bars, the focus in the first wrong row (not at the top);
- the first Tab stop of the leader's page is a skip link to the round form, and the next one a control of it;
- after a save, the page says which round was saved and what it was (its line in the history), and says it in a
  live region after load, so that it is announced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, watch
from tests.browser.table_layout import uncovered
from tests.browser.test_form_in_view import leader_on, night_match, save

pytestmark = pytest.mark.browser

SEATS = ["Anna", "Göran", "Örjan", "Märta"]  # Anna deals: Göran svängar
NEW_STAKE = {"sv": "ny insats", "de": "neuer Einsatz"}

#: Every text a live region (role status or alert, aria-live) takes on after the page has loaded, as a screen
#: reader hears it: a region's own text at load is not announced.
_LISTEN = """
window.__said = [];
document.addEventListener('DOMContentLoaded', () => {
  const region = node => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    return el && el.closest('[role=status], [role=alert], [aria-live]:not([aria-live=off])');
  };
  new MutationObserver(changes => {
    for (const change of changes) {
      const r = region(change.target);
      if (r && r.textContent.trim()) window.__said.push(r.textContent.replace(/\\s+/g, ' ').trim());
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
});
"""


def row(page: Any, name: str) -> Any:
    return page.locator(f'#round-form tr[data-name="{name}"]')


def tricks(page: Any, name: str, n: int) -> None:
    row(page, name).locator("label.pick").nth(n).tap()


def refused(page: Any, rule: str) -> None:
    with page.expect_navigation():
        page.locator("#save-round").tap()
    expect(page.locator("main [role=alert]", has_text=rule)).to_be_visible()
    page.wait_for_load_state("load")
    page.wait_for_timeout(150)


def focused(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("""() => { const a = document.activeElement;
      return {tag: a.tagName.toLowerCase(), id: a.id, name: a.getAttribute('name') || '',
              row: (a.closest('tr[data-name]') || {dataset: {}}).dataset.name || ''}; }"""))


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_refused_new_stake_marks_the_stake_field_with_its_reason(live_server: LiveServer, phone: Any,
                                                                   artifacts: Path, lang: str) -> None:
    base = live_server.url
    token, match_id = night_match(base, "svangknack", SEATS)
    w = watch(phone, artifacts, "form-errors-")
    leader_on(phone, base, token, match_id, lang)
    tricks(phone, "Örjan", 0)  # Örjan plays and takes nothing: bet
    tricks(phone, "Göran", 3)
    phone.locator("#round-form details summary").tap()
    phone.locator("#new-stake").fill("6")
    bar = phone.locator(".savebar .bar-summary")
    expect(bar).to_contain_text(f"{NEW_STAKE[lang]} 6")  # the bar names the new stake before the save
    refused(phone, "SK-13")
    w.shot(f"stake-{lang}", full=False)

    field = phone.locator("#new-stake")
    expect(field).to_have_attribute("aria-invalid", "true")
    reason = phone.locator("#" + str(field.get_attribute("aria-describedby")))
    expect(reason).to_contain_text("SK-13")
    expect(field).to_have_accessible_description(reason.inner_text())
    assert not uncovered(field) and not uncovered(reason), uncovered(field) + uncovered(reason)
    assert focused(phone)["id"] == "new-stake", focused(phone)
    assert phone.locator("#round-form tr.row-error").count() == 0  # no player row is what is wrong
    assert phone.locator("#round-form [aria-invalid=true]").count() == 1
    expect(bar).to_contain_text(f"{NEW_STAKE[lang]} 6")  # and after the refusal, with the taps kept
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_refusal_is_tied_to_its_rows_and_focuses_the_first(live_server: LiveServer, phone: Any,
                                                             artifacts: Path, lang: str) -> None:
    base = live_server.url
    token, match_id = night_match(base, "svangknack", SEATS)
    w = watch(phone, artifacts, "form-errors-")
    leader_on(phone, base, token, match_id, lang)
    tricks(phone, "Örjan", 2)
    tricks(phone, "Märta", 2)  # 4 tricks of 3: SK-8
    refused(phone, "SK-8")
    w.shot(f"sk8-{lang}", full=False)

    marked = phone.locator("#round-form tr.row-error").evaluate_all("rs => rs.map(r => r.dataset.name)")
    assert {"Örjan", "Märta"} <= set(marked), marked  # the rows given tricks (the svängare's, 0, counts too)
    for name in marked:
        inputs = row(phone, name).locator("input")
        assert inputs.count() >= 4
        for i in range(inputs.count()):
            one = inputs.nth(i)
            expect(one).to_have_attribute("aria-invalid", "true")
            reason = phone.locator("#" + str(one.get_attribute("aria-describedby")))
            expect(reason).to_contain_text("SK-8")
            expect(one).to_have_accessible_description(reason.inner_text())
        assert not uncovered(row(phone, name)), uncovered(row(phone, name))
    for name in set(SEATS) - set(marked):  # the rows that are not wrong do not say so
        assert row(phone, name).locator("input[aria-invalid=true]").count() == 0
    reason = phone.locator("#round-form [role=alert]")
    assert not uncovered(reason), uncovered(reason)
    now = focused(phone)
    assert now["tag"] == "input" and now["row"] == marked[0], now  # the first wrong field, not the top
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_a_skip_link_leads_to_the_round_form(live_server: LiveServer, phone: Any, artifacts: Path,
                                             lang: str) -> None:
    base = live_server.url
    token, match_id = night_match(base, "svangknack", SEATS)
    w = watch(phone, artifacts, "form-errors-")
    leader_on(phone, base, token, match_id, lang)
    phone.keyboard.press("Tab")
    first = phone.evaluate("() => [document.activeElement.tagName, document.activeElement.getAttribute('href')]")
    assert first == ["A", "#round-form"], first
    expect(phone.locator("a.skip-link")).to_be_in_viewport()
    phone.keyboard.press("Enter")
    phone.keyboard.press("Tab")
    assert phone.evaluate("() => !!document.activeElement.closest('#round-form')"), focused(phone)
    assert not w.problems, w.problems


@pytest.mark.parametrize("lang", ["sv", "de"])
def test_the_saved_message_says_what_was_saved_and_is_announced(live_server: LiveServer, phone: Any,
                                                                artifacts: Path, lang: str) -> None:
    base = live_server.url
    token, match_id = night_match(base, "svangknack", SEATS)
    w = watch(phone, artifacts, "form-errors-")
    phone.add_init_script(_LISTEN)
    leader_on(phone, base, token, match_id, lang)
    tricks(phone, "Örjan", 1)
    tricks(phone, "Göran", 2)
    save(phone, phone.locator("#save-round"))
    line = phone.locator("#round-1 .what").inner_text().strip()  # the history's words for round 1
    assert "Örjan 1" in line, line
    note = phone.locator("main .flash.ok").first
    expect(note).to_contain_text(line)
    expect(note).to_contain_text("1")
    assert not uncovered(note), uncovered(note)
    phone.wait_for_function("() => window.__said.length > 0")
    said = phone.evaluate("() => window.__said")
    assert any(line in text for text in said), said
    w.shot(f"saved-{lang}", full=False)
    assert not w.problems, w.problems
