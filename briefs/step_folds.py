"""Route refusals that only say the question lacks a value, read as what they are: a question
to the reader, not a failure.

When a question names no repository, every route that needs one is refused in turn
(``choice_rejected`` steps whose reason is ``briefs.reasons.SUBJECT_NO_VALUE`` or, from the
model, ``SUBJECT_NOT_GIVEN``). Each such step wears the neutral "ask" tone, never the failure
colour; on a finished brief's page a run of two or more of them folds into one line ("7 routes
need a value the question does not give: repo") with the steps behind a disclosure. A running
brief's timeline is not folded: its steps arrive one by one and are appended as they come.
"""

from dataclasses import dataclass, field

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import ngettext

from briefs.models import RunStep
from briefs.reasons import SUBJECT_NO_VALUE, SUBJECT_NOT_GIVEN, parameter_name, reason_values

FOLD_FROM = 2  # a lone refusal stays a step of its own


def missing_value_names(step: RunStep) -> list[str] | None:
    """The parameters a route refusal says the question does not give (``repo``); None when the
    step is anything else."""
    if step.kind != "choice_rejected" or not isinstance(step.payload, dict):
        return None
    reason = step.payload.get("reason")
    values = reason_values(SUBJECT_NO_VALUE, reason)
    names = values["names"] if values else None
    if names is None:
        values = reason_values(SUBJECT_NOT_GIVEN, reason)
        names = values["name"] if values else None
    if names is None:
        return None
    return [name.strip().lstrip(":") for name in names.split(",") if name.strip(" :")]


@dataclass
class RefusalFold:
    """Consecutive refusals for a missing value, shown as one line."""

    steps: list[RunStep] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    @property
    def first_seq(self) -> int:
        return self.steps[0].seq

    @property
    def last_seq(self) -> int:
        return self.steps[-1].seq

    def line(self) -> SafeString:
        """ "7 routes need a value the question does not give: repo", in the current language."""
        n = len(self.steps)
        return format_html(
            ngettext(
                "{n} route needs a value the question does not give: {names}",
                "{n} routes need a value the question does not give: {names}",
                n,
            ),
            n=n,
            names=", ".join(parameter_name(name) for name in self.names),
        )


def timeline_entries(steps: list[RunStep]) -> list[RunStep | RefusalFold]:
    """The steps in order, each run of ``FOLD_FROM`` or more missing-value refusals as one
    ``RefusalFold`` (other steps between them end the run)."""
    entries: list[RunStep | RefusalFold] = []
    run = RefusalFold()

    def close() -> None:
        if len(run.steps) >= FOLD_FROM:
            entries.append(RefusalFold(steps=list(run.steps), names=list(run.names)))
        else:
            entries.extend(run.steps)
        run.steps.clear()
        run.names.clear()

    for step in steps:
        names = missing_value_names(step)
        if names is None:
            close()
            entries.append(step)
            continue
        run.steps.append(step)
        run.names.extend(n for n in names if n not in run.names)
    close()
    return entries
