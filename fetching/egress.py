"""The egress guard: when RSSHub itself cannot reach the internet, no route is to blame.

An RSSHub whose DNS or outbound network is down still answers, and still says it is healthy; every
route then fails the same way (``fetch failed (getaddrinfo ENOTFOUND www.36kr.com)``). Counted
against the routes, a few minutes of that open every circuit that was asked for and pollute the
health that guides the agent for days. So a failure that says the source gave no answer at all
(``Verdict.network``, see ``fetching.outcomes``) is first a *suspect*, and one check settles it,
at once, before the fetch's result goes anywhere (so before any retry):

- the **canaries**: RSSHub is asked, all at once, for other paths whose answer needs the
  internet: a path that succeeded within ``CANARY_RECENT``, and the configured
  ``RSSHUB_EGRESS_CANARIES`` (stable routes of different sites). Only the failing *path* is left
  out, never its namespace: a GitHub route's failure is checked with the GitHub canary too, and
  with the others. RSSHub's own ``test`` routes never leave the machine, so they prove nothing
  and are never asked.
- no canary answered and one failed at the network level too: the instance's egress is **down**
  (its ``RSSHubEgress`` row gets ``down_since``). The attempt becomes ``rsshub_unavailable`` with
  the reason ``egress``; it does not count against the route and no circuit moves; the agent's
  router ends the run there (``agent.router``). Later suspects are settled by the row alone,
  without a canary, until the recovery check clears it; while the row says down, a source's
  other transient failure (an error or a timeout RSSHub gave for it) is not counted either.
- one canary answers: the failure was the route's own and counts as usual, so a site that is
  really gone still ends with an open circuit while the others work.
- the canaries say nothing about the network (RSSHub itself down, the canary routes broken or in
  need of configuration): the failure counts as it did before this guard existed. With nothing
  to ask at all (no canary configured, no recent success), nothing is remembered: the claim is
  given back and the next suspect asks again.

At most one check per instance per minute, whichever worker sees the failure: the check is
claimed by compare-and-set on the row (``check_claimed_at``). A worker that loses the claim while
the check is under way does not wait for it: its failure stays a transient ``upstream_error``
that is *not counted*, and the retry the router makes finds the answer on the row. Within one
fetch batch, the suspects share one check (``EgressGuard``).

``egress_startup_check`` runs the same check once as the service starts (``manage.py serve``,
each worker), so the banner, the status API and ``manage.py ask`` know before the first question.
``egress_recover`` (a django-q schedule, every minute) asks again while an instance is down, and
clears the row when a canary answers: the banner goes, and the routes were never touched.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_noop

from fetching.client import FetchFailed, RSSHubClient
from fetching.instances import instances_read
from fetching.models import SUCCESS_OUTCOMES, FetchAttempt, Outcome, RSSHubEgress
from fetching.outcomes import MESSAGE_LIMIT, Verdict, message_clean, verdict_for_status
from fetching.paths import RoutePathRejected

logger = logging.getLogger(__name__)

EGRESS_REASON = "egress"  # Verdict.reason / FetchResult.reason of a failure the guard excused
CHECK_INTERVAL = timedelta(minutes=1)  # at most one canary check per instance in this time
# The recovery schedule fires every minute, a little more or less: a claim a few seconds short
# of a minute old must not make it skip a whole turn.
RECOVERY_SLACK = timedelta(seconds=5)
CANARY_RECENT = timedelta(days=1)  # a success older than this proves little about the route now
CANARIES_PER_CHECK = 4  # paths asked at once in one check
# At start, a canary that has not answered by then says nothing: a starting worker does not wait
# a whole fetch deadline before its first task for a check that only informs the banner.
STARTUP_CANARY_TIMEOUT = 5.0
OFFLINE_NAMESPACES = frozenset({"test"})  # RSSHub's built-in routes that never leave the machine
TIME_FORMAT = "%Y-%m-%d %H:%M UTC"
# What the guard writes into a fetch's message, in English as stored; the parts joined by "; " and
# the pending note are recognised by ``briefs.reasons`` and read in the brief's language there,
# RSSHub's own words (``{message}``) as it wrote them.
EXCUSED_SINCE = gettext_noop("RSSHub cannot reach the internet (since {time})")
EXCUSED_NO_BLAME = gettext_noop("no route is to blame: {message}")
EXCUSED_PENDING = gettext_noop("{message} (not counted: RSSHub's internet access is being checked)")


class EgressState(StrEnum):
    DOWN = "down"  # the instance cannot reach the internet: no route is to blame
    UP = "up"  # the canary answered: the failure is the route's own
    UNKNOWN = "unknown"  # nothing could tell: count the failure as before
    PENDING = "pending"  # another worker's check is under way: suspect, not counted


@dataclass(frozen=True)
class EgressOutage:
    """An instance whose egress is down, as the dashboard and the status API show it."""

    base_url: str
    down_since: datetime
    checked_at: datetime | None
    message: str


def egress_key(base_url: str) -> str:
    """The row key of an instance: its base URL as the client uses it."""
    return base_url.rstrip("/")


def path_namespace_of(path: str) -> str:
    return path.strip("/").split("/", 1)[0]


# --- The row: claim, record, read ----------------------------------------------------------------


def _row_ensure(key: str) -> RSSHubEgress:
    """The instance's row, created on first use (insert-or-nothing, then one read)."""
    RSSHubEgress.objects.bulk_create([RSSHubEgress(base_url=key)], ignore_conflicts=True)
    return RSSHubEgress.objects.get(base_url=key)


