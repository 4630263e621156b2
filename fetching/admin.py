"""Read-only views of what fetching stored: attempts, feeds and items (for staff to look at),
and one action: fetch selected feeds anew, whatever their freshness window says. The catalog's
route admin, registered here with the actions that need the fetcher: probe selected routes, and
reset the health of those that failed in an outage. The RSSHub
instances are the staff's to curate; their access keys are never shown back."""

from datetime import UTC

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from catalog import admin as catalog_admin
from catalog import services as catalog_services
from catalog.health import CIRCUIT_REASON_OUTAGE_REPAIR
from catalog.models import Route
from fetching.circuit import routes_failed_between
from fetching.instance_url import InstanceURLRefused, instance_url_clean
from fetching.instances import instance_save_by_staff, instances_read
from fetching.models import (
    SUCCESS_OUTCOMES,
    Feed,
    FetchAttempt,
    Item,
    ItemTranslation,
    RSSHubInstance,
)
from fetching.reachability import instances_reachability
from fetching.services import fetch_paths_sync, route_probe

FETCH_NOW_LIMIT = 20  # feeds per action: each is a request RSSHub answers while staff wait


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by fetching only: staff may look, never edit (delete is pruning's job)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(FetchAttempt)
class FetchAttemptAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at", "path", "outcome", "transient", "http_status", "latency_ms", "items_new",
        "items_seen", "instance", "brief_id",
    ]  # fmt: skip
    list_filter = ["outcome", "transient", "instance"]
    list_select_related = ["route", "feed", "instance"]
    search_fields = ["path", "message"]
    date_hierarchy = "created_at"
    raw_id_fields = ["route", "feed", "instance"]
    show_full_result_count = False  # counting millions of attempts per page view is waste


@admin.register(Feed)
class FeedAdmin(ReadOnlyAdmin):
    list_display = ["path", "title", "route", "last_fetched_at", "created_at"]
    list_select_related = ["route"]
    search_fields = ["path", "title"]
    raw_id_fields = ["route"]
    actions = ["fetch_now"]

    @admin.action(description=_("Fetch selected feeds now (ignoring the freshness window)"))
    def fetch_now(self, request, queryset):
        paths = list(queryset.order_by("path").values_list("path", flat=True)[:FETCH_NOW_LIMIT])
        for result in fetch_paths_sync(paths, refresh=True):
            ok = result.outcome in SUCCESS_OUTCOMES
            count = len(result.item_ids)
            detail = ngettext("%(n)d item", "%(n)d items", count) % {"n": count}
            self.message_user(
                request,
                f"{result.path}: {result.outcome} ({detail if ok else result.message})",
                messages.SUCCESS if ok else messages.WARNING,
            )


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ["title", "feed", "published_at", "first_seen_at", "link_short"]
    list_select_related = ["feed"]
    search_fields = ["title", "link", "guid"]
    date_hierarchy = "first_seen_at"
    raw_id_fields = ["feed"]
    show_full_result_count = False

    @admin.display(description=_("link"))
    def link_short(self, item: Item) -> str:
        return item.link[:80]


@admin.register(ItemTranslation)
class ItemTranslationAdmin(ReadOnlyAdmin):
    """What the model wrote for items' titles in another language (``agent.translate``)."""

    list_display = ["title", "language", "item", "created_at"]
    list_filter = ["language"]
    list_select_related = ["item"]
    search_fields = ["title", "item__title"]
    raw_id_fields = ["item"]
    show_full_result_count = False


class RSSHubInstanceForm(forms.ModelForm):
    """The access key is never shown back: a field to replace it, a box to remove it."""

    new_access_key = forms.CharField(
        label=_("New access key"),
        required=False,
        max_length=500,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text=_("RSSHub's ACCESS_KEY. Replaces the stored key; leave empty to keep it."),
    )
    clear_access_key = forms.BooleanField(label=_("Remove the stored key"), required=False)

    class Meta:
        model = RSSHubInstance
        fields = ["name", "base_url", "priority", "enabled", "notes"]

    def clean_base_url(self) -> str:
        try:
            return instance_url_clean(self.cleaned_data["base_url"])
        except InstanceURLRefused as exc:
            raise forms.ValidationError(str(exc)) from None


