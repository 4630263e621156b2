"""``GET /api/v1/status``: the database, the queue, RSSHub's reachability, the answering mode.

RSSHub's reachability is the one probe of ``/healthz`` (``fetching.reachability``), asked anew of
every enabled instance on every call, side by side. ``rsshub`` sums them up (ok while one
answers; the figures of the best) and ``rsshub.instances`` lists each by name, up or down, its
latency and its circuit. An instance's access key never appears in the answer, and its address
only for staff. Whether RSSHub itself can reach the internet (its egress) is what the last
canary check found (``fetching.egress``): ``/healthz`` says nothing about it.
"""

import time
from datetime import timedelta

from django.db import DatabaseError, connection
from django.utils import timezone
from rest_framework import serializers
from rest_framework.response import Response

from agent import llm
from api.base import ApiView, api_schema, errors
from fetching.egress import egress_outage_everywhere, egress_outages
from fetching.reachability import instances_reachability
from housekeeping.selectors import housekeeping_status

# A task waiting longer than this means no worker is taking tasks.
QUEUE_STALL = timedelta(minutes=2)


class DatabaseOut(serializers.Serializer):
    ok = serializers.BooleanField()
    vendor = serializers.CharField()
    latency_ms = serializers.IntegerField(allow_null=True)


class QueueOut(serializers.Serializer):
    ok = serializers.BooleanField(help_text="No task has waited longer than two minutes.")
    queued = serializers.IntegerField(allow_null=True, help_text="Tasks waiting for a worker.")
    running = serializers.IntegerField(allow_null=True, help_text="Tasks a worker has taken.")
    oldest_queued_seconds = serializers.IntegerField(allow_null=True)
    detail = serializers.CharField()


class EgressOut(serializers.Serializer):
    ok = serializers.BooleanField(help_text="False while RSSHub cannot reach the internet.")
    down_since = serializers.DateTimeField(allow_null=True)
    checked_at = serializers.DateTimeField(
        allow_null=True, help_text="The last check while it is down (one a minute)."
    )
    detail = serializers.CharField()


class InstanceOut(serializers.Serializer):
    name = serializers.CharField()
    host = serializers.CharField(allow_null=True, help_text="Staff only (null for others).")
    ok = serializers.BooleanField(help_text="It answered its health check.")
    http_status = serializers.IntegerField(allow_null=True)
    latency_ms = serializers.IntegerField(allow_null=True)
    detail = serializers.CharField()
    circuit = serializers.CharField(help_text="closed, open or half_open: its own breaker.")
    egress_ok = serializers.BooleanField(help_text="False while it cannot reach the internet.")


class RSSHubOut(serializers.Serializer):
    ok = serializers.BooleanField(help_text="Some instance answers its health check.")
    http_status = serializers.IntegerField(allow_null=True)
    latency_ms = serializers.IntegerField(allow_null=True)
    detail = serializers.CharField()
    egress = EgressOut(help_text="Down only while no instance reaches the internet.")
    instances = InstanceOut(many=True)


class TableSizeOut(serializers.Serializer):
    table = serializers.CharField()
    rows = serializers.IntegerField()
    bytes = serializers.IntegerField(allow_null=True, help_text="Unknown on some SQLite builds.")
    estimated = serializers.BooleanField(help_text="rows is PostgreSQL's estimate.")


class HousekeepingRunOut(serializers.Serializer):
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField(help_text="running, finished, stopped (time limit) or failed")
    duration_ms = serializers.IntegerField()
    removed = serializers.DictField(
        child=serializers.IntegerField(), help_text="Rows removed per table."
    )


class HousekeepingOut(serializers.Serializer):
    tables = TableSizeOut(many=True)
    last_run = HousekeepingRunOut(allow_null=True)


class StatusOut(serializers.Serializer):
    database = DatabaseOut()
    queue = QueueOut()
    rsshub = RSSHubOut()
    answering_mode = serializers.CharField(help_text='"offline", or the model(s) that answer.')
    llm_configured = serializers.BooleanField()
    housekeeping = HousekeepingOut(
        allow_null=True, help_text="Staff only (null for others): table sizes, last run."
    )


def database_status() -> dict:
    started = time.monotonic()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return {"ok": False, "vendor": connection.vendor, "latency_ms": None}
    return {
        "ok": True,
        "vendor": connection.vendor,
        "latency_ms": int((time.monotonic() - started) * 1000),
    }


def queue_status() -> dict:
    """The django-q ORM broker's backlog (OrmQ rows; ``lock`` in the future means taken)."""
    from django_q.conf import Conf
    from django_q.models import OrmQ

    if Conf.ORM is None:
        return _redis_queue_status()
    now = timezone.now()
    tasks = OrmQ.objects.using(Conf.ORM)
    queued = tasks.filter(lock__lte=now)
    oldest = queued.order_by("lock").values_list("lock", flat=True).first()
    waited = int((now - oldest).total_seconds()) if oldest else None
    ok = waited is None or waited < QUEUE_STALL.total_seconds()
    return {
        "ok": ok,
        "queued": queued.count(),
        "running": tasks.filter(lock__gt=now).count(),
        "oldest_queued_seconds": waited,
        "detail": "tasks are being taken" if ok else "tasks wait: is a worker (qcluster) running?",
    }


def rsshub_status(*, staff: bool) -> dict:
    """Every enabled instance probed now, and their sum: the figures of the best one."""
    statuses = instances_reachability()
    outages = egress_outages()
    instances = [
        {
            **status.as_dict(), "host": status.host if staff else None,
            "egress_ok": status.id not in outages,
        }
        for status in statuses
    ]  # fmt: skip
    best = next((s for s in statuses if s.ok), statuses[0] if statuses else None)
    summary = {"ok": False, "http_status": None, "latency_ms": None, "detail": "no instance"}
    if best is not None:
        summary = {
            "ok": best.ok, "http_status": best.http_status, "latency_ms": best.latency_ms,
            "detail": best.detail,
        }  # fmt: skip
    return {**summary, "egress": egress_status(), "instances": instances}


def _redis_queue_status() -> dict:
    """The Redis broker's backlog: tasks no cluster has taken yet (taken ones leave Redis)."""
    from django_q.brokers import get_broker
    from redis.exceptions import RedisError

    try:
        queued = get_broker().queue_size()
    except RedisError:
        return {"ok": False, "queued": None, "running": None, "oldest_queued_seconds": None,
                "detail": "the Redis broker does not answer"}  # fmt: skip
    return {
        "ok": True,
        "queued": queued,
        "running": None,
        "oldest_queued_seconds": None,
        "detail": "tasks queue on Redis; how long the oldest waited is not kept there",
    }


def egress_status() -> dict:
    outage = egress_outage_everywhere()
    if outage is None:
        return {
            "ok": True,
            "down_since": None,
            "checked_at": None,
            "detail": "reaches the internet",
        }
    detail = "RSSHub cannot reach the internet; failures are not counted against routes"
    return {
        "ok": False,
        "down_since": outage.down_since,
        "checked_at": outage.checked_at,
        "detail": detail,
    }


class StatusApi(ApiView):
    @api_schema(
        operation_id="status_retrieve",
        responses={200: StatusOut, **errors()},
        summary="Health of the service's parts and the answering mode",
    )
    def get(self, request):
        data = {
            "database": database_status(),
            "queue": queue_status(),
            "rsshub": rsshub_status(staff=request.user.is_staff),
            "answering_mode": llm.llm_mode_label(),
            "llm_configured": llm.llm_configured(),
            "housekeeping": housekeeping_status() if request.user.is_staff else None,
        }
        return Response(StatusOut(data).data)
