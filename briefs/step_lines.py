"""How each kind of run step reads, in one place: a line of the page's timeline (HTML,
translated; the server-rendered page and the live stream both use it) and a line of the
terminal (``manage.py ask``: plain text). ``briefs.steps`` documents the kinds and payloads.

On the page, payload strings can come from the model (reasons) or from feeds (error messages):
every value goes through ``format_html``, so it is escaped; only the translated format strings
are trusted. The agent's own reasons are stored in English and shown translated
(``briefs.reasons``).
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from briefs.reasons import reason_translate
from briefs.templatetags.dashboard import outcome_label, window_name
from fetching.outcome_text import outcome_name
from fetching.plaintext import text_cut

SUCCESS = ("ok", "not_modified")
CANDIDATES_SHOWN = 6
NODE_LABELS = {
    "rewrite": gettext_lazy("rewrite"),
    "platform": gettext_lazy("platform"),
    "route": gettext_lazy("route"),
    "fetch": gettext_lazy("fetch"),
    "summarize": gettext_lazy("summarize"),
    "retry": gettext_lazy("retry"),
    "needs_input": gettext_lazy("ask for input"),
    "translate": gettext_lazy("translate titles"),
    "claims_verify": gettext_lazy("check sentences"),
}


# How a node answered (a step's "method") and a run's "mode", as the reader says them.
METHOD_LABELS = {
    "offline": gettext_lazy("offline"),
    "model": gettext_lazy("model"),
    "mixed": gettext_lazy("mixed"),
    "rules": gettext_lazy("rules"),
    "stored": gettext_lazy("from the brief it retells"),
}


def _method(value: Any) -> str:
    return str(METHOD_LABELS.get(value, value or ""))


def _node(value: Any) -> str:
    return str(NODE_LABELS.get(value, value or ""))


def _as_written(text: object) -> SafeString:
    """Words of the reader's or a feed's, marked so that nothing translates them."""
    return format_html('<span translate="no">{}</span>', text)


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _brief_queued(p: dict) -> SafeString:
    if p.get("offline") is True:
        line = _("Queued for a worker (offline: no language model)")
    else:
        line = _("Queued for a worker")
    if isinstance(p.get("translation_of"), int):
        retold = _("told again in another language, from the stored items: nothing is fetched")
        line = format_html("{}; {}", line, retold)
    if p.get("refresh_limited") is True:
        limited = _(
            "forced refresh refused: this hour's forced refreshes are spent, so sources fetched "
            "within their freshness window are served"
        )
        return format_html("{}; {}", line, limited)
    return format_html("{}", line)


def _run_started(p: dict) -> SafeString:
    return format_html(
        ngettext(
            "Run started: mode {mode}, budget of {budget} step (attempt {attempt})",
            "Run started: mode {mode}, budget of {budget} steps (attempt {attempt})",
            _int(p.get("budget")),
        ),
        mode=_method(p.get("mode")),
        budget=_int(p.get("budget")),
        attempt=_int(p.get("attempt")) or 1,
    )


def _run_resumed(p: dict) -> SafeString:
    return format_html(
        _("Resumed, attempt {attempt}: {reason}"),
        attempt=_int(p.get("attempt")),
        reason=reason_translate(p.get("reason")),
    )


def _query_rewritten(p: dict) -> SafeString:
    window = p.get("window") if isinstance(p.get("window"), dict) else {}
    keywords = p.get("keywords") if isinstance(p.get("keywords"), list) else []
    return format_html(
        _("Query “{query}” · keywords: {keywords} · window: {window} ({method})"),
        # The query and keywords are the question's words: left as the reader wrote them.
        query=_as_written(p.get("query", "")),
        keywords=_as_written(", ".join(map(str, keywords)) or "—"),
        window=window_name(window.get("label", "")),
        method=_method(p.get("method")),
    )


def _step_started(p: dict) -> SafeString:
    return format_html(
        _("Step {step} of {budget}: {node}"),
        step=_int(p.get("step")),
        budget=_int(p.get("budget")),
        node=_node(p.get("node")),
    )


def _candidates(p: dict) -> SafeString:
    items = p.get("items") if isinstance(p.get("items"), list) else []
    shown = [i for i in items[:CANDIDATES_SHOWN] if isinstance(i, dict)]
    listing = format_html_join(
        ", ",
        "<code>{}</code> <small>{}</small>",
        ((i.get("namespace") or i.get("path") or "", i.get("score", "")) for i in shown),
    )
    more = len(items) - len(shown)
    return format_html(
        _("Candidates for {node}: {listing}{more}"),
        node=_node(p.get("node")),
        listing=listing or _("none"),
        more=format_html(" +{}", more) if more > 0 else "",
    )


def _choice(p: dict) -> SafeString:
    chosen = p.get("chosen") if isinstance(p.get("chosen"), list) else []
    return format_html(
        _("Chose {chosen} for {node} ({method}): {reason}"),
        chosen=format_html_join(", ", "<code>{}</code>", ((c,) for c in chosen)),
        node=_node(p.get("node")),
        method=_method(p.get("method")),
        reason=reason_translate(p.get("reason")),
    )


def _choice_rejected(p: dict) -> SafeString:
    return format_html(
        _("Refused {value} for {node}: {reason}"),
        value=format_html("<code>{}</code>", p.get("value", "")),
        node=_node(p.get("node")),
        reason=reason_translate(p.get("reason")),
    )


def _instance(p: dict) -> SafeString:
    """Which RSSHub instance answered, and which failed over to it (older steps: nothing)."""
    instance = p.get("instance")
    if not isinstance(instance, str) or not instance:
        return format_html("")
    failed = p.get("failed_over") if isinstance(p.get("failed_over"), list) else []
    via = format_html(_(" · via {instance}"), instance=format_html("<em>{}</em>", instance))
    if not failed:
        return via
    return format_html(
        _("{via} (after {failed} failed)"),
        via=via,
        failed=", ".join(str(name) for name in failed),
    )


def _refresh_limited(p: dict) -> SafeString:
    """A forced refresh of the path refused: another run fetched it by force a moment ago."""
    if p.get("refresh_limited") is not True:
        return format_html("{}", "")
    note = _(" · not fetched anew: another run fetched this path by force moments ago")
    return format_html("{}", note)


def _fetch_result(p: dict) -> SafeString:
    path = format_html("<code>{}</code>", p.get("path", ""))
    latency = _int(p.get("latency_ms"))
    if p.get("outcome") in SUCCESS:
        items = _int(p.get("items_new")) + _int(p.get("items_seen"))
        line = format_html(
            ngettext(
                "{path}: {items} item ({new} new) in {latency} ms",
                "{path}: {items} items ({new} new) in {latency} ms",
                items,
            ),
            path=path,
            items=items,
            new=_int(p.get("items_new")),
            latency=latency,
        )
        return format_html("{}{}{}", line, _instance(p), _refresh_limited(p))
    transient = _("transient") if p.get("transient") else _("semantic")
    line = format_html(
        _("{path}: {outcome} ({transient}) in {latency} ms: {message}"),
        path=path,
        outcome=format_html('<span class="outcome">{}</span>', outcome_name(p.get("outcome"))),
        transient=transient,
        latency=latency,
        message=p.get("message", ""),
    )
    return format_html("{}{}{}", line, _instance(p), _refresh_limited(p))


def _router(p: dict) -> SafeString:
    return format_html(
        _("Router → {decision}: {reason}"),
        decision=format_html("<strong>{}</strong>", _node(p.get("decision"))),
        reason=reason_translate(p.get("reason")),
    )


def _llm_usage(p: dict) -> SafeString:
    return format_html(
        _(
            "{model} for {node}: {prompt} tokens in, {completion} out ({cached} cached), "
            "{latency} ms"
        ),
        model=p.get("model", ""),
        node=_node(p.get("node")),
        prompt=_int(p.get("prompt_tokens")),
        completion=_int(p.get("completion_tokens")),
        cached=_int(p.get("cached_tokens")),
        latency=_int(p.get("latency_ms")),
    )


def _llm_fallback(p: dict) -> SafeString:
    return format_html(
        _("{node}: the model was unavailable ({reason}); the offline method answered"),
        node=_node(p.get("node")),
        reason=p.get("reason", ""),
    )


def _claims_dropped(p: dict) -> SafeString:
    reasons = ", ".join(
        f"{k} {_int(v)}" for k, v in sorted(p.items()) if k not in ("produced", "kept")
    )
    return format_html(
        _("Writer: {kept} of {produced} sentences kept; removed: {reasons}"),
        kept=_int(p.get("kept")),
        produced=_int(p.get("produced")),
        reasons=reasons or "-",
    )


def _brief_ready(p: dict) -> SafeString:
    items = _int(p.get("items"))
    return format_html(
        ngettext(
            "Brief ready ({outcome}): {citations} citation from {items}",
            "Brief ready ({outcome}): {citations} citations from {items}",
            _int(p.get("citations")),
        ),
        outcome=outcome_label(p.get("outcome")),
        citations=_int(p.get("citations")),
        items=ngettext("%(n)d item", "%(n)d items", items) % {"n": items},
    )


def _reason_only(text: str):
    return lambda p: format_html(text(), reason=reason_translate(p.get("reason")))


# --- the terminal ---------------------------------------------------------------------------------


def _run_started_plain(p: dict) -> str:
    return f"run started (mode {p['mode']}, budget {p['budget']})"


def _query_rewritten_plain(p: dict) -> str:
    window = p["window"]["label"]
    return f"query: {p['query']!r}  keywords {p['keywords']}  window {window}"


def _step_started_plain(p: dict) -> str:
    return f"step {p['step']} of {p['budget']}: {p['node']}"


def _candidates_plain(p: dict) -> str:
    names = [i.get("namespace") or i.get("path") for i in p["items"][:5]]
    return f"  candidates ({p['node']}): {', '.join(names) or 'none'}"


def _choice_plain(p: dict) -> str:
    return f"  chose {', '.join(p['chosen'])} ({p['method']}): {p['reason']}"


def _choice_rejected_plain(p: dict) -> str:
    return f"  refused {p['value']}: {p['reason']}"


def _fetch_result_plain(p: dict) -> str:
    result = (
        f"{p['items_new'] + p['items_seen']} items"
        if p["outcome"] in SUCCESS
        else f"{p['outcome']} {text_cut(p['message'], 80)}"
    )
    via = f" via {p['instance']}" if p.get("instance") else ""
    if p.get("failed_over"):
        via += f" after {', '.join(p['failed_over'])} failed"
    return f"  {p['path']}: {result} ({p['latency_ms']} ms{via})"


def _router_plain(p: dict) -> str:
    return f"  router -> {p['decision']}: {p['reason']}"


def _brief_ready_plain(p: dict) -> str:
    reason = f" ({p['reason']})" if p.get("reason") else ""
    return f"brief ready: {p.get('outcome', '')}{reason}, {p['citations']} citations"


def _llm_usage_plain(p: dict) -> str:
    return (
        f"  llm {p['node']} {p['model']}: {p['prompt_tokens']} in, "
        f"{p['completion_tokens']} out, {p['cached_tokens']} cached"
    )


def _llm_fallback_plain(p: dict) -> str:
    return f"  {p['node']}: offline method ({p['reason']})"


def _claims_dropped_plain(p: dict) -> str:
    dropped = {k: v for k, v in p.items() if k not in ("produced", "kept")}
    return f"  writer: kept {p['kept']} of {p['produced']} sentences, dropped {dropped}"


# --- the kinds ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KindLines:
    label: str  # the short name on the page (lazily translated)
    page: Callable[[dict], SafeString]  # the page's line
    terminal: Callable[[dict], str] | None = None  # None: the kind and its payload, as JSON


# Every kind ``briefs.steps`` accepts (STEP_KINDS), and how it reads.
KIND_LINES: dict[str, KindLines] = {
    "brief_queued": KindLines(gettext_lazy("queued"), _brief_queued),
    "run_started": KindLines(gettext_lazy("started"), _run_started, _run_started_plain),
    "run_resumed": KindLines(gettext_lazy("resumed"), _run_resumed),
    "query_rewritten": KindLines(gettext_lazy("query"), _query_rewritten, _query_rewritten_plain),
    "step_started": KindLines(gettext_lazy("step"), _step_started, _step_started_plain),
    "candidates": KindLines(gettext_lazy("candidates"), _candidates, _candidates_plain),
    "choice": KindLines(gettext_lazy("choice"), _choice, _choice_plain),
    "choice_rejected": KindLines(gettext_lazy("refused"), _choice_rejected, _choice_rejected_plain),
    "fetch_result": KindLines(gettext_lazy("fetch"), _fetch_result, _fetch_result_plain),
    "router": KindLines(gettext_lazy("router"), _router, _router_plain),
    "llm_usage": KindLines(gettext_lazy("tokens"), _llm_usage, _llm_usage_plain),
    "llm_fallback": KindLines(gettext_lazy("fallback"), _llm_fallback, _llm_fallback_plain),
    "claims_dropped": KindLines(gettext_lazy("checked"), _claims_dropped, _claims_dropped_plain),
    "brief_ready": KindLines(gettext_lazy("ready"), _brief_ready, _brief_ready_plain),
    "run_failed": KindLines(gettext_lazy("failed"), _reason_only(lambda: _("Failed: {reason}"))),
    "run_cancelled": KindLines(
        gettext_lazy("cancelled"), _reason_only(lambda: _("Cancelled: {reason}"))
    ),
}


def step_page_line(kind: str, payload: object) -> SafeString:
    """The step's line on the page: HTML, in the current language, every value escaped."""
    payload = payload if isinstance(payload, dict) else {}
    known = KIND_LINES.get(kind)
    if known is None:
        return format_html("{}: {}", kind, json.dumps(payload, ensure_ascii=False)[:300])
    return known.page(payload)


def step_terminal_line(kind: str, payload: dict) -> str:
    """The step's line in the terminal: plain text."""
    known = KIND_LINES.get(kind)
    if known is None or known.terminal is None:
        return f"{kind.replace('_', ' ')}: {json.dumps(payload, ensure_ascii=False)[:200]}"
    return known.terminal(payload)


def step_kind_label(kind: str) -> str:
    """The kind's short name on the page."""
    known = KIND_LINES.get(kind)
    return str(known.label) if known else kind
