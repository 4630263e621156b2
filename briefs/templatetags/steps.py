"""One readable line per run step, shared by the server-rendered timeline and the live stream.

Payload strings can come from the model (reasons) or from feeds (error messages): every value
goes through ``format_html``, so it is escaped; only the translated format strings are trusted.
"""

import json
from collections import OrderedDict
from typing import Any
from zoneinfo import ZoneInfo

from django import template
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from briefs.models import RunStep
from briefs.templatetags.dashboard import outcome_label

register = template.Library()

SUCCESS = ("ok", "not_modified")
CANDIDATES_SHOWN = 6
TERMINAL_KINDS = ("brief_ready", "run_failed", "run_cancelled")
NODE_LABELS = {
    "rewrite": gettext_lazy("rewrite"),
    "platform": gettext_lazy("platform"),
    "route": gettext_lazy("route"),
    "fetch": gettext_lazy("fetch"),
    "summarize": gettext_lazy("summarize"),
    "retry": gettext_lazy("retry"),
    "needs_input": gettext_lazy("ask for input"),
}
KIND_LABELS = {
    "run_started": gettext_lazy("started"),
    "run_resumed": gettext_lazy("resumed"),
    "query_rewritten": gettext_lazy("query"),
    "step_started": gettext_lazy("step"),
    "candidates": gettext_lazy("candidates"),
    "choice": gettext_lazy("choice"),
    "choice_rejected": gettext_lazy("refused"),
    "fetch_result": gettext_lazy("fetch"),
    "router": gettext_lazy("router"),
    "llm_usage": gettext_lazy("tokens"),
    "llm_fallback": gettext_lazy("fallback"),
    "claims_dropped": gettext_lazy("checked"),
    "brief_ready": gettext_lazy("ready"),
    "run_failed": gettext_lazy("failed"),
    "run_cancelled": gettext_lazy("cancelled"),
}


def _node(value: Any) -> str:
    return str(NODE_LABELS.get(value, value or ""))


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _run_started(p: dict) -> SafeString:
    return format_html(
        ngettext(
            "Run started: mode {mode}, budget of {budget} step (attempt {attempt})",
            "Run started: mode {mode}, budget of {budget} steps (attempt {attempt})",
            _int(p.get("budget")),
        ),
        mode=p.get("mode", ""),
        budget=_int(p.get("budget")),
        attempt=_int(p.get("attempt")) or 1,
    )


def _run_resumed(p: dict) -> SafeString:
    return format_html(
        _("Resumed, attempt {attempt}: {reason}"),
        attempt=_int(p.get("attempt")),
        reason=p.get("reason", ""),
    )


def _query_rewritten(p: dict) -> SafeString:
    window = p.get("window") if isinstance(p.get("window"), dict) else {}
    keywords = p.get("keywords") if isinstance(p.get("keywords"), list) else []
    return format_html(
        _("Query “{query}” · keywords: {keywords} · window: {window} ({method})"),
        query=p.get("query", ""),
        keywords=", ".join(map(str, keywords)) or "—",
        window=window.get("label", ""),
        method=p.get("method", ""),
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
        method=p.get("method", ""),
        reason=p.get("reason", ""),
    )


def _choice_rejected(p: dict) -> SafeString:
    return format_html(
        _("Refused {value} for {node}: {reason}"),
        value=format_html("<code>{}</code>", p.get("value", "")),
        node=_node(p.get("node")),
        reason=p.get("reason", ""),
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
        return format_html("{}{}", line, _instance(p))
    transient = _("transient") if p.get("transient") else _("semantic")
    line = format_html(
        _("{path}: {outcome} ({transient}) in {latency} ms: {message}"),
        path=path,
        outcome=format_html('<span class="outcome">{}</span>', p.get("outcome", "")),
        transient=transient,
        latency=latency,
        message=p.get("message", ""),
    )
    return format_html("{}{}", line, _instance(p))


def _router(p: dict) -> SafeString:
    return format_html(
        _("Router → {decision}: {reason}"),
        decision=format_html("<strong>{}</strong>", _node(p.get("decision"))),
        reason=p.get("reason", ""),
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
    return lambda p: format_html(text(), reason=p.get("reason", ""))


RENDERERS = {
    "run_started": _run_started,
    "run_resumed": _run_resumed,
    "query_rewritten": _query_rewritten,
    "step_started": _step_started,
    "candidates": _candidates,
    "choice": _choice,
    "choice_rejected": _choice_rejected,
    "fetch_result": _fetch_result,
    "router": _router,
    "llm_usage": _llm_usage,
    "llm_fallback": _llm_fallback,
    "claims_dropped": _claims_dropped,
    "brief_ready": _brief_ready,
    "run_failed": _reason_only(lambda: _("Failed: {reason}")),
    "run_cancelled": _reason_only(lambda: _("Cancelled: {reason}")),
}


@register.simple_tag
def step_text(step: RunStep) -> SafeString:
    payload = step.payload if isinstance(step.payload, dict) else {}
    render = RENDERERS.get(step.kind)
    if render is None:
        return format_html("{}: {}", step.kind, json.dumps(payload, ensure_ascii=False)[:300])
    return render(payload)


@register.filter
def step_label(kind: str) -> str:
    return str(KIND_LABELS.get(kind, kind))


@register.filter
def step_tone(step: RunStep) -> str:
    """A CSS tone for the step: ok, bad, warn or plain."""
    payload = step.payload if isinstance(step.payload, dict) else {}
    if step.kind == "fetch_result":
        return "ok" if payload.get("outcome") in SUCCESS else "bad"
    if step.kind in ("run_failed", "choice_rejected"):
        return "bad"
    if step.kind in ("llm_fallback", "run_cancelled", "run_resumed"):
        return "warn"
    if step.kind == "brief_ready":
        return "ok" if payload.get("outcome", "answered") == "answered" else "warn"
    return "plain"


STEP_HTML_CACHE_SIZE = 4096
_step_html_cache: OrderedDict[tuple, str] = OrderedDict()


def step_html(step: RunStep, *, language: str, zone: ZoneInfo | None) -> str:
    """The timeline entry of ``step`` in ``language`` and ``zone``. Steps never change once
    written, so the rendering is cached: a hundred watchers of a brief cost one render."""
    key = (step.brief_id, step.seq, language, zone.key if zone else "")
    html = _step_html_cache.get(key)
    if html is None:
        with translation.override(language), timezone.override(zone):
            html = render_to_string("briefs/_step.html", {"step": step})
        _step_html_cache[key] = html
        if len(_step_html_cache) > STEP_HTML_CACHE_SIZE:
            _step_html_cache.popitem(last=False)
    return html
