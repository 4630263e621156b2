import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Make sure a first staff account exists. With ADMIN_USERNAME and ADMIN_PASSWORD set, "
        "create or update that account; otherwise create 'admin' with a random password, "
        "printed once, unless a superuser already exists."
    )

    def handle(self, *args, **options):
        username = os.environ.get("ADMIN_USERNAME", "").strip()
        password = os.environ.get("ADMIN_PASSWORD", "")
        if bool(username) != bool(password):
            raise CommandError("set both ADMIN_USERNAME and ADMIN_PASSWORD, or neither")
        users = get_user_model().objects
        if username:
            user, created = users.get_or_create(username=username)
            user.is_staff = user.is_superuser = user.is_active = True
            user.set_password(password)
            user.save()
            verb = "created" if created else "updated"
            self.stdout.write(f"staff account {username!r} {verb} from ADMIN_USERNAME")
            return
        if users.filter(is_superuser=True).exists():
            self.stdout.write("a staff account exists already; sign in with it")
            return
        password = secrets.token_urlsafe(12)
        users.create_superuser("admin", password=password)
        self.stdout.write(
            "created staff account 'admin' with password "
            f"{password}\n(shown this once: keep it, or set ADMIN_USERNAME/ADMIN_PASSWORD)"
        )
