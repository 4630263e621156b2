"""The account pages that take a password or send one: Django's own views, with the sign-in
limit (django-axes, ``accounts.lockout``) shown and applied where Django leaves it out.

- Sign-in says how many tries this address has left for the account before a pause.
- The change-password form checks the current password through ``authenticate()`` with the
  request, so django-axes counts a wrong one and locks the pair exactly as at sign-in.
- A password reset sends at most ``PASSWORD_RESETS_PER_ACCOUNT_HOUR`` emails per account and
  ``PASSWORD_RESETS_PER_ADDRESS_HOUR`` per client address; past either it sends nothing and
  answers exactly as when it sent (the same redirect), so it tells nothing about the account.
  A sign-up's verification email (``accounts``) counts against the same budgets.
  The counts live in Django's cache, as the API's throttles do (per process with the default
  local-memory cache; global with a shared one).
"""

import hashlib

from django.conf import settings
from django.contrib.auth import authenticate, views
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm
from django.core.cache import cache
from django.core.exceptions import ValidationError

from accounts.lockout import client_address, tries_left

RESET_WINDOW_SECONDS = 3600


class SignInView(views.LoginView):
    def form_invalid(self, form):
        credentials = {"username": self.request.POST.get("username", "")}
        left = tries_left(self.request, credentials)
        return self.render_to_response(self.get_context_data(form=form, tries_left=left))


def password_confirmed(request, user, password: str) -> bool:
    """Whether ``password`` is ``user``'s, checked as a sign-in is: through ``authenticate()``
    with the request, so django-axes counts a wrong one and locks the pair as at sign-in."""
    heard = authenticate(request, username=user.get_username(), password=password)
    return heard is not None and heard.pk == user.pk


class CountedPasswordChangeForm(PasswordChangeForm):
    """The current password is checked as a sign-in is: a wrong one counts towards the lock."""

    def __init__(self, user, *args, request=None, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        old = self.cleaned_data["old_password"]
        if not password_confirmed(self.request, self.user, old):
            raise ValidationError(
                self.error_messages["password_incorrect"], code="password_incorrect"
            )
        return old


class CountedPasswordChangeView(views.PasswordChangeView):
    form_class = CountedPasswordChangeForm

    def get_form_kwargs(self) -> dict:
        return {**super().get_form_kwargs(), "request": self.request}


def _reset_counted(key: str, limit: int) -> bool:
    """Count one reset under ``key``; False when ``limit`` were counted within the window."""
    cache.add(key, 0, RESET_WINDOW_SECONDS)
    try:
        return cache.incr(key) <= limit
    except ValueError:  # expired between add and incr: a new window
        cache.add(key, 1, RESET_WINDOW_SECONDS)
        return True


def reset_allowed(*, email: str, address: str | None) -> bool:
    """Whether a reset email for ``email`` may go to a request from ``address``; counts both."""
    account = hashlib.sha256(email.strip().lower().encode()).hexdigest()
    per_account = settings.PASSWORD_RESETS_PER_ACCOUNT_HOUR
    per_address = settings.PASSWORD_RESETS_PER_ADDRESS_HOUR
    by_account = _reset_counted(f"reset:account:{account}", per_account)
    by_address = _reset_counted(f"reset:address:{address}", per_address)
    return by_account and by_address


class ThrottledPasswordResetForm(PasswordResetForm):
    def save(self, *args, request=None, **kwargs) -> None:
        address = client_address(request) if request is not None else None
        if reset_allowed(email=self.cleaned_data["email"], address=address):
            super().save(*args, request=request, **kwargs)


class ThrottledPasswordResetView(views.PasswordResetView):
    form_class = ThrottledPasswordResetForm
