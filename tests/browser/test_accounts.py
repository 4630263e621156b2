"""A person's whole stay, in a real browser at 1366 and 390 px, in English and Chinese: staff
make an invitation in the admin; the invited person opens the link, picks a name and password
and is signed in; sets the profile (the browser's zone is the suggestion); asks a question
(offline), answered in the profile's brief language; exports their data (a zip holding that
brief); deletes the account with their password; and nothing of theirs remains in the database.
Each of the account pages passes axe (no serious or critical violation), fits the phone, shows
no catalog English in Chinese, and runs under the Content-Security-Policy."""

import base64
import io
import json
import re
import zipfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.accounts.conftest import user_foreign_key_columns
from tests.browser.pagecheck import (
    LAPTOP,
    PHONE,
    axe_violations,
    language_set,
    overflow,
    page_shot,
    untranslated_on_page,
    viewport_set,
)
from tests.browser.test_content_security import csp_violations
from tests.browser.test_dashboard import FAST, ask, sign_in, wait

pytestmark = pytest.mark.browser

PASSWORD = "a-long-Pass-phrase-42"
LINK_RE = re.compile(r"https?://\S+/accounts/invitation/[A-Za-z0-9_-]{43}/")
EXPORT_JS = """
const done = arguments[arguments.length - 1];
const form = document.querySelector('#export form');
fetch(form.action, {method: 'POST', body: new FormData(form), credentials: 'same-origin'})
  .then((r) => r.arrayBuffer())
  .then((buffer) => {
    let text = '';
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    done(btoa(text));
  }, (error) => done('failed: ' + error));
"""


def invitation_made(driver, stack) -> str:
    """Staff's link, as the admin shows it once after saving a new invitation."""
    sign_in(driver, stack, "sam")
    driver.get(f"{stack.url}/admin/accounts/invitation/add/")
    driver.find_element(By.ID, "id_note").send_keys("a newcomer")
    driver.find_element(By.NAME, "_save").click()
    shown = wait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".messagelist"))
    return LINK_RE.search(shown[0].text).group(0)


def page_problems(driver, where: str, viewport, language: str) -> list[str]:
    page_shot(driver, f"accounts-{language}-{viewport.name}-{where}")
    problems = [f"{where}: axe {v}" for v in axe_violations(driver)]
    if viewport is PHONE:
        width, wide = overflow(driver, PHONE.width)
        if width > PHONE.width:
            problems.append(f"{where}: {width} px wide: {wide}")
    if language != "en":
        problems += [f"{where}: English {f}" for f in untranslated_on_page(driver)]
    problems += [
        f"{where}: {m}" for m in csp_violations([e["message"] for e in driver.get_log("browser")])
    ]
    return problems


