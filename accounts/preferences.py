"""The profile, and its choices carried to where the rest of the site reads them.

Each choice has one reader below this app, which never imports it (apps import downward):

- the time zone: the ``tz`` cookie (``briefs.middleware``; the websocket and the watch form read
  it too). The browser's script writes it only when it is missing; the server writes the
  profile's zone over it at sign-in and when the profile changes, so the first page after
  signing in already shows its times in the right zone without reloading itself.
- the interface language: Django's language cookie, as the language switch leaves it.
- the default brief language: the session (``briefs.language.READER_LANGUAGE_SESSION_KEY``),
  which the ask form reads when it leaves the language blank.
  The API and MCP, which have no session, read the profile itself (``profile_brief_language``,
  handed to ``briefs.language.owner_language_provide`` by ``accounts.apps``).

A profile made at the first sign-in takes the zone and language the browser already had: they
are the suggestion, and stored from then on.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

from accounts.models import Profile
from briefs.language import READER_LANGUAGE_SESSION_KEY, interface_language
from briefs.middleware import TIMEZONE_COOKIE, zone_named

COOKIE_AGE = 365 * 24 * 3600


def browser_zone(request: HttpRequest) -> str:
    """The zone the browser's script reported, if it names a real zone."""
    name = request.COOKIES.get(TIMEZONE_COOKIE, "")
    return name if zone_named(name) else ""


def profile_of(user: AbstractBaseUser, request: HttpRequest | None = None) -> Profile:
    """The user's profile, made now from the browser's zone and language when there is none."""
    defaults = {}
    if request is not None:
        language = interface_language(getattr(request, "LANGUAGE_CODE", None))
        defaults = {"time_zone": browser_zone(request), "interface_language": language}
    profile, _made = Profile.objects.get_or_create(user=user, defaults=defaults)
    return profile


def profile_brief_language(user: AbstractBaseUser) -> str:
    """The user's default brief language, ``""`` when none (or no profile yet)."""
    stored = Profile.objects.filter(user_id=user.pk).values_list("brief_language", flat=True)
    return stored.first() or ""


def profile_update(profile: Profile, *, email: str, **choices: str) -> Profile:
    """Save the profile's choices and the user's email."""
    for field, value in choices.items():
        setattr(profile, field, value)
    profile.updated_at = timezone.now()
    profile.save()
    user = profile.user
    if user.email != email:
        user.email = email
        user.save(update_fields=["email"])
    return profile


def preferences_apply(request: HttpRequest, response: HttpResponse, profile: Profile) -> None:
    """Carry the profile's choices to their readers, from this response on."""
    request.session[READER_LANGUAGE_SESSION_KEY] = profile.brief_language
    secure = settings.SESSION_COOKIE_SECURE
    if profile.time_zone:
        # Not HttpOnly: the page's script reads it to know the cookie is already there.
        response.set_cookie(
            TIMEZONE_COOKIE, profile.time_zone, max_age=COOKIE_AGE, samesite="Lax", secure=secure
        )
    if profile.interface_language:
        translation.activate(profile.interface_language)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            profile.interface_language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )


def preferences_on_sign_in(request: HttpRequest, response: HttpResponse, user) -> None:
    """After a sign-in: the profile (made from the browser's choices the first time) applied."""
    preferences_apply(request, response, profile_of(user, request))
