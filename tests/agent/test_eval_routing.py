"""``manage.py eval_routing FILE``: rewrite, platform and route for each question, no fetch, then
platform hit@1, hit@3 and route hit. Offline against the session's real catalog; one run with a
model against the LLM stand-in."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from agent.management.commands.eval_routing import EvalCase, EvalOutcome, totals_of
from briefs.models import Brief
from fetching.paths import catalog_cache_clear
from tests.llmserver import tool_call

ROOT = Path(__file__).resolve().parents[2]
# The dev sets travel with the repository; a shared copy beside it, when present, can only add
# questions (never replace the repository's).
EVAL_DIR = ROOT / "eval"
SHARED_EVAL_DIR = ROOT.parent / "shared" / "eval"


@pytest.fixture(autouse=True)
def _fresh_catalog_cache():
    catalog_cache_clear()
    yield
    catalog_cache_clear()


def write_lines(tmp_path, *lines) -> str:
    path = tmp_path / "questions.jsonl"
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines)
        + "\n",
        encoding="utf-8",
    )
    return str(path)


def dev_set(tmp_path, name: str = "routing-dev.jsonl") -> str:
    """The repository's dev questions plus any line only the shared copy has."""
    lines = (EVAL_DIR / name).read_text(encoding="utf-8").splitlines()
    shared = SHARED_EVAL_DIR / name
    if shared.is_file():
        lines += [x for x in shared.read_text(encoding="utf-8").splitlines() if x not in lines]
    return write_lines(tmp_path, *lines)


def evaluate(path: str, *args: str, capsys) -> dict:
    call_command("eval_routing", path, "--json", "--offline", *args)
    return json.loads(capsys.readouterr().out)


def outcome(
    ranking, templates=(), *, namespaces=("a",), routes=None, expect_paths=None, bare=False, **got
) -> EvalOutcome:
    case = EvalCase(
        1,
        "q",
        tuple(namespaces),
        tuple(routes) if routes is not None else None,
        paths=tuple(expect_paths) if expect_paths is not None else None,
        no_example_entity=bare,
    )
    return EvalOutcome(case, ranking=list(ranking), templates=list(templates), **got)


NEED = {"parameter": "user", "description": "", "format": "", "route": "/a/:user", "source": "A"}


def test_a_path_hit_compares_the_first_path_decoded_and_without_a_trailing_slash():
    assert outcome(["a"], paths=["/a/%E6%95%88%E7%8E%87/"], expect_paths=["/a/效率"]).path_hit
    assert not outcome(["a"], paths=["/a/x", "/a/y"], expect_paths=["/a/y"]).path_hit
    assert outcome(["a"], paths=[], expect_paths=["/a/y"]).path_hit is False
    assert outcome(["a"], paths=["/a/y"]).path_hit is None


def test_an_example_leak_counts_only_where_the_question_names_no_subject_and_no_input_was_asked():
    leak = ["/a/DIYgod :user"]

    assert outcome(["a"], paths=["/a/DIYgod"], leaks=leak, bare=True).example_leak is True
    assert outcome(["a"], paths=["/a/DIYgod"], leaks=leak).example_leak is None
    asked = outcome(["a"], needs=[NEED], bare=True)
    assert (asked.needs_input, asked.example_leak) == (True, False)


def test_an_invented_subject_counts_any_subject_value_where_the_question_names_none():
    given = ["/a/care :user"]

    assert outcome(["a"], paths=["/a/care"], subjects=given, bare=True).invented_subject is True
    assert outcome(["a"], paths=["/a/care"], subjects=given).invented_subject is None
    assert outcome(["a"], paths=["/a/hot"], bare=True).invented_subject is False
    expected = outcome(
        ["a"], paths=["/a/care"], subjects=given, bare=True, expect_paths=["/a/care"]
    )
    assert expected.invented_subject is False  # the line's own path holds the value
    asked = outcome(["a"], needs=[NEED], bare=True)
    assert asked.invented_subject is False
    totals = totals_of([outcome(["a"], paths=["/a/care"], subjects=given, bare=True), asked])
    assert totals["invented_subjects"] == 1


