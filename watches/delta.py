"""What changed since a watch's previous run: the hook the summarize node calls
(``agent.summary.delta``), and the lines a watch's brief leads with.

The items a run knows are the marks (``watches.items``) its watch's earlier runs recorded: every
item their briefs listed. The split is made under a lock on the watch's row, and the run records
its own marks before the lock goes, so two runs of one watch at once (a scheduled one and "run
now") never both report the same item as new. Runs that failed or were cancelled delivered
nothing, so their marks do not count.

"Since" is the previous successful run's "as of"; times are said in the watch's time zone.

Where the outlets of a story differ (``agent.summary.agreement``) is a change too: each run keeps
the differences among all its items in its brief's ``delta``, and a difference the previous
successful run did not have leads the brief ("Sources now differ: ... says 3,000; ... says
5,000"), even when the item that brings it is the only new one.
"""

import dataclasses
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agent.context import RunContext
from agent.summary.agreement_text import brief_tables
from agent.summary.answer import AnswerPlan
from agent.summary.delta import Delta
from agent.summary.draft import Draft, SourceItem, escape_markdown, renumbered
from briefs.models import Brief, BriefStatus
from fetching.models import Item
from watches.items import Mark, mark_of, split_known
from watches.models import Watch, WatchRun

KNOWN_RUNS = 60  # the latest runs whose marks a run compares by GUID and link
FOLD_MARKS = 300  # of their marks, the newest compared by folded title (each pair is compared)
UNDELIVERED = (BriefStatus.FAILED, BriefStatus.CANCELLED)


def watch_delta(ctx: RunContext, plan: AnswerPlan, as_of: datetime) -> Delta | None:
    """The hook: for a watch's run, only the new items, led by what changed; None otherwise."""
    if ctx.brief.watch_id is None:
        return None
    with transaction.atomic():
        watch = Watch.objects.select_for_update().filter(pk=ctx.brief.watch_id).first()
        run = WatchRun.objects.filter(brief_id=ctx.brief_id).first()
        if watch is None or run is None:
            return None
        current = marks_of(plan.items)
        known, since = known_marks(run), since_of(run)
        split = split_known(current, known, fold=FOLD_MARKS)
        differences = differences_of(plan.items)
        delta = {
            "since": since.isoformat() if since else None,
            "new_items": split.new_stories,
            "repeated_items": split.repeated_stories,
            **({"differences": differences} if differences else {}),
        }
        before = previous_differences(run)
        WatchRun.objects.filter(pk=run.pk).update(items=[m.as_json() for m in current])
        Brief.objects.filter(pk=ctx.brief_id).update(delta=delta)
    if not known:  # the first run: everything is new, nothing to lead with
        return Delta(plan)
    zone = watch.slot.zone
    since_text = moment_text(since, now=as_of, zone=zone) if since else _("the previous run")
    changed = [differs_text(d) for d in differences if d not in before]
    if not split.new:
        last = newest_time(known)
        line = nothing_new_text(since_text, last and moment_text(last, now=as_of, zone=zone))
        lead = "\n\n".join([line, *changed])
        return Delta(plan, lead=lead, draft=Draft(body="", method="delta"))
    items = renumbered([plan.items[i] for i in split.new])
    lead = new_since_text(since_text, split.new_stories, split.repeated_stories)
    lead = "\n\n".join([lead, *changed])
    return Delta(dataclasses.replace(plan, items=items), lead=lead)


def differences_of(items: list[SourceItem]) -> list[dict]:
    """Where the outlets of a story differ among ``items``: {kind, said: [[source, text]...]},
    without item numbers (they change from run to run), sides in a fixed order: which outlet
    ranks first changes too."""
    return [
        {"kind": d["kind"], "said": sorted([s["source"], s["text"]] for s in d["said"])}
        for table in brief_tables(items)
        for d in table["differences"]
    ]


