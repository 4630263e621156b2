"""How steps read: every kind the log accepts has its page line and label; the terminal's line
falls back to the kind and its payload when it has none of its own."""

from django.utils import translation

from briefs.step_lines import KIND_LINES, step_kind_label, step_page_line, step_terminal_line
from briefs.steps import STEP_KINDS


def test_every_kind_the_log_accepts_reads_on_the_page():
    assert set(KIND_LINES) == STEP_KINDS


def test_an_unknown_kind_reads_as_its_name_and_payload_everywhere():
    payload = {"note": "<b>x</b>"}

    assert (
        step_page_line("new_kind", payload)
        == "new_kind: {&quot;note&quot;: &quot;&lt;b&gt;x&lt;/b&gt;&quot;}"
    )
    assert step_terminal_line("new_kind", payload) == 'new kind: {"note": "<b>x</b>"}'
    assert step_kind_label("new_kind") == "new_kind"


def test_a_kind_without_a_terminal_line_prints_its_payload():
    assert step_terminal_line("run_failed", {"reason": "boom"}) == 'run failed: {"reason": "boom"}'


def test_the_page_and_the_terminal_say_the_same_router_decision_their_own_way():
    payload = {"decision": "summarize", "reason": "2 paths returned items", "step": 3, "budget": 8}

    with translation.override("en"):
        page = str(step_page_line("router", payload))
    assert page == "Router → <strong>summarize</strong>: 2 paths returned items"
    assert step_terminal_line("router", payload) == "  router -> summarize: 2 paths returned items"


def test_a_failed_fetch_in_the_terminal_is_cut_after_a_whole_word():
    message = "RSSHub cannot reach the internet (since 2026-12-04 14:37 UTC); no route is to blame"
    payload = {
        "path": "/hackernews", "outcome": "rsshub_unavailable", "message": message,
        "items_new": 0, "items_seen": 0, "latency_ms": 29, "instance": "RSSHub 1",
    }  # fmt: skip

    line = step_terminal_line("fetch_result", payload)

    assert line == (
        "  /hackernews: rsshub_unavailable RSSHub cannot reach the internet (since 2026-12-04"
        " 14:37 UTC); no route is to… (29 ms via RSSHub 1)"
    )
