"""Settings for RSSHub Agent, read from the environment (and ``.env`` when present).

Every variable is documented in ``.env.example``; the README has the same table.
"""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from rsshub_agent.env import (
    env_bool,
    env_choice,
    env_endpoints,
    env_float,
    env_int,
    env_list,
    env_rsshub_url,
    env_rsshub_urls,
    env_str,
    env_url,
)
from rsshub_agent.worker_shape import machine_cpus, machine_memory_mb, workers_fitting

BASE_DIR = Path(__file__).resolve().parent.parent
# A real environment variable wins over the file, so CI and tests can override it.
load_dotenv(BASE_DIR / ".env", override=False)

DATA_DIR = Path(env_str("DATA_DIR", str(BASE_DIR / "data")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY and env_str("SECRET_KEY_FILE"):
    try:
        SECRET_KEY = Path(env_str("SECRET_KEY_FILE")).read_text().strip()
    except OSError as exc:
        raise ImproperlyConfigured(f"SECRET_KEY_FILE cannot be read: {exc.strerror}") from None
# scripts/run keeps a generated key here; reading it lets any manage.py command in the same
# checkout (ask, a second worker, a shell) sign and read what the running service does.
if not SECRET_KEY and (DATA_DIR / "secret_key").is_file():
    try:
        SECRET_KEY = (DATA_DIR / "secret_key").read_text().strip()
    except OSError as exc:
        raise ImproperlyConfigured(f"DATA_DIR/secret_key cannot be read: {exc.strerror}") from None
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "insecure-development-key-only-used-with-DEBUG-on"  # noqa: S105
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# Not "daphne": its app only makes `runserver` serve ASGI, and importing it (Twisted, ~45 MB)
# in every process (the worker's, the supervisor's setup) costs more than that is worth. The web
# process runs `daphne rsshub_agent.asgi:application`, which needs no app.
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # Django's own widget templates, for FORM_RENDERER below.
    "django.forms",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    # Before django_q: its `qcluster` command is rsshub_agent's (management/commands/qcluster.py).
    "rsshub_agent",
    "django_q",
    "catalog",
    "fetching",
    "agent",
    "briefs",
    "housekeeping",
    "sharing",
    "watches",
    "mcp_server",
    # With the entry points: it may import any app above; none imports it.
    "accounts",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves collected static files (admin, dashboard) from Daphne without a separate server.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "briefs.middleware.TimezoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "rsshub_agent.middleware.PermissionsPolicyMiddleware",
    # Last: it turns a sign-in refused for too many failures into the lock-out page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "rsshub_agent.urls"
WSGI_APPLICATION = "rsshub_agent.wsgi.application"
ASGI_APPLICATION = "rsshub_agent.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "watches.context.watches_unread",
            ],
        },
    },
]
# Widgets render through TEMPLATES, so templates/ may override one of Django's widget templates
# (templates/admin/widgets/split_datetime.html names its date and time inputs).
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"


def _database_config() -> dict:
    url = env_str("DATABASE_URL")
    if not url:
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "db.sqlite3",
            # Web and worker write at once: wait for the lock instead of failing at once, and
            # take the write lock at BEGIN so a read-then-write transaction cannot deadlock.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file, not Django's in-memory default: tests start worker subprocesses and race
            # concurrent writers, which an in-memory database cannot take.
            "TEST": {"NAME": str(DATA_DIR / "test_db.sqlite3")},
        }
    try:
        config = dj_database_url.parse(url, conn_max_age=0)
    except ValueError:
        # The URL may hold a password: name the variable, never echo the value.
        raise ImproperlyConfigured("DATABASE_URL is not a valid database URL") from None
    if config.get("ENGINE") not in {
        "django.db.backends.postgresql",
        "django.db.backends.sqlite3",
    }:
        raise ImproperlyConfigured("DATABASE_URL must be a postgres:// or sqlite:// URL")
    return config


DATABASES = {"default": _database_config()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Axes first: it refuses a locked-out sign-in before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True
FORMAT_MODULE_PATH = ["rsshub_agent.formats"]  # times name their zone

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"

REDIS_URL = env_url("REDIS_URL", "", schemes=("redis", "rediss", "unix"))
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # channels_redis waits for a message with a 5 s BZPOPMIN; redis-py's default read
            # timeout is 5 s too, so an idle wait would end in TimeoutError and a lost doorbell.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15}]},
        }
    }
