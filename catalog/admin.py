"""Staff curation of platforms and routes, and route health at a glance (the route admin is
registered by ``fetching/admin.py``, with the actions that need the fetcher)."""

from django import forms
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import CHANGE, LogEntry
from django.db.models import Q, QuerySet
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from catalog import services
from catalog.health import HealthState, health_condition
from catalog.models import CircuitChange, Platform, Route
from catalog.path_breaks import path_with_breaks
from catalog.selectors import category_condition

# RSSHub's categories, named as its own site names them in each language.
CATEGORY_CHOICES = {
    "university": _("universities"), "new-media": _("new media"),
    "social-media": _("social media"), "programming": _("programming"),
    "traditional-media": _("traditional media"), "multimedia": _("multimedia"),
    "government": _("government"), "finance": _("finance"), "other": _("other"),
    "game": _("games"), "program-update": _("program updates"), "blog": _("blogs"),
    "bbs": _("forums"), "anime": _("anime"), "shopping": _("shopping"),
    "picture": _("pictures"), "study": _("study"), "journal": _("journals"),
    "reading": _("reading"), "travel": _("travel"), "forecast": _("forecasts"),
    "design": _("design"), "live": _("live streams"), "sport": _("sport"),
}  # fmt: skip


class CategoryFilter(admin.SimpleListFilter):
    title = _("category")
    parameter_name = "category"

    def lookups(self, request, model_admin):
        return list(CATEGORY_CHOICES.items())

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


class DisableNoteForm(forms.Form):
    """Why staff disable: one line, kept on each row's note and in the admin log."""

    note = forms.CharField(
        label=_("Why are they disabled?"),
        max_length=services.DISABLE_NOTE_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Required. Kept on each one's note with today's date and your name."),
    )

    def clean_note(self) -> str:
        note = " ".join(self.cleaned_data["note"].split())
        if not note:
            raise forms.ValidationError(_("Say why they are disabled."))
        if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in note):
            raise forms.ValidationError(_("The note cannot hold control characters."))
        return note


class DisableWithNote:
    """The "disable" action of an admin: a confirmation page asks for the note first."""

    disabled_message: tuple[str, str]  # ngettext's singular and plural, with %(n)d

    def disable(self, request, queryset):
        form = DisableNoteForm(request.POST if "apply" in request.POST else None)
        if not form.is_valid():
            return self._disable_confirm(request, queryset, form)
        note = form.cleaned_data["note"]
        ids = list(queryset.values_list("id", flat=True))
        count = services.curation_disable(
            model=self.model, ids=ids, note=note, username=request.user.get_username()
        )
        LogEntry.objects.log_actions(
            request.user.pk,
            self.model.objects.filter(id__in=ids),
            CHANGE,
            change_message=f"disabled: {note}",
        )
        self.message_user(request, ngettext(*self.disabled_message, count) % {"n": count})
        return None

    def _disable_confirm(self, request, queryset, form: DisableNoteForm) -> TemplateResponse:
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "title": _("Disable %(things)s") % {"things": opts.verbose_name_plural},
            "opts": opts,
            "form": form,
            "objects": list(queryset[:DISABLE_SHOWN]),
            "selected": queryset.count(),
            "select_across": request.POST.get("select_across") == "1",
            "selected_ids": request.POST.getlist(ACTION_CHECKBOX_NAME),
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/catalog/disable_confirm.html", context)


DISABLE_SHOWN = 20  # the confirmation page lists this many of the selected, then a count


class PlatformForm(forms.ModelForm):
    # The example is names as people write them, in their own language on every page.
    aliases = AliasesField(
        required=False,
        help_text=format_lazy(
            "{} {}",
            _("Comma-separated, e.g."),
            mark_safe('<span lang="zh-Hans" translate="no">B站, 哔哩哔哩</span>'),
        ),
    )

    class Meta:
        model = Platform
        fields = ["enabled", "priority", "aliases", "note"]


