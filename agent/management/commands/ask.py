import json
import threading

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.utils import translation
from django.utils.translation import gettext as _

from agent.question import language_of
from briefs.agreements import tables_read
from briefs.models import Brief, BriefStatus
from briefs.services import BriefInvalid, brief_create
from briefs.step_lines import step_terminal_line
from briefs.steps import steps_after
from briefs.tasks import run_brief
from fetching.egress import TIME_FORMAT, egress_outage_everywhere

POLL_SECONDS = 0.1
CLI_USER = "cli"


def _run_in_thread(brief_id: int) -> None:
    """The worker task, in a thread of its own: close the connections it opened when done."""
    try:
        run_brief(brief_id)
    finally:
        connections.close_all()


def cli_owner(username: str):
    """The user a terminal run acts as: ``cli`` (created without a password) or an existing one."""
    users = get_user_model().objects
    if username == CLI_USER:
        owner, created = users.get_or_create(username=CLI_USER)
        if created:
            owner.set_unusable_password()
            owner.save()
        return owner
    owner = users.filter(username=username).first()
    if owner is None:
        raise CommandError(f"no user named {username!r}")
    return owner


class Command(BaseCommand):
    help = "Run one brief in the terminal, printing each step as it happens, then the brief."

    def add_arguments(self, parser):
        parser.add_argument("question")
        parser.add_argument("--offline", action="store_true", help="run without a model")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print one JSON object"
        )
        parser.add_argument("--user", default=CLI_USER, help="owner of the brief (default: cli)")

    def handle(self, *args, question: str, offline: bool, as_json: bool, user: str, **options):
        owner = cli_owner(user)
        try:
            brief = brief_create(owner=owner, question=question, offline=offline, enqueue=False)
        except BriefInvalid as exc:
            raise CommandError(f"{exc.field}: {exc.message}") from None
        self._egress_notice(brief)
        worker = threading.Thread(target=_run_in_thread, args=(brief.pk,), daemon=True)
        worker.start()
        steps = self._follow(brief.pk, worker, echo=not as_json)
        brief.refresh_from_db()
        if as_json:
            self.stdout.write(self._as_json(brief, steps))
        else:
            self.stdout.write("\n" + (brief.body or brief.error))
        if brief.status != BriefStatus.SUCCEEDED:
            raise CommandError(f"the run ended {brief.status}: {brief.error}")

    def _egress_notice(self, brief: Brief) -> None:
        """Before the run, on stderr (``--json`` keeps stdout to the object): RSSHub has no
        internet, as the last check found (``fetching.egress``), in the question's language."""
        outage = egress_outage_everywhere()
        if outage is None:
            return
        language = brief.language or language_of(brief.question)
        with translation.override("zh-hans" if language.startswith("zh") else "en"):
            notice = _(
                "RSSHub cannot reach the internet (since %(time)s): this brief can only say so, "
                "and no source is blamed."
            ) % {"time": outage.down_since.strftime(TIME_FORMAT)}
        self.stderr.write(notice)

    def _follow(self, brief_id: int, worker: threading.Thread, *, echo: bool) -> list:
        seen, last = [], 0
        while True:
            alive = worker.is_alive()
            for step in steps_after(brief_id=brief_id, after=last):
                seen.append(step)
                last = step.seq
                if echo:
                    self.stdout.write(step_terminal_line(step.kind, step.payload))
            if not alive:
                return seen
            worker.join(POLL_SECONDS)

    def _as_json(self, brief: Brief, steps: list) -> str:
        return json.dumps(
            {
                "id": brief.pk,
                "status": brief.status,
                **brief.outcome_payload(),
                "mode": brief.mode,
                "question": brief.question,
                "query": brief.query,
                "body": brief.body,
                "citations": brief.citations,
                "agreements": tables_read(brief.agreements),
                "coverage": brief.coverage,
                "usage": brief.usage,
                "fallbacks": (brief.usage or {}).get("fallback_reasons", []),
                "as_of": brief.as_of.isoformat() if brief.as_of else None,
                "error": brief.error,
                "steps": [{"seq": s.seq, "kind": s.kind, **s.payload} for s in steps],
            },
            ensure_ascii=False,
            indent=2,
        )
