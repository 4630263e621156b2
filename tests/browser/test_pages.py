"""Every page a person reaches, at 1366x900 and on a 390x844 phone, in English and Chinese:
nothing scrolls sideways on the phone, axe-core finds no serious or critical violation, no
Chinese page shows English of the catalog (tests/untranslated.py), and a screenshot of each is
kept under artifacts/screenshots/pages.

The pages hold real data made through the site itself: an answered brief, a brief whose only
source fails (with its coverage), a token, and a webhook with a test delivery in its log."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import chrome
from tests.browser.pagecheck import (
    LANGUAGES,
    LAPTOP,
    PHONE,
    VIEWPORTS,
    axe_violations,
    language_set,
    overflow,
    page_shot,
    untranslated_on_page,
    viewport_set,
)
from tests.browser.test_dashboard import FAST, ask, broken_asked, sign_in, wait
from tests.httpserver import Reply, ScriptedServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def receiver():
    with ScriptedServer() as server:
        server.route("/hook", lambda request: Reply(204))
        yield server


def finished(driver, stack, question: str) -> int:
    brief_id = ask(driver, stack, question)
    wait(driver).until(
        lambda d: d.find_elements(By.ID, "actions") and not d.find_elements(By.ID, "live")
    )
    return brief_id


@pytest.fixture(scope="module")
def site(stack, receiver, tmp_path_factory) -> dict:
    """Alice's briefs, token, webhook and a share link, made in the browser once for every page
    test."""
    driver = chrome(tmp_path_factory.mktemp("site-chrome"))
    try:
        sign_in(driver, stack, "alice")
        answered = finished(driver, stack, FAST)
        failed = broken_asked(driver, stack)
        driver.get(f"{stack.url}/tokens/")
        driver.find_element(By.ID, "id_name").send_keys("newsroom bot")
        driver.find_element(By.ID, "token-submit").click()
        wait(driver, 15).until(lambda d: d.find_elements(By.ID, "token-secret"))
        driver.get(f"{stack.url}/webhooks/")
        driver.find_element(By.ID, "id_url").send_keys(f"{receiver.url}/hook")
        driver.find_element(By.ID, "id_description").send_keys("newsroom receiver")
        driver.find_element(By.ID, "webhook-submit").click()
        wait(driver, 15).until(lambda d: d.find_elements(By.ID, "webhook-secret"))
        driver.find_element(By.CSS_SELECTOR, "[data-action=test]").click()
        wait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "tr[data-delivery]"))
        driver.get(f"{stack.url}/briefs/{answered}/")
        driver.find_element(By.ID, "share-create-button").click()
        field = wait(driver, 15).until(lambda d: d.find_element(By.ID, "share-url-field"))
        shared = field.text.removeprefix(stack.url)
        return {"answered": answered, "failed": failed, "shared": shared}
    finally:
        driver.quit()


def alice_pages(site: dict) -> dict[str, str]:
    return {
        "home": "/",
        "briefs": "/briefs/",
        "briefs-invalid-filter": "/briefs/?since=2026-03-01&until=2026-01-01",
        "brief-answered": f"/briefs/{site['answered']}/",
        "brief-failed": f"/briefs/{site['failed']}/",
        "brief-delete": f"/briefs/{site['answered']}/delete/",
        "tokens": "/tokens/",
        "webhooks": "/webhooks/",
        "feeds": "/feeds/",
        "password-change": "/accounts/password_change/",
        "profile": "/accounts/profile/",
        "account-delete": "/accounts/profile/delete/",
        "404": "/no-such-page/",
        "403-route-health": "/health/routes/",
    }


PAGES_OF = {
    "nora": lambda site: {"home-empty": "/", "briefs-empty": "/briefs/"},
    "sam": lambda site: {
        "route-health": "/health/routes/",
        "route-health-no-match": "/health/routes/?q=no-such-route-anywhere",
    },
    None: lambda site: {
        "login": "/accounts/login/",
        "password-reset": "/accounts/password_reset/",
        "invitation-closed": f"/accounts/invitation/{'A' * 43}/",
        "shared-brief": site["shared"],
    },
}


def browser_zone_remembered(driver, stack) -> None:
    """The time-zone cookie the dashboard's script sets on the sign-in page, set here before
    any page is checked."""
    driver.get(f"{stack.url}/accounts/login/")
    zone = driver.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
    driver.add_cookie({"name": "tz", "value": zone, "path": "/"})


def check_pages(driver, stack, who: str, pages: dict[str, str]) -> list[str]:
    """Open each page at each size in each language; return what is wrong, one line each."""
    problems: list[str] = []
    for language in LANGUAGES:
        language_set(driver, stack.url, language)
        for viewport in VIEWPORTS:
            viewport_set(driver, viewport)
            for name, path in pages.items():
                driver.get(stack.url + path)
                wait(driver, 15).until(
                    lambda d: d.execute_script("return document.readyState") == "complete"
                )
                where = f"{who} {name} {viewport.name} {language}"
                assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
                page_shot(driver, f"{language}-{viewport.name}-{name}")
                if viewport is PHONE:
                    width, wide = overflow(driver, PHONE.width)
                    if width > PHONE.width:
                        problems.append(f"{where}: {width} px wide: {wide}")
                for violation in axe_violations(driver):
                    problems.append(f"{where}: axe {violation}")
                if language != "en" and viewport is PHONE:  # the words do not change with size
                    problems += [f"{where}: English {f}" for f in untranslated_on_page(driver)]
    return problems


@pytest.mark.parametrize("who", ["alice", "nora", "sam", None], ids=str)
def test_every_page_fits_a_phone_and_passes_axe(stack, site, browser, who):
    browser_zone_remembered(browser, stack)
    pages = alice_pages(site) if who == "alice" else PAGES_OF[who](site)
    if who:
        sign_in(browser, stack, who)
    problems = check_pages(browser, stack, who or "anonymous", pages)
    assert not problems, "\n".join(problems)


def test_the_failed_brief_shows_its_coverage(stack, site, browser):
    sign_in(browser, stack, "alice")
    browser.get(f"{stack.url}/briefs/{site['failed']}/")
    coverage = browser.find_element(By.ID, "coverage")
    assert "/test/error" in coverage.text
    assert coverage.find_elements(By.CSS_SELECTOR, "table.stacked tr.row-bad")


def test_the_answered_brief_on_a_phone_stacks_its_tables(stack, site, browser):
    sign_in(browser, stack, "alice")
    viewport_set(browser, PHONE)
    browser.get(f"{stack.url}/briefs/{site['answered']}/")
    cell = browser.find_element(By.CSS_SELECTOR, "#coverage table.stacked td")
    assert cell.value_of_css_property("display") == "block"
    label = browser.execute_script(
        "return getComputedStyle(arguments[0], '::before').content", cell
    )
    assert re.sub(r'"', "", label) == "Path", "each cell is under its column's name"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_admin_route_list_fits_a_laptop(stack, browser, language):
    sign_in(browser, stack, "sam")
    language_set(browser, stack.url, language)
    viewport_set(browser, LAPTOP)
    browser.get(f"{stack.url}/admin/catalog/route/")
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "result_list"))
    page_shot(browser, f"{language}-{LAPTOP.name}-admin-routes")
    width, wide = overflow(browser, LAPTOP.width)
    assert width <= LAPTOP.width, f"{width} px wide: {wide}"
