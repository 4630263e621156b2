"""manage.py eval_agreement: precision and recall of flagged differences on story groups."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

FILE = "eval/agreement-dev.jsonl"


def run(*args: str) -> str:
    out = StringIO()
    call_command("eval_agreement", *args, stdout=out)
    return out.getvalue()


def test_it_meets_the_targets_in_each_language_on_the_dev_set():
    report = json.loads(run(FILE, "--json"))
    for lang in ("zh", "en"):
        scores = report["by_lang"][lang]
        assert scores["groups"] >= 20, scores
        assert scores["precision"] >= 0.9, (lang, scores, report["wrong"])
        assert scores["recall"] >= 0.8, (lang, scores, report["wrong"])


def test_it_prints_a_row_per_language():
    text = run(FILE)
    assert "lang zh" in text and "lang en" in text and "precision" in text


def test_it_names_the_bad_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    good = json.dumps({"id": "x", "lang": "en", "kind": "agree", "differ": [], "items": [
        {"title": "a", "text": "b", "source": "A"}, {"title": "a", "text": "b", "source": "B"}
    ]})  # fmt: skip
    bad.write_text(good + "\n" + json.dumps({"id": "y", "lang": "fr"}) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"line 2: \"lang\" must be one of"):
        run(str(bad))


def test_it_rejects_an_unknown_kind_of_difference(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "y", "lang": "en", "differ": ["mood"], "items": []}))
    with pytest.raises(CommandError, match="differ"):
        run(str(bad))
