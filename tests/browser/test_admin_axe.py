"""The admin pages staff use most, at 1366 and 390 px, in English and Chinese: axe-core finds no
serious or critical violation (breadcrumb links, the route list's quiet text, links in text,
the platform list's editable fields; Django's own user and schedule change pages, with their
split date-time fields and filter boxes; the accounts' invitations and profiles) and the
console no CSP violation, read before axe is injected (axe's own styles are reported as the
page's inline-style violations)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from tests.browser.pagecheck import LANGUAGES, VIEWPORTS, language_set, viewport_set
from tests.browser.test_dashboard import sign_in
from tests.browser.test_watch_live import page_problems

pytestmark = pytest.mark.browser


def first_row(browser, url: str) -> str:
    """The change page of the first row of the admin list at ``url``."""
    browser.get(url)
    return browser.find_element(By.CSS_SELECTOR, "#result_list tbody th a").get_attribute("href")


def staff_pages(stack, browser) -> list[str]:
    route = first_row(browser, f"{stack.url}/admin/catalog/route/?q=github")
    platform = first_row(browser, f"{stack.url}/admin/catalog/platform/")
    return [
        # Django's own: split date-time fields (last login, next run) and the filter boxes
        # of the user's groups and permissions.
        first_row(browser, f"{stack.url}/admin/auth/user/?q=sam"),
        # Migrations schedule housekeeping, the watch dispatcher and digests.
        first_row(browser, f"{stack.url}/admin/django_q/schedule/"),
        f"{stack.url}/admin/accounts/invitation/",
        f"{stack.url}/admin/accounts/invitation/add/",
        # Made at sam's sign-in.
        first_row(browser, f"{stack.url}/admin/accounts/profile/"),
        f"{stack.url}/admin/",
        f"{stack.url}/admin/catalog/route/",
        f"{stack.url}/admin/catalog/route/?q=github",
        route,
        f"{stack.url}/admin/catalog/platform/",
        platform,
        f"{stack.url}/admin/watches/watch/",
        f"{stack.url}/webhooks/",
        f"{stack.url}/",
    ]


def test_the_admin_pages_pass_axe_under_the_policy(stack, browser):
    sign_in(browser, stack, "sam")
    pages = staff_pages(stack, browser)
    problems = []
    for language in LANGUAGES:
        language_set(browser, stack.url, language)
        for viewport in VIEWPORTS:
            viewport_set(browser, viewport)
            for url in pages:
                where = f"{url.removeprefix(stack.url)} {viewport.name} {language}"
                problems += page_problems(browser, url, where)
    assert not problems, "\n".join(problems)


def test_the_webhook_page_says_the_rule_this_server_applies(stack, browser):
    """The browser stack allows private addresses (its receivers listen on 127.0.0.1)."""
    sign_in(browser, stack, "sam")
    language_set(browser, stack.url, "en")
    browser.get(f"{stack.url}/webhooks/")
    rule = browser.find_element(By.ID, "webhook-address-rule").text
    assert "also accepts private and loopback addresses" in rule
    assert "public internet" not in rule
