"""The dashboard's API token page: list, create (the secret is shown once, on this answer
only) and revoke. Mounted by ``briefs.tokens.urls``."""

from datetime import timedelta

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from briefs.models import ApiToken
from briefs.tokens.service import (
    NAME_MAX_LENGTH,
    TokenInvalid,
    token_issue,
    token_revoke,
    tokens_of,
)

LIFETIME_CHOICES = [(7, "7 days"), (30, "30 days"), (90, "90 days"), (365, "1 year")]


class TokenForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX_LENGTH)
    lifetime_days = forms.TypedChoiceField(choices=LIFETIME_CHOICES, coerce=int, initial=90)


def _page(request: HttpRequest, form: TokenForm, secret: str = "", status: int = 200):
    context = {"form": form, "tokens": tokens_of(request.user), "secret": secret}
    response = render(request, "tokens/tokens.html", context, status=status)
    # The page may hold a secret: no cache may keep it.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def tokens_page(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request, TokenForm())
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        issued = token_issue(
            user=request.user,
            name=form.cleaned_data["name"],
            lifetime=timedelta(days=form.cleaned_data["lifetime_days"]),
        )
    except TokenInvalid as exc:
        form.add_error("name" if exc.field == "name" else None, exc.reader_message())
        return _page(request, form, status=400)
    return _page(request, TokenForm(), secret=issued.secret)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token_revoke(user=request.user, token_id=token_id)
    except ApiToken.DoesNotExist:
        raise Http404("No such token.") from None
    return redirect("tokens")
