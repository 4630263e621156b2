"""Text to terms for route search: subject values and the stemmer, without the catalog."""

import pytest

from catalog.search_terms import entities_split, word_stem


@pytest.mark.parametrize(
    ("question", "values"),
    [
        ("Latest commits in the rust-lang/rust repository", ["rust-lang/rust"]),
        ("what did @elonmusk say", ["@elonmusk"]),
        ("YouTube channel UCaXkIU1QidjPwiAYu6GcHjg", ["UCaXkIU1QidjPwiAYu6GcHjg"]),
        ("雪球上 SH600519 的股票评论", ["SH600519"]),
        ("AI/ML news", []),  # two short acronyms are a topic
        ("iPhone15 reviews", []),  # a product, not an id
        ("12306 news", []),  # a number may be a name (12306 is a platform)
    ],
)
def test_subject_values_are_told_from_the_question_words(question, values):
    plain, found = entities_split(question)

    assert found == values
    assert len(plain) == len(question) and all(v not in plain for v in values)


def test_the_stemmer_undoubles_a_final_consonant_after_ed_and_ing():
    assert [word_stem(w) for w in ("starred", "stopped", "running")] == ["star", "stop", "run"]
    assert [word_stem(w) for w in ("added", "missed", "installed")] == ["add", "miss", "install"]
