"""The agent's reasons: stored in English, each with a Chinese translation in the catalog, and
shown translated with the values it was stored with; a reason the module does not know (the
model's own words) is shown as stored."""

import re
from datetime import UTC, datetime

import pytest
from django.utils import translation

from briefs import reasons
from briefs.reasons import reason_join, reason_translate
from fetching.egress import EgressState, verdict_settled
from fetching.models import Outcome
from fetching.outcomes import MESSAGE_LIMIT, Verdict
from tests.untranslated import CATALOGS, po_entries

CHINESE = {e.msgid: e for e in po_entries(CATALOGS[0])}
SAMPLE = {"score": "7.17", "count": 3, "attempt": 1, "limit": 2, "kinds": "not_found",
          "budget": 8, "missing": "repo", "name": "user", "names": ":user",
          "route": "/weibo/search/hot", "time": "2026-12-04 14:37 UTC",
          "message": "HTTP 503"}  # fmt: skip


@pytest.mark.parametrize("reason", reasons.ALL, ids=lambda r: r.singular)
def test_every_reason_has_a_translation_with_the_same_values(reason):
    entry = CHINESE.get(reason.singular)
    assert entry, f"no catalog entry for {reason.singular!r}"
    assert entry.msgid_plural == reason.plural
    names = set(re.findall(r"\{(\w+)\}", reason.singular))
    assert all(set(re.findall(r"\{(\w+)\}", text)) == names for text in entry.msgstrs)


@pytest.mark.parametrize("reason", reasons.ALL, ids=lambda r: r.singular)
def test_a_stored_reason_is_shown_in_chinese(reason):
    names = set(re.findall(r"\{(\w+)\}", reason.singular + reason.plural))
    stored = reason.english(**{name: SAMPLE[name] for name in names})
    with translation.override("zh-hans"):
        shown = reason_translate(stored)
    assert shown != stored and not re.search(r"[a-z]{4,} [a-z]{3,}", shown), shown
    for name in names:
        assert str(SAMPLE[name]) in shown


def test_joined_reasons_and_plurals_are_translated_part_by_part():
    stored = reason_join(
        reasons.ITEMS_RETURNED.english(count=1), reasons.FAILED_REPORTED.english(count=2)
    )
    assert stored == "1 path returned items; 2 failed and are reported"
    with translation.override("zh-hans"):
        assert reason_translate(stored) == "1 个路径返回了内容；2 个失败，已在报告中说明"  # noqa: RUF001
    with translation.override("en"):
        assert reason_translate(stored) == stored


@pytest.mark.parametrize(
    "stored",
    ["the model liked <b>alpha</b> best", "", "highest search score", "; ;", "x" * 400],
)
def test_a_reason_it_does_not_know_is_shown_as_stored(stored):
    with translation.override("zh-hans"):
        shown = reason_translate(stored)
    assert shown.replace("；", "; ") == stored  # noqa: RUF001


@pytest.mark.parametrize("stored", [None, 3, ["highest search score (1.00)"], {"a": 1}])
def test_a_stored_value_that_is_not_text_shows_nothing(stored):
    assert reason_translate(stored) == ""


def test_what_the_egress_guard_wrote_reads_in_chinese_with_rsshubs_words_kept():
    raw = 'FetchError: [GET] "https://news.ycombinator.com": fetch failed (getaddrinfo ENOTFOUND)'
    since = datetime(2026, 12, 4, 14, 37, tzinfo=UTC)
    failed = Verdict(Outcome.UPSTREAM_ERROR, raw, 503, network=True)
    down = verdict_settled(failed, EgressState.DOWN, since)
    pending = verdict_settled(failed, EgressState.PENDING, since)
    with translation.override("zh-hans"):
        assert reason_translate(down.message) == (
            f"RSSHub 无法访问互联网（自 2026-12-04 14:37 UTC 起）；不归咎于任何路由：{raw}"  # noqa: RUF001
        )
        assert reason_translate(pending.message) == (
            f"{raw}（未计入：正在检查 RSSHub 能否访问互联网）"  # noqa: RUF001
        )


def test_a_long_rsshub_message_is_cut_in_its_own_words_and_the_guards_stay_whole():
    raw = "FetchError: " + "stack frame at node:internal/deps " * 40
    since = datetime(2026, 12, 4, 14, 37, tzinfo=UTC)
    failed = Verdict(Outcome.UPSTREAM_ERROR, raw, 503, network=True)
    for state in (EgressState.DOWN, EgressState.PENDING):
        message = verdict_settled(failed, state, since).message
        assert len(message) <= MESSAGE_LIMIT
        with translation.override("zh-hans"):
            shown = reason_translate(message)
        assert "RSSHub cannot reach" not in shown and "not counted" not in shown, shown
        assert "FetchError: stack frame" in shown  # RSSHub's words, as written, cut
