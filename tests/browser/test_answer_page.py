"""The answer page in a real browser, at 1366 and 390 px, in English and Chinese: a brief that
needs input asks for it with no failure-coloured row; cancel ends a running brief ``cancelled``
and its notice goes when the brief is final, while a cancel that comes after the end says so; a
follow-up asked under the brief runs live in place, and a suggested question is one click.
Every page checked is free of serious axe violations, CSP violations and sideways scroll."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import chrome
from tests.browser.pagecheck import (
    LANGUAGES,
    PHONE,
    VIEWPORTS,
    axe_violations,
    language_set,
    overflow,
    page_shot,
    viewport_set,
)
from tests.browser.test_content_security import csp_violations
from tests.browser.test_dashboard import FAST, SLOW, ask, sign_in, status_of, wait

pytestmark = pytest.mark.browser

NEEDS = "Latest pull requests I should review on GitHub"  # offline: GitHub, but whose repo?
COMBOS = [(v, lang) for v in VIEWPORTS for lang in LANGUAGES]
FOLLOW_UP_WORDS = {"en": "Ask a follow-up", "zh-hans": "追问"}
STAYED_JS = "return window.__stayed === true"


def page_clean(driver, name: str, width: int) -> None:
    """No serious axe violation, no sideways scroll, no CSP violation since the last check."""
    page_shot(driver, name)
    csp = csp_violations([entry["message"] for entry in driver.get_log("browser")])
    assert not csp, f"{name}: {csp}"
    found = axe_violations(driver)
    assert not found, f"{name}: {found}"
    scroll, wide = overflow(driver, width)
    assert scroll <= width, f"{name}: {scroll} px wide at {width}: {wide}"


def finished(driver) -> bool:
    return bool(driver.find_elements(By.ID, "actions")) and not driver.find_elements(By.ID, "live")


def brief_rows(stack, follow_up_of: int) -> list[tuple[int, str]]:
    return stack.query(
        "SELECT id, question FROM briefs_brief WHERE follow_up_of_id = %s ORDER BY id", follow_up_of
    )


@pytest.fixture(scope="module")
def asking_brief(stack, tmp_path_factory) -> int:
    driver = chrome(tmp_path_factory.mktemp("needs-chrome"))
    try:
        sign_in(driver, stack, "alice")
        brief_id = ask(driver, stack, NEEDS)
        wait(driver).until(finished)
    finally:
        driver.quit()
    [(outcome,)] = stack.query("SELECT outcome FROM briefs_brief WHERE id = %s", brief_id)
    assert outcome == "needs_input", f"the question was answered as {outcome}"
    return brief_id


@pytest.mark.parametrize(("viewport", "language"), COMBOS)
def test_a_brief_that_needs_input_asks_with_no_failure_row(
    stack, browser, asking_brief, viewport, language
):
    sign_in(browser, stack, "alice")
    language_set(browser, stack.url, language)
    viewport_set(browser, viewport)
    browser.get(f"{stack.url}/briefs/{asking_brief}/")

    needs = browser.find_element(By.ID, "needs")
    body = browser.find_element(By.ID, "brief-body")
    assert needs.location["y"] < body.location["y"], "the input leads the page"
    assert browser.find_element(By.ID, "id_value_0").is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, "#timeline .tone-bad, .row-bad")
    browser.find_element(By.CSS_SELECTOR, "#steps-details summary").click()
    folds = browser.find_elements(By.CSS_SELECTOR, "#timeline li.step-fold")
    assert folds and folds[0].is_displayed(), "the refused routes read as one line"
    assert re.match(r"\d+", folds[0].find_element(By.CSS_SELECTOR, ".text").text)
    hints = browser.find_elements(By.CSS_SELECTOR, "#needs .help")
    assert all(" · " not in h.text and h.text.rstrip().endswith((".", "。")) for h in hints)
    page_clean(browser, f"needs-input-{viewport.name}-{language}", viewport.width)


def test_cancel_ends_a_running_brief_and_its_notice_goes_when_final(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = ask(browser, stack, SLOW)
    wait(browser).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline li[data-kind=step_started]")) >= 3
    )
    browser.find_element(By.ID, "cancel-button").click()
    wait(browser, 15).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#cancel-notice, #brief-error")
    )
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-error"))

    assert status_of(stack, brief_id) == "cancelled"
    assert not browser.find_elements(By.ID, "cancel-notice"), "the notice went with the run"
    browser.refresh()
    assert not browser.find_elements(By.ID, "cancel-notice")
    assert "Cancel requested" not in browser.page_source


def test_a_cancel_after_the_end_says_the_brief_had_finished(stack, tmp_path):
    """Without script the page stays as it was loaded: its cancel button outlives the run."""
    driver = chrome(tmp_path / "no-js", javascript=False)
    try:
        sign_in(driver, stack, "alice")
        brief_id = ask(driver, stack, FAST)
        wait(driver, 60).until(lambda d: status_of(stack, brief_id) in ("succeeded", "failed"))
        driver.find_element(By.ID, "cancel-button").click()
        wait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".messages"))
        messages = driver.find_element(By.CSS_SELECTOR, ".messages").text
        assert "The brief had already finished: there was nothing to cancel." in messages
        assert "Cancel requested" not in driver.page_source
        [(cancel_requested,)] = stack.query(
            "SELECT cancel_requested FROM briefs_brief WHERE id = %s", brief_id
        )
        assert cancel_requested is False
    finally:
        driver.quit()


@pytest.mark.parametrize(("viewport", "language"), COMBOS)
def test_a_follow_up_runs_in_place_and_a_suggestion_is_one_click(
    stack, browser, viewport, language
):
    sign_in(browser, stack, "alice")
    language_set(browser, stack.url, language)
    viewport_set(browser, viewport)
    first = ask(browser, stack, FAST)
    wait(browser).until(finished)
    box = browser.find_element(By.ID, "follow-up-question")
    assert FOLLOW_UP_WORDS[language] in browser.find_element(By.ID, "follow-up").text
    page_clean(browser, f"answer-{viewport.name}-{language}", viewport.width)

    browser.execute_script("window.__stayed = true")
    box.send_keys(f"{FAST} again")
    browser.find_element(By.ID, "follow-up-submit").click()
    wait(browser, 15).until(lambda d: brief_rows(stack, first))
    [(second, question)] = brief_rows(stack, first)
    wait(browser, 15).until(lambda d: d.current_url.endswith(f"/briefs/{second}/"))
    assert browser.execute_script(STAYED_JS), "the follow-up came without leaving the page"
    assert browser.find_elements(By.CSS_SELECTOR, "article.thread-turn"), "the answer stays above"
    wait(browser).until(finished)
    assert browser.execute_script(STAYED_JS)
    assert browser.find_element(By.ID, "brief").get_attribute("data-brief") == str(second)
    assert browser.find_elements(By.CSS_SELECTOR, "#timeline li[data-kind=brief_ready]")

    suggestion = browser.find_element(By.ID, "suggestion-1")
    asked = suggestion.text
    suggestion.click()
    wait(browser, 15).until(lambda d: brief_rows(stack, second))
    [(third, question)] = brief_rows(stack, second)
    assert question == asked
    wait(browser, 15).until(lambda d: d.current_url.endswith(f"/briefs/{third}/"))
    assert browser.execute_script(STAYED_JS)
    if viewport is PHONE:
        page_clean(browser, f"thread-{viewport.name}-{language}", viewport.width)
