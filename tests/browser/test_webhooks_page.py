"""The webhook and token pages in a real browser: register a webhook to a receiver on 127.0.0.1,
copy its secret, send a test delivery that the worker signs and delivers, read it in the log;
a new token has a copy button that works under the Content-Security-Policy."""

from __future__ import annotations

import json
import time

import pytest
from selenium.webdriver.common.by import By

from tests.api.test_webhooks import signature_ok
from tests.browser.test_dashboard import RUN_SECONDS, sign_in, wait
from tests.httpserver import Reply, ScriptedServer

pytestmark = pytest.mark.browser


@pytest.fixture
def receiver():
    with ScriptedServer() as server:
        yield server


def copied(driver, button_id: str) -> None:
    button = driver.find_element(By.ID, button_id)
    label = button.text
    button.click()
    wait(driver, 5).until(lambda d: d.find_element(By.ID, button_id).text != label)
    assert driver.find_element(By.ID, button_id).text == "Copied"


def test_a_webhook_is_registered_tested_and_its_delivery_logged(stack, browser, receiver):
    received = []

    def handle(request):
        received.append(request)
        return Reply(204)

    receiver.route("/browser-hook", handle)
    sign_in(browser, stack, "mallory")
    browser.find_element(By.LINK_TEXT, "Webhooks").click()
    browser.find_element(By.ID, "id_url").send_keys(f"{receiver.url}/browser-hook")
    browser.find_element(By.ID, "webhook-submit").click()
    secret = wait(browser, 15).until(lambda d: d.find_element(By.ID, "webhook-secret")).text
    assert secret.startswith("whsec_")
    copied(browser, "copy-webhook-secret")

    browser.find_element(By.CSS_SELECTOR, "[data-action=test]").click()
    deadline = time.monotonic() + RUN_SECONDS
    while time.monotonic() < deadline:  # the log is server-rendered: reload to read it
        rows = browser.find_elements(By.CSS_SELECTOR, "tr[data-event='webhook.ping']")
        if rows and rows[0].get_attribute("data-status") == "succeeded":
            break
        time.sleep(0.5)
        browser.refresh()
    assert rows[0].get_attribute("data-status") == "succeeded"
    assert "HTTP 204" in rows[0].text
    [request] = received
    assert signature_ok(secret, request), "the receiver can verify the signature"
    assert json.loads(request.body)["event"] == "webhook.ping"
    assert secret not in browser.page_source, "the secret is shown once"


def test_a_new_token_can_be_copied(stack, browser):
    sign_in(browser, stack, "mallory")
    browser.get(f"{stack.url}/tokens/")
    browser.find_element(By.ID, "id_name").send_keys("copy test")
    browser.find_element(By.ID, "token-submit").click()
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "token-secret"))
    copied(browser, "copy-token")
