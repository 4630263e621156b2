"""The question box from the keyboard: Enter and Ctrl+Enter ask, Shift+Enter starts a new line.

In one ``send_keys`` call a modifier stays down until ``Keys.NULL`` releases it."""

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.browser.test_dashboard import FAST, sign_in, wait

pytestmark = pytest.mark.browser


def question_box(driver, stack):
    driver.get(f"{stack.url}/")
    return wait(driver, 15).until(lambda d: d.find_element(By.ID, "id_question"))


def brief_question(stack, driver) -> str:
    brief_id = int(re.search(r"/briefs/(\d+)/$", driver.current_url).group(1))
    [(question,)] = stack.query("SELECT question FROM briefs_brief WHERE id = %s", brief_id)
    return question


@pytest.mark.parametrize(
    "keys", [Keys.ENTER, Keys.CONTROL + Keys.ENTER + Keys.NULL], ids=["enter", "ctrl-enter"]
)
def test_enter_asks_the_question(stack, browser, keys):
    sign_in(browser, stack, "alice")
    box = question_box(browser, stack)
    box.send_keys(FAST, keys)
    wait(browser, 15).until(lambda d: re.search(r"/briefs/\d+/$", d.current_url))
    assert brief_question(stack, browser).startswith(FAST)


def test_shift_enter_starts_a_new_line_without_asking(stack, browser):
    sign_in(browser, stack, "alice")
    box = question_box(browser, stack)
    box.send_keys("first line", Keys.SHIFT + Keys.ENTER + Keys.NULL, "second line")
    assert box.get_attribute("value") == "first line\nsecond line"
    assert browser.current_url == f"{stack.url}/", "Shift+Enter asked the question"
