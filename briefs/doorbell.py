"""The doorbell of the step log: how a committed step reaches the live pages of other processes.

The ``RunStep`` rows are the truth; a doorbell only says "brief N has new steps: read them".
One transport per process, chosen by ``transport()``:

- ``layer``: a channel layer that crosses processes (Redis). The writer sends ``step.new`` to the
  brief's group after commit (``briefs.steps.step_notify``); each watched brief's feed listens.
- ``notify``: PostgreSQL without Redis. The writer's own transaction sends ``NOTIFY`` on
  ``CHANNEL`` with the brief's id (``ring_in_transaction``): PostgreSQL delivers it at commit,
  never for a step rolled back. Each web process holds one ``LISTEN`` connection
  (``notify_listen``) for every brief it watches.
- ``poll``: SQLite without Redis (one machine, no server to push). Each web process reads the
  step counters and states of every brief it watches in one primary-key query every
  ``poll_seconds()`` (``counters_poll``): a few microseconds on SQLite, so the interval can be
  far shorter than a full read of each brief's log.

Whatever the transport, a feed also reads on its own every few seconds (``briefs.live``), so a
lost doorbell (a listener reconnecting, Redis gone for a moment) delays a step, never loses it.
"""

import asyncio
import logging
from collections.abc import Callable, Iterable

import psycopg
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import connection, connections

from briefs.models import Brief

CHANNEL = "rsshub_agent_steps"
POLL_SECONDS = 0.05
RECONNECT_SECONDS = 1.0
# Of the connection parameters Django hands psycopg, the ones that are Django's own objects.
DJANGO_ONLY_PARAMS = ("cursor_factory", "context", "prepare_threshold")
log = logging.getLogger(__name__)


def layer_pushes(layer: object) -> bool:
    """True when ``layer`` carries the worker's doorbells here: any layer but the in-memory one."""
    return layer is not None and not isinstance(layer, InMemoryChannelLayer)


def transport() -> str:
    """``layer``, ``notify`` or ``poll`` (see the module docstring)."""
    if layer_pushes(get_channel_layer()):
        return "layer"
    return "notify" if connection.vendor == "postgresql" else "poll"


def poll_seconds() -> float:
    return float(getattr(settings, "DASHBOARD_POLL_SECONDS", POLL_SECONDS))


def ring_in_transaction(cursor, brief_id: int) -> None:
    """Inside the step's transaction: ``NOTIFY`` its brief's watchers at commit (``notify``
    transport only; the other transports ring after commit, or are polled)."""
    if transport() == "notify":
        cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, str(brief_id)])


# --- notify: one LISTEN connection per web process ------------------------------------------


def listen_params(alias: str = "default") -> dict:
    """``psycopg.connect`` keywords for a listening connection of its own to database
    ``alias`` (Django's connection is never kept waiting on notifications)."""
    params = connections[alias].get_connection_params()
    return {k: v for k, v in params.items() if k not in DJANGO_ONLY_PARAMS}


async def notify_listen(ring: Callable[[int], None], ring_all: Callable[[], None]) -> None:
    """Forever: ``ring(brief_id)`` for each notification. Each time ``LISTEN`` is in place
    (first, and after a lost connection), ``ring_all()``: a step committed while nobody
    listened is read then."""
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(**listen_params(), autocommit=True)
            async with conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                ring_all()
                async for note in conn.notifies():
                    if note.payload.isdigit():
                        ring(int(note.payload))
        except asyncio.CancelledError:
            raise
        except Exception:  # the database restarted, or a network hiccup: listen again
            log.warning("step doorbell: LISTEN connection lost", exc_info=True)
        await asyncio.sleep(RECONNECT_SECONDS)


# --- poll: one indexed read of the watched briefs' counters ----------------------------------


def counters_read(brief_ids: Iterable[int]) -> dict[int, tuple[int, str]]:
    """{brief id: (step_seq, status)} of the given briefs that still exist: one query on the
    primary key, whatever the number of briefs."""
    rows = Brief.objects.filter(pk__in=list(brief_ids)).values_list("pk", "step_seq", "status")
    return {pk: (seq, status) for pk, seq, status in rows}