def test_the_totals_count_path_hits_example_leaks_and_needs_input():
    outcomes = [
        outcome(["a"], paths=["/a/x"], expect_paths=["/a/x"]),
        outcome(["a"], paths=["/a/y"], expect_paths=["/a/x"]),
        outcome(["a"], paths=["/a/DIYgod"], leaks=["/a/DIYgod :user"], bare=True),
        outcome(["a"], needs=[NEED], bare=True),
    ]

    totals = totals_of(outcomes)

    assert (totals["path_hits"], totals["path_questions"], totals["path_hit"]) == (1, 2, 0.5)
    assert (totals["example_leaks"], totals["needs_input"]) == (1, 1)
    assert totals["no_example_entity_questions"] == 2


def test_path_hits_are_counted_apart_for_questions_naming_a_subject_and_head_questions():
    outcomes = [
        outcome(["a"], paths=["/a/x"], expect_paths=["/a/x"]),  # names one: hit
        outcome(["a"], paths=["/a/y"], expect_paths=["/a/x"]),  # names one: miss
        outcome(["a"], paths=["/a/hot"], expect_paths=["/a/hot"], bare=True),  # head: hit
        outcome(["a"], needs=[NEED], bare=True),  # names none, gives no path: asked
        outcome(["a"], paths=["/a/hot"], bare=True),  # names none, gives no path: read anyway
        outcome(["a"], routes=["/a/:id"], setup=["/a/:id"], bare=True),  # its route waits
    ]

    totals = totals_of(outcomes)

    assert [o.case.kind for o in outcomes] == ["subject", "subject", "head", "asks", "asks", "asks"]
    assert (totals["subject_path_hits"], totals["subject_path_questions"]) == (1, 2)
    assert (totals["head_path_hits"], totals["head_path_questions"]) == (1, 1)
    assert (totals["asks_right"], totals["asks_questions"]) == (2, 3)
    assert [o.asked_right for o in outcomes] == [None, None, None, True, False, True]


def test_hits_count_the_first_choice_the_first_three_and_the_first_route_template():
    outcomes = [
        outcome(["a", "b"], ["/a/x"], routes=["/a/x"]),  # hit@1, route hit
        outcome(["b", "c", "a"], ["/b/y"], routes=["/a/x"]),  # hit@3 only, route miss
        outcome(["b", "c", "d", "a"]),  # a miss: "a" is fourth
        outcome([]),  # no platform at all
    ]

    totals = totals_of(outcomes)

    assert (totals["platform_hits_at_1"], totals["platform_hits_at_3"]) == (1, 2)
    assert (totals["platform_hit_at_1"], totals["platform_hit_at_3"]) == (0.25, 0.5)
    assert (totals["route_hits"], totals["route_questions"], totals["route_hit"]) == (1, 2, 0.5)


def test_a_route_hit_compares_the_template_not_the_filled_path():
    assert outcome(["a"], ["/a/:id"], routes=["/a/:id"]).route_hit is True
    assert outcome(["a"], [], routes=["/a/:id"]).route_hit is False
    assert outcome(["a"], ["/a/:id"]).route_hit is None


@pytest.mark.django_db
def test_each_question_gets_its_choices_and_the_totals(tmp_path, capsys):
    path = write_lines(
        tmp_path,
        {"question": "IT之家 最新资讯", "namespaces": ["ithome"], "routes": ["/ithome/:caty"]},
        "",
        {"question": "豆瓣 正在上映的电影", "namespaces": ["douban"]},
        {"question": "IT之家 最新资讯", "namespaces": ["nature"], "routes": ["/nature/news"]},
    )

    report = evaluate(path, capsys=capsys)

    first, second, third = report["lines"]
    assert report["mode"] == "offline"
    assert (first["line"], second["line"], third["line"]) == (1, 3, 4)
    assert first["platforms"][0] == "ithome"
    assert (first["paths"], first["route_templates"]) == (["/ithome/it"], ["/ithome/:caty"])
    assert first["methods"] == {"platform": "offline", "route": "offline"}
    assert (first["platform_hit_at_1"], first["route_hit"]) == (True, True)
    assert (second["platform_hit_at_1"], second["route_hit"]) == (True, None)
    assert (third["platform_hit_at_1"], third["route_hit"]) == (False, False)
    assert report["totals"] == {
        "questions": 3,
        "route_questions": 2,
        "platform_hits_at_1": 2,
        "platform_hits_at_3": 2,
        "route_hits": 1,
        "platform_hit_at_1": 0.6667,
        "platform_hit_at_3": 0.6667,
        "route_hit": 0.5,
        "path_questions": 0,
        "path_hits": 0,
        "path_hit": None,
        "no_example_entity_questions": 0,
        "example_leaks": 0,
        "invented_subjects": 0,
        "needs_input": 0,
        "needs_setup": 0,
        "needs_setup_right": 0,
        "subject_path_questions": 0,
        "subject_path_hits": 0,
        "subject_path_hit": None,
        "head_path_questions": 0,
        "head_path_hits": 0,
        "head_path_hit": None,
        "asks_questions": 0,
        "asks_right": 0,
        "topic_questions": 0,
        "topic_hits": 0,
        "topic_hit": None,
    }
    assert not Brief.objects.exists()


