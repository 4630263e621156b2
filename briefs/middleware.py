"""Times in the user's time zone: the browser reports its zone in a cookie, we activate it.

``static/dashboard/dashboard.js`` writes ``Intl.DateTimeFormat().resolvedOptions().timeZone``
into the ``tz`` cookie when it has none, and a sign-in writes the reader's saved zone over it
(the profile, ``accounts.preferences``); this middleware activates that zone for the request,
so templates render ``<time>`` elements in it. The websocket consumer reads the same cookie
through ``zone_named``.
"""

import re
from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

TIMEZONE_COOKIE = "tz"
ZONE_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$")


def zone_named(name: object) -> ZoneInfo | None:
    """The IANA zone called ``name``, or None for anything else (the cookie is user input)."""
    if not isinstance(name, str) or len(name) > 64 or not ZONE_NAME_RE.match(name):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


class TimezoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zone = zone_named(request.COOKIES.get(TIMEZONE_COOKIE))
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        return self.get_response(request)