else:
    # Single process only: consumers fall back to polling the RunStep log across processes.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# TLS behind a proxy, security headers and sign-in limits: rsshub_agent/security_settings.py.
from rsshub_agent.security_settings import *  # noqa: E402, F403

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
# The API's authentication, in order (api.base.ApiView): a bearer token, else the dashboard's
# session (with its CSRF check on writes).
API_AUTHENTICATION_CLASSES = [
    "briefs.tokens.auth.ApiTokenAuthentication",
    "rest_framework.authentication.SessionAuthentication",
]
# The schema `check --deploy` builds is the one the API publishes (rsshub_agent/api_schema.py).
SPECTACULAR_SETTINGS = {"DEFAULT_GENERATOR_CLASS": "rsshub_agent.api_schema.ApiSchemaGenerator"}

# --- RSSHub -------------------------------------------------------------------------------------
# Unset: the local RSSHub that `manage.py serve` starts (scripts/rsshub-serve) on this port.
RSSHUB_LOCAL_PORT = env_int("RSSHUB_LOCAL_PORT", 1200, minimum=1, maximum=65535)
# RSSHUB_URLS (comma-separated) lists every instance; RSSHUB_URL is a list of one. They seed the
# RSSHubInstance rows staff curate in the admin (fetching/instances.py); RSSHUB_URL stays the
# first of them, for the local RSSHub `serve` starts and for the probes of a single instance.
RSSHUB_URLS = env_rsshub_urls("RSSHUB_URLS")
_RSSHUB_URL_ONE = env_rsshub_url("RSSHUB_URL")
RSSHUB_URL_CONFIGURED = bool(RSSHUB_URLS or _RSSHUB_URL_ONE)
RSSHUB_URL = (RSSHUB_URLS or [_RSSHUB_URL_ONE or f"http://127.0.0.1:{RSSHUB_LOCAL_PORT}"])[0]
RSSHUB_ACCESS_KEY = env_str("RSSHUB_ACCESS_KEY")
RSSHUB_TIMEOUT = env_float("RSSHUB_TIMEOUT", 20.0, minimum=0.1)
RSSHUB_CONNECT_TIMEOUT = env_float("RSSHUB_CONNECT_TIMEOUT", 5.0, minimum=0.1)
RSSHUB_MAX_BYTES = env_int("RSSHUB_MAX_BYTES", 5 * 1024 * 1024, minimum=1024)
RSSHUB_CONCURRENCY = env_int("RSSHUB_CONCURRENCY", 16, minimum=1)
FETCH_GLOBAL_CONCURRENCY = env_int("FETCH_GLOBAL_CONCURRENCY", 32, minimum=1)
# Fetch once, serve many (fetching/flight.py): a path fetched less than this many seconds ago is
# served from the stored items without a request (a route may carry a longer window). A run that
# needs a path another worker is fetching waits for that fetch instead of sending its own; the
# claim on the path expires after FETCH_CLAIM_SECONDS, so a crashed fetcher holds it no longer:
# long enough for the request, the egress check that may follow it, and the parse.
FETCH_FRESH_SECONDS = env_float("FETCH_FRESH_SECONDS", 60.0, minimum=0.0)
FETCH_CLAIM_SECONDS = env_float("FETCH_CLAIM_SECONDS", 2 * RSSHUB_TIMEOUT + 10, minimum=1.0)
# The paths asked when RSSHub reports that a source gave no answer at all (DNS, refused, reset,
# timeout), to tell "that site is gone" from "RSSHub cannot reach the internet"
# (fetching/egress.py), beside a route that succeeded recently; also asked once as the web and the
# worker start. Stable routes of different sites that need the internet and no configuration; all
# are asked at once, and one answer proves the internet is there. "off" leaves only the recent
# successes. RSSHUB_EGRESS_CANARY (one path) is the older name, read when the list is not set.
RSSHUB_EGRESS_CANARIES = env_list(
    "RSSHUB_EGRESS_CANARIES",
    env_list("RSSHUB_EGRESS_CANARY", ["/github/repos/DIYgod", "/hackernews", "/sspai/index"]),
)
if [p.lower() for p in RSSHUB_EGRESS_CANARIES] == ["off"]:
    RSSHUB_EGRESS_CANARIES = []
