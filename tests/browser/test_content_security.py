"""Every page under the Content-Security-Policy in a real browser: the dashboard (a live brief
with its websocket included), the admin's pages and the API docs render and run their scripts
with no CSP violation in the console."""

import re

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import screenshot
from tests.browser.test_dashboard import FAST, SLOW, ask, sign_in, wait

pytestmark = pytest.mark.browser

CSP_MARKERS = ("Content Security Policy", "Content-Security-Policy")


def console_after(driver, url: str) -> list[str]:
    """Open ``url`` and return what the console said (the log is drained on each read)."""
    driver.get_log("browser")
    driver.get(url)
    wait(driver, 15).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return [entry["message"] for entry in driver.get_log("browser")]


def csp_violations(messages: list[str]) -> list[str]:
    return [m for m in messages if any(marker in m for marker in CSP_MARKERS)]


def test_the_sign_in_page_under_the_policy(stack, browser):
    messages = console_after(browser, f"{stack.url}/accounts/login/")
    assert not csp_violations(messages), messages
    # The dashboard's script ran (it writes the time-zone cookie): scripts load at all.
    wait(browser, 10).until(lambda d: d.get_cookie("tz"))


def test_every_dashboard_page_under_the_policy(stack, browser):
    sign_in(browser, stack, "sam")
    live_id = ask(browser, stack, SLOW)
    # The live page: its websocket connects under connect-src 'self'.
    wait(browser, 20).until(
        lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live"
    )
    violations = csp_violations([e["message"] for e in browser.get_log("browser")])
    assert not violations, violations
    stack.gate.release()
    done_id = ask(browser, stack, FAST)
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    pages = [
        "/",
        f"/briefs/{live_id}/",
        f"/briefs/{done_id}/",
        f"/briefs/{done_id}/delete/",
        "/briefs/",
        "/briefs/?q=rsshub",
        "/tokens/",
        "/webhooks/",
        "/health/routes/",
        "/accounts/password_change/",
    ]
    found = {page: csp_violations(console_after(browser, stack.url + page)) for page in pages}
    assert not any(found.values()), {page: v for page, v in found.items() if v}


def admin_pages(browser, stack) -> list[str]:
    """The admin's index, every model's list and add page, and the first object's change page."""
    browser.get(f"{stack.url}/admin/")
    lists = sorted(
        {
            a.get_attribute("href")
            for a in browser.find_elements(By.CSS_SELECTOR, "#content-main th[scope=row] a")
        }
    )
    pages = [f"{stack.url}/admin/"]
    for changelist in lists:
        pages.append(changelist)
        browser.get(changelist)
        rows = browser.find_elements(By.CSS_SELECTOR, "#result_list tbody th a")
        if rows:
            pages.append(rows[0].get_attribute("href"))
        if browser.find_elements(By.CSS_SELECTOR, "a.addlink"):
            pages.append(changelist + "add/")
    return pages


def test_every_admin_page_under_the_policy(stack, browser):
    sign_in(browser, stack, "sam")
    pages = admin_pages(browser, stack)
    assert any(re.search(r"/admin/catalog/route/\d+/change/", p) for p in pages), pages
    assert any("/admin/axes/accessattempt/" in p for p in pages), "staff unlock from here"
    found = {page: csp_violations(console_after(browser, page)) for page in pages}
    assert not any(found.values()), {page: v for page, v in found.items() if v}
    # The route list's health badges are styled by the stylesheet, not by a style attribute.
    browser.get(f"{stack.url}/admin/catalog/route/?o=-6")
    badge = browser.find_element(By.CSS_SELECTOR, ".health-badge")
    palette = {
        "rgba(26, 127, 55, 1)",
        "rgba(154, 103, 0, 1)",
        "rgba(207, 34, 46, 1)",
        "rgba(130, 7, 30, 1)",
        "rgba(102, 102, 102, 1)",  # the admin's --body-quiet-color
    }  # catalog/static/catalog/admin.css
    assert badge.value_of_css_property("color") in palette
    screenshot(browser, "20-admin-routes-under-csp")


def test_the_api_docs_under_the_policy(stack, browser):
    sign_in(browser, stack, "sam")
    messages = console_after(browser, f"{stack.url}/api/docs/")
    # Swagger UI ran: it fetched the schema and drew the operations.
    wait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock"))
    messages += [e["message"] for e in browser.get_log("browser")]
    assert not csp_violations(messages), messages
    assert "RSSHub Agent API" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
    screenshot(browser, "21-api-docs-under-csp")
