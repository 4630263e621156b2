"""The sign-in limit's two project-specific parts: whose address a request comes from, and the
page a locked-out sign-in gets. The limits themselves are django-axes settings (settings.py).
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def client_address(request: HttpRequest) -> str | None:
    """The client's address, as the last of ``TRUSTED_PROXY_COUNT`` proxies saw it.

    Each trusted proxy appends the address it received from to X-Forwarded-For, so the entry
    that many places from the right is the client's; entries further left are the client's own
    say and could be forged. A request with fewer entries did not come through the proxies:
    its socket address is the truth.
    """
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if count and len(forwarded) >= count:
        return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


def lockout_response(
    request: HttpRequest, original_response: object = None, credentials: object = None
) -> HttpResponse:
    """429 with when to try again, for the dashboard's and the admin's sign-in alike.

    The page names neither the account nor whether it exists: unknown usernames are counted
    and locked the same way. Every refused attempt counts as a failure and restarts the
    cool-off, so "now + cool-off" is exactly when the next attempt will be heard.
    (django-axes calls this with or without ``original_response``; neither argument is used.)
    """
    cool_off = settings.AXES_COOLOFF_TIME
    context = {
        "retry_at": timezone.now() + cool_off,
        "minutes": max(1, round(cool_off.total_seconds() / 60)),
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
