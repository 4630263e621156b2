"""The UTC times a brief's text states, shown in the reader's zone with the zone named."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone, translation

from briefs.body_times import body_times_local

AS_OF = datetime(2026, 12, 1, 2, 30, tzinfo=UTC)


@pytest.fixture
def shanghai():
    with timezone.override(ZoneInfo("Asia/Shanghai")), translation.override("en"):
        yield


@pytest.fixture
def new_york():
    with timezone.override(ZoneInfo("America/New_York")), translation.override("en"):
        yield


def local(text: str, reference: datetime | None = AS_OF) -> str:
    return body_times_local(text, reference=reference)


def test_a_full_time_is_in_the_readers_zone_and_names_it(shanghai):
    assert (
        local("As of 2026-12-01 02:12 UTC: 5 items")
        == "As of Dec. 1, 2026, 10:12 a.m. CST: 5 items"
    )


def test_a_time_alone_takes_the_day_of_the_date_before_it(shanghai):
    text = "As of 2026-12-01 02:30 UTC: 5 items; newest 02:12 UTC."
    assert local(text) == "As of Dec. 1, 2026, 10:30 a.m. CST: 5 items; newest 10:12 a.m. CST."


def test_a_time_alone_gets_its_date_when_the_zone_moves_it_across_midnight(shanghai):
    # 23:50 UTC on Nov 30 is the next morning in Shanghai; the "as of" is Dec 1 there.
    text = "As of 2026-11-30 23:55 UTC: newest 15:50 UTC, first 23:50 UTC"
    assert local(text) == (
        "As of Dec. 1, 2026, 7:55 a.m. CST: newest Nov. 30, 2026, 11:50 p.m. CST, "
        "first 7:50 a.m. CST"
    )


def test_a_time_alone_before_any_date_takes_the_briefs_as_of_day(shanghai):
    assert local("newest 02:12 UTC") == "newest 10:12 a.m. CST"
    assert local("newest 20:00 UTC") == "newest Dec. 2, 2026, 4 a.m. CST", "after midnight there"


def test_a_time_alone_without_any_day_stays_as_written(shanghai):
    assert local("newest 02:12 UTC", reference=None) == "newest 02:12 UTC"


def test_daylight_saving_time_is_named_on_each_side_of_the_change(new_york):
    # The US clocks went forward at 07:00 UTC on 2026-03-08.
    text = "a 2026-03-08 06:30 UTC, b 2026-03-08 07:30 UTC"
    assert local(text) == "a March 8, 2026, 1:30 a.m. EST, b March 8, 2026, 3:30 a.m. EDT"


def test_chinese_pages_use_the_chinese_format():
    with timezone.override(ZoneInfo("Asia/Shanghai")), translation.override("zh-hans"):
        assert local("截至 2026-12-01 02:12 UTC") == "截至 2026年12月1日 10:12 CST"


def test_without_a_zone_the_default_is_utc_and_said():
    with timezone.override(ZoneInfo("UTC")), translation.override("en"):
        assert local("2026-12-01 02:12 UTC") == "Dec. 1, 2026, 2:12 a.m. UTC"


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-30 10:00 UTC",  # no such day
        "2026-13-01 10:00 UTC",
        "25:00 UTC",
        "10:61 UTC",
        "123:45 UTC",  # part of a longer number
        "1:05:30 UTC",  # seconds-like
        "10:00 UTC+8",  # a zone we do not know what to do with
        "10:00 UTCX",
        "v2.10:00 UTC",
        "10:00 utc",
        "2026-12-01 02:12",  # no zone said: not ours to guess
        "",
    ],
)
def test_what_is_not_a_real_utc_time_is_left_as_written(shanghai, text):
    assert local(text) == text


def test_a_malformed_date_does_not_move_the_day_of_later_times(shanghai):
    text = "2026-02-30 10:00 UTC then 02:12 UTC"
    assert local(text) == "2026-02-30 10:00 UTC then 10:12 a.m. CST"


def test_a_naive_reference_is_no_reference(shanghai):
    assert local("02:12 UTC", reference=datetime(2026, 12, 1, 2, 30)) == "02:12 UTC"


def test_markup_around_a_time_is_kept_and_nothing_is_injected(shanghai):
    text = "**2026-12-01 02:12 UTC** [1] <script>02:12 UTC</script>"
    assert local(text) == "**Dec. 1, 2026, 10:12 a.m. CST** [1] <script>10:12 a.m. CST</script>"


def test_a_huge_body_is_converted_in_one_pass(shanghai):
    text = "x 02:12 UTC " * 20000
    out = local(text)
    assert out.count("10:12 a.m. CST") == 20000 and "UTC" not in out