def previous_differences(run: WatchRun) -> list[dict]:
    """The differences the previous successful run kept; [] when it kept none (or none ran)."""
    previous = (
        _delivered(run)
        .filter(created_at__lte=run.created_at, brief__status=BriefStatus.SUCCEEDED)
        .order_by("-created_at", "-id")
        .values_list("brief__delta", flat=True)
        .first()
    )
    found = previous.get("differences") if isinstance(previous, dict) else None
    return found if isinstance(found, list) else []


def marks_of(items: list[SourceItem]) -> list[Mark]:
    guids = dict(Item.objects.filter(pk__in=[i.item_id for i in items]).values_list("pk", "guid"))
    return [
        mark_of(
            guid=guids.get(item.item_id) or "",
            link=item.link,
            title=item.title,
            summary=item.summary,
            at=item.published_at.isoformat() if item.published_at else None,
        )
        for item in items
    ]


def _delivered(run: WatchRun):
    return (
        WatchRun.objects.filter(watch_id=run.watch_id)
        .exclude(pk=run.pk)
        .exclude(brief__status__in=UNDELIVERED)
    )


def known_marks(run: WatchRun) -> list[Mark]:
    """The marks of the watch's other delivered runs, newest run first."""
    rows = _delivered(run).exclude(items=[]).order_by("-created_at", "-id")
    marks = []
    for items in rows.values_list("items", flat=True)[:KNOWN_RUNS]:
        marks += [m for m in map(Mark.from_json, items if isinstance(items, list) else []) if m]
    return marks


def since_of(run: WatchRun) -> datetime | None:
    """When the previous successful run looked: its "as of"."""
    previous = (
        _delivered(run)
        .filter(created_at__lte=run.created_at, brief__status=BriefStatus.SUCCEEDED)
        .order_by("-created_at", "-id")
        .values_list("brief__as_of", "created_at")
        .first()
    )
    return (previous[0] or previous[1]) if previous else None


def newest_time(marks: list[Mark]) -> datetime | None:
    """The newest item time among ``marks``: the last item a run reported as new."""
    times = []
    for mark in marks:
        try:
            moment = datetime.fromisoformat(mark.at or "")
        except ValueError:
            continue
        if moment.tzinfo is not None:
            times.append(moment)
    return max(times, default=None)


# --- What the brief says ------------------------------------------------------------------------


def moment_text(moment: datetime, *, now: datetime, zone: ZoneInfo) -> str:
    """ "08:00 CST today", "08:00 CST yesterday", or "2026-11-02 08:00 CST", in ``zone`` (the
    rest of a brief says its times in UTC: the zone's abbreviation tells them apart)."""
    local, today = moment.astimezone(zone), now.astimezone(zone).date()
    clock = " ".join(part for part in (local.strftime("%H:%M"), local.tzname()) if part)
    values = {"time": clock, "date": local.strftime("%Y-%m-%d")}
    if local.date() == today:
        return _("%(time)s today") % values
    if local.date() == today - timedelta(days=1):
        return _("%(time)s yesterday") % values
    return _("%(date)s %(time)s") % values


def new_since_text(since: str, new: int, repeated: int) -> str:
    count = ngettext("%(n)d new item", "%(n)d new items", new) % {"n": new}
    line = _("New since %(since)s: %(count)s.") % {"since": since, "count": count}
    if repeated:
        left_out = ngettext(
            "%(n)d item reported before is left out.",
            "%(n)d items reported before are left out.",
            repeated,
        ) % {"n": repeated}
        # Translators: two sentences in a row (Chinese puts no space between them).
        line = _("%(first)s %(second)s") % {"first": line, "second": left_out}
    return line


def nothing_new_text(since: str, last: str | None) -> str:
    if last:
        return _("Nothing new since %(since)s; the last new item is from %(last)s.") % {
            "since": since,
            "last": last,
        }
    return _("Nothing new since %(since)s.") % {"since": since}


def differs_text(difference: dict) -> str:
    """ "Sources now differ: Alpha Wire says 3,000; Beta Daily says 5,000." """
    sides = _("; ").join(
        _("%(source)s says %(value)s")
        % {"source": escape_markdown(source), "value": escape_markdown(value)}
        for source, value in difference["said"]
    )
    return _("Sources now differ: %(sides)s.") % {"sides": sides}
