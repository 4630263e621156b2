"""Watches in a real browser: "Watch this question" on a brief makes a watch, "Run now" runs it
through the worker, its page shows the run with its new items, the feed address copies under the
Content-Security-Policy and serves Atom; the watch pages fit a phone and pass axe-core, in
English and Chinese."""

from __future__ import annotations

import re
import urllib.request

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import chrome
from tests.browser.test_dashboard import FAST, ask, sign_in, wait
from tests.browser.test_pages import browser_zone_remembered, check_pages
from tests.browser.test_webhooks_page import copied

pytestmark = pytest.mark.browser


def clicked(driver, by: str, value: str) -> bool:
    """Click the element if it is there and still attached; False to be tried again."""
    try:
        driver.find_element(by, value).click()
    except (NoSuchElementException, StaleElementReferenceException):
        return False
    return True


def watch_made(driver, stack) -> int:
    """A brief asked in the browser, then watched hourly from its page: the watch's id."""
    ask(driver, stack, FAST)
    # The finished brief is swapped into the page: the link found may be replaced before the click.
    wait(driver).until(lambda d: clicked(d, By.ID, "watch-link"))
    question = wait(driver, 15).until(lambda d: d.find_element(By.ID, "id_question"))
    assert question.get_attribute("value") == FAST
    Select(driver.find_element(By.ID, "id_schedule")).select_by_value("hourly")
    driver.find_element(By.ID, "watch-create").click()
    wait(driver, 15).until(lambda d: re.search(r"/watches/\d+/$", d.current_url))
    return int(re.search(r"/watches/(\d+)/$", driver.current_url).group(1))


@pytest.fixture(scope="module")
def watch_id(stack, tmp_path_factory) -> int:
    driver = chrome(tmp_path_factory.mktemp("watch-chrome"))
    try:
        sign_in(driver, stack, "mallory")
        return watch_made(driver, stack)
    finally:
        driver.quit()


def test_a_watch_runs_now_and_its_run_shows_in_its_history(stack, browser, watch_id):
    sign_in(browser, stack, "mallory")
    browser.get(f"{stack.url}/watches/{watch_id}/")
    assert "hourly" in browser.find_element(By.ID, "watch").text
    browser.find_element(By.ID, "run-now").click()
    # "Run now" stays on the watch's page (tests/browser/test_watch_live.py watches it live).
    wait(browser, 15).until(lambda d: d.current_url.endswith(f"/watches/{watch_id}/#runs"))
    wait(browser).until(
        lambda d: d.find_elements(By.ID, "current-run") or not d.find_elements(By.ID, "live")
    )
    [(brief_id,)] = stack.query(
        "SELECT brief_id FROM watches_watchrun WHERE watch_id = %s ORDER BY id DESC LIMIT 1",
        watch_id,
    )
    wait(browser).until(
        lambda d: stack.query(
            "SELECT 1 FROM briefs_brief WHERE id = %s AND finished_at IS NOT NULL", brief_id
        )
    )
    [(outcome, delta)] = stack.query(
        "SELECT outcome, delta FROM briefs_brief WHERE id = %s", brief_id
    )
    assert delta is not None, f"the watch's run must carry what changed; outcome {outcome!r}"
    browser.get(f"{stack.url}/watches/{watch_id}/")
    cells = browser.find_elements(By.CSS_SELECTOR, "#run-table td.new-items")
    assert [c.text for c in cells] == [str(delta["new_items"])]
    assert delta["new_items"] > 0, f"a first run's items are all new, got {delta}"
    link = browser.find_element(By.CSS_SELECTOR, "#run-table td a").get_attribute("href")
    browser.get(link)
    assert (
        browser.find_element(By.ID, "brief-watch")
        .get_attribute("href")
        .endswith(f"/watches/{watch_id}/")
    )


def test_the_feed_address_copies_and_serves_atom(stack, browser, watch_id):
    sign_in(browser, stack, "mallory")
    browser.get(f"{stack.url}/watches/{watch_id}/")
    browser.find_element(By.ID, "rotate-feed").click()  # a new watch has no address yet
    url = wait(browser, 15).until(lambda d: d.find_elements(By.ID, "feed-url"))[0].text
    assert re.fullmatch(rf"{re.escape(stack.url)}/watches/feeds/[A-Za-z0-9_-]{{43}}\.atom", url)
    copied(browser, "copy-feed")
    with urllib.request.urlopen(url, timeout=10) as response:  # no session: the secret suffices
        assert response.headers["Content-Type"] == "application/atom+xml; charset=utf-8"
        assert b"<feed" in response.read()


def test_the_watch_pages_fit_a_phone_and_pass_axe(stack, browser, watch_id):
    browser_zone_remembered(browser, stack)
    sign_in(browser, stack, "mallory")
    pages = {
        "watches": "/watches/",
        "watch": f"/watches/{watch_id}/",
        "watch-delete": f"/watches/{watch_id}/delete/",
    }
    problems = check_pages(browser, stack, "mallory", pages)
    assert not problems, "\n".join(problems)
