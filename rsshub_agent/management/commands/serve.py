"""Run everything a person needs on one machine: RSSHub, the web server and a worker.

Setting up needs Django; watching the children does not: once they run, this process becomes
``rsshub_agent/supervisor.py`` by ``exec`` (that module says why and how).
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connections

from catalog.importer import CatalogSourceError, catalog_import, catalog_read_file
from catalog.seed import SEED_PATH
from fetching.catalog_download import catalog_import_from_instances
from fetching.egress import egress_startup_check
from fetching.reachability import rsshub_reachability
from rsshub_agent import supervisor

SCRIPTS = Path(settings.BASE_DIR) / "scripts"


class Command(BaseCommand):
    help = (
        "Set up and run the service: a local RSSHub (unless RSSHUB_URL is set), migrations, "
        "catalog import, a first staff account, Daphne and a qcluster worker. Ctrl-C stops all."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000))
        parser.add_argument("--no-worker", action="store_true", help="do not start qcluster")

    def handle(self, *args, host: str, port: int, no_worker: bool, **options):
        self.children: list[subprocess.Popen] = []
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            rsshub_up = self._start_rsshub()
            call_command("migrate", "--noinput", verbosity=0)
            call_command("install_assets", stderr=self.stderr)
            self._import_catalog(rsshub_up)
            if rsshub_up:
                self._check_egress()
            call_command("ensure_staff", stdout=self.stdout)
            self._spawn("web", [sys.executable, "-m", "daphne", "-b", host, "-p", str(port),
                                "rsshub_agent.asgi:application"])  # fmt: skip
            if not no_worker:
                self._spawn("worker", [sys.executable, "manage.py", "qcluster"])
            self.stdout.write(self.style.SUCCESS(f"\nOpen http://{host}:{port}/ and sign in."))
            self.stdout.write(f"Admin: http://{host}:{port}/admin/  RSSHub: {settings.RSSHUB_URL}")
            self.stdout.write(f"MCP: http://{host}:{port}/mcp/ (a token from the Tokens page)")
            self.stdout.write("Press Ctrl-C to stop everything.\n")
            self._hand_over()
        except KeyboardInterrupt:
            self.stdout.write("\nstopping")
        finally:
            self._stop_all()

    def _start_rsshub(self) -> bool:
        if settings.RSSHUB_URL_CONFIGURED:
            return self._rsshub_answers(deadline=5)
        subprocess.run([SCRIPTS / "rsshub-install"], check=True)
        env = {**os.environ, "PORT": str(settings.RSSHUB_LOCAL_PORT)}
        self._spawn("rsshub", [SCRIPTS / "rsshub-serve"], env=env)
        return self._rsshub_answers(deadline=60)

    def _rsshub_answers(self, *, deadline: float) -> bool:
        """Whether some configured instance answers (before migrating: no database read)."""
        urls = list(settings.RSSHUB_URLS) or [settings.RSSHUB_URL]
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if any(rsshub_reachability(base_url=url).ok for url in urls):
                return True
            if any(child.poll() is not None for child in self.children):
                break
            time.sleep(0.25)
        self.stderr.write(f"RSSHub at {settings.RSSHUB_URL} does not answer; using the seed")
        return False

    def _import_catalog(self, rsshub_up: bool) -> None:
        """From every RSSHub instance that answers (recording which serves what), else the
        offline seed."""
        report = None
        if rsshub_up:
            try:
                report, found = catalog_import_from_instances()
                source = ", ".join(found.labels.values())
            except CatalogSourceError as exc:
                self.stderr.write(f"catalog from RSSHub refused ({exc}); using the seed")
        if report is None:
            source, report = str(SEED_PATH), catalog_import(catalog_read_file(SEED_PATH))
        self.stdout.write(
            f"catalog from {source}: {report.routes.added} routes added, "
            f"{report.routes.updated} updated, {report.routes.removed} removed upstream"
        )

    def _check_egress(self) -> None:
        """Once, before anyone asks: whether RSSHub reaches the internet (``fetching.egress``).
        The banner, the status API and ``ask`` read the answer; the worker does not ask again
        within the minute."""
        for url, ok in egress_startup_check().items():
            if ok is False:
                self.stderr.write(
                    f"RSSHub at {url} cannot reach the internet: every brief will say so (and "
                    "blame no route) until it can; the check is repeated every minute"
                )
            elif ok:
                self.stdout.write(f"RSSHub at {url} reaches the internet")

    def _spawn(self, name: str, command: list, env: dict | None = None) -> None:
        self.stdout.write(f"starting {name}: {' '.join(map(str, command))}")
        # Own process group: Ctrl-C reaches us once, and we stop each child deliberately.
        child = subprocess.Popen(command, env=env, start_new_session=True)
        child.name = name
        self.children.append(child)

    def _hand_over(self) -> None:
        """Become the supervisor (``exec``): same pid, same children, no Django. Never returns."""
        connections.close_all()
        for stream in (self.stdout, self.stderr, sys.stdout, sys.stderr):
            stream.flush()
        # Held pending across the exec; the supervisor unblocks them once it handles them.
        signal.pthread_sigmask(signal.SIG_BLOCK, supervisor.HANDED_SIGNALS)
        handed = [f"{child.name}={child.pid}" for child in self.children]
        try:
            os.execv(sys.executable, [sys.executable, "-P", supervisor.__file__, *handed])  # noqa: S606
        finally:  # only when the exec failed
            signal.pthread_sigmask(signal.SIG_UNBLOCK, supervisor.HANDED_SIGNALS)

    def _stop_all(self) -> None:
        for child in self.children:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
        for child in self.children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
