"""The sign-in limit's project-specific parts: whose address a request comes from, how many
failures a pair (account, address) may have, and the page a locked-out sign-in gets. The limits
themselves are django-axes settings (``security_settings.py`` says why they are per pair).
"""

from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def account_failures(username: str | None) -> int:
    """Failures for the account from every address, within the cool-off (django-axes removes
    attempts older than it)."""
    if not username:
        return 0
    failures = AccessAttempt.objects.filter(username=username).aggregate(
        n=Sum("failures_since_start")
    )
    return failures["n"] or 0


def failure_limit(request: HttpRequest, credentials: dict | None) -> int:
    """Failures a pair (account, address) may have before it is locked: LOGIN_FAILURE_LIMIT, or
    1 once the account has LOGIN_ACCOUNT_FAILURE_LIMIT failures from anywhere (a distributed
    guess). A limit of 1 locks only an address that has failed for the account: one that has
    not, 0 failures, is still heard, so the right password from elsewhere always gets in."""
    username = get_client_username(request, credentials)
    if account_failures(username) >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT:
        return 1
    return settings.LOGIN_FAILURE_LIMIT


def tries_left(request: HttpRequest, credentials: dict | None) -> int | None:
    """Tries this address has left for the account before a pause; None before any failure."""
    failures = getattr(request, "axes_failures_since_start", None)
    if not failures:
        return None
    return max(0, failure_limit(request, credentials) - failures)


def client_address(request: HttpRequest) -> str | None:
    """The client's address, as the last of ``TRUSTED_PROXY_COUNT`` proxies saw it; the socket's
    when no proxy is trusted (``HTTPS`` alone trusts none: a client's own header is not believed).

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
