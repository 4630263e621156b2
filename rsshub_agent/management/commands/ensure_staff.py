"""The first staff account, made once: by ``scripts/run`` on its first start, or by hand.

No fixed default name: a site whose first account is always ``admin`` hands a guesser half of
the credentials. Run at a terminal, the command asks for the username; otherwise (a service,
CI, a pipe) it picks a random one. The password is random either way and goes to the command's
output exactly once, never through logging. ``ADMIN_USERNAME`` with ``ADMIN_PASSWORD`` instead
create or update the account they name.
"""

import os
import secrets
import sys
from typing import TextIO

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, no_translations

MAX_PROMPTS = 5


class Command(BaseCommand):
    help = (
        "Make sure a first staff account exists. With ADMIN_USERNAME and ADMIN_PASSWORD set, "
        "create or update that account. Otherwise, unless a superuser exists, create one with a "
        "random password, printed once: its username is asked for at a terminal and random "
        "elsewhere (or with --noinput)."
    )
    # As in createsuperuser: tests hand the prompt its answers.
    stealth_options = ("stdin",)

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help="never ask: pick a random username",
        )

    @no_translations  # the prompt's messages in English, whatever language the thread had
    def handle(self, *args, interactive: bool = True, **options) -> None:
        username = os.environ.get("ADMIN_USERNAME", "").strip()
        password = os.environ.get("ADMIN_PASSWORD", "")
        if bool(username) != bool(password):
            raise CommandError("set both ADMIN_USERNAME and ADMIN_PASSWORD, or neither")
        if username:
            self._set_from_environment(username, password)
            return
        if get_user_model().objects.filter(is_superuser=True).exists():
            self.stdout.write("a staff account exists already; sign in with it")
            return
        # Answers handed in (tests) count as a terminal; the real stdin must be one.
        stdin: TextIO | None = options.get("stdin")
        if stdin is None and sys.stdin is not None and sys.stdin.isatty():
            stdin = sys.stdin
        username = self._ask_username(stdin) if interactive and stdin else random_username()
        password = secrets.token_urlsafe(12)
        get_user_model().objects.create_superuser(username, password=password)
        self.stdout.write(
            f"created staff account {username!r} with password {password}\n"
            "(shown this once: keep it, or set ADMIN_USERNAME/ADMIN_PASSWORD)"
        )

    def _set_from_environment(self, username: str, password: str) -> None:
        user, created = get_user_model().objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = user.is_active = True
        user.set_password(password)
        user.save()
        verb = "created" if created else "updated"
        self.stdout.write(f"staff account {username!r} {verb} from ADMIN_USERNAME")

    def _ask_username(self, stdin: TextIO) -> str:
        """A valid, unused username from the prompt; a random one when the input ends."""
        for _ in range(MAX_PROMPTS):
            self.stdout.write("Username for the first staff account: ", ending="")
            self.stdout.flush()
            line = stdin.readline()
            if not line:
                break
            problem = username_problem(line.strip())
            if problem is None:
                return line.strip()
            self.stderr.write(problem)
        username = random_username()
        self.stdout.write(f"\nno username given; using {username!r}")
        return username


def username_problem(username: str) -> str | None:
    """Why ``username`` cannot name the new account, or None when it can."""
    model = get_user_model()
    if not username:
        return "a username is required"
    field = model._meta.get_field(model.USERNAME_FIELD)
    try:
        field.clean(username, None)
    except ValidationError as exc:
        return " ".join(exc.messages)
    if model.objects.filter(**{model.USERNAME_FIELD: username}).exists():
        return f"{username!r} is taken"
    return None


def random_username() -> str:
    """``staff-`` and 8 random hex digits: nothing a guesser can start from."""
    return f"staff-{secrets.token_hex(4)}"
