#!/usr/bin/env bash
# Container entrypoint for web and worker.
#
#   WAIT_FOR_DB=1          wait for the database (deadline DB_WAIT_TIMEOUT seconds, default 60)
#   RUN_MIGRATIONS=1       run `migrate --noinput` (web only)
#   WAIT_FOR_MIGRATIONS=1  wait until no migration is pending (worker: web migrates)
#   IMPORT_CATALOG=1       import the route catalog from RSSHUB_URL when it answers within
#                          RSSHUB_WAIT_TIMEOUT seconds (default 60), else from the offline seed
#
# Then it execs the given command.
set -euo pipefail

cd "$(dirname "$(readlink -f "$0")")/.."

flag() { [[ "${1:-0}" =~ ^(1|true|yes|on)$ ]]; }
log() { echo "entrypoint: $*" >&2; }

SEED=catalog/seed/namespace.json.gz

if flag "${WAIT_FOR_DB:-1}"; then
    log "waiting for the database"
    python - <<'PY'
import os
import sys
import time

import django

deadline = time.monotonic() + float(os.environ.get("DB_WAIT_TIMEOUT") or 60)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")
django.setup()

from django.db import connection  # noqa: E402
from django.db.utils import OperationalError  # noqa: E402

while True:
    try:
        connection.ensure_connection()
    except OperationalError as exc:
        connection.close()
        if time.monotonic() >= deadline:
            # The class name only: the message can quote parts of DATABASE_URL.
            sys.exit(f"entrypoint: database unreachable before the deadline ({type(exc).__name__})")
        time.sleep(1)
    else:
        break
PY
fi

if flag "${RUN_MIGRATIONS:-0}"; then
    log "applying migrations"
    python manage.py migrate --noinput
fi

if flag "${WAIT_FOR_MIGRATIONS:-0}"; then
    log "waiting for migrations to be applied"
    python - <<'PY'
import os
import sys
import time

import django

deadline = time.monotonic() + float(os.environ.get("MIGRATIONS_WAIT_TIMEOUT") or 300)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rsshub_agent.settings")
django.setup()

from django.db import connection  # noqa: E402
from django.db.migrations.executor import MigrationExecutor  # noqa: E402

while True:
    executor = MigrationExecutor(connection)
    if not executor.migration_plan(executor.loader.graph.leaf_nodes()):
        break
    if time.monotonic() >= deadline:
        sys.exit("entrypoint: migrations still pending at the deadline")
    connection.close()
    time.sleep(2)
PY
fi

if flag "${IMPORT_CATALOG:-0}"; then
    source_url="${RSSHUB_URL:-}"
    if [[ -n "$source_url" ]] && python - "$source_url" <<'PY'
import os
import sys
import time
import urllib.request

url = sys.argv[1].rstrip("/") + "/healthz"
deadline = time.monotonic() + float(os.environ.get("RSSHUB_WAIT_TIMEOUT") or 60)
while True:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310
            if response.status == 200:
                sys.exit(0)
    except OSError:
        pass
    if time.monotonic() >= deadline:
        sys.exit(1)
    time.sleep(2)
PY
    then
        log "importing the catalog from RSSHub"
        if ! python manage.py import_catalog "$source_url"; then
            log "RSSHub import failed; importing the offline seed instead"
            python manage.py import_catalog "$SEED"
        fi
    else
        log "RSSHub does not answer; importing the offline seed"
        python manage.py import_catalog "$SEED"
    fi
fi

exec "$@"