for _canary in RSSHUB_EGRESS_CANARIES:
    if not _canary.startswith("/") or "?" in _canary or "//" in _canary:
        raise ImproperlyConfigured(
            "RSSHUB_EGRESS_CANARIES must be route paths like /github/repos/x, comma-separated"
        )

# --- Dashboard ---------------------------------------------------------------------------------
# On SQLite without REDIS_URL, live pages read the watched briefs' step counters this often
# (seconds; one query per process for all of them). PostgreSQL pushes with NOTIFY, Redis with the
# channel layer: briefs/doorbell.py.
DASHBOARD_POLL_SECONDS = env_float("DASHBOARD_POLL_SECONDS", 0.05, minimum=0.01)

# --- Integration API ---------------------------------------------------------------------------
# Tokens: hashed, named, revocable, expiring (briefs/tokens/service.py says why not knox).
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 90, minimum=1, maximum=3650)
API_BRIEFS_PER_DAY = env_int("API_BRIEFS_PER_DAY", 200, minimum=0)
API_MAX_BODY_BYTES = env_int("API_MAX_BODY_BYTES", 16 * 1024, minimum=1024)
API_THROTTLE_RATE = env_str("API_THROTTLE_RATE", "240/minute")
# New briefs per user per minute, every way in together (dashboard, API, MCP, watches):
# briefs.admission. Forced refreshes (`refresh`) per user per hour, and per path across all users.
API_CREATE_THROTTLE_RATE = env_str("API_CREATE_THROTTLE_RATE", "30/minute")
FORCED_REFRESHES_PER_HOUR = env_int("FORCED_REFRESHES_PER_HOUR", 10, minimum=0)
FORCED_REFRESH_PATH_SECONDS = env_int("FORCED_REFRESH_PATH_SECONDS", 60, minimum=1)
# Webhooks: private and loopback targets are refused unless allowed (a same-host integration).
WEBHOOK_ALLOW_PRIVATE = env_bool("WEBHOOK_ALLOW_PRIVATE", False)
WEBHOOK_TIMEOUT = env_float("WEBHOOK_TIMEOUT", 10.0, minimum=1.0)
WEBHOOKS_PER_USER = env_int("WEBHOOKS_PER_USER", 10, minimum=0)
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 6, minimum=1, maximum=20)

# --- Watches (watches/) and email ----------------------------------------------------------------
WATCHES_PER_USER = env_int("WATCHES_PER_USER", 20, minimum=0)
# Where people reach the dashboard: links in emails (no request to take the host from).
SITE_URL = env_url("SITE_URL", "http://localhost:8000", schemes=("http", "https"))
# Email goes to the console (the worker's output) unless EMAIL_HOST names an SMTP server.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = 20
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "RSSHub Agent <noreply@localhost>")

# --- Accounts (accounts/) ----------------------------------------------------------------------
# Staff invite people with one-use links (the admin's Invitations) that expire after
# INVITATION_DAYS. SIGNUP_OPEN lets anyone make an account at /accounts/signup/: it stays inactive
# until its owner opens the link emailed to them, within SIGNUP_VERIFY_HOURS.
INVITATION_DAYS = env_int("INVITATION_DAYS", 7, minimum=1, maximum=90)
SIGNUP_OPEN = env_bool("SIGNUP_OPEN", False)
SIGNUP_VERIFY_HOURS = env_int("SIGNUP_VERIFY_HOURS", 48, minimum=1, maximum=24 * 30)

# --- MCP server (mcp_server/) -----------------------------------------------------------------
# Where the dashboard is, for the links in answers given outside a web request (the stdio server
# of `manage.py mcp`); over HTTP the links use the address the client called.
MCP_SITE_URL = env_url(
    "MCP_SITE_URL",
    f"http://{env_str('HOST', '127.0.0.1')}:{env_str('PORT', '8000')}",
    schemes=("http", "https"),
)

# --- Route search ------------------------------------------------------------------------------
# How often (seconds) each process checks whether the catalog changed under its search index.
CATALOG_SEARCH_RECHECK_SECONDS = env_float("CATALOG_SEARCH_RECHECK_SECONDS", 2.0, minimum=0.0)

