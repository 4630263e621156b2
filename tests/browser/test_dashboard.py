"""The dashboard in a real browser against the real server, worker and RSSHub (see conftest):
sign in, ask offline, watch steps arrive before the brief, follow citations, reload mid-run,
cancel, be refused another user's brief, switch language, and read without JavaScript."""

import re
import time

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.browser.conftest import PASSWORDS, chrome, citations_of, screenshot

pytestmark = pytest.mark.browser

SLOW = "rsshub test feed slow"  # offline: /test/slow4, held at the gate until released
FAST = "rsshub test feed"  # offline: /test/1
FAST_ZH = "测试源的最新内容"  # the same route, asked in Chinese: a brief in Chinese
BROKEN = "rsshub test feed broken"  # offline: /test/error, which RSSHub answers with an error
RUN_SECONDS = 60
SEQS_JS = "return Array.from(document.querySelectorAll('#timeline li')).map(li => +li.dataset.seq)"


def wait(driver, seconds: float = RUN_SECONDS) -> WebDriverWait:
    return WebDriverWait(
        driver, seconds, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
    )


def text_by_id(driver, element_id: str) -> str | None:
    """The element's visible text, read in one script run against whichever document is loaded:
    a page that reloads after a form post cannot hand back a node of the document it left."""
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.innerText.trim() : null",
        element_id,
    )


def sign_in(driver, stack, username: str) -> None:
    driver.get(f"{stack.url}/accounts/login/")
    driver.find_element(By.ID, "id_username").send_keys(username)
    driver.find_element(By.ID, "id_password").send_keys(PASSWORDS[username])
    driver.find_element(By.ID, "login-submit").click()
    wait(driver, 15).until(lambda d: d.find_elements(By.ID, "logout-button"))


def ask(driver, stack, question: str) -> int:
    driver.get(f"{stack.url}/")
    box = wait(driver, 15).until(lambda d: d.find_element(By.ID, "id_question"))
    box.send_keys(question)
    driver.find_element(By.ID, "ask-submit").click()
    wait(driver, 15).until(lambda d: re.search(r"/briefs/\d+/$", d.current_url))
    return int(re.search(r"/briefs/(\d+)/$", driver.current_url).group(1))


def broken_asked(driver, stack) -> int:
    """A brief on the "broken" option, once it has finished; then the test route's health is
    reset as staff would (``Stack.test_route_health_reset``), so the circuit that its failures
    opened does not turn the next questions on that route into briefs that found nothing."""
    brief_id = ask(driver, stack, BROKEN)
    wait(driver).until(
        lambda d: d.find_elements(By.ID, "actions") and not d.find_elements(By.ID, "live")
    )
    stack.test_route_health_reset()
    return brief_id


def status_of(stack, brief_id: int) -> str:
    [(status,)] = stack.query("SELECT status FROM briefs_brief WHERE id = %s", brief_id)
    return status


def assert_gapless(seqs: list[int]) -> None:
    assert seqs == list(range(1, len(seqs) + 1)), f"steps must be 1..n once each, got {seqs}"


def test_sign_in_and_the_home_page(stack, browser):
    browser.get(f"{stack.url}/")
    wait(browser, 15).until(lambda d: "/accounts/login/" in d.current_url)
    screenshot(browser, "01-login")
    sign_in(browser, stack, "alice")
    banner = browser.find_element(By.ID, "banner").text
    assert "Offline mode" in banner
    assert "RSSHub answers." in banner
    assert not browser.find_elements(By.ID, "admin-link"), "alice is not staff"
    screenshot(browser, "02-home")


