"""``manage.py issue_token USERNAME [--name NAME] [--days N]``: print a new API token, only it."""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from briefs.tokens.service import TokenInvalid, token_issue


class Command(BaseCommand):
    help = "Issue an API token for a user and print it (the only time it can be seen)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", help="a name to tell the token apart (default: cli + time)")
        parser.add_argument(
            "--days", type=int, help="lifetime in days (default: API_TOKEN_TTL_DAYS, 90)"
        )

    def handle(self, *args, username: str, name: str | None, days: int | None, **options):
        user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username})
        user = user.first()
        if user is None:
            raise CommandError(f"No user named {username!r}.")
        if not user.is_active:
            raise CommandError(f"The user {username!r} is inactive.")
        if days is not None and days < 1:
            raise CommandError("--days must be at least 1.")
        lifetime = timedelta(days=days) if days else None
        name = name if name is not None else f"cli {timezone.now():%Y-%m-%d %H:%M:%S}"
        try:
            issued = token_issue(user=user, name=name, lifetime=lifetime)
        except TokenInvalid as exc:
            raise CommandError(f"{exc.field}: {exc.message}") from None
        self.stdout.write(issued.secret)
