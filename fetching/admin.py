"""Read-only views of what fetching stored: attempts, feeds and items (for staff to look at),
and one action: fetch selected feeds anew, whatever their freshness window says."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from fetching.models import SUCCESS_OUTCOMES, Feed, FetchAttempt, Item
from fetching.services import fetch_paths_sync

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
        "items_seen", "brief_id",
    ]  # fmt: skip
    list_filter = ["outcome", "transient"]
    list_select_related = ["route", "feed"]
    search_fields = ["path", "message"]
    date_hierarchy = "created_at"
    raw_id_fields = ["route", "feed"]
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
