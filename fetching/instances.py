"""The RSSHub instances fetches go to: which there are, and which one a path tries first.

**Which there are.** ``RSSHubInstance`` rows. Staff curate them in the admin; the environment
seeds them: ``RSSHUB_URLS`` (or ``RSSHUB_URL``, a list of one) with ``RSSHUB_ACCESS_KEY`` for
all. The seeding converges whenever the instances are read (``instances_read``): a configured
URL without a row gets one, a row the environment made (``from_environment``) follows it (enabled
while listed, its key, its place in the list as its priority), and nothing is written when
nothing changed. It runs at the first use and not once at start-up (a ``post_migrate``
handler): the list is read in every process from its own settings, so a deployment that
changes ``RSSHUB_URLS`` without a migration is followed at once, and so is a test that points
``RSSHUB_URL`` at its stand-in server. An edit in the admin makes a seeded row the staff's.

**Which one first.** For each path, ``instances_ranked`` orders the enabled instances that serve
its namespace (every namespace while the catalog import has not read the instance):

1. usable ones first: the instance's own circuit is closed, or this batch holds its half-open
   probe, and its egress is not down; the others stay in the list as a last resort (with one
   instance, that is today's behaviour: a dead RSSHub is still asked, and found back at once);
2. then the instances on which the route has not failed since it last worked there
   (``RouteInstanceHealth``): a route broken on one instance is sent to another;
3. then the staff's priority, then the route's health score on that instance, then the id.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from catalog.health import CircuitState, health_score
from fetching.circuit import (
    ADMIT_FIELDS,
    INSTANCES,
    Admission,
    HealthRecord,
    admission_of,
    health_record,
    health_success_quick,
    health_updates,
)
from fetching.instance_url import InstanceURLRefused, instance_url_clean
from fetching.models import Outcome, RouteInstanceHealth, RSSHubEgress, RSSHubInstance
from fetching.outcomes import Verdict

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class InstanceRef:
    """One instance as a batch uses it. ``id`` None: a client the caller gave, not a row."""

    id: int | None
    label: str
    base_url: str
    access_key: str = field(default="", repr=False)
    priority: int = 0
    latency_ms: float | None = None
    usable: bool = True  # closed circuit (or this batch's probe) and egress not down
    probe_at: datetime | None = None  # this batch holds the instance's half-open probe


# --- Seeding from the environment ---------------------------------------------------------------


def _configured() -> list[str]:
    """The URLs the environment lists, clean, in order (a refused one is logged and skipped)."""
    urls = []
    for raw in list(settings.RSSHUB_URLS) or [settings.RSSHUB_URL]:
        try:
            urls.append(instance_url_clean(raw))
        except InstanceURLRefused as exc:
            logger.error("an RSSHub URL from the environment is refused: %s", exc)
    return list(dict.fromkeys(urls))


def _seed_changes(rows: list[RSSHubInstance], urls: list[str], key: str) -> dict:
    """What the environment asks of ``rows``: new rows, and the fields each seeded row needs."""
    by_url = {row.base_url: row for row in rows}
    new = [url for url in urls if url not in by_url]
    updates = {}
    for row in rows:
        if not row.from_environment:
            continue
        listed = row.base_url in urls
        wanted = {"enabled": listed}
        if listed:
            wanted["priority"] = -urls.index(row.base_url)
            if row.key_from_environment:
                wanted["access_key"] = key
        changed = {k: v for k, v in wanted.items() if getattr(row, k) != v}
        if changed:
            updates[row.pk] = changed
    return {"new": new, "updates": updates}


def instances_converge(rows: list[RSSHubInstance]) -> bool:
    """Apply the environment to the instances as read; True when anything was written."""
    urls, key = _configured(), settings.RSSHUB_ACCESS_KEY
    changes = _seed_changes(rows, urls, key)
    if not changes["new"] and not changes["updates"]:
        return False
    with transaction.atomic():
        RSSHubInstance.objects.bulk_create(
            [
                RSSHubInstance(
                    base_url=url,
                    access_key=key,
                    priority=-urls.index(url),
                    from_environment=True,
                    key_from_environment=True,
                )
                for url in changes["new"]
            ],
            ignore_conflicts=True,  # another process seeded it first: no error
        )
        for pk, fields in changes["updates"].items():
            RSSHubInstance.objects.filter(pk=pk, from_environment=True).update(**fields)
    return True


def instances_read() -> list[RSSHubInstance]:
    """Every instance (enabled or not), best priority first, after the environment's seeding."""
    rows = list(RSSHubInstance.objects.all())
    if instances_converge(rows):
        rows = list(RSSHubInstance.objects.all())
    return rows


def instance_save_by_staff(
    instance: RSSHubInstance, *, new_key: str = "", clear_key: bool = False
) -> RSSHubInstance:
    """Save a staff edit: the row is the staff's from now on (the environment no longer moves
    it), and its key is replaced only when a new one is given (or removed when asked)."""
    instance.base_url = instance_url_clean(instance.base_url)
    instance.from_environment = instance.key_from_environment = False
    if new_key:
        instance.access_key = new_key
    elif clear_key:
        instance.access_key = ""
    instance.save()
    return instance


# --- Choosing -----------------------------------------------------------------------------------


