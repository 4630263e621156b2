"""Forms of the dashboard. They check shape only: ``briefs.services`` decides what is valid."""

from django import forms
from django.utils import formats, timezone, translation
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from briefs.language import BRIEF_LANGUAGE_CHOICES, interface_language, question_language
from briefs.markdown import text_cut
from briefs.models import BriefOutcome, BriefStatus
from briefs.reasons import need_format, parameter_name
from briefs.selectors import FollowUpChoice
from briefs.services import NEED_VALUE_MAX_LENGTH
from catalog.search_terms import MAX_QUESTION_CHARS


class QuestionSelect(forms.Select):
    """A choice among the reader's questions: each question's option is marked as written by
    the reader (``translate="no"``), the empty choice is ours."""

    def create_option(self, name, value, *args, **kwargs):
        option = super().create_option(name, value, *args, **kwargs)
        if value not in ("", None):
            option["attrs"]["translate"] = "no"
        return option


class AskForm(forms.Form):
    question = forms.CharField(
        label=_("Question"),
        max_length=MAX_QUESTION_CHARS,
        widget=forms.Textarea(
            attrs={
                "rows": 3,
                "placeholder": _("e.g. What is new on Hacker News today?"),
                "autofocus": True,
            }
        ),
    )
    follow_up_of = forms.TypedChoiceField(
        label=_("Follow up"),
        required=False,
        coerce=int,
        empty_value=None,
        widget=QuestionSelect,
    )
    offline = forms.BooleanField(label=_("Answer without a model (offline)"), required=False)
    language = forms.ChoiceField(
        label=_("Brief's language"),
        required=False,
        choices=BRIEF_LANGUAGE_CHOICES,
    )

    def __init__(self, *args, follow_up_choices: list[FollowUpChoice], llm: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["follow_up_of"].choices = [
            ("", _("— a new question —")),
            *((c.pk, _follow_up_label(c)) for c in follow_up_choices),
        ]
        if not llm:  # without a model every brief is offline: nothing to choose
            del self.fields["offline"]


def _follow_up_label(choice: FollowUpChoice) -> str:
    """The question (shortened) and when it was asked, in the current zone."""
    when = formats.date_format(timezone.localtime(choice.created_at), "SHORT_DATETIME_FORMAT")
    return f"{text_cut(choice.question, 80)} · {when}"


class BriefSearchForm(forms.Form):
    q = forms.CharField(label=_("Text"), required=False, max_length=200)
    status = forms.ChoiceField(
        label=_("Status"),
        required=False,
        choices=[("", _("any status")), *BriefStatus.choices],
    )
    outcome = forms.ChoiceField(
        label=_("Outcome"),
        required=False,
        choices=[("", _("any outcome")), *BriefOutcome.choices],
    )
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        """An end date before the start date is an error: the list then shows nothing."""
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            self.add_error("until", _("The end date is before the start date."))
        return data


def _description_shown(need: dict) -> str:
    """The route's description of the value, when it is written in the page's language; else a
    line of our own naming the parameter. RSSHub describes parameters in one language (mostly
    English, sometimes Chinese) and the catalog holds no translation of them."""
    description = str(need.get("description") or "")
    page = interface_language(translation.get_language())
    if not description or question_language(description) in ("", page):
        return description
    return gettext("The value of :%(parameter)s in the route's address.") % {
        "parameter": need.get("parameter") or ""
    }


def _sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter and a closing stop, full-width after
    Chinese (a bare number is left as it is: it says no sentence)."""
    text = text.strip()
    if not text or text.isdigit():
        return text
    text = text[0].upper() + text[1:]
    if text[-1] in ".!?\u3002\uff01\uff1f":
        return text
    return text + ("\u3002" if "\u4e00" <= text[-1] <= "\u9fff" else ".")


def need_hint(need: dict) -> SafeString:
    """What the value is and the form it takes, as sentences: "Repository name. Give it as
    <code>owner/name</code>." (the format also stands in the input as its placeholder)."""
    parts = [escape(_sentence(_description_shown(need)))]
    shape = need_format(need.get("format"))
    if shape:
        give = escape(gettext("Give it as %(format)s."))
        parts.append(mark_safe(give % {"format": format_html("<code>{}</code>", shape)}))  # noqa: S308 -- both parts escaped
    return mark_safe(" ".join(p for p in parts if p))  # noqa: S308 -- escaped above


class FollowUpForm(forms.Form):
    """A follow-up asked under a brief: the question alone (the thread is the brief's)."""

    question = forms.CharField(label=_("Ask a follow-up"), max_length=MAX_QUESTION_CHARS)


class NeedsAnswerForm(forms.Form):
    """One input per value a ``needs_input`` brief asks for (``value_0``, ``value_1``...)."""

    def __init__(self, *args, needs: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        for n, need in enumerate(needs):
            source, parameter = need.get("source") or "", need.get("parameter") or ""
            self.fields[f"value_{n}"] = forms.CharField(
                label=_("Which %(source)s %(parameter)s?")
                % {"source": source, "parameter": parameter_name(parameter)},
                max_length=NEED_VALUE_MAX_LENGTH,
                help_text=need_hint(need),
                widget=forms.TextInput(attrs={"placeholder": need_format(need.get("format"))}),
            )

    def values(self) -> list[str]:
        return [self.cleaned_data[f"value_{n}"] for n in range(len(self.fields))]
