"""Worker tasks (django-q2). Thin: the dispatcher's schedule, and a watch's run."""

from django.utils import timezone

from briefs.tasks import run_brief
from watches.dispatch import watches_dispatch
from watches.news import digests_send_due
from watches.notify import watch_run_settle
from watches.services import watch_run_cancel_if_owner_gone


def dispatch() -> dict[str, int]:
    """The every-minute schedule (``watches/migrations/0002``): claim due watches, start them."""
    return watches_dispatch()


def watch_brief_run(brief_id: int) -> str:
    """Run a watch's brief as any brief is run (``briefs.tasks.run_brief``: claim, run,
    settle), then settle the watch's run: its failing state and notifications. A run whose
    worker dies before that is settled by the next dispatch. A run queued before its owner
    was deactivated is cancelled instead."""
    if watch_run_cancel_if_owner_gone(brief_id):
        watch_run_settle(brief_id)
        return "owner deactivated"
    result = run_brief(brief_id)
    watch_run_settle(brief_id)
    return result


def digests_send() -> int:
    """The hourly schedule (``watches/migrations/0005``): send the digests that are due."""
    return digests_send_due(now=timezone.now())
