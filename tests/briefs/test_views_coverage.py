"""A failed fetch on the brief page: the coverage once, as a table; each row says in words what
happened, the raw message whole behind a disclosure, paths that break only at a slash; the
times of the brief's text in the reader's zone, on its page and on its shared page."""

import html
import re
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.urls import reverse

from agent.summary.draft import coverage_markdown
from briefs.coverage import MESSAGE_LIMIT, Attempted, coverage_rows, coverage_stripped
from briefs.middleware import TIMEZONE_COOKIE
from sharing.services import brief_share_create
from tests.brief_examples import finished_brief

pytestmark = pytest.mark.django_db

AS_OF = datetime(2026, 12, 1, 2, 30, tzinfo=UTC)
DNS_ERROR = (
    'FetchError: [GET] "https://www.36kr.com/hot-list/catalog": fetch failed '
    "(getaddrinfo ENOTFOUND www.36kr.com)"
)
# Long enough to be cut when stored: words of 9 letters, so a cut inside one shows.
LONG_ERROR = "ConnectErr " + " ".join(f"word{n:05d}" for n in range(80))
ATTEMPTS = [
    Attempted("/36kr/hot-list", "upstream_error", 0, DNS_ERROR),
    Attempted("/36kr/hot-list", "upstream_error", 0, DNS_ERROR),
    Attempted("/twitter/user/jack", "needs_browser", 0, "browserType.launch: <b>no</b> browser"),
    Attempted("/github/trending/daily", "auth_required", 0, LONG_ERROR),
    Attempted("/hackernews", "ok", 4),
]
LEAD = "As of 2026-12-01 02:30 UTC: 4 items from 1 source in the last 2 hours; newest 02:12 UTC."


def coverage_of(attempts: list[Attempted]) -> dict:
    """The coverage as the run stores it (``agent.runner``)."""
    rows = coverage_rows(attempts)
    return {
        "tried": [row["path"] for row in rows],
        "succeeded": [row for row in rows if row["ok"]],
        "failed": [row for row in rows if not row["ok"]],
    }


@pytest.fixture
def brief(owner):
    body = f"{LEAD}\n\n- Story [1]\n{coverage_markdown(ATTEMPTS)}"
    return finished_brief(owner, body=body, coverage=coverage_of(ATTEMPTS), as_of=AS_OF)


def section(page: str, section_id: str) -> str:
    match = re.search(rf'<section[^>]*id="{section_id}".*?</section>', page, re.S)
    assert match, f"no section {section_id}"
    return match.group(0)


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_the_coverage_appears_once_as_a_table(owner_client, brief):
    page = owner_client.get(brief.get_absolute_url()).content.decode()
    body = section(page, "brief-body")
    assert "Coverage" not in body and "/36kr" not in text_of(body), "the body keeps no coverage"
    assert "Story" in body, "the rest of the body is shown"
    assert page.count(">Coverage</h2>") == 1
    table = section(page, "coverage")
    assert table.count("<tr class=") == 4, "one row per path"


def test_each_row_says_what_happened_in_words(owner_client, brief):
    table = text_of(
        section(owner_client.get(brief.get_absolute_url()).content.decode(), "coverage")
    )
    assert "RSSHub could not get 36kr; try again later, or ask staff to check the route." in table
    assert "this route needs a browser that this RSSHub does not have" in table
    assert "github blocked RSSHub's request" in table
    assert "hackernews answered with 4 items." in table
    assert "upstream error" in table and "upstream_error" not in table, "the class by its name"


def test_the_raw_message_is_whole_behind_a_disclosure(owner_client, brief):
    table = section(owner_client.get(brief.get_absolute_url()).content.decode(), "coverage")
    disclosures = re.findall(r'<details class="raw-message">(.*?)</details>', table, re.S)
    raws = [text_of(re.search(r'<p class="raw">(.*?)</p>', d, re.S).group(1)) for d in disclosures]
    assert DNS_ERROR in raws, "the whole message, not its first words"
    assert "browserType.launch: <b>no</b> browser" in raws, "shown as text, never as markup"
    assert "<b>no</b>" not in table
    explanations = re.findall(r'<span class="explain-line">(.*?)</span>', table, re.S)
    assert not any("ENOTFOUND" in e for e in explanations), "the raw message is only disclosed"


def test_a_message_too_long_to_keep_is_cut_after_a_whole_word(owner_client, brief):
    [row] = [r for r in brief.coverage["failed"] if r["path"] == "/github/trending/daily"]
    kept = row["message"]
    assert len(kept) <= MESSAGE_LIMIT and kept.endswith("…")
    assert re.fullmatch(r"ConnectErr( word\d{5})+…", kept), f"cut inside a word: {kept[-20:]!r}"
    page = owner_client.get(brief.get_absolute_url()).content.decode()
    assert html.escape(kept, quote=False) in page


