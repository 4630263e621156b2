"""What the reader got: the one rule that gives every finished brief its outcome.

The run status says how the run ended; the outcome says whether there is an answer:

| facts of the run                                                | outcome (reason)         |
|-----------------------------------------------------------------|--------------------------|
| nothing fetched, and the question lacks a value a route needs   | needs_input              |
| nothing fetched, and some source answered (with no items)       | no_data (empty)          |
| nothing fetched, and no source could be read (or none fit)      | no_data (unreachable)    |
| items fetched from general feeds only, none about the subject   | off_topic                |
| items, but a path of the answering batch failed, or none of     | partial                  |
| the items falls in the window asked for                         |                          |
| items that answer it                                            | answered                 |

"Answered" for a source means it ran: ``ok``, ``not_modified`` or ``empty`` (a valid feed with
no items). ``empty`` and ``unreachable`` get different texts because they mean different
things: "not found" is an answer, "can't query" is not.
"""

from dataclasses import dataclass, field

from briefs.coverage import Attempted, coverage_rows
from briefs.models import BriefOutcome, OutcomeReason

SOURCE_ANSWERED = frozenset({"ok", "not_modified", "empty"})
WRITTEN = frozenset({BriefOutcome.ANSWERED, BriefOutcome.PARTIAL})  # outcomes with an answer


@dataclass(frozen=True)
class RunFacts:
    attempted: list[Attempted] = field(default_factory=list)
    answer_paths: tuple[str, ...] = ()  # the batch of paths the answer was fetched from
    items: int = 0  # items fetched
    on_subject: int | None = None  # items about the subject; None: no test applies
    in_window: bool = True
    needs: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Verdict:
    outcome: BriefOutcome
    reason: str = ""  # an OutcomeReason for no_data, else ""

    @property
    def written(self) -> bool:
        """The brief answers the question from items (a writer may word it)."""
        return self.outcome in WRITTEN


def outcome_decide(facts: RunFacts) -> Verdict:
    """The outcome of a run from its facts (the table above)."""
    if facts.items == 0:
        if facts.needs:
            return Verdict(BriefOutcome.NEEDS_INPUT)
        rows = coverage_rows(facts.attempted)
        if any(row["outcome"] in SOURCE_ANSWERED for row in rows):
            return Verdict(BriefOutcome.NO_DATA, OutcomeReason.EMPTY)
        return Verdict(BriefOutcome.NO_DATA, OutcomeReason.UNREACHABLE)
    if facts.on_subject == 0:
        return Verdict(BriefOutcome.OFF_TOPIC)
    batch = set(facts.answer_paths)
    failed = [
        row
        for row in coverage_rows(facts.attempted)
        if row["path"] in batch and row["outcome"] not in SOURCE_ANSWERED
    ]
    if failed or not facts.in_window:
        return Verdict(BriefOutcome.PARTIAL)
    return Verdict(BriefOutcome.ANSWERED)
