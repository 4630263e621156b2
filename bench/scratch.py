"""The throwaway database a benchmark runs on, never the configured one.

``scratch_environment`` must run before ``django.setup()``: without a postgres:// DATABASE_URL
it points Django at an SQLite file in ``workdir``. After setup, ``scratch_database_create``
creates (PostgreSQL: a scratch database ``name`` on the same server) or migrates it, and
``scratch_database_drop`` removes the PostgreSQL one.
"""

import os


def scratch_environment(workdir: str) -> bool:
    """Set the environment for a throwaway database; True when it is on PostgreSQL."""
    url = os.environ.get("DATABASE_URL", "")
    postgres = url.startswith(("postgres://", "postgresql://"))
    if not postgres:
        os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
    os.environ.setdefault("SECRET_KEY", "bench-only-not-a-secret")
    os.environ["DATA_DIR"] = workdir
    os.environ["DJANGO_SETTINGS_MODULE"] = "rsshub_agent.settings"
    return postgres


def scratch_database_create(*, postgres: bool, name: str) -> str:
    """Create and migrate the scratch database; returns a label for it."""
    from django.core.management import call_command
    from django.db import connection

    if postgres:
        connection.settings_dict["TEST"]["NAME"] = name
        connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
        return f"PostgreSQL (scratch database {name})"
    call_command("migrate", verbosity=0)
    return "SQLite (temporary file)"


def scratch_database_drop(label: str, name: str) -> None:
    from django.db import connection

    if label.startswith("PostgreSQL"):
        connection.creation.destroy_test_db(name, verbosity=0)
