"""The task queue as the briefs' recovery sees it, whichever django-q2 broker holds it.

Two brokers are configured (``Q_BROKER``, rsshub_agent/settings.py), and they differ where a
worker dies:

- ORM (``brokers/orm.py``): a task stays in ``OrmQ`` until its result is acked; one whose worker
  died is handed out again ``retry`` seconds after it was taken.
- Redis (``brokers/redis_broker.py``): ``dequeue`` is a BLPOP, ``acknowledge`` and ``fail`` do
  nothing: a task is gone from Redis once a cluster took it. The task a killed worker ran, the
  ones in a killed cluster's local queue, and any lost with a Redis restart come back only
  through ``briefs_recover``.

``brief_tasks_waiting`` names the briefs whose task is still in the broker, so the sweep
re-enqueues only queued briefs that nothing will run.
"""

import logging

log = logging.getLogger(__name__)
TASK_NAME_PREFIX = "brief-"
# Past this many tasks in the broker the sweep does not look for lost ones this time: the
# backlog is long enough that a queued brief is most likely still in it.
SCAN_LIMIT = 20_000


def broker_redelivers() -> bool:
    """True when the broker hands a task out again after ``retry`` (the ORM broker)."""
    from django_q.conf import Conf  # what django-q itself read from Q_CLUSTER at start-up

    return Conf.ORM is not None


def brief_task_name(brief_id: int) -> str:
    return f"{TASK_NAME_PREFIX}{brief_id}"


def _brief_id(package: dict) -> int | None:
    name = package.get("name")
    if isinstance(name, str) and name.startswith(TASK_NAME_PREFIX):
        number = name.removeprefix(TASK_NAME_PREFIX)
        return int(number) if number.isdigit() else None
    return None


def _payloads() -> list | None:
    """Every task payload the broker holds (signed), or None when there are too many."""
    from django_q.brokers import get_broker
    from django_q.conf import Conf

    broker = get_broker()
    if broker_redelivers():
        from django_q.models import OrmQ

        rows = OrmQ.objects.using(Conf.ORM).filter(key=broker.list_key)
        payloads = list(rows.values_list("payload", flat=True)[: SCAN_LIMIT + 1])
    else:
        payloads = broker.connection.lrange(broker.list_key, 0, SCAN_LIMIT)
    return None if len(payloads) > SCAN_LIMIT else payloads


def brief_tasks_waiting() -> set[int] | None:
    """Ids of briefs whose task the broker still holds (taken but unacked ones too, on the ORM
    broker); None when it cannot say (a backlog over ``SCAN_LIMIT``)."""
    from django_q.signing import BadSignature, SignedPackage

    payloads = _payloads()
    if payloads is None:
        log.info("brief recovery: over %d tasks queued, lost ones are looked for later", SCAN_LIMIT)
        return None
    waiting = set()
    for payload in payloads:
        try:
            package = SignedPackage.loads(payload)
        except (BadSignature, TypeError, ValueError):
            continue  # not ours to read (another site's key); the pusher reports it
        brief_id = _brief_id(package) if isinstance(package, dict) else None
        if brief_id is not None:
            waiting.add(brief_id)
    return waiting
