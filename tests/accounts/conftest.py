"""The accounts tests' world: a user who owns one of everything the site keeps for a person,
and the question "what of this user's is still in the database", asked of every model."""

import uuid
from dataclasses import dataclass, field
from datetime import date

from django.apps import apps
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType

from accounts.models import Profile
from briefs.models import (
    BriefQuotaDay,
    RunStep,
    TokenUsage,
    UsageLimits,
    Webhook,
    WebhookDelivery,
)
from briefs.tokens.service import token_issue
from sharing.models import BriefShare
from sharing.services import brief_share_create, feed_key_of
from tests.brief_examples import finished_brief
from watches.models import WatchRun
from watches.services import watch_create


@dataclass
class Owned:
    """The ids of rows that belong to the user only through another row (a brief's steps)."""

    briefs: list[int] = field(default_factory=list)
    shares: list[int] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    watch_runs: list[int] = field(default_factory=list)
    deliveries: list[int] = field(default_factory=list)


def account_world(user, *, question: str = "What is new on RSSHub test?") -> Owned:
    """One of each thing a person owns on the site, made for ``user``."""
    brief = finished_brief(user, question=question)
    follow_up = finished_brief(user, question=f"{question} More?", follow_up_of=brief)
    step = RunStep.objects.create(brief=brief, seq=1, kind="brief_queued", payload={})
    share, _made = brief_share_create(owner=user, brief_id=brief.pk)
    feed_key_of(owner=user)
    token_issue(user=user, name="laptop")
    watch = watch_create(owner=user, question=f"{question} (watched)", schedule="daily")
    run = WatchRun.objects.create(watch=watch, brief=follow_up)
    webhook = Webhook.objects.create(owner=user, url="https://hooks.example.com/x", secret="s")
    delivery = WebhookDelivery.objects.create(
        webhook=webhook, brief=brief, event="brief.finished", event_id=uuid.uuid4(), body="{}"
    )
    TokenUsage.objects.create(user=user, day=date.today(), tokens=10, calls=1)
    BriefQuotaDay.objects.create(user=user, day=date.today(), count=2)
    UsageLimits.objects.create(user=user, briefs_per_day=5)
    Profile.objects.get_or_create(user=user, defaults={"time_zone": "Asia/Shanghai"})
    LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(brief),
        object_id=str(brief.pk),
        object_repr=str(brief),
        action_flag=ADDITION,
    )
    return Owned(
        briefs=[brief.pk, follow_up.pk],
        shares=[share.pk],
        steps=[step.pk],
        watch_runs=[run.pk],
        deliveries=[delivery.pk],
    )


def user_foreign_keys() -> list[tuple[type, str]]:
    """Every (model, field) in the project that points at the user model, found by asking each
    installed model (auto-created through tables too): a new one is checked without listing it."""
    user_model = get_user_model()
    found = []
    for model in apps.get_models(include_auto_created=True):
        for f in model._meta.concrete_fields:
            if f.is_relation and f.related_model is user_model:
                found.append((model, f.name))
    return found


def user_foreign_key_columns() -> list[tuple[str, str]]:
    """The same, as (table, column): for a database read outside Django's connection."""
    return [
        (model._meta.db_table, model._meta.get_field(name).column)
        for model, name in user_foreign_keys()
    ]


def rows_of(user_id: int) -> dict[str, int]:
    """What of ``user_id``'s is still in the database: rows pointing at the user, by model."""
    left = {}
    for model, name in user_foreign_keys():
        count = model._default_manager.filter(**{name: user_id}).count()
        if count:
            left[f"{model._meta.label}.{name}"] = count
    if get_user_model().objects.filter(pk=user_id).exists():
        left["user"] = 1
    return left


def rows_through(owned: Owned) -> dict[str, int]:
    """The rows that were the user's through another row, still there."""
    counts = {
        "briefs": apps.get_model("briefs", "Brief").objects.filter(pk__in=owned.briefs).count(),
        "shares": BriefShare.objects.filter(pk__in=owned.shares).count(),
        "steps": RunStep.objects.filter(pk__in=owned.steps).count(),
        "watch_runs": WatchRun.objects.filter(pk__in=owned.watch_runs).count(),
        "deliveries": WebhookDelivery.objects.filter(pk__in=owned.deliveries).count(),
    }
    return {name: n for name, n in counts.items() if n}