@admin.register(RSSHubInstance)
class RSSHubInstanceAdmin(admin.ModelAdmin):
    """Staff curate the instances; health is read-only, written by every fetch."""

    form = RSSHubInstanceForm
    list_display = [
        "label", "host", "enabled", "priority", "reachable", "circuit", "latency",
        "consecutive_failures", "key_set", "from_environment",
    ]  # fmt: skip
    list_filter = ["enabled", "circuit", "from_environment"]
    search_fields = ["name", "base_url", "notes"]
    readonly_fields = [
        "key_set", "from_environment", "reachable", "reachability_checked_at", "circuit",
        "circuit_open_until", "attempts", "successes", "consecutive_failures", "latency",
        "last_success_at", "last_error_class", "last_error", "catalog_read_at", "namespaces",
    ]  # fmt: skip
    fieldsets = [
        (None, {"fields": ["name", "base_url", "priority", "enabled", "notes"]}),
        (_("Access key"), {"fields": ["key_set", "new_access_key", "clear_access_key"]}),
        (_("Health"), {"fields": readonly_fields[2:-2]}),
        (_("Catalog"), {"fields": ["catalog_read_at", "namespaces", "from_environment"]}),
    ]
    actions = ["probe_now"]

    def changelist_view(self, request, extra_context=None):
        instances_read()  # the environment's seeds show before the first fetch
        return super().changelist_view(request, extra_context)

    def save_model(self, request, obj, form, change) -> None:
        instance_save_by_staff(
            obj,
            new_key=form.cleaned_data.get("new_access_key", ""),
            clear_key=form.cleaned_data.get("clear_access_key", False),
        )

    @admin.display(description=_("key set"), boolean=True)
    def key_set(self, instance: RSSHubInstance) -> bool:
        return bool(instance.access_key)

    @admin.display(description=_("latency"))
    def latency(self, instance: RSSHubInstance) -> str:
        return f"{instance.latency_ms:.0f} ms" if instance.latency_ms is not None else "—"

    @admin.display(description=_("namespaces served"))
    def namespaces(self, instance: RSSHubInstance) -> str:
        if instance.catalog_read_at is None:
            return gettext("not read yet: every namespace is sent to it")
        return str(instance.platforms.count())

    @admin.action(description=_("Check reachability now (/healthz)"))
    def probe_now(self, request, queryset):
        wanted = set(queryset.values_list("pk", flat=True))
        for status in instances_reachability():
            if status.id in wanted:
                level = messages.SUCCESS if status.ok else messages.WARNING
                self.message_user(request, f"{status.name} ({status.host}): {status.detail}", level)


class OutageRangeForm(forms.Form):
    """The time range of an outage whose failures staff want forgotten."""

    start = forms.DateTimeField(
        label=_("From"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    end = forms.DateTimeField(
        label=_("To"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )

    def clean(self) -> dict:
        data = super().clean()
        start, end = data.get("start"), data.get("end")
        if start and end and end <= start:
            raise forms.ValidationError(_("The end of the range must be after its start."))
        if start and start > timezone.now():
            raise forms.ValidationError(_("The range must start in the past."))
        return data


@admin.register(Route)
class RouteAdmin(catalog_admin.RouteAdmin):
    actions = [*catalog_admin.RouteAdmin.actions, "reset_health_after_outage", "probe"]

    @admin.action(description=_("Reset health of selected routes that failed during an outage"))
    def reset_health_after_outage(self, request, queryset):
        """For outages from before the egress guard: staff choose the time range, and the
        routes among the selected that failed in it get their health reset."""
        form = OutageRangeForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return self._outage_form(request, queryset, form)
        start, end = form.cleaned_data["start"], form.cleaned_data["end"]
        ids = routes_failed_between(
            start=start, end=end, route_ids=queryset.values_list("id", flat=True)
        )
        span = f"{start.astimezone(UTC):%Y-%m-%d %H:%M} to {end.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
        count = catalog_services.routes_health_reset(
            route_ids=ids, reason=f"{CIRCUIT_REASON_OUTAGE_REPAIR}: {span}"
        )
        message = ngettext(
            "Health reset on %(count)d route that failed from %(span)s.",
            "Health reset on %(count)d routes that failed from %(span)s.",
            count,
        )
        self.message_user(request, message % {"count": count, "span": span})
        return None

    def _outage_form(self, request, queryset, form: OutageRangeForm) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": _("Reset health after an outage"),
            "opts": self.model._meta,
            "form": form,
            "selected": queryset.count(),
            "select_across": request.POST.get("select_across") == "1",
            "selected_ids": request.POST.getlist(ACTION_CHECKBOX_NAME),
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/catalog/route/reset_after_outage.html", context)

    @admin.action(description=_("Probe selected routes (fetch their example path)"))
    def probe(self, request, queryset):
        for route in queryset[:10]:
            result = route_probe(route)
            level = (
                messages.SUCCESS if result.outcome in ("ok", "not_modified") else messages.WARNING
            )
            detail = (
                f"{result.items_new + result.items_seen} items"
                if level == messages.SUCCESS
                else result.message
            )
            self.message_user(
                request, f"{route.example or route.path}: {result.outcome} ({detail})", level
            )
