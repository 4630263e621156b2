"""What is new across a person's watches: the items their runs found new, newest first, each
with its watch and its citation (the "What's new" page, and the digest email that sends the same
list daily or weekly).

A run that found something new keeps only its new items in its brief (``watches.delta`` drops
the ones reported before), so the brief's citations *are* the new items: they are read from
there, not stored twice.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from briefs.markdown import citations_read
from briefs.models import BriefStatus
from watches.emails import digest_email, email_send
from watches.models import DigestFrequency, WatchDigest, WatchRun

NEWS_RUNS = 60  # the page's and a digest's runs at most: a long list helps nobody
PERIODS = {DigestFrequency.DAILY: timedelta(days=1), DigestFrequency.WEEKLY: timedelta(days=7)}


@dataclass(frozen=True)
class NewItem:
    title: str
    url: str
    source: str
    published_at: datetime | None
    n: int  # its number among the run brief's citations
    run: WatchRun

    @property
    def at(self) -> datetime:
        """When it happened, as far as is known: published, else found."""
        return self.published_at or self.run.created_at


def news_runs(owner, *, after: datetime | None = None, until: datetime | None = None):
    """The owner's watch runs that found something new (settled or not), newest first."""
    runs = WatchRun.objects.filter(
        watch__owner=owner,
        brief__status=BriefStatus.SUCCEEDED,
        brief__delta__new_items__gt=0,
    )
    if after is not None:
        runs = runs.filter(created_at__gt=after)
    if until is not None:
        runs = runs.filter(created_at__lte=until)
    return (
        runs.select_related("watch", "brief")
        .only(
            "id", "created_at", "read_at", "settled_at", "watch__id", "watch__question",
            "watch__owner_id", "brief__id", "brief__citations", "brief__language",
        )
        .order_by("-created_at", "-id")
    )  # fmt: skip


def news_items(owner, *, after: datetime | None = None, until: datetime | None = None):
    """The new items of the owner's latest runs (``NEWS_RUNS`` at most), newest first."""
    items = [
        NewItem(c.title or c.path, c.url, c.source, c.published_at, c.n, run)
        for run in news_runs(owner, after=after, until=until)[:NEWS_RUNS]
        for c in citations_read(run.brief.citations)
    ]
    return sorted(items, key=lambda item: (item.at, item.run.pk, -item.n), reverse=True)


def news_runs_read(owner, run_ids: list[int]) -> int:
    """The runs shown on the page are read (as opening the watch reads its runs)."""
    runs = WatchRun.objects.filter(watch__owner=owner, pk__in=run_ids, read_at__isnull=True)
    return runs.filter(settled_at__isnull=False).update(read_at=timezone.now())


# --- The digest choice --------------------------------------------------------------------------


def digest_of(owner) -> WatchDigest | None:
    return WatchDigest.objects.filter(owner=owner).first()


def digest_choose(*, owner, frequency: str) -> WatchDigest:
    """Set the owner's digest (``DigestFrequency``); a new choice starts its period now, so the
    first digest comes one period later and covers what is new from now on."""
    if frequency not in DigestFrequency.values:
        raise ValueError(f"not a digest frequency: {frequency!r}")
    now = timezone.now()
    digest, _ = WatchDigest.objects.update_or_create(
        owner=owner,
        defaults={"frequency": frequency, "covered_until": now, "updated_at": now},
    )
    return digest


def digests_due(*, now: datetime) -> list[WatchDigest]:
    """Digests whose period has passed, of active people with an email address."""
    due = []
    for frequency, period in PERIODS.items():
        due += (
            WatchDigest.objects.filter(
                frequency=frequency,
                covered_until__lte=now - period,
                owner__is_active=True,
            )
            .exclude(owner__email="")
            .select_related("owner")
        )
    return due


def digest_claim(digest: WatchDigest, *, now: datetime) -> bool:
    """Take ``digest``'s period (until ``now``) for sending; False when another worker took it
    first or the choice changed meanwhile (compare-and-set on ``covered_until``)."""
    with transaction.atomic():
        return bool(
            WatchDigest.objects.filter(
                pk=digest.pk, covered_until=digest.covered_until, frequency=digest.frequency
            ).update(covered_until=now)
        )


def digests_send_due(*, now: datetime) -> int:
    """Send every digest that is due and has something new; the number sent. Each period is
    claimed before its email goes: two workers never send the same one, and a failed send is
    not retried (the next digest covers its own period)."""
    sent = 0
    for digest in digests_due(now=now):
        after = digest.covered_until
        if not digest_claim(digest, now=now):
            continue
        items = news_items(digest.owner, after=after, until=now)
        if items and email_send(digest_email(digest, items), what=f"digest {digest.pk}"):
            sent += 1
    return sent
