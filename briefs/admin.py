"""Staff's limits per user or group (``briefs.quotas`` reads them; a blank field keeps the
setting)."""

from django.contrib import admin

from briefs.models import UsageLimits


@admin.register(UsageLimits)
class UsageLimitsAdmin(admin.ModelAdmin):
    list_display = ("__str__", "briefs_per_day", "briefs_per_minute", "forced_refreshes_per_hour")
    autocomplete_fields = ("user", "group")
    search_fields = ("user__username", "group__name")
