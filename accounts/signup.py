"""Self sign-up, when ``SIGNUP_OPEN`` allows it: an inactive account and a link to its email.

The link carries a signed token (``django.core.signing``, salted for this use) naming the
account and the address it was sent to; it is good for ``SIGNUP_VERIFY_HOURS``. Opening it
activates the account only while it is inactive and has never signed in, by a conditional
update: a second opening, or one after staff deactivated the account, activates nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core import signing
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse

SIGNUP_SALT = "accounts.signup.verify"


class VerificationRefused(Exception):
    """The link is bad, expired, or was used already."""


def signup_create(*, username: str, email: str, password: str) -> AbstractBaseUser:
    """A new inactive account; it signs in once its email is verified."""
    return get_user_model().objects.create_user(
        username=username, email=email, password=password, is_active=False
    )


def verification_token(user: AbstractBaseUser) -> str:
    return signing.dumps({"u": user.pk, "e": user.email}, salt=SIGNUP_SALT, compress=True)


def verification_email_send(*, user: AbstractBaseUser, site_url: str) -> None:
    """The email with the link that activates ``user``'s account, in the active language."""
    link = site_url.rstrip("/") + reverse("signup-verify", args=[verification_token(user)])
    context = {"user": user, "link": link, "hours": settings.SIGNUP_VERIFY_HOURS}
    subject = render_to_string("accounts/email/verify_subject.txt", context).strip()
    body = render_to_string("accounts/email/verify_body.txt", context)
    EmailMessage(subject=subject, body=body, to=[user.email]).send()


def signup_verify(token: str) -> AbstractBaseUser:
    """The account ``token`` activated now; ``VerificationRefused`` for anything else."""
    try:
        claim = signing.loads(token, salt=SIGNUP_SALT, max_age=settings.SIGNUP_VERIFY_HOURS * 3600)
    except signing.BadSignature:  # SignatureExpired is one
        raise VerificationRefused from None
    if not isinstance(claim, dict) or not isinstance(claim.get("u"), int):
        raise VerificationRefused
    users = get_user_model().objects.filter(
        pk=claim["u"], email=claim.get("e"), is_active=False, last_login__isnull=True
    )
    if users.update(is_active=True) != 1:
        raise VerificationRefused
    return get_user_model().objects.get(pk=claim["u"])