def egress_check_claim(base_url: str, *, now: datetime, slack: timedelta = timedelta(0)) -> bool:
    """Compare-and-set on the instance's row: of every worker asking within ``CHECK_INTERVAL``
    (less ``slack``), exactly one gets True and runs the check."""
    free = Q(check_claimed_at__isnull=True) | Q(check_claimed_at__lte=now - CHECK_INTERVAL + slack)
    claimed = RSSHubEgress.objects.filter(free, base_url=egress_key(base_url))
    return bool(claimed.update(check_claimed_at=now))


def egress_check_record(
    base_url: str, *, ok: bool | None, path: str, message: str, now: datetime
) -> None:
    """Write a finished check: ``ok`` False marks the egress down (keeping when it started),
    True clears it, None (the check said nothing) leaves it as it was. A check that had no
    path to ask (``path`` empty) also gives its claim back: it is no answer to remember."""
    updates: dict = {
        "checked_at": now,
        "last_check_ok": ok,
        "last_check_path": path[:1000],
        "last_check_message": message_clean(message),
    }
    if ok is False:
        updates["down_since"] = Coalesce("down_since", now)
    elif ok is True:
        updates["down_since"] = None
    elif not path:
        updates["check_claimed_at"] = None
    RSSHubEgress.objects.filter(base_url=egress_key(base_url)).update(**updates)


def _last_answer(row: RSSHubEgress) -> EgressState:
    """What the row says when this caller may not check: the last check's answer once it has
    finished, PENDING while another worker's is under way."""
    if row.down_since is not None:
        return EgressState.DOWN
    claimed_at = row.check_claimed_at
    if row.checked_at is None or (claimed_at is not None and row.checked_at < claimed_at):
        return EgressState.PENDING
    return EgressState.UP if row.last_check_ok else EgressState.UNKNOWN


def egress_triage(base_url: str, *, now: datetime) -> tuple[EgressState | None, datetime | None]:
    """Before any canary: the state and ``down_since`` when the row settles a suspect (down
    already, or checked this minute, or being checked), else ``(None, None)``: this caller has
    claimed the check and must run it."""
    key = egress_key(base_url)
    row = _row_ensure(key)
    if row.down_since is not None:
        return EgressState.DOWN, row.down_since
    if egress_check_claim(key, now=now):
        return None, None
    row.refresh_from_db()
    return _last_answer(row), row.down_since


