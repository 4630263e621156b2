"""Staff view of watches: filter by schedule, active and failing; each with its latest runs.
Never a secret: of the feed address only its first characters (as feed keys and share links),
of the unsubscribe links nothing."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from sharing.models import secret_hint
from watches.models import Watch, WatchDigest, WatchRun


class WatchRunInline(admin.TabularInline):
    model = WatchRun
    fields = ("brief", "due_at", "created_at", "settled_at", "emailed_at", "read_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False
    ordering = ("-created_at",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("brief")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Watch)
class WatchAdmin(admin.ModelAdmin):
    list_display = (
        "question", "owner", "schedule", "time_of_day", "weekday", "timezone", "active",
        "failing", "no_data_streak", "last_run_at", "next_run_at",
    )  # fmt: skip
    list_filter = ("schedule", "active", "failing", "offline", "notify_email")
    search_fields = ("question", "owner__username")
    list_select_related = ("owner",)
    # Named, not "all but": a field added to the model later stays out until it is judged safe.
    fields = (
        "owner", "question", "schedule", "time_of_day", "weekday", "timezone", "active",
        "offline", "notify_email", "notify_only_new", "next_run_at", "last_run_at",
        "no_data_streak", "failing", "skipped_at", "skip_reason", "feed_start", "created_at",
        "updated_at",
    )  # fmt: skip
    readonly_fields = (
        "last_run_at", "no_data_streak", "failing", "skipped_at", "skip_reason", "feed_start",
        "created_at", "updated_at",
    )  # fmt: skip
    raw_id_fields = ("owner",)
    inlines = [WatchRunInline]

    @admin.display(description=_("feed secret"))
    def feed_start(self, obj: Watch) -> str:
        return secret_hint(obj.feed_hint) if obj.feed_digest else "—"


@admin.register(WatchDigest)
class WatchDigestAdmin(admin.ModelAdmin):
    """Who gets a digest and how far the last one reached; chosen by each person, not here."""

    list_display = ("owner", "frequency", "covered_until", "updated_at")
    list_filter = ("frequency",)
    search_fields = ("owner__username",)
    list_select_related = ("owner",)
    readonly_fields = ("owner", "frequency", "covered_until", "updated_at")

    def has_add_permission(self, request) -> bool:
        return False