@dataclass
class InstanceChoice:
    """The batch's view of the instances, read in its one database round."""

    refs: list[InstanceRef]
    serves: dict[int, set[str] | None]  # instance id -> namespaces it serves (None: unknown)
    pairs: dict[tuple[int, int], RouteInstanceHealth]  # (route id, instance id) -> health

    def ranked(self, *, namespace: str | None, route_id: int | None) -> list[InstanceRef]:
        """The instances to try for one path, best first (see the module's docstring)."""
        served = [
            ref
            for ref in self.refs
            if namespace is None
            or self.serves.get(ref.id) is None
            or namespace in self.serves[ref.id]
        ]
        return sorted(served, key=lambda ref: self._rank(ref, route_id))

    def _rank(self, ref: InstanceRef, route_id: int | None) -> tuple:
        pair = self.pairs.get((route_id, ref.id)) if route_id else None
        failing = bool(pair and pair.consecutive_failures)
        score = health_score(
            attempts=pair.attempts if pair else 0,
            successes=pair.successes if pair else 0,
            latency_ms=(pair.latency_ms if pair else None) or ref.latency_ms,
            newest_item_at=None,
            circuit_open=False,
        )
        return (not ref.usable, failing, -ref.priority, -score, ref.id)


def _admitted(row: RSSHubInstance, now: datetime) -> Admission:
    resting = row.circuit == CircuitState.OPEN and row.circuit_open_until is not None
    if resting and row.circuit_open_until > now:
        return Admission(allowed=False)  # not due: no claim to try (no write per batch)
    fields = {name: getattr(row, name) for name in ADMIT_FIELDS}
    return admission_of(INSTANCES, {"id": row.pk, **fields}, now)


def _refs(rows: list[RSSHubInstance], now: datetime) -> list[InstanceRef]:
    """The enabled instances, each with its admission (a half-open probe is claimed here)."""
    enabled = [row for row in rows if row.enabled]
    down = set(
        RSSHubEgress.objects.filter(
            base_url__in=[row.base_url for row in enabled], down_since__isnull=False
        ).values_list("base_url", flat=True)
    ) if len(enabled) > 1 else set()  # fmt: skip
    refs = []
    for row in enabled:
        admission = _admitted(row, now)
        refs.append(
            InstanceRef(
                id=row.pk,
                label=row.label,
                base_url=row.base_url,
                access_key=row.access_key,
                priority=row.priority,
                latency_ms=row.latency_ms,
                usable=admission.allowed and row.base_url not in down,
                probe_at=admission.probe_at,
            )
        )
    return refs


def _serves(refs: list[InstanceRef], rows: list[RSSHubInstance], namespaces: set[str]) -> dict:
    read = {row.pk for row in rows if row.catalog_read_at is not None}
    serves: dict[int, set[str] | None] = {ref.id: None for ref in refs}
    if not read or not namespaces:
        return serves
    through = RSSHubInstance.platforms.through.objects.filter(
        rsshubinstance_id__in=read, platform__namespace__in=namespaces
    ).values_list("rsshubinstance_id", "platform__namespace")
    for pk in read:
        serves[pk] = set()
    for pk, namespace in through:
        serves[pk].add(namespace)
    return serves


def instances_choose(
    *, namespaces: set[str], route_ids: set[int], now: datetime | None = None
) -> InstanceChoice:
    """The batch's instances, and what ranking them for its paths needs: the namespaces each
    serves and the routes' health on each. A few reads; none when there is one instance."""
    now = now or timezone.now()
    rows = instances_read()
    refs = _refs(rows, now)
    if len(refs) <= 1:
        return InstanceChoice(refs, {ref.id: None for ref in refs}, {})
    pairs = RouteInstanceHealth.objects.filter(
        route_id__in=route_ids, instance_id__in=[ref.id for ref in refs]
    )
    by_pair = {(p.route_id, p.instance_id): p for p in pairs} if route_ids else {}
    return InstanceChoice(refs, _serves(refs, rows, namespaces), by_pair)


# --- Recording ----------------------------------------------------------------------------------


def instance_health_record(
    instance_id: int, *, fault: Verdict | None, latency_ms: int, now: datetime | None = None
) -> None:
    """One attempt on an instance: ``fault`` None when it answered (whatever the answer said
    about the route), else its own failure. A success on a healthy instance costs one
    ``UPDATE`` and no lock; anything else goes through the breaker."""
    if fault is None:
        if health_success_quick(INSTANCES, instance_id, latency_ms=latency_ms, now=now):
            return
        fault = Verdict(Outcome.OK, "answered")
    health_record(INSTANCES, [HealthRecord(instance_id, fault, latency_ms)], now=now)


def route_instance_health_record(
    records: list[tuple[int, int, Verdict, int]], *, now: datetime
) -> None:
    """(route, instance, verdict, latency) of the attempts that counted for their route: one
    ``UPDATE`` each on the pair's row, created first when it is new (insert-or-nothing)."""
    for route_id, instance_id, verdict, latency_ms in records:
        updates = health_updates(verdict, latency_ms, None, now)
        pair = RouteInstanceHealth.objects.filter(route_id=route_id, instance_id=instance_id)
        if not pair.update(**updates):
            RouteInstanceHealth.objects.bulk_create(
                [RouteInstanceHealth(route_id=route_id, instance_id=instance_id)],
                ignore_conflicts=True,
            )
            pair.update(**updates)


def instance_reachability_record(
    instance_id: int, *, reachable: bool, now: datetime | None = None
) -> None:
    RSSHubInstance.objects.filter(pk=instance_id).update(
        reachable=reachable, reachability_checked_at=now or timezone.now()
    )