# --- LLM (any OpenAI-compatible endpoint; offline mode when no key) ----------------------------
OPENAI_BASE_URL = env_url("OPENAI_BASE_URL", "", schemes=("http", "https"))
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_ROUTER_MODEL = env_str("OPENAI_ROUTER_MODEL", "gpt-4o-mini")
OPENAI_WRITER_MODEL = env_str("OPENAI_WRITER_MODEL", "gpt-4o-mini")
OPENAI_TIMEOUT = env_float("OPENAI_TIMEOUT", 60.0, minimum=1.0)
LLM_DAILY_TOKEN_BUDGET = env_int("LLM_DAILY_TOKEN_BUDGET", 200_000, minimum=0)
# Several endpoints, tried in order (each with its own breaker); when set, the single-endpoint
# variables above only give the default model names.
OPENAI_ENDPOINTS = env_endpoints("OPENAI_ENDPOINTS")
# Seconds of model time one run may spend in total; past it, the remaining nodes run offline.
LLM_RUN_DEADLINE = env_float("LLM_RUN_DEADLINE", 90.0, minimum=1.0)
# The writer's answer is cut here before anything reads it; an answer over either bound counts
# as truncated (a repair turn asks for a shorter one; a second counts against the breaker).
LLM_WRITER_MAX_CHARS = env_int("LLM_WRITER_MAX_CHARS", 12_000, minimum=500, maximum=200_000)
LLM_WRITER_MAX_SENTENCES = env_int("LLM_WRITER_MAX_SENTENCES", 60, minimum=5, maximum=1000)
# "model": one more call asks the writer model which kept sentences each cited item supports;
# it may only remove sentences (agent.summary.verify). "off": the offline support check alone.
CLAIMS_VERIFY = env_choice("CLAIMS_VERIFY", "off", ("OFF", "MODEL")).lower()

# --- Agent --------------------------------------------------------------------------------------
AGENT_FETCH_RETRY = env_int("AGENT_FETCH_RETRY", 2, minimum=0, maximum=10)
AGENT_ROUTER_BUDGET = env_int("AGENT_ROUTER_BUDGET", 8, minimum=1, maximum=50)

# --- Housekeeping (housekeeping/) ---------------------------------------------------------------
# Ages in days after which what every run writes is pruned; briefs, users, tokens, webhooks and the
# catalog are never pruned. The route health page charts HEALTH_DAYS (7) of attempts.
HOUSEKEEP_ATTEMPT_DAYS = env_int("HOUSEKEEP_ATTEMPT_DAYS", 30, minimum=7)
HOUSEKEEP_STEP_DAYS = env_int("HOUSEKEEP_STEP_DAYS", 14, minimum=1)
HOUSEKEEP_CIRCUIT_CHANGE_DAYS = env_int("HOUSEKEEP_CIRCUIT_CHANGE_DAYS", 90, minimum=1)
HOUSEKEEP_DELIVERY_DAYS = env_int("HOUSEKEEP_DELIVERY_DAYS", 30, minimum=1)
# Token-usage and quota days: today's row is the live budget, so at least 2.
HOUSEKEEP_USAGE_DAYS = env_int("HOUSEKEEP_USAGE_DAYS", 90, minimum=2)
# An item's text goes this long after its feed last listed it, unless a brief cites it; its row
# goes once its feed has not been fetched for HOUSEKEEP_ITEM_ROW_DAYS.
HOUSEKEEP_ITEM_BODY_DAYS = env_int("HOUSEKEEP_ITEM_BODY_DAYS", 30, minimum=1)
HOUSEKEEP_ITEM_ROW_DAYS = env_int("HOUSEKEEP_ITEM_ROW_DAYS", 90, minimum=1)
if HOUSEKEEP_ITEM_ROW_DAYS < HOUSEKEEP_ITEM_BODY_DAYS:
    raise ImproperlyConfigured("HOUSEKEEP_ITEM_ROW_DAYS must be at least HOUSEKEEP_ITEM_BODY_DAYS")
# Rows per DELETE/UPDATE statement, each in its own transaction, so nobody waits long behind it.
HOUSEKEEP_BATCH_SIZE = env_int("HOUSEKEEP_BATCH_SIZE", 2000, minimum=100, maximum=10_000)

