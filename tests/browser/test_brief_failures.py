"""A brief whose only source fails, read on a phone by someone in Shanghai: the coverage says in
words what happened and fits the screen with its raw message open, and every time on the page,
the brief's own text included, is in the browser's zone and names it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By

from tests.browser.pagecheck import PHONE, overflow, page_shot, viewport_set
from tests.browser.test_dashboard import broken_asked, sign_in, wait

pytestmark = pytest.mark.browser

ZONE = "Asia/Shanghai"


@pytest.fixture
def failed_brief(stack, browser) -> Iterator[int]:
    """Alice's failed brief, asked from a browser whose clock is in Shanghai by a reader whose
    profile keeps that zone (the server writes the profile's zone into the ``tz`` cookie at
    sign-in); her profile is dropped again after, so other tests' sign-ins make their own."""
    alice = "(SELECT id FROM auth_user WHERE username = 'alice')"
    stack.query(
        "INSERT INTO accounts_profile (user_id, time_zone, interface_language, brief_language,"
        f" updated_at) VALUES ({alice}, %s, '', '', now()) ON CONFLICT (user_id)"
        " DO UPDATE SET time_zone = EXCLUDED.time_zone RETURNING 1",
        ZONE,
    )
    browser.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
    sign_in(browser, stack, "alice")
    brief_id = broken_asked(browser, stack)
    # Set by the server, the value is quoted ("/" is not a plain cookie character).
    wait(browser, 15).until(
        lambda d: (d.get_cookie("tz") or {}).get("value", "").strip('"') == ZONE
    )
    yield brief_id
    stack.query(f"DELETE FROM accounts_profile WHERE user_id = {alice} RETURNING 1")


def test_a_failed_brief_on_a_phone_explains_itself_without_sideways_scroll(
    stack, browser, failed_brief
):
    viewport_set(browser, PHONE)
    browser.get(f"{stack.url}/briefs/{failed_brief}/")
    coverage = browser.find_element(By.ID, "coverage")
    for summary in coverage.find_elements(By.CSS_SELECTOR, "details.raw-message summary"):
        summary.click()
    page_shot(browser, "failed-brief-390-raw-messages-open")
    explanation = coverage.find_element(By.CSS_SELECTOR, "tr.row-bad .explain-line").text
    assert "test" in explanation and "_" not in explanation, explanation
    raw = coverage.find_element(By.CSS_SELECTOR, "details.raw-message[open] .raw")
    assert raw.is_displayed() and raw.text, "the raw message is there once disclosed"
    width, wide = overflow(browser, PHONE.width)
    assert width <= PHONE.width, f"{width} px wide at {PHONE.width}: {wide}"
    body = browser.find_element(By.ID, "brief-body").text
    assert "/test/error" not in body, "the coverage is the table's, not the body's too"


def test_times_on_the_brief_page_are_in_the_browsers_zone(stack, browser, failed_brief):
    browser.get(f"{stack.url}/briefs/{failed_brief}/")
    body = browser.find_element(By.ID, "brief-body").text
    asked = browser.find_element(By.CSS_SELECTOR, ".brief-head .meta time").text
    assert "UTC" not in body, f"a time left in UTC: {body!r}"
    assert "CST" in body, f"no time in {ZONE}'s zone: {body!r}"
    assert asked.endswith("CST"), f"the header's time names no zone: {asked!r}"