def exported(driver) -> dict[str, str]:
    encoded = driver.execute_async_script(EXPORT_JS)
    assert not encoded.startswith("failed"), encoded
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(encoded))) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def left_of(stack, user_id: int, brief_id: int) -> dict[str, int]:
    """Rows still pointing at the user, in every table that can, and the brief's own rows."""
    left = {}
    for table, column in user_foreign_key_columns():
        [(n,)] = stack.query(f'SELECT count(*) FROM "{table}" WHERE "{column}" = %s', user_id)
        if n:
            left[f"{table}.{column}"] = n
    for table, column in (
        ("auth_user", "id"),
        ("briefs_brief", "id"),
        ("briefs_runstep", "brief_id"),
    ):
        key = user_id if table == "auth_user" else brief_id
        [(n,)] = stack.query(f'SELECT count(*) FROM "{table}" WHERE "{column}" = %s', key)
        if n:
            left[f"{table}.{column}"] = n
    return left


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=lambda v: v.name)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_invited_asks_exports_and_leaves_without_a_trace(stack, browser, second_browser,
                                                         viewport, language):  # fmt: skip
    link = invitation_made(second_browser, stack)
    username = f"new_{language.replace('-', '_')}_{viewport.width}"
    language_set(browser, stack.url, language)
    viewport_set(browser, viewport)
    problems = []

    browser.get(link)
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "invitation-form"))
    problems += page_problems(browser, "invitation", viewport, language)
    browser.find_element(By.ID, "id_username").send_keys(username)
    browser.find_element(By.ID, "id_password1").send_keys(PASSWORD)
    browser.find_element(By.ID, "id_password2").send_keys(PASSWORD)
    browser.find_element(By.ID, "invitation-submit").click()
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "profile-form"))
    [(user_id,)] = stack.query("SELECT id FROM auth_user WHERE username = %s", username)
    problems += page_problems(browser, "profile", viewport, language)

    zone = browser.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
    chosen = Select(browser.find_element(By.ID, "id_time_zone"))
    assert chosen.first_selected_option.get_attribute("value") == zone, "the browser's zone"
    chosen.select_by_value("Asia/Shanghai")
    Select(browser.find_element(By.ID, "id_brief_language")).select_by_value("zh-hans")
    browser.find_element(By.ID, "id_email").clear()
    browser.find_element(By.ID, "id_email").send_keys(f"{username}@example.org")
    browser.find_element(By.ID, "profile-submit").click()
    wait(browser, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".messages"))
    assert stack.query(
        "SELECT time_zone, brief_language FROM accounts_profile WHERE user_id = %s", user_id
    ) == [("Asia/Shanghai", "zh-hans")]
    assert browser.get_cookie("tz")["value"].strip('"') == "Asia/Shanghai"

    brief_id = ask(browser, stack, FAST)  # an English question, left to the profile's default
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    [(brief_language,)] = stack.query("SELECT language FROM briefs_brief WHERE id = %s", brief_id)
    assert brief_language == "zh-hans"

    browser.get(f"{stack.url}/accounts/profile/")
    files = exported(browser)
    assert [b["id"] for b in json.loads(files["briefs.json"])] == [brief_id]
    assert f"briefs/{brief_id}.md" in files and "watches.json" in files

    browser.find_element(By.ID, "delete-account-link").click()
    wait(browser, 15).until(lambda d: d.find_elements(By.ID, "account-delete-form"))
    problems += page_problems(browser, "delete", viewport, language)
    browser.find_element(By.ID, "id_password").send_keys(PASSWORD)
    browser.find_element(By.ID, "account-delete-submit").click()
    wait(browser, 15).until(lambda d: "/accounts/login/" in d.current_url)
    assert not browser.find_elements(By.ID, "logout-button")
    assert left_of(stack, user_id, brief_id) == {}
    assert not problems, "\n".join(problems)


def test_a_shared_brief_says_what_made_it_in_either_language(stack, browser, second_browser):
    """The reader of a share link sees what made the brief and the way to ask their own, on a
    laptop and a phone, and can switch the page's language (its form passes the CSRF check)."""
    sign_in(browser, stack, "alice")
    ask(browser, stack, FAST)
    wait(browser).until(lambda d: d.find_elements(By.ID, "brief-body"))
    browser.find_element(By.ID, "share-create-button").click()
    url = wait(browser, 15).until(lambda d: d.find_element(By.ID, "share-url-field")).text
    reader, problems = second_browser, []
    for viewport in (LAPTOP, PHONE):
        viewport_set(reader, viewport)
        language_set(reader, stack.url, "en")
        reader.get(url)
        made_by = wait(reader, 15).until(lambda d: d.find_element(By.ID, "made-by")).text
        assert re.match(r"Made by RSSHub Agent from \d+ sources? fetched at ", made_by), made_by
        assert (
            reader.find_element(By.ID, "made-by-sign-in")
            .get_attribute("href")
            .endswith("/accounts/login/")
        )
        problems += page_problems(reader, f"shared-{viewport.name}", viewport, "en")
        Select(reader.find_element(By.ID, "language-select")).select_by_value("zh-hans")
        wait(reader, 15).until(
            lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-hans"
        )
        assert "由 RSSHub Agent 根据" in reader.find_element(By.ID, "made-by").text
        problems += page_problems(reader, f"shared-{viewport.name}", viewport, "zh-hans")
    assert not problems, "\n".join(problems)
