"""The dashboard's webhook page: register (the secret is shown once, on this answer only), send
a test delivery, read each webhook's delivery log, delete. Mounted by ``briefs.webhooks.urls``.
The rules (which URLs and addresses are accepted, how many per user) are those of the API:
``briefs.webhooks`` decides, this page only shows."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from briefs import selectors
from briefs.models import Webhook
from briefs.webhooks import (
    DESCRIPTION_MAX_LENGTH,
    URL_MAX_LENGTH,
    WebhookInvalid,
    webhook_create,
    webhook_delete,
)
from briefs.webhooks.address import private_addresses_allowed
from briefs.webhooks.ping import PingWaiting, webhook_ping


class WebhookForm(forms.Form):
    # Text, not URLField: ``briefs.webhooks`` is the one judge of a URL, for the API too.
    url = forms.CharField(
        label=gettext_lazy("Address (URL)"),
        max_length=URL_MAX_LENGTH,
        strip=False,
        widget=forms.URLInput(attrs={"placeholder": "https://example.org/hooks/rsshub-agent"}),
    )
    description = forms.CharField(
        label=gettext_lazy("Description"),
        max_length=DESCRIPTION_MAX_LENGTH,
        required=False,
    )


def _page(request: HttpRequest, form: WebhookForm, *, created: Webhook | None = None, status=200):
    context = {
        "form": form,
        "webhooks": selectors.webhooks_with_log(owner=request.user),
        "created": created,
        "private_allowed": private_addresses_allowed(),
    }
    response = render(request, "webhooks/webhooks.html", context, status=status)
    # The page may hold a signing secret: no cache may keep it.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def webhooks_page(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _page(request, WebhookForm())
    form = WebhookForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        webhook = webhook_create(
            owner=request.user,
            url=form.cleaned_data["url"],
            description=form.cleaned_data["description"],
        )
    except WebhookInvalid as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.reader_message())
        return _page(request, form, status=400)
    return _page(request, WebhookForm(), created=webhook)


@login_required
@require_POST
def webhook_ping_view(request: HttpRequest, webhook_id: int) -> HttpResponse:
    try:
        webhook_ping(owner=request.user, webhook_id=webhook_id)
    except Webhook.DoesNotExist:
        raise Http404("No such webhook.") from None
    except PingWaiting:
        messages.warning(request, _("A test delivery of this webhook is still on its way."))
    else:
        messages.info(
            request, _("A test delivery is on its way: reload to see its result in the log.")
        )
    return redirect(f"{reverse('webhooks')}#webhook-{webhook_id}")


@login_required
@require_POST
def webhook_delete_view(request: HttpRequest, webhook_id: int) -> HttpResponse:
    try:
        webhook_delete(owner=request.user, webhook_id=webhook_id)
    except Webhook.DoesNotExist:
        raise Http404("No such webhook.") from None
    messages.success(request, _("The webhook and its delivery log are deleted."))
    return redirect("webhooks")