# --- Worker (django-q2) -------------------------------------------------------------------------
# Why these values, and what happens when a worker dies: briefs/tasks.py.
# timeout: above a run's worst case. A failing LLM endpoint costs up to ~140 s per call until its
#   breaker opens (3 calls), plus up to 8 fetch steps of RSSHUB_TIMEOUT: ~700 s. A run over it is
#   failed with that reason, not retried.
# retry: on the ORM broker, a task whose worker died comes back after `retry` s; it must exceed
#   timeout + the claim's 5 s lease margin + the longest wait in a cluster's local queue. The
#   Redis broker never hands a task out again (Q_BROKER below).
# max_attempts counts reported results; a killed worker reports none (the bound is MAX_ATTEMPTS
#   in briefs/tasks.py). ack_failures: run_brief records its own failures, so a failed task is
#   never re-run; redelivery after a death does not depend on it.
Q_TIMEOUT = env_int("Q_TIMEOUT", 900, minimum=30)
Q_RETRY = env_int("Q_RETRY", Q_TIMEOUT + 60, minimum=31)
if Q_RETRY < Q_TIMEOUT + 30:
    raise ImproperlyConfigured("Q_RETRY must be at least Q_TIMEOUT + 30 seconds")
if FETCH_CLAIM_SECONDS + 5 >= Q_TIMEOUT:
    # A run may wait out one claim on a path (fetching/flight.py), and must still finish.
    raise ImproperlyConfigured("FETCH_CLAIM_SECONDS must be well below Q_TIMEOUT")
# Workers: one per CPU, as many as the memory holds beside the rest (rsshub_agent/worker_shape.py).
# A worker is replaced (forked afresh by the cluster's guard) after Q_RECYCLE tasks, or after a
# task that left it above Q_WORKER_MAX_MB resident (0: no bound): fragmentation stays bounded.
Q_WORKERS = env_int(
    "Q_WORKERS", workers_fitting(cpus=machine_cpus(), memory_mb=machine_memory_mb()), minimum=1
)
Q_RECYCLE = env_int("Q_RECYCLE", 500, minimum=1)
Q_WORKER_MAX_MB = env_int("Q_WORKER_MAX_MB", 512, minimum=0)
# The broker: "orm" (the database, the default) or "redis" (REDIS_URL), for several worker hosts.
# django-q2's Redis broker pops a task (BLPOP) and never acks it or hands it out again: a task
# whose worker died is gone, and the brief is recovered by briefs_recover instead (briefs/tasks.py).
Q_BROKER = env_str("Q_BROKER", "orm").lower()
if Q_BROKER not in ("orm", "redis"):
    raise ImproperlyConfigured(f"Q_BROKER must be orm or redis, got {Q_BROKER!r}")
if Q_BROKER == "redis" and not REDIS_URL:
    raise ImproperlyConfigured("Q_BROKER=redis needs REDIS_URL (the Redis server to queue on)")

# poll: the longest a queued task waits for a worker's pusher. A new brief wakes it at once
#   through Redis or PostgreSQL's NOTIFY (briefs/broker.py), so then the poll is only a safety
#   net; on SQLite without Redis it is the wait itself, and a poll is one query on a local file.
_Q_WAKES = bool(REDIS_URL) or DATABASES["default"]["ENGINE"].endswith("postgresql")
Q_POLL_SECONDS = env_float("Q_POLL_SECONDS", 1.0 if _Q_WAKES else 0.05, minimum=0.01)
Q_CLUSTER = {
    "name": "rsshub_agent",
    "workers": Q_WORKERS,
    "timeout": Q_TIMEOUT,
    "retry": Q_RETRY,
    "max_attempts": 1,
    "ack_failures": True,
    "queue_limit": Q_WORKERS,  # tasks waiting in the local queue still age toward `retry`
    "recycle": Q_RECYCLE,
    "max_rss": Q_WORKER_MAX_MB * 1024 or None,  # KB
    "catch_up": False,
    "save_limit": 1000,
    # Results, schedules and failures stay in the database whichever broker queues the tasks.
    # On the database, a new brief wakes the pusher at once (briefs/broker.py); Redis's BLPOP
    # needs no wake-up.
    **(
        {"redis": REDIS_URL}
        if Q_BROKER == "redis"
        else {"orm": "default", "broker_class": "briefs.broker.WakingORM", "poll": Q_POLL_SECONDS}
    ),
}

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", LOG_LEVELS)},
    # httpx logs every request URL at INFO, query string included: that would put the RSSHub
    # access key into the logs.
    "loggers": {name: {"level": "WARNING"} for name in ("httpx", "httpcore", "httpx2", "httpcore2")}
    # The MCP SDK logs every request it serves at INFO (each HTTP request starts a manager).
    | {"mcp": {"level": "WARNING"}},
}
