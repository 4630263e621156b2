"""Settings for the servers the browser tests start: the project's own, plus the dashboard's
time-zone middleware while settings.py does not list it yet."""

from rsshub_agent.settings import *  # noqa: F403
from rsshub_agent.settings import MIDDLEWARE

TIMEZONE_MIDDLEWARE = "briefs.middleware.TimezoneMiddleware"
if TIMEZONE_MIDDLEWARE not in MIDDLEWARE:
    MIDDLEWARE = [*MIDDLEWARE, TIMEZONE_MIDDLEWARE]