@pytest.mark.django_db
def test_the_topic_check_reading_is_measured(tmp_path, capsys):
    path = write_lines(
        tmp_path,
        {"question": "36氪最近有什么值得注意的快讯", "namespaces": ["36kr"], "topic": []},
        {"question": "36氪 关于小米汽车的快讯", "namespaces": ["36kr"], "topic": ["小米", "汽车"]},
        {"question": "36氪 关于小米汽车的快讯", "namespaces": ["36kr"], "topic": ["小米"]},
    )

    report = evaluate(path, capsys=capsys)

    bare, named, wrong = report["lines"]
    assert (bare["topic"], bare["topic_hit"]) == ([], True)
    assert (named["topic"], named["topic_hit"]) == (["小米", "汽车"], True)
    assert wrong["topic_hit"] is False
    totals = report["totals"]
    assert (totals["topic_hits"], totals["topic_questions"]) == (2, 3)


@pytest.mark.django_db
def test_paths_and_questions_naming_no_subject_are_measured(tmp_path, capsys):
    path = write_lines(
        tmp_path,
        {
            "question": "Recent GitHub activity of gvanrossum",
            "namespaces": ["github"],
            "paths": ["/github/activity/gvanrossum/"],
        },
        {
            "question": "Latest pull requests I should review on GitHub",
            "namespaces": ["github"],
            "no_example_entity": True,
        },
    )

    report = evaluate(path, capsys=capsys)

    named, bare = report["lines"]
    assert (named["paths"], named["path_hit"]) == (["/github/activity/gvanrossum"], True)
    assert named["needs_input"] is False and named["example_leak"] is None
    assert (bare["paths"], bare["needs_input"], bare["example_leak"]) == ([], True, False)
    assert {n["parameter"] for n in bare["needs"]} == {"user", "repo"}
    assert all("DIYgod" not in n["format"] for n in bare["needs"])
    totals = report["totals"]
    assert (totals["path_hit"], totals["example_leaks"], totals["needs_input"]) == (1.0, 0, 1)
    assert (bare["invented_subject"], totals["invented_subjects"]) == (False, 0)


@pytest.mark.django_db
def test_the_text_report_shows_path_hits_leaks_and_needs(tmp_path, capsys):
    path = write_lines(
        tmp_path,
        {"question": "GitLab tags of gitlab-org/gitlab", "namespaces": ["gitlab"],
         "paths": ["/gitlab/tag/gitlab-org/gitlab"]},
        {"question": "Latest pull requests I should review on GitHub", "namespaces": ["github"],
         "no_example_entity": True},
    )  # fmt: skip

    call_command("eval_routing", path, "--offline")

    out = capsys.readouterr().out
    assert "  path     hit  (expected /gitlab/tag/gitlab-org/gitlab)" in out
    assert "  needs input: GitHub :user, GitHub :repo" in out
    assert "path hit        1.000  (1/1)" in out
    assert "example leaks   0  (of 1 questions naming no subject)" in out
    assert "needs input     1" in out