def test_steps_arrive_live_before_the_brief_and_cite_the_right_items(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = ask(browser, stack, SLOW)
    stack.gate.wait_held()
    wait(browser).until(lambda d: len(d.execute_script(SEQS_JS)) >= 4)
    assert browser.execute_script(SEQS_JS)[0] == 1
    assert browser.find_element(By.ID, "step-1").get_attribute("data-kind") == "brief_queued"
    browser.execute_script("window.livePage = 'the same page'")  # a reload would drop it
    assert browser.find_elements(By.ID, "live"), "still the live page"
    assert not browser.find_elements(By.ID, "brief-body")
    assert status_of(stack, brief_id) in ("queued", "running"), "steps came before the brief"
    wait(browser, 10).until(
        lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live"
    )
    screenshot(browser, "03-brief-running")

    stack.gate.release()
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    assert browser.execute_script("return window.livePage") == "the same page", (
        "the finished brief was swapped in, not reloaded"
    )
    assert status_of(stack, brief_id) == "succeeded"
    badge = browser.find_element(By.CSS_SELECTOR, "#brief-status .badge")
    assert (badge.get_attribute("data-outcome"), badge.get_attribute("class")) == (
        "answered",
        "badge tone-ok",
    ), "a finished brief wears its outcome"
    screenshot(browser, "04-brief-done")
    assert_gapless(browser.execute_script(SEQS_JS))

    expected = {c["n"]: c["link"] for c in citations_of(stack, brief_id)}
    assert expected, "the brief cites items"
    links = {
        row[0]: row[1]
        for row in stack.query(
            "SELECT id, link FROM fetching_item WHERE id = ANY(%s)",
            [c["item_id"] for c in citations_of(stack, brief_id)],
        )
    }
    assert set(expected.values()) == set(links.values()), "citations are the stored items"
    anchors = browser.find_elements(By.CSS_SELECTOR, "#brief-body a[data-n]")
    assert anchors, "[n] markers are links"
    for anchor in anchors:
        n = int(anchor.get_attribute("data-n"))
        assert anchor.get_attribute("href") == expected[n]
        assert anchor.get_attribute("target") == "_blank"
        assert "noopener" in anchor.get_attribute("rel")
    for source in browser.find_elements(By.CSS_SELECTOR, "#sources a.source-link"):
        assert source.get_attribute("href") == expected[int(source.get_attribute("data-n"))]
    assert browser.find_element(By.ID, "coverage").text.count("/test/slow4") == 1
    assert browser.find_element(By.ID, "as-of").text


# Records, in the tab's sessionStorage (it would outlive a reload too), the seq of every step the
# live page appends after the observer is installed, until the finished brief is swapped in.
LIVE_SEQS_OBSERVE_JS = """
sessionStorage.setItem('liveSeqs', '[]');
new MutationObserver((changes) => {
  const seqs = JSON.parse(sessionStorage.getItem('liveSeqs'));
  for (const change of changes) for (const node of change.addedNodes) {
    if (node.dataset && node.dataset.seq) seqs.push(+node.dataset.seq);
  }
  sessionStorage.setItem('liveSeqs', JSON.stringify(seqs));
}).observe(document.getElementById('timeline'), {childList: true, subtree: true});
"""


def test_reloading_mid_run_shows_no_gap_and_no_duplicate(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = ask(browser, stack, SLOW)
    stack.gate.wait_held()
    wait(browser).until(lambda d: len(d.execute_script(SEQS_JS)) >= 3)
    browser.refresh()
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "timeline"))
    after_reload = browser.execute_script(SEQS_JS)
    browser.execute_script(LIVE_SEQS_OBSERVE_JS)
    assert_gapless(after_reload)
    stack.gate.release()
    # The page swaps in the finished brief; the observer's record holds what came live before.
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    live = browser.execute_script("return JSON.parse(sessionStorage.getItem('liveSeqs') || '[]')")
    assert live, "steps kept arriving live after the reload"
    assert_gapless(after_reload + live)
    final = browser.execute_script(SEQS_JS)
    assert_gapless(final)
    [(count,)] = stack.query("SELECT count(*) FROM briefs_runstep WHERE brief_id = %s", brief_id)
    assert len(final) == count == len(after_reload) + len(live)


def test_cancel_stops_a_run(stack, browser):
    sign_in(browser, stack, "alice")
    brief_id = ask(browser, stack, SLOW)
    # The third step_started is the fetch: /test/slow4 is now in flight, held at the gate.
    stack.gate.wait_held()
    wait(browser).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#timeline li[data-kind=step_started]")) >= 3
    )
    browser.find_element(By.ID, "cancel-button").click()
    wait(browser, 15).until(
        lambda d: (
            stack.query("SELECT cancel_requested FROM briefs_brief WHERE id = %s", brief_id)
            == [(True,)]
        )
    )
    stack.gate.release()  # the fetch returns; the run stops at its next step
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-error"))
    assert "This brief was cancelled" in browser.find_element(By.ID, "brief-error").text
    assert status_of(stack, brief_id) == "cancelled"
    kinds = [
        k
        for (k,) in stack.query(
            "SELECT kind FROM briefs_runstep WHERE brief_id = %s ORDER BY seq", brief_id
        )
    ]
    assert kinds[-1] == "run_cancelled" and "brief_ready" not in kinds
    screenshot(browser, "05-brief-cancelled")


