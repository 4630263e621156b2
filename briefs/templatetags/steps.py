"""The run step template tags: the timeline entry of a step, its label and its tone. What each
kind says is in ``briefs.step_lines``."""

from collections import OrderedDict
from zoneinfo import ZoneInfo

from django import template
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.safestring import SafeString

from briefs.models import RunStep
from briefs.step_folds import RefusalFold, missing_value_names
from briefs.step_lines import SUCCESS, step_kind_label, step_page_line

register = template.Library()


@register.simple_tag
def step_text(step: RunStep) -> SafeString:
    return step_page_line(step.kind, step.payload)


@register.simple_tag
def fold_text(fold: RefusalFold) -> SafeString:
    return fold.line()


@register.filter
def is_fold(entry: object) -> bool:
    return isinstance(entry, RefusalFold)


@register.filter
def step_label(kind: str) -> str:
    return step_kind_label(kind)


@register.filter
def step_tone(step: RunStep) -> str:
    """A CSS tone for the step: ok, bad, warn, ask or plain. A route refused only because the
    question lacks a value asks the reader (``briefs.step_folds``): never the failure colour."""
    payload = step.payload if isinstance(step.payload, dict) else {}
    if missing_value_names(step) is not None:
        return "ask"
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