def canary_paths(
    *, failing: str = "", now: datetime, first: str = "", instance_id: int | None = None
) -> list[str]:
    """The paths to ask, best first: ``first`` (the recovery's last canary), the path that
    succeeded last (on this instance, when it is one of the rows: another instance's success
    says nothing about what this one serves), then the configured canaries. Only the
    ``failing`` path itself is left out: a canary of its namespace still tells whether the
    internet is there (its site may be gone, but then another canary answers)."""
    attempts = FetchAttempt.objects.filter(
        outcome__in=list(SUCCESS_OUTCOMES),
        created_at__gte=now - CANARY_RECENT,
        route__isnull=False,
    )
    if instance_id is not None:
        attempts = attempts.filter(instance_id=instance_id)
    recent = (
        attempts.exclude(route__platform__namespace__in=OFFLINE_NAMESPACES)
        .exclude(path=failing)
        .order_by("-created_at")
        .values_list("path", flat=True)[:1]
    )
    paths = [first, *recent, *settings.RSSHUB_EGRESS_CANARIES]
    wanted = [
        p for p in paths if p and p != failing and path_namespace_of(p) not in OFFLINE_NAMESPACES
    ]
    return list(dict.fromkeys(wanted))[:CANARIES_PER_CHECK]


def _outage(row: RSSHubEgress) -> EgressOutage:
    return EgressOutage(row.base_url, row.down_since, row.checked_at, row.last_check_message)


def egress_outage(base_url: str | None = None) -> EgressOutage | None:
    """The instance's outage (by default the first the environment lists), or None while its
    egress works."""
    key = egress_key(base_url or settings.RSSHUB_URL)
    row = RSSHubEgress.objects.filter(base_url=key, down_since__isnull=False).first()
    return _outage(row) if row is not None else None


def egress_outages(rows: list | None = None) -> dict[int, EgressOutage]:
    """The enabled instances (of ``rows``, else all) whose egress is down: id -> its outage."""
    enabled = {row.base_url: row.pk for row in rows or instances_read() if row.enabled}
    down = RSSHubEgress.objects.filter(base_url__in=list(enabled), down_since__isnull=False)
    return {enabled[row.base_url]: _outage(row) for row in down}


def egress_outage_everywhere() -> EgressOutage | None:
    """The earliest outage when *every* enabled instance has lost the internet (then every source
    fails, whatever instance is asked), else None: an instance that still reaches the internet
    serves the fetches, and the banner names the others."""
    rows = [row for row in instances_read() if row.enabled]
    outages = egress_outages(rows)
    if not rows or len(outages) < len(rows):
        return None
    return min(outages.values(), key=lambda outage: outage.down_since)


# --- The check ------------------------------------------------------------------------------------


async def _canary_ask(client: RSSHubClient, path: str) -> tuple[bool | None, str, str]:
    """True: the canary got its answer from the internet; False: it failed at the network level
    too; None: its answer says nothing about the network. With its message and path."""
    try:
        response = await client.get(path)
    except (FetchFailed, RoutePathRejected) as exc:
        return None, client.redact(f"canary {path}: {exc}"), path
    if 200 <= response.status < 300 or response.status == 304:
        return True, f"canary {path} answered", path
    verdict = verdict_for_status(
        response.status,
        response.body,
        content_type=response.content_type,
        route_matched=bool(response.route_template),
    )
    message = client.redact(f"canary {path}: {verdict.outcome}: {verdict.message}")
    if verdict.network:
        return False, message, path
    return (True if verdict.success else None), message, path


