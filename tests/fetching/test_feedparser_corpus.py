"""Ingest against plain feedparser on a sample of feedparser's own test corpus.

``feedparser_corpus/`` holds 510 files of feedparser's ``tests/`` folder (its licence beside
them): all of ``encoding/``, ``illformed/``, ``wellformed/base/``, ``http/``, ``cdf/``, ``rdf/``,
``node_precedence/`` and ``xml/``, and every n-th file of ``entities/``, ``wellformed/sanitize/``
and the other wellformed folders, plus the files the table below names. Each file goes through
the real parse worker (``feed_parse``) and through ``feedparser.parse``; ``corpus_diff`` turns
feedparser's answer into what ingest should keep by the rules ingest states on purpose. Any
other difference fails, and so does an entry of ``INTENDED`` that no longer differs.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urljoin

import pytest

from fetching.models import Outcome
from fetching.parsing import FeedRejected, feed_parse
from tests.fetching.corpus_diff import (
    as_written,
    differences,
    expected_feed,
    file_headers,
    reference_parse,
)

CORPUS = Path(__file__).parent / "feedparser_corpus"
FILES = sorted(str(path.relative_to(CORPUS)) for path in CORPUS.rglob("*.xml"))
FETCHED_URL = "http://feeds.example.org/corpus/feed.xml"

UNSETTLED = "encoding cannot be settled"
NO_GUESS = "no charset, declaration or byte order mark fits: feedparser guesses, ingest refuses"
SCRIPT = "script source is dropped as a browser drops it; feedparser's sanitiser leaks part of it"

# path -> (what differs, why). "refused: <message start>" or the set of fields that differ.
INTENDED: dict[str, tuple[str | frozenset[str], str]] = {
    "encoding/bozo_encoding_mismatch_crash.xml": (f"refused: {UNSETTLED}", NO_GUESS),
    "encoding/bozo_invalid-bytes-with-bom.xml": (f"refused: {UNSETTLED}", NO_GUESS),
    "encoding/bozo_linenoise.xml": (f"refused: {UNSETTLED}", NO_GUESS),
    **{
        f"illformed/chardet/{name}.xml": (f"refused: {UNSETTLED}", NO_GUESS)
        for name in ("big5", "eucjp", "euckr", "gb2312", "koi8r", "shiftjis", "tis620")
    },
    "illformed/chardet/windows1255.xml": (f"refused: {UNSETTLED}", NO_GUESS),
    "wellformed/rdf/doctype_contains_entity_decl.xml": (
        "refused: feed declares XML entities",
        "entity declarations are refused, whatever they define",
    ),
    "wellformed/rss/entity_in_doctype.xml": (
        "refused: feed declares XML entities",
        "entity declarations are refused, whatever they define",
    ),
    "wellformed/sanitize/entry_content_crazy.xml": (
        frozenset({"item.title", "item.summary"}),
        SCRIPT,
    ),
    "wellformed/sanitize/feed_title_crazy.xml": (frozenset({"title"}), SCRIPT),
    "wellformed/atom10/entry_id_no_normalization_4.xml": (
        frozenset({"item.link"}),
        "an absolute link is kept as written (HTTP://); feedparser lower-cases the scheme",
    ),
    "wellformed/rss/item_description_not_a_doctype.xml": (
        frozenset({"items"}),
        "'<!' opens a bogus comment up to the next '>', as in HTML: the only entry has no text",
    ),
}


def ingest_answer(body: bytes, headers: dict[str, str], fetched_url: str):
    try:
        return feed_parse(body, content_type=headers.get("content-type", ""), url=fetched_url)
    except FeedRejected as rejected:
        return rejected


@pytest.mark.parametrize("name", FILES)
def test_ingest_keeps_what_feedparser_finds_but_for_intended_differences(name):
    body = (CORPUS / name).read_bytes()
    headers = file_headers(body)
    fetched_url = urljoin(FETCHED_URL, headers.get("content-location", ""))
    ref = reference_parse(body, headers, fetched_url)
    intended, why = INTENDED.get(name, (frozenset(), ""))

    got = ingest_answer(body, headers, fetched_url)

    if isinstance(intended, str):
        assert isinstance(got, FeedRejected), f"no longer refused ({why}): {got}"
        assert f"refused: {got.message}".startswith(intended), got.message
        return
    if not ref.get("version") and not ref.entries:
        # feedparser found nothing either: ingest calls that "not a feed" instead of empty.
        assert isinstance(got, FeedRejected) and got.outcome == Outcome.NOT_A_FEED, got
        return
    assert not isinstance(got, FeedRejected), f"refused: {got.outcome} {got.message}"
    now = datetime.now(UTC)
    found = differences(expected_feed(ref, as_written(body, headers), now=now), got)
    assert {field for field, _, _ in found} == intended, (why or "unexpected difference", found)


def test_the_sample_spans_the_corpus():
    assert len(FILES) >= 300
    for area in (
        "wellformed/sanitize/",
        "wellformed/base/",
        "illformed/",
        "encoding/",
        "entities/",
    ):
        assert sum(name.startswith(area) for name in FILES) >= 10, area
    assert (CORPUS / "LICENSE").read_text().startswith("feedparser and its unit tests")


def test_every_intended_difference_names_a_vendored_file():
    assert set(INTENDED) <= set(FILES), set(INTENDED) - set(FILES)
