"""Account pages: sign-in, taking an invitation, signing up (when open), the profile, the
export, and deleting the account. Thin: the work is in ``accounts.invitations``, ``signup``,
``preferences``, ``export`` and ``removal``.

Pages whose URL holds a secret (an invitation, a verification link) are not cached, and send
their address in a Referer header to this site only (the site's ``same-origin`` policy).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts import invitations, signup
from accounts.export import account_export, export_filename
from accounts.forms import AccountDeleteForm, InvitationAcceptForm, ProfileForm, SignUpForm
from accounts.lockout import client_address
from accounts.preferences import (
    browser_zone,
    preferences_apply,
    preferences_on_sign_in,
    profile_of,
    profile_update,
)
from accounts.removal import account_delete
from accounts.signin import SignInView, reset_allowed

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


class AccountSignInView(SignInView):
    """Sign-in (with its limit), which also brings the person's profile to the browser, and
    offers sign-up when it is open."""

    def form_valid(self, form):
        response = super().form_valid(form)
        preferences_on_sign_in(self.request, response, form.get_user())
        return response

    def get_context_data(self, **kwargs) -> dict:
        return {**super().get_context_data(**kwargs), "signup_open": settings.SIGNUP_OPEN}


def _secret_page(response: HttpResponse) -> HttpResponse:
    """Not cached. The site's ``Referrer-Policy: same-origin`` already keeps the address from
    other sites; ``no-referrer`` would make the browser send ``Origin: null`` with the page's
    own form, which the CSRF check refuses."""
    response["Cache-Control"] = "private, no-store"
    return response


def _signed_in(request: HttpRequest, user) -> HttpResponse:
    login(request, user, backend=MODEL_BACKEND)
    response = redirect("profile")
    preferences_on_sign_in(request, response, user)
    return response


@require_http_methods(["GET", "POST"])
def invitation_accept(request: HttpRequest, secret: str) -> HttpResponse:
    """The invited person picks a name and password, and is signed in. A link that is not an
    open invitation (unknown, used, expired) is one page, status 404, whichever it is."""
    try:
        invitations.invitation_open(secret)
    except invitations.InvitationClosed:
        return _secret_page(render(request, "accounts/invitation_closed.html", status=404))
    form = InvitationAcceptForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            user = invitations.invitation_accept(
                secret=secret,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
            )
        except invitations.InvitationClosed:
            return _secret_page(render(request, "accounts/invitation_closed.html", status=404))
        return _secret_page(_signed_in(request, user))
    status = 400 if form.errors else 200
    page = render(request, "accounts/invitation.html", {"form": form}, status=status)
    return _secret_page(page)


@require_http_methods(["GET", "POST"])
def signup_page(request: HttpRequest) -> HttpResponse:
    """Anyone makes an account, inactive until its email is verified; 404 unless SIGNUP_OPEN."""
    if not settings.SIGNUP_OPEN:
        raise Http404("Sign-up is closed.")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if form.is_valid() and not reset_allowed(
        email=form.cleaned_data["email"], address=client_address(request)
    ):
        # The same budget as password resets: emails per address asked for, and per client.
        form.add_error(None, _("Too many emails asked for from here; try again in an hour."))
        return render(request, "accounts/signup.html", {"form": form}, status=429)
    if form.is_valid():
        with transaction.atomic():  # an account whose email could not be sent is not kept
            user = signup.signup_create(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
            )
            signup.verification_email_send(user=user, site_url=request.build_absolute_uri("/"))
        return render(request, "accounts/signup_sent.html", {"email": user.email})
    status = 400 if form.errors else 200
    return render(request, "accounts/signup.html", {"form": form}, status=status)


@require_http_methods(["GET", "POST"])
def signup_verify(request: HttpRequest, token: str) -> HttpResponse:
    """GET asks to confirm (a mail scanner that opens the link activates nothing); POST
    activates the account and signs its owner in."""
    if not settings.SIGNUP_OPEN:
        raise Http404("Sign-up is closed.")
    if request.method == "GET":
        return _secret_page(render(request, "accounts/signup_verify.html"))
    try:
        user = signup.signup_verify(token)
    except signup.VerificationRefused:
        return _secret_page(render(request, "accounts/signup_refused.html", status=404))
    return _secret_page(_signed_in(request, user))


@login_required
@require_http_methods(["GET", "POST"])
def profile_page(request: HttpRequest) -> HttpResponse:
    """The zone, languages and email; the browser's zone is the suggestion until one is saved."""
    profile = profile_of(request.user, request)
    initial = {
        "email": request.user.email,
        "time_zone": profile.time_zone or browser_zone(request) or settings.TIME_ZONE,
        "interface_language": profile.interface_language or request.LANGUAGE_CODE,
        "brief_language": profile.brief_language,
    }
    form = ProfileForm(request.POST if request.method == "POST" else None, initial=initial)
    if form.is_valid():
        data = form.cleaned_data
        profile = profile_update(
            profile,
            email=data["email"],
            time_zone=data["time_zone"],
            interface_language=data["interface_language"],
            brief_language=data["brief_language"],
        )
        response = redirect("profile")
        preferences_apply(request, response, profile)
        messages.success(request, _("Your profile is saved."))
        return response
    status = 400 if form.errors else 200
    return render(request, "accounts/profile.html", {"form": form}, status=status)


@login_required
@require_POST
def export_download(request: HttpRequest) -> HttpResponse:
    """The zip of the user's briefs and watches."""
    response = HttpResponse(account_export(user=request.user, request=request),
                            content_type="application/zip")  # fmt: skip
    response["Content-Disposition"] = f'attachment; filename="{export_filename(request.user)}"'
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def account_delete_page(request: HttpRequest) -> HttpResponse:
    """Asks for the password; with it, deletes everything of the account and signs out."""
    form = AccountDeleteForm(request.POST if request.method == "POST" else None, request=request)
    if form.is_valid():
        account_delete(user=request.user)
        logout(request)
        messages.success(request, _("Your account and everything in it are deleted."))
        return redirect("login")
    status = 400 if form.errors else 200
    return render(request, "accounts/delete.html", {"form": form}, status=status)