async def _canaries_ask(client: RSSHubClient, paths: list[str]) -> tuple[bool | None, str, str]:
    """Every canary at once: the first that answers settles it (the others are cancelled: one
    answer proves the internet is there); else down when one failed at the network level;
    else nothing is known. The answer, its message and the path that gave it."""
    pending = [asyncio.ensure_future(_canary_ask(client, path)) for path in paths]
    answer: tuple[bool | None, str, str] | None = None
    try:
        for finished in asyncio.as_completed(pending):
            ok, message, path = await finished
            if ok:
                return ok, message, path
            if answer is None or (ok is False and answer[0] is None):
                answer = (ok, message, path)
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    assert answer is not None  # paths is never empty here
    ok, message, path = answer
    if ok is False and len(paths) > 1:
        message = f"{message} (and {len(paths) - 1} more canaries without an answer)"
    return ok, message, path


async def egress_check(
    client: RSSHubClient, *, failing: str = "", first: str = "", instance_id: int | None = None
) -> bool | None:
    """Ask the canaries (``_canaries_ask``) and record the answer on the instance's row. The
    caller holds this minute's claim; with no canary to ask, it is given back."""
    now = timezone.now()
    paths = await sync_to_async(canary_paths)(
        failing=failing, now=now, first=first, instance_id=instance_id
    )
    ok, message, asked = None, "no canary path to ask (set RSSHUB_EGRESS_CANARIES)", ""
    if paths:
        ok, message, asked = await _canaries_ask(client, paths)
    record = sync_to_async(egress_check_record)
    await record(client.base_url, ok=ok, path=asked, message=message, now=timezone.now())
    return ok


def _state_of(ok: bool | None) -> EgressState:
    return {True: EgressState.UP, False: EgressState.DOWN}.get(ok, EgressState.UNKNOWN)


def _excused(template: str, message: str) -> str:
    """``template`` around RSSHub's ``message``, cut to the message limit in RSSHub's words, so
    the guard's own words stay whole (and read in the brief's language: ``briefs.reasons``)."""
    room = MESSAGE_LIMIT - len(template.format(message=""))
    return template.format(message=message_clean(message, max(room, 1)))


def verdict_settled(verdict: Verdict, state: EgressState, since: datetime | None) -> Verdict:
    """A network-level failure as the check left it."""
    if state == EgressState.DOWN:
        when = (since or timezone.now()).strftime(TIME_FORMAT)
        template = "; ".join((EXCUSED_SINCE.format(time=when), EXCUSED_NO_BLAME))
        return Verdict(
            Outcome.RSSHUB_UNAVAILABLE, _excused(template, verdict.message), verdict.http_status,
            counts_for_route=False, reason=EGRESS_REASON,
        )  # fmt: skip
    if state == EgressState.PENDING:
        message = _excused(EXCUSED_PENDING, verdict.message)
        return replace(verdict, message=message, counts_for_route=False)
    return verdict


# What a source's absence may also look like, besides a network failure: an error RSSHub gave
# for it, or no answer within the deadline. Not counted while the row says the egress is down.
_FLAG_EXCUSES = frozenset({Outcome.UPSTREAM_ERROR, Outcome.TIMEOUT})


def egress_down_since(base_url: str) -> datetime | None:
    """When the instance's egress went down, as its row says (None: it is not down)."""
    rows = RSSHubEgress.objects.filter(base_url=egress_key(base_url), down_since__isnull=False)
    return rows.values_list("down_since", flat=True).first()


