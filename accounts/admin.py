"""Invitations in the admin: staff make one (a note of whom it is for) and are shown its link
once; the list says which are open, used or expired. Profiles are shown, not edited here."""

from django.contrib import admin, messages
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.invitations import invitation_issue
from accounts.models import Invitation, Profile


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("__str__", "state", "created_by", "created_at", "expires_at", "used_by")
    list_select_related = ("created_by", "used_by")
    search_fields = ("note", "used_by__username")
    fields = ("note", "state", "created_by", "created_at", "expires_at", "used_at", "used_by")
    readonly_fields = ("state", "created_by", "created_at", "expires_at", "used_at", "used_by")

    def get_fields(self, request, obj=None):
        return ("note",) if obj is None else self.fields

    @admin.display(description=_("state"))
    def state(self, obj: Invitation) -> str:
        if obj.used_at is not None:
            return gettext("used")
        return gettext("open") if obj.expires_at > timezone.now() else gettext("expired")

    def save_model(self, request, obj: Invitation, form, change) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        secret = invitation_issue(invitation=obj, created_by=request.user)
        link = request.build_absolute_uri(reverse("invitation-accept", args=[secret]))
        expires = timezone.localtime(obj.expires_at).strftime("%Y-%m-%d %H:%M %Z")
        message = gettext(
            "Invitation link (shown only now; it works once, until %(expires)s): %(link)s"
        ) % {"link": link, "expires": expires}
        self.message_user(request, message, messages.SUCCESS)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "time_zone", "interface_language", "brief_language", "updated_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "updated_at")

    def has_add_permission(self, request) -> bool:
        return False  # made at the person's first sign-in
