"""Configuration: a malformed value stops start-up with a message naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASE_ENV = {
    "PATH": os.environ["PATH"],
    "DJANGO_SETTINGS_MODULE": "rsshub_agent.settings",
    "SECRET_KEY": "settings-test",
}


# Set up Django, then print "started" and the setting named by $PRINT, if any.
STARTUP = """
import os, django
django.setup()
from django.conf import settings
print("started", getattr(settings, os.environ.get("PRINT", ""), ""))
"""


def start(tmp_path, **env) -> subprocess.CompletedProcess:
    """Load the settings in a fresh interpreter, from a folder without a .env file."""
    return subprocess.run(
        [sys.executable, "-c", STARTUP],
        env={**BASE_ENV, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path), **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_it_starts_with_defaults(tmp_path):
    result = start(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "started" in result.stdout


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "mysql://nope"),
        ("DATABASE_URL", "not a url at all"),
        ("REDIS_URL", "http://127.0.0.1:6379"),
        ("RSSHUB_URL", "ftp://rsshub.local"),
        ("RSSHUB_URL", "http://"),
        ("RSSHUB_URL", "http://host:99999"),
        ("RSSHUB_TIMEOUT", "soon"),
        ("RSSHUB_TIMEOUT", "nan"),
        ("RSSHUB_MAX_BYTES", "-5"),
        ("OPENAI_BASE_URL", "javascript:alert(1)"),
        ("AGENT_ROUTER_BUDGET", "1000"),
        ("Q_TIMEOUT", "ten"),
        ("LOG_LEVEL", "LOUD"),
        ("HTTPS", "sometimes"),
        ("HSTS_SECONDS", "-1"),
        ("HSTS_INCLUDE_SUBDOMAINS", "maybe"),
        ("HSTS_PRELOAD", "yes please"),
        ("TRUSTED_PROXY_COUNT", "many"),
        ("LOGIN_FAILURE_LIMIT", "0"),
        ("LOGIN_COOLOFF_MINUTES", "soon"),
        ("FETCH_FRESH_SECONDS", "-1"),
        ("FETCH_CLAIM_SECONDS", "0"),
        ("FETCH_CLAIM_SECONDS", "3600"),  # longer than a run may take (Q_TIMEOUT)
        ("Q_BROKER", "kafka"),
        ("Q_WORKERS", "0"),
        ("Q_WORKERS", "two"),
        ("Q_RECYCLE", "0"),
        ("Q_RECYCLE", "often"),
        ("Q_WORKER_MAX_MB", "-1"),
        ("Q_WORKER_MAX_MB", "1.5GB"),
        ("LLM_WRITER_MAX_CHARS", "100"),  # shorter than any brief
        ("LLM_WRITER_MAX_SENTENCES", "many"),
    ],
)
def test_a_malformed_value_names_its_variable(tmp_path, name, value):
    result = start(tmp_path, **{name: value})
    assert result.returncode != 0, f"{name}={value!r} was accepted"
    assert "ImproperlyConfigured" in result.stderr
    assert name in result.stderr.splitlines()[-1], result.stderr[-500:]


def test_secret_key_is_required_when_debug_is_off(tmp_path):
    result = start(tmp_path, SECRET_KEY="", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_a_database_password_is_never_echoed(tmp_path):
    result = start(tmp_path, DATABASE_URL="oracle://user:hunter2-secret@db/x")
    assert result.returncode != 0
    assert "hunter2-secret" not in result.stderr


def test_the_secret_key_can_come_from_a_file(tmp_path):
    key_file = tmp_path / "secret"
    key_file.write_text("from-a-file\n")
    result = start(tmp_path, SECRET_KEY="", SECRET_KEY_FILE=str(key_file), PRINT="SECRET_KEY")
    assert result.stdout.split() == ["started", "from-a-file"], result.stderr


def test_the_secret_key_scripts_run_generated_is_read_from_the_data_dir(tmp_path):
    (tmp_path / "secret_key").write_text("generated-by-scripts-run\n")
    result = start(tmp_path, SECRET_KEY="", DEBUG="false", PRINT="SECRET_KEY")
    assert result.stdout.split() == ["started", "generated-by-scripts-run"], result.stderr


def test_an_explicit_secret_key_wins_over_the_data_dir_file(tmp_path):
    (tmp_path / "secret_key").write_text("generated-by-scripts-run\n")
    result = start(tmp_path, SECRET_KEY="from-the-environment", PRINT="SECRET_KEY")
    assert result.stdout.split() == ["started", "from-the-environment"], result.stderr


def test_an_empty_data_dir_key_file_still_demands_a_secret_key(tmp_path):
    (tmp_path / "secret_key").write_text("\n")
    result = start(tmp_path, SECRET_KEY="", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_the_redis_broker_needs_redis_url(tmp_path):
    result = start(tmp_path, Q_BROKER="redis", REDIS_URL="")
    assert result.returncode != 0
    assert "Q_BROKER=redis needs REDIS_URL" in result.stderr.splitlines()[-1], result.stderr[-500:]


QUEUE_PROBE = """
import django
django.setup()
from django_q.brokers import get_broker
from django_q.conf import Conf
print(type(get_broker()).__name__, Conf.ORM, Conf.REDIS)
"""


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "WakingORM default {}"),
        ({"Q_BROKER": "ORM", "REDIS_URL": "redis://127.0.0.1:6379/3"}, "WakingORM default {}"),
        (
            {"Q_BROKER": "redis", "REDIS_URL": "redis://127.0.0.1:6379/3"},
            "Redis None redis://127.0.0.1:6379/3",
        ),
    ],
)
def test_q_broker_chooses_django_q_broker(tmp_path, env, expected):
    result = subprocess.run(
        [sys.executable, "-c", QUEUE_PROBE],
        env={**BASE_ENV, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path), **env},
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == expected


LAYER_PROBE = """
import django
django.setup()
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer
layer = get_channel_layer()
(host,) = layer.hosts
print(host["socket_timeout"] > RedisChannelLayer.brpop_timeout)
"""


def test_the_channel_layer_outwaits_its_own_blocking_receive(tmp_path):
    """An idle receive must end with nothing received, not a read timeout (a lost doorbell)."""
    result = subprocess.run(
        [sys.executable, "-c", LAYER_PROBE],
        env={**BASE_ENV, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path),
             "REDIS_URL": "redis://127.0.0.1:6379/3"},
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "True"


SHAPE_PROBE = """
import django
django.setup()
from django.conf import settings
from rsshub_agent.worker_shape import machine_cpus, machine_memory_mb, workers_fitting
fitting = workers_fitting(cpus=machine_cpus(), memory_mb=machine_memory_mb())
q = settings.Q_CLUSTER
print(q["workers"] == fitting, q["recycle"], q["max_rss"])
"""


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "True 500 524288"),
        ({"Q_RECYCLE": "50", "Q_WORKER_MAX_MB": "0"}, "True 50 None"),
        ({"Q_WORKERS": "7"}, "False 500 524288"),
    ],
)
def test_the_worker_shape_comes_from_the_machine_unless_set(tmp_path, env, expected):
    result = subprocess.run(
        [sys.executable, "-c", SHAPE_PROBE],
        env={**BASE_ENV, "PYTHONPATH": str(ROOT), "DATA_DIR": str(tmp_path), **env},
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == expected
