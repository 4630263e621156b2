"""Staff curation of platforms and routes, and route health at a glance."""

from datetime import UTC

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import Q, QuerySet
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from catalog import services
from catalog.health import HealthState, health_condition
from catalog.models import CircuitChange, Platform, Route
from catalog.selectors import category_condition
from fetching.circuit import routes_failed_between
from fetching.services import route_probe

CATEGORY_CHOICES = [
    "university", "new-media", "social-media", "programming", "traditional-media", "multimedia",
    "government", "finance", "other", "game", "program-update", "blog", "bbs", "anime",
    "shopping", "picture", "study", "journal", "reading", "travel", "forecast", "design", "live",
    "sport",
]  # fmt: skip


class CategoryFilter(admin.SimpleListFilter):
    title = _("category")
    parameter_name = "category"

    def lookups(self, request, model_admin):
        return [(c, c) for c in CATEGORY_CHOICES]

    def queryset(self, request, queryset: QuerySet) -> QuerySet:
        if self.value() is None:
            return queryset
        return queryset.filter(category_condition(self.value()))


class HealthStateFilter(admin.SimpleListFilter):
    title = _("health state")
    parameter_name = "health"

    def lookups(self, request, model_admin):
        return HealthState.choices

    def queryset(self, request, queryset: QuerySet) -> QuerySet:
        state = self.value()
        if state not in HealthState.values:
            return queryset
        return queryset.filter(health_condition(state))


class AliasesField(forms.CharField):
    """A JSON list of aliases edited as comma- or line-separated text."""

    widget = forms.Textarea(attrs={"rows": 2, "cols": 60})

    def prepare_value(self, value):
        return ", ".join(value) if isinstance(value, list) else value

    def to_python(self, value) -> list[str]:
        text = super().to_python(value) or ""
        parts = [p.strip() for p in text.replace("\n", ",").split(",")]
        aliases = list(dict.fromkeys(p for p in parts if p))
        for alias in aliases:
            if len(alias) > 100:
                raise forms.ValidationError(_("An alias must be at most 100 characters."))
        return aliases


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


class PlatformForm(forms.ModelForm):
    aliases = AliasesField(required=False, help_text=_("Comma-separated, e.g. B站, 哔哩哔哩"))

    class Meta:
        model = Platform
        fields = ["enabled", "priority", "aliases", "note"]


class RouteInline(admin.TabularInline):
    model = Route
    fields = ["path", "name", "enabled", "priority", "circuit", "attempts", "successes"]
    readonly_fields = ["path", "name", "circuit", "attempts", "successes"]
    extra = 0
    can_delete = False
    show_change_link = True


class PlatformCategoryFilter(CategoryFilter):
    """Upstream gives few platforms categories of their own: also match their routes'."""

    def queryset(self, request, queryset: QuerySet) -> QuerySet:
        if self.value() is None:
            return queryset
        condition = category_condition(self.value())
        matching = Route.objects.filter(condition).values("platform_id")
        return queryset.filter(condition | Q(id__in=matching))


@admin.register(Platform)
class PlatformAdmin(admin.ModelAdmin):
    form = PlatformForm
    list_display = ["namespace", "name", "url", "lang", "enabled", "priority", "upstream_state"]
    list_filter = ["enabled", "lang", PlatformCategoryFilter, "upstream_state"]
    list_editable = ["enabled", "priority"]
    search_fields = ["namespace", "name", "url", "description", "aliases"]
    readonly_fields = [
        "namespace", "name", "url", "lang", "categories", "description", "translations",
        "upstream_state", "created_at", "updated_at",
    ]  # fmt: skip
    fieldsets = [
        (_("Curated"), {"fields": ["enabled", "priority", "aliases", "note"]}),
        (_("Upstream"), {"fields": readonly_fields}),
    ]
    inlines = [RouteInline]
    actions = ["enable", "disable"]

    @admin.action(description=_("Enable selected platforms"))
    def enable(self, request, queryset):
        count = queryset.update(enabled=True)
        message = ngettext("%(n)d platform enabled.", "%(n)d platforms enabled.", count)
        self.message_user(request, message % {"n": count})

    @admin.action(description=_("Disable selected platforms"))
    def disable(self, request, queryset):
        count = queryset.update(enabled=False)
        message = ngettext("%(n)d platform disabled.", "%(n)d platforms disabled.", count)
        self.message_user(request, message % {"n": count})


