"""Forms of the catalog's pages. They check shape only."""

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.health import HealthState


class RouteHealthFilterForm(forms.Form):
    state = forms.ChoiceField(
        label=_("State"),
        required=False,
        # Only tried routes are listed: none of them is unknown.
        choices=[
            ("", _("every state")),
            *((s, label) for s, label in HealthState.choices if s != HealthState.UNKNOWN),
        ],
    )
    q = forms.CharField(label=_("Platform or route"), required=False, max_length=200)
