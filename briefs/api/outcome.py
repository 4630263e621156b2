"""The outcome of a brief in the API: its fields, their choices and what each value means;
and, for a watch's run, what was new (``delta``)."""

from rest_framework import serializers

from briefs.models import BriefOutcome, OutcomeReason

OUTCOME_HELP = (
    "What the reader got, apart from the run status: answered, partial (some sources failed, "
    "or nothing fell in the window asked for), no_data (nothing fetched; see `reason`), "
    "off_topic (items came, none about the subject), needs_input (the question lacks a value "
    "a source needs; see `needs`). Null until the run succeeds, and for failed or cancelled runs."
)
REASON_HELP = (
    "For no_data: `empty` (the sources answered but had nothing: not found) or `unreachable` "
    "(no source could be read: can't query); null otherwise."
)


def outcome_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=BriefOutcome.choices, allow_null=True, help_text=OUTCOME_HELP
    )


def reason_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=OutcomeReason.choices, allow_null=True, help_text=REASON_HELP
    )


class NeedOut(serializers.Serializer):
    parameter = serializers.CharField(help_text="The parameter the question gave no value for.")
    description = serializers.CharField(help_text="What the parameter is, from the catalog.")
    format = serializers.CharField(help_text="How to write a value, e.g. owner/name.")


class DeltaOut(serializers.Serializer):
    since = serializers.DateTimeField(
        allow_null=True, help_text="The previous run's time; null for a watch's first run."
    )
    new_items = serializers.IntegerField(help_text="Stories not reported by earlier runs.")
    repeated_items = serializers.IntegerField(help_text="Stories reported before, left out.")


WATCH_HELP = "The watch this brief is a run of (null for other briefs)."
DELTA_HELP = "A watch's run: what was new since its previous run; null otherwise."