class RowFieldsLabelled:
    """Fields repeated on every row (``list_editable``, tabular inlines) have only a column
    heading, which is no label: each widget is named by its field for screen readers."""

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if field is not None:
            field.widget.attrs.setdefault("aria-label", capfirst(db_field.verbose_name))
        return field


class BlankNamedValuesFilter(admin.AllValuesFieldListFilter):
    """Django's filter by each value of a field, with the empty value named: its link would
    have no text at all."""

    def choices(self, changelist):
        for choice in super().choices(changelist):
            yield choice if choice["display"] != "" else {**choice, "display": _("(none)")}


class RouteInline(RowFieldsLabelled, admin.TabularInline):
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
class PlatformAdmin(RowFieldsLabelled, DisableWithNote, admin.ModelAdmin):
    form = PlatformForm
    list_display = ["namespace", "name", "url", "lang", "enabled", "priority", "upstream_state"]
    list_filter = [
        "enabled", ("lang", BlankNamedValuesFilter), PlatformCategoryFilter, "upstream_state",
    ]  # fmt: skip
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

    disabled_message = ("%(n)d platform disabled.", "%(n)d platforms disabled.")

    @admin.action(description=_("Disable selected platforms"))
    def disable(self, request, queryset):
        return super().disable(request, queryset)


class RouteAdmin(DisableWithNote, admin.ModelAdmin):
    """Routes as staff curate them. Registered by fetching (``fetching/admin.py``), which adds
    the actions that fetch or read attempts: probe, and reset after an outage."""

    # Fits 1366 px without scrolling sideways: the name under the path, the success rate and
    # latency under the health state.
    list_display = [
        "path_and_name", "platform_link", "enabled", "priority", "state", "last_error_short",
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
    actions = ["enable", "disable", "prefer", "reset_health"]

    @admin.display(description=_("platform"), ordering="platform__namespace")
    def platform_link(self, route: Route) -> str:
        return route.platform.namespace

    class Media:
        # The health colours: a class, not a style attribute (the CSP allows no inline style).
        css = {"all": ["catalog/admin.css"]}

    @admin.display(description=_("path"), ordering="path")
    def path_and_name(self, route: Route) -> str:
        return format_html(
            '<span class="route-path">{}</span><br><span class="route-name">{}</span>',
            path_with_breaks(route.path),
            route.name,
        )

    @admin.display(description=_("health"), ordering="consecutive_failures")
    def state(self, route: Route) -> str:
        rate = route.success_rate
        ms = route.latency_ms
        latency = "-" if ms is None else gettext("%(ms)s ms") % {"ms": f"{ms:.0f}"}
        return format_html(
            '<b class="health-badge health-{}">{}</b><br>'
            '<span class="route-numbers">{} · {}</span>',
            route.health_state,
            HealthState(route.health_state).label,
            "-" if rate is None else f"{rate:.0%}",
            latency,
        )

    @admin.display(description=_("last error"))
    def last_error_short(self, route: Route) -> str:
        if not route.last_error_class:
            return ""
        return format_html(
            '<span class="route-error">{}: {}</span>',
            route.last_error_class,
            route.last_error[:60],
        )

    @admin.action(description=_("Enable selected routes"))
    def enable(self, request, queryset):
        count = services.routes_set_enabled(
            route_ids=queryset.values_list("id", flat=True), enabled=True
        )
        message = ngettext("%(n)d route enabled.", "%(n)d routes enabled.", count)
        self.message_user(request, message % {"n": count})

    disabled_message = ("%(n)d route disabled.", "%(n)d routes disabled.")

    @admin.action(description=_("Disable selected routes"))
    def disable(self, request, queryset):
        return super().disable(request, queryset)

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


@admin.register(CircuitChange)
class CircuitChangeAdmin(admin.ModelAdmin):
    list_display = ["created_at", "route", "from_state", "to_state", "reason", "open_until"]
    list_filter = ["to_state"]
    list_select_related = ["route"]
    search_fields = ["route__path"]
    readonly_fields = [f.name for f in CircuitChange._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False