def test_paths_break_only_at_slashes(owner_client, brief):
    table = section(owner_client.get(brief.get_absolute_url()).content.decode(), "coverage")
    paths = re.findall(r'<code class="path">(.*?)</code>', table)
    assert "/<wbr>36kr/<wbr>hot-list" in paths
    for path in paths:
        assert all(part.endswith("/") for part in path.split("<wbr>")[:-1]), path
    assert 'class="path-cell"' in table, "the path cell keeps its words whole (CSS)"


def test_the_page_is_chinese_in_chinese(owner_client, brief):
    owner_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    table = text_of(
        section(owner_client.get(brief.get_absolute_url()).content.decode(), "coverage")
    )
    assert "RSSHub 无法获取 36kr" in table and "发生了什么" in table
    assert "try again" not in table


def test_the_briefs_times_are_in_the_readers_zone(owner_client, brief):
    owner_client.cookies[TIMEZONE_COOKIE] = "Asia/Shanghai"
    body = text_of(
        section(owner_client.get(brief.get_absolute_url()).content.decode(), "brief-body")
    )
    assert "As of Dec. 1, 2026, 10:30 a.m. CST" in body
    assert "newest 10:12 a.m. CST" in body
    assert "UTC" not in body


def test_the_shared_page_shows_times_in_the_readers_zone(client, owner, brief):
    share, _ = brief_share_create(owner=owner, brief_id=brief.pk)
    client.cookies[TIMEZONE_COOKIE] = "America/New_York"
    page = client.get(reverse("shared-brief", args=[share.secret])).content.decode()
    body = text_of(section(page, "brief-body"))
    assert "As of Nov. 30, 2026, 9:30 p.m. EST" in body
    assert "newest 9:12 p.m. EST" in body


def test_the_markdown_export_keeps_utc_whatever_the_readers_zone(owner_client, brief):
    owner_client.cookies[TIMEZONE_COOKIE] = "Asia/Shanghai"
    text = owner_client.get(reverse("brief-markdown", args=[brief.pk])).content.decode()
    assert "As of 2026-12-01 02:30 UTC" in text and "CST" not in text


def test_a_malformed_coverage_does_not_break_the_page(owner_client, owner):
    coverage = {
        "tried": ["/x"],
        "succeeded": ["not a row", {"path": "/a", "outcome": "ok", "items": "many", "ok": True}],
        "failed": [{"path": 5}, {"outcome": ["x"], "circuit_open": "yes", "circuit_until": 7}],
    }
    brief = finished_brief(owner, coverage=coverage)
    response = owner_client.get(brief.get_absolute_url())
    assert response.status_code == 200
    table = text_of(section(response.content.decode(), "coverage"))
    assert "/a" in table, "the one well-formed row is still shown"


def test_only_the_coverage_section_is_stripped():
    body = (
        "Lead.\n\n## Coverage\n\nA paragraph the model wrote.\n\n"
        "## Coverage\n\n- `/a`: x\n  - Details: y\n"
    )
    assert coverage_stripped(body) == "Lead.\n\n## Coverage\n\nA paragraph the model wrote.\n"
    assert coverage_stripped("## 覆盖情况\n\n- `/a`: x\n") == "\n"
    assert coverage_stripped("No coverage here.") == "No coverage here."


def test_an_open_circuit_says_when_it_is_tried_again_in_the_readers_zone(owner_client, owner):
    until = datetime(2026, 12, 1, 2, 12, tzinfo=UTC)
    attempt = Attempted(
        "/36kr/hot-list", "timeout", 0, "circuit open until 2026-12-01 02:12:00 UTC",
        circuit_open=True, circuit_until=until,
    )  # fmt: skip
    brief = finished_brief(owner, coverage=coverage_of([attempt]), as_of=AS_OF)
    owner_client.cookies[TIMEZONE_COOKIE] = "Asia/Shanghai"
    table = text_of(
        section(owner_client.get(brief.get_absolute_url()).content.decode(), "coverage")
    )
    assert "36kr failed several times in a row" in table
    assert "tried again after Dec. 1, 2026, 10:12 a.m. CST." in table


def test_a_stored_circuit_time_that_is_not_a_time_is_not_said(owner_client, owner):
    row = {"path": "/36kr/x", "outcome": "timeout", "items": 0, "attempts": 1, "ok": False,
           "message": "", "circuit_open": True, "circuit_until": "tomorrow-ish"}  # fmt: skip
    coverage = {"tried": ["/36kr/x"], "succeeded": [], "failed": [row]}
    brief = finished_brief(owner, coverage=coverage)
    table = text_of(
        section(owner_client.get(brief.get_absolute_url()).content.decode(), "coverage")
    )
    assert "tried again with the next question" in table
