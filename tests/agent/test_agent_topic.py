"""The topic check through the offline agent, against the stand-in RSSHub: a question "about
X" is answered only from items that mention X, off topic when none does (however few the items
are), and a question whose only words besides the platform are filler is never off topic."""

import pytest

from agent.question import keywords_of
from agent.summary.subject import Subject, subject_of, topic_of
from briefs.models import BriefOutcome
from tests.agent.conftest import brief_run, feed, fetched

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("world", "offline")]

TITLES = tuple(f"Title{n}" for n in range(1, 6))


def test_a_topic_no_item_mentions_is_off_topic_even_over_few_items(run_owner, stub_rsshub):
    stub_rsshub.route("/test/1", feed(*TITLES))

    brief = brief_run(run_owner, "RSSHub test feed 1 about the Kirin 9050 chip")

    assert fetched(stub_rsshub)[0] == "/test/1"
    assert brief.outcome == BriefOutcome.OFF_TOPIC, brief.body
    assert "Kirin 9050 chip" in brief.body.splitlines()[0]


def test_a_topic_the_items_mention_is_answered_from_them(run_owner, stub_rsshub):
    stub_rsshub.route("/test/1", feed("Title1", "Kirin 9050 chip ships", "Title3"))

    brief = brief_run(run_owner, "RSSHub test feed 1 about the Kirin 9050 chip")

    assert brief.outcome == BriefOutcome.ANSWERED, brief.body
    assert [c["title"] for c in brief.citations] == ["Kirin 9050 chip ships"]


@pytest.mark.parametrize(
    "question",
    [
        "阿尔法快讯最近有什么值得注意的快讯",
        "What's new on Alpha Wire today?",
        "Alpha Wire flash news, anything worth noting?",
    ],
)
def test_a_question_of_filler_alone_is_never_off_topic(run_owner, stub_rsshub, question):
    stub_rsshub.route("/alpha/flash", feed(*TITLES))

    brief = brief_run(run_owner, question)

    # The stand-in items are one to five hours old: soon after midnight fewer of them (or none)
    # are of "today", and the brief cites those in the window (or says none is and cites the
    # newest). That is the time window's verdict; the topic check's is never off topic.
    assert brief.outcome != BriefOutcome.OFF_TOPIC, brief.body
    if "today" not in question:
        assert len(brief.citations) == 5
    else:
        assert brief.citations, brief.body


CONTEXT = {"36kr", "36氪", "快讯", "newsflashes", "test", "rsshub"}


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        # a model's rewrite may keep the question whole: the same reading applies
        ("36氪最近有什么值得注意的快讯", ()),
        ("what's new on 36kr today", ()),
        # Chinese is read in words: items about 小米 汽车 need not spell 小米汽车 in one piece
        ("36氪 关于小米汽车的快讯", ("小米", "汽车")),
        ("36氪上小米汽车交付量的最新消息", ("小米", "汽车", "交付")),
        ("上海最新消息 36氪", ("上海",)),
        ("RSSHub test feed 1 about the Kirin 9050 chip", ("Kirin", "9050", "chip")),
        ("36kr newsflashes about Xiaomi EVs", ("Xiaomi", "EVs")),
    ],
)
def test_the_subject_is_the_marked_topic_or_what_filler_leaves(question, terms):
    topics = topic_of(question, CONTEXT)
    assert subject_of([question], CONTEXT, topics=topics).terms == terms
    assert subject_of(keywords_of(question), CONTEXT, topics=topics).terms == terms


def test_a_bare_number_is_carried_only_by_a_whole_path_segment():
    assert not Subject(("Kirin", "1")).carried_by("/test/12")
    assert Subject(("1642634100",)).carried_by("/weibo/user/1642634100")
    assert Subject(("小米",)).carried_by("/weibo/keyword/%E5%B0%8F%E7%B1%B3%E6%B1%BD%E8%BD%A6")
