"""The dashboard's watch form. It checks shape only: ``watches.services`` decides what is valid
(and names the field, which the view puts back on the form).

Which fields count depends on the schedule (``SCHEDULE_FIELDS``): the time of day for daily and
weekly watches, the minute for hourly ones, the weekday for weekly ones. The page shows only
those (``static/dashboard/dashboard.js``, from each field's ``data-schedules``); the others are
dropped from the submitted data before validation, so a value left in a hidden field, or forged,
can neither fail the form nor reach the watch.
"""

from datetime import time

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.search import MAX_QUESTION_CHARS
from watches.models import DigestFrequency, Schedule, Watch, Weekday
from watches.schedules import DAILY, HOURLY, WEEKLY, ZONE_NAME_MAX_LENGTH

SERVICE_FIELDS = {"time": "time_of_day"}  # a service's field name -> the form's
# The schedule-dependent fields, and the schedules each one counts for.
SCHEDULE_FIELDS = {
    "time_of_day": (DAILY, WEEKLY),
    "minute": (HOURLY,),
    "weekday": (WEEKLY,),
}


def fields_ignored(schedule: object) -> list[str]:
    """The schedule-dependent fields that do not count for ``schedule`` (all of them for an
    unknown one: the schedule's own error is the one to show)."""
    return [name for name, schedules in SCHEDULE_FIELDS.items() if schedule not in schedules]


class WatchForm(forms.Form):
    question = forms.CharField(
        label=_("Question"),
        max_length=MAX_QUESTION_CHARS,
        # an example the agent reads as meant: the platform named ("new nginx tags" alone
        # names no source, and the search reads an unrelated feed)
        widget=forms.Textarea(
            attrs={"rows": 2, "placeholder": _("e.g. new tags of the nginx image on Docker Hub")}
        ),
    )
    schedule = forms.ChoiceField(label=_("Runs"), choices=Schedule.choices)
    time_of_day = forms.TimeField(
        label=_("At"),
        required=False,
        help_text=_("The local time of each run."),
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    minute = forms.IntegerField(
        label=_("At minute"),
        required=False,
        min_value=0,
        max_value=59,
        help_text=_("Hourly watches run at this minute of every hour."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    weekday = forms.TypedChoiceField(
        label=_("On"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[("", "—"), *Weekday.choices],
        help_text=_("The day of each weekly run."),
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

    def __init__(self, data=None, *args, **kwargs):
        if data is not None:
            data = data.copy()
            for name in fields_ignored(data.get("schedule")):
                data.pop(name, None)
        super().__init__(data, *args, **kwargs)
        for name in SCHEDULE_FIELDS:
            self.fields[name].widget.attrs["aria-describedby"] = f"{name}-help"

    @property
    def schedule_fields(self) -> list[tuple[forms.BoundField, str]]:
        """Each schedule-dependent field and the schedules it counts for, as the page marks it
        (``data-schedules``) for the script that shows only the chosen schedule's fields."""
        return [(self[name], " ".join(schedules)) for name, schedules in SCHEDULE_FIELDS.items()]

    def clean(self) -> dict:
        data = super().clean()
        schedule = data.get("schedule")
        missing = {
            "minute": _("Give the minute of the hour, 0 to 59."),
            "time_of_day": _("Give the time as HH:MM, 00:00 to 23:59."),
        }
        for name, message in missing.items():
            counts = schedule in SCHEDULE_FIELDS[name]
            if counts and data.get(name) is None and name not in self.errors:
                self.add_error(name, message)
        return data

    def changes(self) -> dict:
        """The cleaned values as ``watches.services`` takes them: the fields the schedule does
        not use are left out (an hourly watch keeps only its minute)."""
        data = dict(self.cleaned_data)
        minute = data.pop("minute")
        moment = data.pop("time_of_day")
        data["time"] = time(0, minute) if data["schedule"] == HOURLY else moment
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
            "minute": watch.time_of_day.minute,
            "weekday": watch.weekday,
            "timezone": watch.timezone,
            "offline": watch.offline,
            "notify_email": watch.notify_email,
            "notify_only_new": watch.notify_only_new,
        }


class DigestForm(forms.Form):
    frequency = forms.ChoiceField(label=_("Digest email"), choices=DigestFrequency.choices)
