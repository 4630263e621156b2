"""Forms of the account pages. Passwords go through Django's validators
(``AUTH_PASSWORD_VALIDATORS``) by way of its own ``UserCreationForm``."""

from __future__ import annotations

import zoneinfo

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.signin import password_confirmed
from briefs.language import BRIEF_LANGUAGE_CHOICES, LANGUAGE_CHOICES


class InvitationAcceptForm(UserCreationForm):
    """A name and a password (twice) for the invited person's new account."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email"), help_text=_("The link that opens your account goes here.")
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


def zone_choices() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in sorted(zoneinfo.available_timezones())]


class ProfileForm(forms.Form):
    email = forms.EmailField(
        label=_("Email"), required=False, help_text=_("Watches send their news here.")
    )
    time_zone = forms.ChoiceField(
        label=_("Time zone"), help_text=_("Times on every page are shown in it.")
    )
    interface_language = forms.ChoiceField(
        label=_("Interface language"),
        choices=LANGUAGE_CHOICES,
    )
    brief_language = forms.ChoiceField(
        label=_("Language of briefs"),
        required=False,
        help_text=_("Used when the question form leaves the brief's language blank."),
        choices=BRIEF_LANGUAGE_CHOICES,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = zone_choices()


class AccountDeleteForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, request, **kwargs):
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not password_confirmed(self.request, self.request.user, password):
            raise forms.ValidationError(_("That is not your password."), code="password_incorrect")
        return password