@admin.register(Route)
class RouteAdmin(admin.ModelAdmin):
    list_display = [
        "path", "name", "platform_link", "enabled", "priority", "health_badge", "success_rate_pct",
        "latency", "last_error_short", "last_success_at",
    ]  # fmt: skip
    list_filter = [
        "enabled", HealthStateFilter, "require_config", "require_browser", "anti_crawler", "nsfw",
        CategoryFilter, "upstream_state",
    ]  # fmt: skip
    list_select_related = ["platform"]
    search_fields = ["path", "name", "platform__namespace", "platform__name"]
    list_per_page = 50
    upstream = [
        "platform", "key", "name", "description", "example", "url", "parameters", "features",
        "categories", "radar", "translations", "view", "require_config", "config_variables",
        "require_browser", "anti_crawler", "nsfw", "import_disabled_reason", "upstream_state",
    ]  # fmt: skip
    health = [
        "attempts", "successes", "consecutive_failures", "latency_ms", "last_attempt_at",
        "last_success_at", "last_error_class", "last_error", "newest_item_at", "circuit",
        "circuit_open_until", "circuit_probe_at",
    ]  # fmt: skip
    readonly_fields = ["path", *upstream, *health, "created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["path"]}),
        (_("Curated"), {"fields": ["enabled", "priority", "note", "fresh_seconds"]}),
        (_("Health"), {"fields": health}),
        (_("Upstream"), {"fields": upstream, "classes": ["collapse"]}),
    ]
    actions = ["enable", "disable", "prefer", "reset_health", "reset_health_after_outage", "probe"]

    @admin.display(description=_("platform"), ordering="platform__namespace")
    def platform_link(self, route: Route) -> str:
        return route.platform.namespace

    class Media:
        # The health colours: a class, not a style attribute (the CSP allows no inline style).
        css = {"all": ["catalog/admin.css"]}

    @admin.display(description=_("health"))
    def health_badge(self, route: Route) -> str:
        state = route.health_state
        return format_html('<b class="health-badge health-{}">{}</b>', state, state)

    @admin.display(description=_("success"), ordering="successes")
    def success_rate_pct(self, route: Route) -> str:
        rate = route.success_rate
        return "-" if rate is None else f"{rate:.0%}"

    @admin.display(description=_("latency"), ordering="latency_ms")
    def latency(self, route: Route) -> str:
        return "-" if route.latency_ms is None else f"{route.latency_ms:.0f} ms"

    @admin.display(description=_("last error"))
    def last_error_short(self, route: Route) -> str:
        if not route.last_error_class:
            return ""
        return f"{route.last_error_class}: {route.last_error[:60]}"

    @admin.action(description=_("Enable selected routes"))
    def enable(self, request, queryset):
        count = services.routes_set_enabled(
            route_ids=queryset.values_list("id", flat=True), enabled=True
        )
        message = ngettext("%(n)d route enabled.", "%(n)d routes enabled.", count)
        self.message_user(request, message % {"n": count})

    @admin.action(description=_("Disable selected routes"))
    def disable(self, request, queryset):
        ids = queryset.values_list("id", flat=True)
        count = services.routes_set_enabled(route_ids=ids, enabled=False)
        message = ngettext("%(n)d route disabled.", "%(n)d routes disabled.", count)
        self.message_user(request, message % {"n": count})

    @admin.action(description=_("Prefer selected routes"))
    def prefer(self, request, queryset):
        count = services.routes_prefer(route_ids=queryset.values_list("id", flat=True))
        message = ngettext("%(n)d route preferred.", "%(n)d routes preferred.", count)
        self.message_user(request, message % {"n": count})

    @admin.action(description=_("Reset health of selected routes"))
    def reset_health(self, request, queryset):
        count = services.routes_health_reset(route_ids=queryset.values_list("id", flat=True))
        message = ngettext("Health reset on %(n)d route.", "Health reset on %(n)d routes.", count)
        self.message_user(request, message % {"n": count})

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
        count = services.routes_health_reset(route_ids=ids, reason=f"outage repair: {span}")
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


@admin.register(CircuitChange)
class CircuitChangeAdmin(admin.ModelAdmin):
    list_display = ["created_at", "route", "from_state", "to_state", "reason", "open_until"]
    list_filter = ["to_state"]
    list_select_related = ["route"]
    search_fields = ["route__path"]
    readonly_fields = [f.name for f in CircuitChange._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
