"""Suggested next questions: built from the brief's own cited items, sources and needs, the same
every time, in the brief's language, never its own question, short enough to ask."""

from briefs.markdown import citations_read
from briefs.models import Brief
from briefs.suggestions import SUGGESTIONS, TITLE_CHARS, brief_suggestions
from catalog.search_terms import MAX_QUESTION_CHARS


def cited(*entries: tuple[str, str, str]) -> list:
    raw = [
        {"n": n, "title": title, "source": source, "path": path}
        for n, (title, source, path) in enumerate(entries, start=1)
    ]
    return citations_read(raw)


def test_the_same_brief_suggests_the_same_three_questions():
    brief = Brief(question="What is new on Hacker News?", language="en", coverage={})
    citations = cited(("Rust 2.0 ships", "Hacker News", "/hackernews"), ("A", "V2EX", "/v2ex"))

    first = brief_suggestions(brief, citations)

    assert first == brief_suggestions(brief, citations)
    assert first == [
        "Tell me more about “Rust 2.0 ships”",
        "What else is new on Hacker News?",
        "What is new on V2EX?",
    ]
    assert len(first) == SUGGESTIONS


def test_a_long_or_hostile_title_is_cut_and_kept_as_text():
    title = "<script>alert(1)</script> " + "word " * 100
    brief = Brief(question="q", language="en", coverage={})

    [about, *_rest] = brief_suggestions(brief, cited((title, "X", "/x")))

    assert len(about) <= TITLE_CHARS + 30 <= MAX_QUESTION_CHARS
    assert about.startswith("Tell me more about “<script>")  # the page escapes it


def test_a_brief_that_asked_suggests_from_the_source_it_named():
    need = {"source": "GitHub", "parameter": "repo"}
    brief = Brief(question="Open issues", language="zh-hans", coverage={}, needs=[need])

    assert brief_suggestions(brief, []) == ["GitHub 上还有什么新内容？", "GitHub 本周发布了什么？"]  # noqa: RUF001


def test_a_brief_that_read_nothing_suggests_nothing():
    assert brief_suggestions(Brief(question="q", language="en", coverage={}), []) == []


def test_its_own_question_is_never_suggested():
    brief = Brief(question="What else is new on V2EX?", language="en", coverage={})

    suggested = brief_suggestions(brief, cited(("T", "V2EX", "/v2ex")))

    assert brief.question not in suggested and suggested
