"""The brief list in a real browser: rows that say what each brief found, their actions (open,
rerun, follow up, delete after a confirmation), the examples of an empty list, a filter that
makes no sense, and the keyboard: Tab reaches the question box, the submit button and every
action of a row, in that order, and Enter uses them."""

from __future__ import annotations

import contextlib
import re

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.alert import Alert
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser.test_dashboard import FAST, ask, sign_in, wait
from tests.browser.test_pages import finished

pytestmark = pytest.mark.browser

ACTIONS = ["open", "rerun", "follow-up", "delete"]


def row_of(driver, brief_id: int):
    return driver.find_element(By.ID, f"brief-row-{brief_id}")


def action(driver, brief_id: int, name: str):
    return row_of(driver, brief_id).find_element(By.CSS_SELECTOR, f"[data-action={name}]")


def brief_count(stack, username: str) -> int:
    [(count,)] = stack.query(
        "SELECT count(*) FROM briefs_brief b JOIN auth_user u ON u.id = b.owner_id "
        "WHERE u.username = %s",
        username,
    )
    return count


def test_a_row_shows_what_the_brief_found_and_its_actions_work(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = finished(browser, stack, FAST)
    browser.get(f"{stack.url}/briefs/")
    row = row_of(browser, brief_id)
    assert row.find_element(By.CSS_SELECTOR, ".snippet").text, "a snippet of the brief"
    [(cited,)] = stack.query(
        "SELECT jsonb_array_length(citations) FROM briefs_brief WHERE id = %s", brief_id
    )
    assert row.find_element(By.CSS_SELECTOR, ".source-count").text == str(cited) != "0"
    assert row.find_element(By.CSS_SELECTOR, ".badge").get_attribute("data-outcome") == "answered"
    assert row.find_element(By.TAG_NAME, "time").get_attribute("datetime")
    names = [
        a.get_attribute("data-action") for a in row.find_elements(By.CSS_SELECTOR, "[data-action]")
    ]
    assert names == ACTIONS

    action(browser, brief_id, "open").click()
    wait(browser, 15).until(lambda d: d.current_url.endswith(f"/briefs/{brief_id}/"))

    browser.back()
    action(browser, brief_id, "follow-up").click()
    wait(browser, 15).until(lambda d: "follow_up=" in d.current_url)
    picked = Select(browser.find_element(By.ID, "id_follow_up_of")).first_selected_option
    assert picked.get_attribute("value") == str(brief_id)
    assert re.search(r" · \S", picked.text), "the picker shows when it was asked"

    browser.get(f"{stack.url}/briefs/")
    action(browser, brief_id, "rerun").click()
    wait(browser, 15).until(lambda d: re.search(r"/briefs/(\d+)/$", d.current_url))
    rerun_id = int(re.search(r"/briefs/(\d+)/$", browser.current_url).group(1))
    assert rerun_id != brief_id
    [(question,)] = stack.query("SELECT question FROM briefs_brief WHERE id = %s", rerun_id)
    assert question == FAST


def test_delete_asks_first_and_keeps_the_list_it_came_from(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = finished(browser, stack, FAST)
    browser.get(f"{stack.url}/briefs/?q=rsshub")
    action(browser, brief_id, "delete").click()
    Alert(browser).dismiss()
    assert row_of(browser, brief_id), "dismissing keeps the brief"
    assert stack.query("SELECT id FROM briefs_brief WHERE id = %s", brief_id)

    action(browser, brief_id, "delete").click()
    alert = Alert(browser)
    assert "This cannot be undone" in alert.text
    alert.accept()
    wait(browser, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".msg-success"))
    assert browser.current_url == f"{stack.url}/briefs/?q=rsshub"
    assert not browser.find_elements(By.ID, f"brief-row-{brief_id}")
    assert not stack.query("SELECT id FROM briefs_brief WHERE id = %s", brief_id)


def test_an_example_of_the_empty_list_asks_itself(stack, browser):
    sign_in(browser, stack, "olga")
    before = brief_count(stack, "olga")
    browser.get(f"{stack.url}/briefs/")
    assert before == 0, "olga's list must be empty for its examples to show"
    examples = browser.find_elements(By.CSS_SELECTOR, "#examples button.example")
    assert len(examples) == 4
    question = examples[0].text
    examples[0].click()
    wait(browser, 15).until(lambda d: re.search(r"/briefs/\d+/$", d.current_url))
    assert browser.find_element(By.ID, "brief-question").text == question
    # Nothing answers Hacker News from here: stop the run rather than wait for it, unless it
    # ends first (its page then replaces the button as it is reached for)
    for button in browser.find_elements(By.ID, "cancel-button"):
        with contextlib.suppress(StaleElementReferenceException):
            button.click()
    assert brief_count(stack, "olga") == 1


def test_a_filter_that_makes_no_sense_lists_nothing(stack, browser):
    sign_in(browser, stack, "alice")
    ask(browser, stack, FAST)
    browser.get(f"{stack.url}/briefs/?since=2030-03-01&until=2030-01-01")
    assert (
        "The end date is before the start date." in browser.find_element(By.ID, "filter-error").text
    )
    assert not browser.find_elements(By.CSS_SELECTOR, "#brief-table tr[data-brief]")


def focus_path(driver, stop_at, limit: int = 80) -> list[str]:
    """Press Tab from the page's first link (the brand) until ``stop_at(element)``; what got
    focus, in order."""
    driver.execute_script("document.querySelector('a.brand').focus()")
    seen: list[str] = []
    for _ in range(limit):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        element = driver.switch_to.active_element
        seen.append(
            element.get_attribute("id") or element.get_attribute("data-action") or element.tag_name
        )
        if stop_at(element):
            return seen
    raise AssertionError(f"Tab never reached it: {seen}")


def test_tab_reaches_the_question_box_and_its_submit_and_enter_asks(stack, browser):
    sign_in(browser, stack, "alice")
    browser.get(f"{stack.url}/")
    seen = focus_path(browser, lambda e: e.get_attribute("id") == "ask-submit")
    assert seen.index("id_question") < seen.index("id_follow_up_of") < seen.index("ask-submit")
    browser.find_element(By.ID, "id_question").send_keys(FAST)
    browser.find_element(By.ID, "ask-submit").send_keys(Keys.ENTER)
    wait(browser, 15).until(lambda d: re.search(r"/briefs/\d+/$", d.current_url))


def test_tab_reaches_every_action_of_a_row_and_enter_uses_it(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = finished(browser, stack, FAST)
    browser.get(f"{stack.url}/briefs/")
    row = f"brief-row-{brief_id}"

    def last_action_of_row(element) -> bool:
        in_row = browser.execute_script(f"return !!arguments[0].closest('#{row}')", element)
        return in_row and element.get_attribute("data-action") == "delete"

    seen = focus_path(browser, last_action_of_row)
    assert seen[-len(ACTIONS) :] == ACTIONS, seen
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    Alert(browser).dismiss()  # Enter on Delete asks, like a click
    assert stack.query("SELECT id FROM briefs_brief WHERE id = %s", brief_id)
