"""Circuit breaker per endpoint and model, shared by every worker through the ``LLMBreaker`` table.

Closed (``open_until`` null) -> after ``BREAKER_THRESHOLD`` consecutive failures, open until a
backoff passes -> then exactly one caller claims the half-open probe -> its success closes the
breaker, its failure reopens it for twice as long. Every state change is a conditional UPDATE.
"""

import logging
import random
from datetime import datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from agent.llm.endpoint import RETRY_AFTER_MAX_SECONDS, redact
from briefs.models import LLMBreaker

log = logging.getLogger(__name__)

BREAKER_THRESHOLD = 3
BREAKER_BASE_SECONDS = 30.0
BREAKER_MAX_SECONDS = 600.0


def breaker_key(base_url: str, model: str) -> str:
    """``"<base url without credentials>|<model>"``, at most 300 characters."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return f"{urlunsplit(parts._replace(netloc=netloc))}|{model}"[:300]


def breaker_admit(key: str, *, now: datetime) -> bool:
    """True when a call may go out: the breaker is closed, or this caller won the half-open probe.

    The probe is claimed by compare-and-set, so of many workers exactly one gets it; a probe whose
    worker died is given up after ``_probe_stale()``.
    """
    row = LLMBreaker.objects.filter(key=key).values("open_until").first()
    if row is None or row["open_until"] is None:
        return True
    if row["open_until"] > now:
        return False
    unclaimed = Q(probe_at__isnull=True) | Q(probe_at__lt=now - _probe_stale())
    probe = LLMBreaker.objects.filter(unclaimed, key=key, open_until__lte=now)
    return probe.update(probe_at=now, updated_at=now) == 1


def breaker_release_probe(key: str, *, claimed_at: datetime) -> None:
    """Give back a probe claimed at ``claimed_at`` that did not go out (no-op otherwise)."""
    LLMBreaker.objects.filter(key=key, probe_at=claimed_at).update(probe_at=None)


def breaker_record_success(key: str) -> None:
    """Close the breaker. Writes only when there is something to reset."""
    dirty = Q(consecutive_failures__gt=0) | Q(open_until__isnull=False) | Q(probe_at__isnull=False)
    LLMBreaker.objects.filter(dirty, key=key).update(
        consecutive_failures=0, open_until=None, probe_at=None, updated_at=timezone.now()
    )


def breaker_record_failure(key: str, *, error: str) -> None:
    """Count a failure; from the ``BREAKER_THRESHOLD``-th in a row, open for a doubling backoff.

    The count is incremented in SQL; the opening is a compare-and-set on the count that was read
    back, so when failures race, the one that saw the highest count sets the (longest) backoff and
    a success in between (count reset) cancels the opening.
    """
    now = timezone.now()
    LLMBreaker.objects.bulk_create([LLMBreaker(key=key)], ignore_conflicts=True)
    LLMBreaker.objects.filter(key=key).update(
        consecutive_failures=F("consecutive_failures") + 1,
        probe_at=None,
        last_error=redact(error)[:300],
        updated_at=now,
    )
    failures = LLMBreaker.objects.filter(key=key).values_list("consecutive_failures", flat=True)
    count = failures.first() or 0
    if count >= BREAKER_THRESHOLD:
        until = now + timedelta(seconds=_breaker_backoff(count))
        LLMBreaker.objects.filter(key=key, consecutive_failures=count).update(open_until=until)
        log.warning("LLM breaker %s open until %s after %d failures", key, until, count)


def _breaker_backoff(failures: int) -> float:
    """30 s doubling per failure past the threshold, capped at 10 min, minus up to 20% jitter
    (so workers that saw the same failures do not all probe in the same second)."""
    doublings = min(failures - BREAKER_THRESHOLD, 10)
    capped = min(BREAKER_BASE_SECONDS * 2**doublings, BREAKER_MAX_SECONDS)
    return capped * random.uniform(0.8, 1.0)


def _probe_stale() -> timedelta:
    # A probe lasts at most two attempts plus a Retry-After wait: three timeouts cover it.
    return timedelta(seconds=3 * settings.OPENAI_TIMEOUT + RETRY_AFTER_MAX_SECONDS)
