"""The test database as other processes see it: the server's connection parameters, a URL for a
subprocess's ``DATABASE_URL``, and scratch databases of their own on the same server (for a web
server or a worker that must see committed data)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from urllib.parse import quote

import psycopg
from django.db import connection
from psycopg import sql

POSTGRES_ENGINE = "django.db.backends.postgresql"


def server_conninfo() -> dict[str, str]:
    """``psycopg.connect`` keywords (no database) for the configured PostgreSQL server."""
    db = connection.settings_dict
    if db["ENGINE"] != POSTGRES_ENGINE:
        raise RuntimeError("needs PostgreSQL: set DATABASE_URL=postgres://...")
    return {
        "host": db.get("HOST") or "127.0.0.1",
        "port": str(db.get("PORT") or 5432),
        "user": db.get("USER") or "postgres",
        "password": db.get("PASSWORD") or "",
    }


def database_url(name: str | None = None) -> str:
    """A ``DATABASE_URL`` for database ``name`` on the configured server, or, without a name, for
    the test database itself (SQLite or PostgreSQL)."""
    db = connection.settings_dict
    if name is None and connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    info = server_conninfo()
    login = quote(info["user"], safe="") + (
        f":{quote(info['password'], safe='')}" if info["password"] else ""
    )
    return f"postgres://{login}@{info['host']}:{info['port']}/{name or db['NAME']}"


@contextlib.contextmanager
def scratch_database(name: str) -> Iterator[dict[str, str]]:
    """Create database ``name`` (dropping a leftover first) on the configured server, yield its
    ``psycopg.connect`` keywords, and drop it at the end, connections and all."""
    info = server_conninfo()
    drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
    with psycopg.connect(dbname="postgres", autocommit=True, **info) as admin:
        admin.execute(drop)
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield {**info, "dbname": name}
        finally:
            admin.execute(drop)
