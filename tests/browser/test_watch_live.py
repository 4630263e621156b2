"""The watch form, "Run now" and What's new in a real browser, at 1366 and 390 px, in English
and Chinese: the form shows only the chosen schedule's fields; "Run now" stays on the watch page,
shows the run's steps live and swaps in the finished run without leaving or reloading; What's
new lists the new items with their watch. axe-core finds no serious or critical violation and
the console no CSP violation (read before axe runs: axe's own injected styles are reported as
inline-style violations of the page)."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser.pagecheck import (
    LANGUAGES,
    VIEWPORTS,
    axe_violations,
    language_set,
    page_shot,
    viewport_set,
)
from tests.browser.test_content_security import console_after, csp_violations
from tests.browser.test_dashboard import SLOW, sign_in, wait
from tests.browser.test_pages import browser_zone_remembered

pytestmark = pytest.mark.browser

SCHEDULE_FIELDS = ("time_of_day-field", "minute-field", "weekday-field")
SHOWN = {
    "daily": {"time_of_day-field"},
    "hourly": {"minute-field"},
    "weekly": {"time_of_day-field", "weekday-field"},
}


def shown_fields(driver) -> set[str]:
    return {f for f in SCHEDULE_FIELDS if driver.find_element(By.ID, f).is_displayed()}


def page_problems(driver, url: str, where: str) -> list[str]:
    """CSP violations (before axe is injected), then axe's serious and critical findings."""
    problems = [f"{where}: CSP {m}" for m in csp_violations(console_after(driver, url))]
    return problems + [f"{where}: axe {v}" for v in axe_violations(driver)]


def test_the_watch_form_shows_the_fields_of_the_schedule_chosen(stack, browser):
    browser_zone_remembered(browser, stack)
    sign_in(browser, stack, "olga")
    problems = []
    for language in LANGUAGES:
        language_set(browser, stack.url, language)
        for viewport in VIEWPORTS:
            viewport_set(browser, viewport)
            where = f"watches {viewport.name} {language}"
            problems += page_problems(browser, f"{stack.url}/watches/", where)
            assert shown_fields(browser) == SHOWN["daily"], where  # no "On Monday" when daily
            offline = browser.find_element(By.ID, "id_offline")
            assert offline.is_selected(), "no model on this server: offline from the start"
            for schedule in ("hourly", "weekly", "daily"):
                Select(browser.find_element(By.ID, "id_schedule")).select_by_value(schedule)
                assert shown_fields(browser) == SHOWN[schedule], f"{where} {schedule}"
            page_shot(browser, f"watch-form-{language}-{viewport.name}")
    assert not problems, "\n".join(problems)


def test_run_now_stays_on_the_watch_and_shows_the_run_live(stack, browser):
    sign_in(browser, stack, "olga")
    language_set(browser, stack.url, "en")
    browser.get(f"{stack.url}/watches/")
    browser.find_element(By.ID, "id_question").send_keys(SLOW)
    Select(browser.find_element(By.ID, "id_schedule")).select_by_value("weekly")
    Select(browser.find_element(By.ID, "id_weekday")).select_by_value("3")
    browser.find_element(By.ID, "watch-create").click()
    wait(browser, 15).until(lambda d: re.search(r"/watches/\d+/$", d.current_url))
    watch_id = int(re.search(r"/watches/(\d+)/$", browser.current_url).group(1))
    [(weekday, offline)] = stack.query(
        "SELECT weekday, offline FROM watches_watch WHERE id = %s", watch_id
    )
    assert (weekday, offline) == (3, True)

    browser.find_element(By.ID, "run-now").click()
    wait(browser, 15).until(lambda d: d.current_url.endswith(f"/watches/{watch_id}/#runs"))
    wait(browser, 20).until(
        lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live"
    )
    browser.execute_script("window.stayedOnThePage = true")  # lost on a reload or a new page
    wait(browser).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#timeline li"))
    current = wait(browser).until(lambda d: d.find_elements(By.ID, "current-run"))[0]
    assert browser.execute_script("return window.stayedOnThePage === true")
    assert not browser.find_elements(By.ID, "live")
    assert re.search(r"\d+ new items?", current.text), current.text
    assert browser.current_url.endswith(f"/watches/{watch_id}/#runs")
    page_shot(browser, "watch-run-now-finished")


def test_whats_new_lists_the_new_items_with_their_watch(stack, browser):
    browser_zone_remembered(browser, stack)
    sign_in(browser, stack, "olga")
    browser.get(f"{stack.url}/watches/")
    [(count,)] = stack.query(
        "SELECT count(*) FROM watches_watchrun r JOIN watches_watch w ON w.id = r.watch_id "
        "JOIN auth_user u ON u.id = w.owner_id WHERE u.username = 'olga'"
    )
    assert count, "test_run_now_stays_on_the_watch_and_shows_the_run_live runs olga's watch first"
    problems = []
    for language in LANGUAGES:
        language_set(browser, stack.url, language)
        for viewport in VIEWPORTS:
            viewport_set(browser, viewport)
            where = f"whats-new {viewport.name} {language}"
            problems += page_problems(browser, f"{stack.url}/watches/new/", where)
            items = browser.find_elements(By.CSS_SELECTOR, "#news-items li.news-item")
            assert items, where
            assert (
                items[0]
                .find_element(By.CSS_SELECTOR, "a.news-watch")
                .get_attribute("href")
                .split("/watches/")[1]
                .rstrip("/")
                .isdigit()
            )
            width = browser.execute_script("return document.documentElement.scrollWidth")
            if width > viewport.width:
                problems.append(f"{where}: {width} px wide")
            page_shot(browser, f"whats-new-{language}-{viewport.name}")
    assert browser.find_element(By.ID, "news-link")
    assert not problems, "\n".join(problems)
