"""What the page tests look at in the browser: the viewport (a phone or a laptop), the language,
horizontal overflow, and axe-core's accessibility verdict.

axe-core comes from the npm registry, pinned in tools/axe/package-lock.json and installed by
``scripts/bootstrap --dev``; its script is injected into each page through the driver, which
the Content-Security-Policy does not govern (the pages' own scripts stay under it)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.browser.conftest import ROOT, SCREENSHOTS
from tests.untranslated import untranslated_in_html

AXE = ROOT / "tools" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING_IMPACTS = ("serious", "critical")
LANGUAGE_COOKIE = "django_language"


@dataclass(frozen=True)
class Viewport:
    name: str
    width: int
    height: int
    mobile: bool


LAPTOP = Viewport("1366x900", 1366, 900, mobile=False)
PHONE = Viewport("390x844", 390, 844, mobile=True)
VIEWPORTS = (LAPTOP, PHONE)
LANGUAGES = ("en", "zh-hans")


@functools.cache
def axe_source() -> str:
    if not AXE.exists():
        pytest.fail(f"{AXE} missing: run scripts/bootstrap --dev (it installs tools/axe)")
    return AXE.read_text()


def viewport_set(driver, viewport: Viewport) -> None:
    """The page laid out as on that screen (a phone honours the page's meta viewport)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {
            "width": viewport.width,
            "height": viewport.height,
            "deviceScaleFactor": 1,
            "mobile": viewport.mobile,
        },
    )


def language_set(driver, base_url: str, language: str) -> None:
    """The language the site answers in, as its language switch would leave it."""
    if not driver.current_url.startswith(base_url):
        driver.get(f"{base_url}/accounts/login/")
    driver.add_cookie({"name": LANGUAGE_COOKIE, "value": language, "path": "/"})


OVERFLOW_JS = """
const width = arguments[0];
const wide = [];
for (const el of document.body.querySelectorAll('*')) {
  const box = el.getBoundingClientRect();
  if (box.width && box.right > width + 0.5) {
    const classes = typeof el.className === 'string' ? el.className.trim() : '';
    const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                 (classes ? '.' + classes.split(/\\s+/).join('.') : '');
    wide.push(`${name} right=${Math.round(box.right)}`);
  }
}
return [document.documentElement.scrollWidth, wide.slice(0, 8)];
"""


def overflow(driver, width: int) -> tuple[int, list[str]]:
    """The document's scroll width and the first elements that reach past ``width``."""
    scroll_width, wide = driver.execute_script(OVERFLOW_JS, width)
    return int(scroll_width), wide


AXE_RUN_JS = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  (result) => done(JSON.stringify(result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' '))})))),
  (error) => done(JSON.stringify([{id: 'axe-error', impact: 'critical', help: String(error),
                                   nodes: []}])));
"""


def axe_violations(driver) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(axe_source())
    driver.set_script_timeout(60)
    found = json.loads(driver.execute_async_script(AXE_RUN_JS))
    return [v for v in found if v["impact"] in BLOCKING_IMPACTS]


def untranslated_on_page(driver) -> list[str]:
    """Catalog English on the page as the browser shows it now, after its scripts ran (the live
    badge, the connection state): the same check as the server-rendered pages', on the DOM."""
    return untranslated_in_html(driver.execute_script("return document.documentElement.outerHTML"))


def page_shot(driver, name: str) -> Path:
    """A picture of the whole page as the test left it, under artifacts/screenshots/pages."""
    folder = SCREENSHOTS / "pages"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