class EgressGuard:
    """One fetch batch's view of one instance's egress: the batch's first network-level failure
    on that instance asks (the row, and the canaries when this worker claims the check); the
    batch's other suspects on it share that answer. While the row says down, the batch's other
    transient failures from a source are not counted either (one read of the row, shared). A
    batch has a guard per instance."""

    def __init__(self, client: RSSHubClient, *, instance_id: int | None = None) -> None:
        self._client = client
        self._instance_id = instance_id
        self._decision: asyncio.Future | None = None
        self._flag: asyncio.Future | None = None

    async def settle(self, path: str, verdict: Verdict) -> Verdict:
        if verdict.network:
            if self._decision is None:
                self._decision = asyncio.ensure_future(self._decide(path))
            state, since = await asyncio.shield(self._decision)
            return verdict_settled(verdict, state, since)
        if verdict.counts_for_route and verdict.outcome in _FLAG_EXCUSES:
            since = await self._down_since()
            if since is not None:
                return verdict_settled(verdict, EgressState.DOWN, since)
        return verdict

    async def _down_since(self) -> datetime | None:
        if self._decision is not None:
            state, since = await asyncio.shield(self._decision)
            return since if state == EgressState.DOWN else None
        if self._flag is None:
            self._flag = asyncio.ensure_future(self._flag_read())
        return await asyncio.shield(self._flag)

    async def _flag_read(self) -> datetime | None:
        try:
            return await sync_to_async(egress_down_since)(self._client.base_url)
        except DatabaseError:
            logger.exception("reading the egress of %s failed", self._client.base_url)
            return None

    async def _decide(self, path: str) -> tuple[EgressState, datetime | None]:
        try:
            triage = sync_to_async(egress_triage)
            state, since = await triage(self._client.base_url, now=timezone.now())
            if state is not None:
                return state, since
            ok = await egress_check(self._client, failing=path, instance_id=self._instance_id)
            if ok is False:
                since = await sync_to_async(egress_down_since)(self._client.base_url)
                return EgressState.DOWN, since
            return _state_of(ok), None
        except DatabaseError:
            logger.exception("egress check of %s failed; counting as usual", self._client.base_url)
            return EgressState.UNKNOWN, None

    async def close(self) -> None:
        """Wait for a check in progress (also when the batch was cancelled): its answer is
        recorded on the row for the other workers."""
        pending = [f for f in (self._decision, self._flag) if f is not None]
        await asyncio.gather(*pending, return_exceptions=True)


# --- Recovery ------------------------------------------------------------------------------------


async def _instance_check(
    instance, *, first: str = "", timeout: float | None = None
) -> bool | None:
    client = RSSHubClient(
        base_url=instance.base_url, access_key=instance.access_key, timeout=timeout
    )
    async with client:
        return await egress_check(client, first=first, instance_id=instance.pk)


def egress_recover(*, now: datetime | None = None) -> int:
    """The recovery check (scheduled every minute): ask again, for every enabled instance whose
    egress is down; its row is cleared when a canary answers. Returns how many recovered.
    Route health is never touched: the outage did not count against any route."""
    now = now or timezone.now()
    recovered = 0
    instances = {row.base_url: row for row in instances_read() if row.enabled}
    for row in RSSHubEgress.objects.filter(base_url__in=list(instances), down_since__isnull=False):
        if not egress_check_claim(row.base_url, now=now, slack=RECOVERY_SLACK):
            continue  # a check of this minute is done or under way
        instance = instances[row.base_url]
        if async_to_sync(_instance_check)(instance, first=row.last_check_path) is True:
            recovered += 1
            logger.info("RSSHub at %s reaches the internet again", row.base_url)
    return recovered


def egress_startup_check(*, now: datetime | None = None) -> dict[str, bool | None]:
    """The check as the service starts (``manage.py serve``, each worker): every enabled
    instance's canaries, asked once (not again when another process checked it this minute),
    so the banner, the status API and ``manage.py ask`` say whether RSSHub reaches the
    internet before anyone asks. base URL -> True (it does), False (down), None (unknown or
    not asked now)."""
    now = now or timezone.now()
    answers: dict[str, bool | None] = {}
    for instance in (row for row in instances_read() if row.enabled):
        _row_ensure(egress_key(instance.base_url))
        if not egress_check_claim(instance.base_url, now=now):
            answers[instance.base_url] = None
            continue
        timeout = min(STARTUP_CANARY_TIMEOUT, settings.RSSHUB_TIMEOUT)
        ok = async_to_sync(_instance_check)(instance, timeout=timeout)
        if ok is False:
            logger.warning(
                "RSSHub at %s cannot reach the internet: briefs say so, and no route is "
                "blamed, until it can",
                instance.label,
            )
        answers[instance.base_url] = ok
    return answers