def test_another_user_cannot_open_a_brief(stack, browser, second_browser):
    sign_in(browser, stack, "alice")
    brief_id = ask(browser, stack, FAST)
    sign_in(second_browser, stack, "mallory")
    second_browser.get(f"{stack.url}/briefs/{brief_id}/")
    assert second_browser.find_element(By.ID, "error-page").get_attribute("data-status") == "404"
    assert FAST not in second_browser.find_element(By.TAG_NAME, "body").text
    screenshot(second_browser, "06-other-user-404")
    code = second_browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const ws = new WebSocket(`ws://${location.host}/ws/briefs/${arguments[0]}/?after=0`);
        ws.onclose = (event) => done(event.code);
        """,
        brief_id,
    )
    assert code == 4403, "the websocket refuses another user's brief"


def test_the_language_switch(stack, browser):
    sign_in(browser, stack, "alice")
    Select(browser.find_element(By.ID, "language-select")).select_by_value("zh-hans")
    wait(browser, 15).until(lambda d: "你想知道什么" in d.page_source)
    assert "离线模式" in browser.find_element(By.ID, "banner").text
    screenshot(browser, "07-home-zh-hans")
    ask(browser, stack, FAST_ZH)
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    assert "第 1 步" in browser.find_element(By.ID, "timeline").get_attribute("textContent")
    assert "来源" in browser.find_element(By.ID, "sources").text
    screenshot(browser, "08-brief-zh-hans")
    Select(browser.find_element(By.ID, "language-select")).select_by_value("en")
    # The page around the brief follows the interface; the brief keeps its own language.
    wait(browser, 15).until(
        lambda d: "Step 1" in d.find_element(By.ID, "timeline").get_attribute("textContent")
    )
    assert "来源" in browser.find_element(By.ID, "sources").text


def test_the_briefs_list_and_route_health(stack, browser):
    sign_in(browser, stack, "sam")
    ask(browser, stack, FAST)
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    browser.get(f"{stack.url}/briefs/?q=rsshub")
    assert browser.find_elements(By.CSS_SELECTOR, "#brief-table tbody tr")
    browser.get(f"{stack.url}/briefs/?outcome=answered")
    outcomes = browser.find_elements(By.CSS_SELECTOR, "#brief-table .badge[data-outcome]")
    assert outcomes and {b.get_attribute("data-outcome") for b in outcomes} == {"answered"}
    screenshot(browser, "09-briefs")
    browser.get(f"{stack.url}/health/routes/")
    rows = browser.find_elements(By.CSS_SELECTOR, "#health-table tr.route-row")
    assert rows, "the routes fetched so far are listed"
    # Today's column of the test route, coloured by its success rate (the "broken" option's
    # failures may share the day with the successes: any tone but "no data").
    toned = "#health-table svg.spark-success rect:is(.tone-ok, .tone-warn, .tone-bad)"
    assert browser.find_elements(By.CSS_SELECTOR, toned), "a fetched route's day has a tone"
    assert browser.find_element(By.ID, "admin-link")
    screenshot(browser, "10-route-health")


def test_a_brief_reads_without_javascript(stack, tmp_path):
    driver = chrome(tmp_path / "nojs", javascript=False)
    try:
        sign_in(driver, stack, "alice")
        brief_id = ask(driver, stack, FAST)
        deadline = time.monotonic() + RUN_SECONDS
        while not driver.find_elements(By.ID, "brief-body") and time.monotonic() < deadline:
            time.sleep(0.5)
            driver.refresh()
        assert driver.find_elements(By.ID, "brief-body"), "the server renders the brief"
        assert driver.find_elements(By.CSS_SELECTOR, "#brief-body a[data-n]")
        assert_gapless(
            [
                int(li.get_attribute("data-seq"))
                for li in driver.find_elements(By.CSS_SELECTOR, "#timeline li")
            ]
        )
        assert status_of(stack, brief_id) == "succeeded"
        screenshot(driver, "11-brief-without-javascript")
    finally:
        driver.quit()
