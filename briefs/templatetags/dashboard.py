"""Small visual pieces of the dashboard: status badges, percentage bars, SVG sparklines."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from briefs.body_times import body_times_local
from briefs.coverage import row_explanation
from briefs.models import BriefOutcome
from briefs.reasons import reason_translate
from catalog.health import (
    CIRCUIT_REASON_OUTAGE_REPAIR,
    CIRCUIT_REASON_STAFF_RESET,
    CIRCUIT_REASON_SUCCESS,
    HEALTHY_SUCCESS_RATE,
    HealthState,
)
from catalog.path_breaks import path_with_breaks
from fetching.models import Outcome
from fetching.outcome_text import outcome_name

register = template.Library()

# A succeeded run is not yet an answer: its badge is the outcome's; the status stays neutral.
STATUS_TONES = {
    "queued": "plain",
    "running": "live",
    "succeeded": "plain",
    "failed": "bad",
    "cancelled": "warn",
}
# Each outcome its own colour; only an answer is green.
OUTCOME_TONES = {
    "answered": "ok",
    "partial": "warn",
    "no_data": "bad",
    "off_topic": "topic",
    "needs_input": "ask",
}
DELIVERY_TONES = {
    "pending": "warn",
    "delivering": "live",
    "succeeded": "ok",
    "failed": "bad",
}
HEALTH_TONES = {
    HealthState.HEALTHY: "ok",
    HealthState.DEGRADED: "warn",
    HealthState.FAILING: "bad",
    HealthState.OPEN: "bad",
    HealthState.UNKNOWN: "plain",
}


@register.filter
def path_breaks(path: object) -> SafeString:
    """A route path as ``<code class="path">`` that wraps only after a ``/``."""
    return mark_safe(f'<code class="path">{path_with_breaks(str(path or ""))}</code>')  # noqa: S308 -- escaped part by part


@register.filter
def fetch_outcome_name(outcome: object) -> str:
    """A fetch's outcome class by its name in the current language (``fetching.outcome_text``)."""
    return outcome_name(outcome)


@register.filter
def coverage_explained(row: object) -> str:
    """A coverage row in one line, its times in the reader's zone; "" for a malformed row."""
    if not isinstance(row, dict):
        return ""
    return body_times_local(row_explanation(row), reference=None)


# The question's time window (agent.question.TimeWindow.label) as the reader says it.
WINDOW_NAMES = {
    "latest": gettext_lazy("the newest items"),
    "today": gettext_lazy("today"),
    "yesterday": gettext_lazy("yesterday"),
    "this_week": gettext_lazy("this week"),
    "this_month": gettext_lazy("this month"),
    "last_24h": gettext_lazy("the last 24 hours"),
}


@register.filter
def window_name(label: object) -> str:
    """A brief's window label in the reader's language; an unknown label as stored."""
    return str(WINDOW_NAMES.get(str(label), label))


@register.filter
def circuit_reason(stored: object) -> str:
    """Why a circuit changed (``fetching.circuit``, stored in English) in the reader's language:
    "success", "reset by staff", "outage repair: <span>" or "<outcome class>: <message>"; the
    message, RSSHub's own words, stays as stored."""
    text = str(stored or "")
    if text == CIRCUIT_REASON_SUCCESS:
        return pgettext("circuit change", "success")
    if text == CIRCUIT_REASON_STAFF_RESET:
        return _("reset by staff")
    head, sep, rest = text.partition(": ")
    if sep and head == CIRCUIT_REASON_OUTAGE_REPAIR:
        return _("outage repair: %(span)s") % {"span": rest}
    if sep and head in Outcome.values:
        return f"{outcome_name(head)}: {rest}"
    return text


@register.filter
def agent_reason(stored: object) -> str:
    """A reason or error the agent stored in English, in the reader's language."""
    return reason_translate(stored)


@register.filter
def status_tone(status: str) -> str:
    return STATUS_TONES.get(status, "plain")


@register.filter
def outcome_tone(outcome: str) -> str:
    return OUTCOME_TONES.get(outcome, "plain")


@register.filter
def outcome_label(outcome: object) -> str:
    """The outcome's name in the current language; an unknown value as it is."""
    labels = dict(BriefOutcome.choices)
    return str(labels.get(outcome, outcome or ""))


@register.filter
def delivery_tone(status: str) -> str:
    return DELIVERY_TONES.get(status, "plain")


@register.filter
def health_tone(state: str) -> str:
    return HEALTH_TONES.get(state, "plain")


@register.filter
def rate_tone(rate: float | None) -> str:
    if rate is None:
        return "plain"
    return "ok" if rate >= HEALTHY_SUCCESS_RATE else "warn" if rate >= 0.5 else "bad"


@register.filter
def percent(rate: float | None) -> str:
    return "—" if rate is None else f"{rate * 100:.0f}%"


@register.simple_tag
def rate_bar(rate: float | None, width: int = 90) -> SafeString:
    """A horizontal bar filled to ``rate`` (0..1), coloured by how good it is."""
    if rate is None:
        return format_html(
            '<svg class="bar" width="{}" height="10" aria-hidden="true"></svg>', width
        )
    filled = max(0.0, min(1.0, rate)) * width
    return format_html(
        '<svg class="bar" width="{w}" height="10" role="img" aria-label="{label}">'
        '<rect class="track" x="0" y="0" width="{w}" height="10" rx="3"/>'
        '<rect class="fill tone-{tone}" x="0" y="0" width="{f}" height="10" rx="3"/></svg>',
        w=width,
        f=f"{filled:.1f}",
        tone=rate_tone(rate),
        label=percent(rate),
    )


def _bar(i: int, slot: float, value: float | None, top: float, height: int, tone: str) -> tuple:
    if value is None:  # no attempt in this bucket: a faint tick on the baseline
        return (f"{i * slot:.1f}", height - 1, f"{max(slot - 1, 1):.1f}", 1, "none")
    bar = max(2.0, min(1.0, value / top) * (height - 2)) if top else 2.0
    return (f"{i * slot:.1f}", f"{height - bar:.1f}", f"{max(slot - 1, 1):.1f}", f"{bar:.1f}", tone)


@register.simple_tag
def sparkline(
    values: list[float | None], kind: str = "success", width: int = 140, height: int = 28
) -> SafeString:
    """A small inline SVG column chart of ``values``, oldest first; None = no data (a tick).

    ``kind`` "success": shares 0..1 on a fixed scale, each column coloured by how good it is;
    "latency": milliseconds, scaled to the largest.
    """
    known = [v for v in values if v is not None]
    if not values:
        return SafeString("")
    top = 1.0 if kind == "success" else (max(known) if known else 0) or 1.0
    slot = width / len(values)
    bars = [
        _bar(i, slot, v, top, height, rate_tone(v) if kind == "success" else "latency")
        for i, v in enumerate(values)
    ]
    if not known:
        label = _("no data")
    elif kind == "success":
        label = _("success from %(low)s to %(high)s") % {
            "low": percent(min(known)),
            "high": percent(max(known)),
        }
    else:
        label = _("latency up to %(ms)d ms") % {"ms": max(known)}
    columns = format_html_join(
        "",
        '<rect x="{}" y="{}" width="{}" height="{}" class="tone-{}"/>',
        bars,
    )
    return format_html(
        '<svg class="spark spark-{kind}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        'role="img" aria-label="{label}"><title>{label}</title>{columns}</svg>',
        kind=kind,
        w=width,
        h=height,
        label=label,
        columns=columns,
    )