@pytest.mark.django_db
def test_the_text_report_shows_each_choice_and_the_totals(tmp_path, capsys):
    path = write_lines(
        tmp_path,
        {"question": "IT之家 最新资讯", "namespaces": ["ithome"], "routes": ["/ithome/:caty"]},
    )

    call_command("eval_routing", path, "--offline")

    out = capsys.readouterr().out
    assert "line 1: IT之家 最新资讯" in out
    assert "  route    hit  /ithome/:caty as /ithome/it" in out
    assert "platform hit@1  1.000  (1/1)" in out
    assert "route hit       1.000  (1/1)" in out


@pytest.mark.django_db
def test_the_dev_set_meets_the_offline_bar(tmp_path, capsys):
    totals = evaluate(dev_set(tmp_path), capsys=capsys)["totals"]

    assert totals["platform_hit_at_1"] >= 0.95, totals
    assert totals["route_hit"] >= 0.85, totals


@pytest.mark.django_db
def test_the_entity_dev_set_meets_the_offline_bar(tmp_path, capsys):
    totals = evaluate(dev_set(tmp_path, "entity-dev.jsonl"), capsys=capsys)["totals"]

    assert totals["path_hit"] >= 0.85, totals
    assert totals["example_leaks"] == 0, totals


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "line 2: not JSON"),
        ('["a list"]', "line 2: not a JSON object"),
        ('{"question": "", "namespaces": ["a"]}', 'line 2: "question": The question is empty.'),
        ('{"question": 5, "namespaces": ["a"]}', 'line 2: "question": The question must be text.'),
        ('{"question": "q"}', 'line 2: "namespaces" must be a non-empty list of strings'),
        ('{"question": "q", "namespaces": []}', '"namespaces" must be a non-empty list'),
        ('{"question": "q", "namespaces": ["a"], "routes": "/a"}', '"routes" must be a non-empty'),
        ('{"question": "q", "namespaces": ["a"], "paths": [1]}', '"paths" must be a non-empty'),
        (
            '{"question": "q", "namespaces": ["a"], "no_example_entity": "yes"}',
            '"no_example_entity" must be true or false',
        ),
    ],
)
def test_a_bad_line_is_named_with_what_is_wrong(tmp_path, line, problem):
    path = write_lines(tmp_path, {"question": "q", "namespaces": ["a"]}, line)

    with pytest.raises(CommandError) as error:
        call_command("eval_routing", path, "--offline")

    assert problem in str(error.value)
    assert str(error.value).startswith(path)


def test_a_file_without_questions_or_no_file_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="holds no questions"):
        call_command("eval_routing", write_lines(tmp_path, "", "  "))
    with pytest.raises(CommandError, match="cannot read"):
        call_command("eval_routing", str(tmp_path / "missing.jsonl"))


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world")
def test_with_a_model_configured_the_model_nodes_choose(tmp_path, llm_server, capsys):
    llm_server.script(
        tool_call(
            {"query": "Alpha Wire stories", "language": "en", "keywords": [], "window": "latest"}
        ),
        tool_call({"chosen": ["alpha"], "reason": "named"}),
        tool_call({"routes": [{"route": "/alpha/stories", "params": {}}], "reason": "stories"}),
    )
    path = write_lines(
        tmp_path,
        {"question": "Alpha Wire stories", "namespaces": ["alpha"], "routes": ["/alpha/stories"]},
    )

    call_command("eval_routing", path, "--json")

    report = json.loads(capsys.readouterr().out)
    line = report["lines"][0]
    assert report["mode"] == "router-model / writer-model"
    assert line["methods"] == {"platform": "model", "route": "model"}
    assert (line["paths"], line["llm_fallbacks"]) == (["/alpha/stories"], [])
    assert report["totals"]["route_hit"] == 1.0
    assert llm_server.count == 3
    assert not Brief.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("world")
def test_offline_overrides_a_configured_model(tmp_path, llm_server, capsys):
    path = write_lines(tmp_path, {"question": "Alpha Wire flash news", "namespaces": ["alpha"]})

    report = evaluate(path, capsys=capsys)

    assert report["mode"] == "offline"
    assert report["lines"][0]["paths"] == ["/alpha/flash"]
    assert llm_server.count == 0
