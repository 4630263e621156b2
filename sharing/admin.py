"""Feed keys and share links in the admin: who has one and since when, never a whole secret."""

from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from sharing.models import BriefShare, FeedKey, secret_hint


@admin.display(description=_("secret"))
def secret_start(obj: FeedKey | BriefShare) -> str:
    return secret_hint(obj.secret)


@admin.register(FeedKey)
class FeedKeyAdmin(admin.ModelAdmin):
    list_display = ("owner", secret_start, "rotated_at")
    search_fields = ("owner__username",)
    fields = ("owner", secret_start, "rotated_at")
    readonly_fields = fields
    list_select_related = ("owner",)

    def has_add_permission(self, request) -> bool:
        return False  # keys are made by their owner's Feeds page, with a fresh secret


@admin.register(BriefShare)
class BriefShareAdmin(admin.ModelAdmin):
    list_display = ("brief", "owner", secret_start, "created_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("brief__question", "brief__owner__username")
    fields = ("brief", "owner", secret_start, "created_at", "revoked_at")
    readonly_fields = fields
    list_select_related = ("brief", "brief__owner")
    actions = ("revoke",)

    def has_add_permission(self, request) -> bool:
        return False

    @admin.display(description=_("owner"))
    def owner(self, obj: BriefShare) -> str:
        return obj.brief.owner.get_username()

    @admin.action(description=_("Revoke the selected share links"))
    def revoke(self, request, queryset) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        message = ngettext("%(count)d share link revoked.", "%(count)d share links revoked.", count)
        self.message_user(request, message % {"count": count})
