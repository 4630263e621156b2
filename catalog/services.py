"""Staff curation of the catalog: every write that the admin and the API make to routes."""

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Case, F, TextField, Value, When
from django.db.models.functions import Concat
from django.utils import timezone

from catalog.health import CIRCUIT_REASON_STAFF_RESET, CircuitState
from catalog.models import CircuitChange, Platform, Route

PREFERRED_PRIORITY = 10
DISABLE_NOTE_MAX_CHARS = 500


def routes_set_enabled(*, route_ids: Iterable[int], enabled: bool) -> int:
    """Enable or disable routes; returns how many rows changed."""
    return (
        Route.objects.filter(id__in=list(route_ids))
        .exclude(enabled=enabled)
        .update(enabled=enabled, updated_at=timezone.now())
    )


def routes_prefer(*, route_ids: Iterable[int]) -> int:
    """Lift routes to the preferred priority (search ranks them above their peers)."""
    return Route.objects.filter(id__in=list(route_ids), priority__lt=PREFERRED_PRIORITY).update(
        priority=PREFERRED_PRIORITY, updated_at=timezone.now()
    )


@transaction.atomic
def routes_health_reset(
    *, route_ids: Iterable[int], reason: str = CIRCUIT_REASON_STAFF_RESET
) -> int:
    """Forget the health record of routes and close their circuits (recorded as changes)."""
    routes = Route.objects.select_for_update().filter(id__in=list(route_ids))
    now = timezone.now()
    changes = [
        CircuitChange(
            route=route, from_state=route.circuit, to_state=CircuitState.CLOSED, reason=reason
        )
        for route in routes
        if route.circuit != CircuitState.CLOSED
    ]
    count = routes.update(
        attempts=0,
        successes=0,
        consecutive_failures=0,
        latency_ms=None,
        last_attempt_at=None,
        last_error_class="",
        last_error="",
        circuit=CircuitState.CLOSED,
        circuit_open_until=None,
        circuit_probe_at=None,
        updated_at=now,
    )
    CircuitChange.objects.bulk_create(changes)
    return count


def curation_disable(
    *, model: type[Platform] | type[Route], ids: Iterable[int], note: str, username: str
) -> int:
    """Disable the rows and append ``YYYY-MM-DD username: disabled: <note>`` to each one's
    curated note, in one UPDATE (no read-modify-write: a concurrent edit keeps its line).
    ``note`` is one line, checked by the caller's form. Returns how many rows were written."""
    now = timezone.now()
    line = f"{now:%Y-%m-%d} {username}: disabled: {note}"
    return model.objects.filter(id__in=list(ids)).update(
        enabled=False,
        note=Case(
            When(note="", then=Value(line)),
            default=Concat(F("note"), Value("\n" + line), output_field=TextField()),
            output_field=TextField(),
        ),
        updated_at=now,
    )
