"""How a queued brief reaches a worker at once: django-q2's ORM broker with a wake-up.

The ORM broker (``django_q/brokers/orm.py``, 1.11) keeps tasks in ``OrmQ`` rows and its pusher
polls them: when a poll finds nothing it sleeps ``Q_CLUSTER["poll"]`` seconds, so a brief
queued just after a poll waited up to that long (0.2 s by default) before any worker saw it.
``WakingORM`` keeps the rows, the claim and the redelivery exactly as they are, and only
replaces that sleep with a wait that a new task cuts short:

- with ``REDIS_URL``: ``enqueue`` publishes on ``WAKE_CHANNEL``; the pusher's wait is a
  subscriber's ``get_message(timeout=poll)``;
- on PostgreSQL without Redis: ``enqueue`` sends ``NOTIFY`` on the web request's own connection
  (django-q enqueues from ``transaction.on_commit``, so it is delivered at once; inside a
  transaction it would be delivered at its commit, together with the row); the pusher waits on a
  ``LISTEN`` connection of its own;
- on SQLite without Redis there is nothing to wait on: the pusher polls, and the settings make
  the interval short (one primary-key query on a local file).

A wake-up is only a hint: a lost one (Redis down, a listener reconnecting) costs one poll
interval, never a task, because the poll still runs; a failed publish never fails the request
that queued the brief. ``poll`` is then the longest a task can wait, and tasks whose lock has
expired (a dead worker's, see ``briefs/tasks.py``) are found by it as before.
"""

import logging
import os
import time

import psycopg
import redis
from django.conf import settings
from django.db import connections
from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.conf import Conf
from django_q.models import OrmQ

from briefs.doorbell import listen_params

WAKE_CHANNEL = "rsshub_agent_queue"
REDIS_TIMEOUT_SECONDS = 0.5
log = logging.getLogger(__name__)


def wake_transport() -> str:
    """``redis``, ``notify`` or ``poll`` (see the module docstring)."""
    if settings.REDIS_URL:
        return "redis"
    return "notify" if connections[Conf.ORM].vendor == "postgresql" else "poll"


def _redis_client() -> redis.Redis:
    return redis.Redis.from_url(
        settings.REDIS_URL,
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
    )


class WakingORM(ORM):
    """The ORM broker; a new task wakes the pusher instead of waiting out its poll."""

    _publisher: redis.Redis | None = None  # per process, made on first use

    @staticmethod
    def get_connection(list_key: str | None = None):
        """``OrmQ`` rows on a connection kept from one poll to the next. The ORM broker closed it
        before every query (``close_old_connections`` with ``CONN_MAX_AGE`` 0), so each poll and
        each wake-up paid for a new connection (~5 ms on PostgreSQL, far more under load) before
        it could look. A connection that saw an error and no longer answers is closed; the query
        opens a new one."""
        conn = connections[Conf.ORM]
        if conn.connection is not None and conn.get_autocommit() and conn.errors_occurred:
            if conn.is_usable():
                conn.errors_occurred = False
            else:
                conn.close()
        return OrmQ.objects.using(Conf.ORM)

    def enqueue(self, task) -> int:
        # The ORM broker's enqueue, minus its close_old_connections(): that is for the pusher's
        # long-lived thread, and in a web request it dropped the request's connection only for
        # this INSERT to open another.
        key = self.list_key or Conf.CLUSTER_NAME
        package_id = (
            OrmQ.objects.using(Conf.ORM).create(key=key, payload=task, lock=timezone.now()).pk
        )
        try:
            self._wake_send()
        except Exception:  # the task is queued: at worst it waits for the next poll
            log.warning("could not wake the worker queue", exc_info=True)
        return package_id

    def _wake_send(self) -> None:
        kind = wake_transport()
        if kind == "redis":
            if WakingORM._publisher is None:
                WakingORM._publisher = _redis_client()
            WakingORM._publisher.publish(WAKE_CHANNEL, b"1")
        elif kind == "notify":
            with connections[Conf.ORM].cursor() as cursor:
                cursor.execute(f"NOTIFY {WAKE_CHANNEL}")

    def dequeue(self):
        """The ORM broker's dequeue without its sleep: the tasks taken, or None after waiting
        up to ``poll`` seconds for a wake-up (the pusher calls again at once)."""
        tasks = self.get_connection().filter(key=self.list_key, lock__lt=timezone.now())[
            : Conf.BULK
        ]
        taken = [
            (task.pk, task.payload)
            for task in tasks
            # Another cluster may have been faster: only a task whose lock is still ours.
            if self.get_connection()
            .filter(id=task.id, lock=task.lock)
            .update(lock=self.timeout(task))
        ]
        if taken:
            return taken
        if not tasks:
            self._wake_wait(Conf.POLL)
        return None

    # --- the pusher's side: one listener per process, opened on first use ----------------------

    _listener: object = None
    _listener_pid: int | None = None

    def _wake_wait(self, seconds: float) -> None:
        kind = wake_transport()
        if kind == "poll":
            time.sleep(seconds)
            return
        try:
            listener = self._listener_open(kind)
            if kind == "redis":
                listener.get_message(timeout=seconds)
            else:
                for _ in listener.notifies(timeout=seconds, stop_after=1):
                    pass
        except Exception:  # the listener is gone: poll this time, listen again next time
            log.warning("worker queue wake-up: listener lost", exc_info=True)
            self._listener_close()
            time.sleep(seconds)

    def _listener_open(self, kind: str):
        if self._listener is not None and self._listener_pid == os.getpid():
            return self._listener
        # Opened in the process that waits (the pusher), never inherited across a fork.
        if kind == "redis":
            listener = _redis_client().pubsub(ignore_subscribe_messages=True)
            listener.subscribe(WAKE_CHANNEL)
        else:
            listener = psycopg.connect(**listen_params(Conf.ORM), autocommit=True)
            listener.execute(f"LISTEN {WAKE_CHANNEL}")
        self._listener, self._listener_pid = listener, os.getpid()
        return listener

    def _listener_close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                listener.close()
            except Exception:
                log.debug("closing the queue listener failed", exc_info=True)
