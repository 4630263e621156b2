"""The dashboard's watch form. It checks shape only: ``watches.services`` decides what is valid
(and names the field, which the view puts back on the form)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.search import MAX_QUESTION_CHARS
from watches.models import Schedule, Watch, Weekday
from watches.schedules import WEEKLY, ZONE_NAME_MAX_LENGTH

SERVICE_FIELDS = {"time": "time_of_day"}  # a service's field name -> the form's


class WatchForm(forms.Form):
    question = forms.CharField(
        label=_("Question"),
        max_length=MAX_QUESTION_CHARS,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": _("e.g. new nginx tags")}),
    )
    schedule = forms.ChoiceField(label=_("Runs"), choices=Schedule.choices)
    time_of_day = forms.TimeField(
        label=_("At"),
        help_text=_("Hourly watches run at this minute of every hour."),
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    weekday = forms.TypedChoiceField(
        label=_("On"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=Weekday.choices,
        help_text=_("Weekly watches only."),
    )
    timezone = forms.CharField(
        label=_("Time zone"),
        max_length=ZONE_NAME_MAX_LENGTH,
        widget=forms.TextInput(attrs={"list": "zone-names", "autocomplete": "off"}),
    )
    offline = forms.BooleanField(label=_("Answer without a model (offline)"), required=False)
    notify_email = forms.BooleanField(label=_("Email me the briefs"), required=False)
    notify_only_new = forms.BooleanField(
        label=_("Only when something is new"), required=False, initial=True
    )

    def changes(self) -> dict:
        """The cleaned values as ``watches.services`` takes them."""
        data = dict(self.cleaned_data)
        data["time"] = data.pop("time_of_day")
        if data["schedule"] != WEEKLY:
            data["weekday"] = None
        return data

    def field_error(self, field: str, message: str) -> None:
        name = SERVICE_FIELDS.get(field, field)
        self.add_error(name if name in self.fields else None, message)

    @classmethod
    def initial_of(cls, watch: Watch) -> dict:
        return {
            "question": watch.question,
            "schedule": watch.schedule,
            "time_of_day": watch.time_of_day,
            "weekday": watch.weekday or Weekday.MONDAY,
            "timezone": watch.timezone,
            "offline": watch.offline,
            "notify_email": watch.notify_email,
            "notify_only_new": watch.notify_only_new,
        }
