"""Sharing in a real browser: the owner makes a share link and copies it; a browser without a
session reads the brief under the Content-Security-Policy and sees nothing of the owner; after
revoking, the link is the 404 page. The Feeds page runs its copy button under the policy too."""

import pytest
from selenium.webdriver.common.by import By

from tests.browser.test_content_security import console_after, csp_violations
from tests.browser.test_dashboard import FAST, ask, sign_in, text_by_id, wait

pytestmark = pytest.mark.browser


def copied(driver, button_id: str) -> None:
    """Click a copy button and see the dashboard's script confirm it."""
    driver.find_element(By.ID, button_id).click()
    wait(driver, 5).until(lambda d: d.find_element(By.ID, button_id).text == "Copied")


def test_a_share_link_reads_without_login_and_stops_when_revoked(stack, browser, second_browser):
    sign_in(browser, stack, "alice")
    brief_id = ask(browser, stack, FAST)
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    browser.find_element(By.ID, "share-create-button").click()
    field = wait(browser, 15).until(lambda d: d.find_element(By.ID, "share-url-field"))
    url = field.text
    assert url.startswith(f"{stack.url}/s/")
    copied(browser, "share-copy-button")

    messages = console_after(second_browser, url)
    assert not csp_violations(messages), messages
    body = second_browser.find_element(By.ID, "brief-body").text
    assert body, "the answer is shown"
    assert "alice" not in second_browser.page_source
    assert not second_browser.find_elements(By.ID, "logout-button")
    assert not second_browser.find_elements(By.CSS_SELECTOR, f"a[href*='/briefs/{brief_id}']")
    copied(second_browser, "copy-button")  # the markdown copy works for the reader too

    browser.get(f"{stack.url}/briefs/{brief_id}/")
    browser.find_element(By.ID, "share-revoke-button").click()
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "share-create-button"))
    second_browser.get(url)
    page = second_browser.find_element(By.ID, "error-page")
    assert page.get_attribute("data-status") == "404"
    assert not second_browser.find_elements(By.ID, "brief-body")


def test_the_feeds_page_under_the_policy(stack, browser):
    sign_in(browser, stack, "alice")
    messages = console_after(browser, f"{stack.url}/feeds/")
    assert not csp_violations(messages), messages
    address = browser.find_element(By.ID, "feed-url-field").text
    assert address.startswith(f"{stack.url}/feeds/") and address.endswith("/briefs.atom")
    copied(browser, "feed-copy-button")
    browser.find_element(By.ID, "feed-rotate-button").click()
    wait(browser, 15).until(lambda d: text_by_id(d, "feed-url-field") not in (None, address))
    rotated = text_by_id(browser, "feed-url-field")
    assert rotated.startswith(f"{stack.url}/feeds/") and rotated.endswith("/briefs.atom")
