"""Build what the web process serves from the checkout: compiled translations and static files.

One step shared by ``scripts/bootstrap`` (hence ``scripts/run``), ``manage.py serve`` and the
Docker image, so a Daphne or worker started any other way afterwards serves a styled,
translated site.
"""

import shutil

from django.core.management import call_command
from django.core.management.base import BaseCommand

# Folders whose .po files are not ours to compile (installed packages, the bundled RSSHub).
NOT_OURS = [".venv", "tools", "node_modules"]


class Command(BaseCommand):
    help = "Compile the translations and collect the static files into STATIC_ROOT."

    def handle(self, *args, **options) -> None:
        self._compile_translations()
        call_command("collectstatic", "--noinput", verbosity=0)

    def _compile_translations(self) -> None:
        if shutil.which("msgfmt") is None:
            # Not fatal: the site works in English; the message says how to get Chinese.
            self.stderr.write("no gettext (apt install gettext): pages stay in English")
            return
        call_command("compilemessages", verbosity=0, ignore_patterns=NOT_OURS)
