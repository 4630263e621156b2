"""Staff view of watches: filter by schedule, active and failing; each with its latest runs."""

from django.contrib import admin

from watches.models import Watch, WatchRun


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
    readonly_fields = ("last_run_at", "no_data_streak", "failing", "created_at", "updated_at")
    raw_id_fields = ("owner",)
    inlines = [WatchRunInline]
