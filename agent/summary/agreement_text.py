"""The agreement table of a brief's stories, as the brief says it and as the writer is told it.

Under a story told by two outlets or more (``agent.summary.agreement``) the offline brief says
"Sources agree: 3,000 [1] [2]" and "Sources differ: 36kr says 3,000 [1]; IT之家 says 5,000 [2]",
each side cited, in the brief's language (the translation active while it is written, as for
the rest of the brief). Every word is an item's own figure, day or name, or the template.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from agent.summary.agreement import StoryTable, story_table
from agent.summary.draft import SourceItem, escape_markdown
from agent.summary.folding import Story, stories_fold

AGREED_SHOWN = 4  # agreed facts said under a story at most: the differences matter more


def tables_of(stories: Sequence[Story[SourceItem]]) -> list[StoryTable]:
    """The table of each story told by two outlets or more, in the stories' order."""
    return [t for t in (story_table(s.items) for s in stories) if t is not None]


def brief_tables(items: list[SourceItem]) -> list[dict]:
    """What a brief stores: each table with agreements or differences, as JSON."""
    tables = tables_of(stories_fold(items))
    return [t.as_dict() for t in tables if t.agreements or t.differences]


def _cites(numbers: Sequence[int]) -> str:
    return " ".join(f"[{n}]" for n in numbers)


def agreement_lines(table: StoryTable | None) -> list[str]:
    """The "Sources agree" and "Sources differ" lines of one story; none without a table."""
    if table is None:
        return []
    lines = []
    if table.agreements:
        facts = _("; ").join(
            f"{escape_markdown(a.text)} {_cites(a.items)}" for a in table.agreements[:AGREED_SHOWN]
        )
        lines.append(_("Sources agree: %(facts)s") % {"facts": facts})
    for difference in table.differences:
        sides = _("; ").join(
            _("%(source)s says %(value)s %(cites)s")
            % {
                "source": escape_markdown(s.source),
                "value": escape_markdown(s.text),
                "cites": _cites(s.items),
            }
            for s in difference.said
        )
        lines.append(_("Sources differ: %(sides)s") % {"sides": sides})
    return lines


def writer_table_text(items: list[SourceItem]) -> str:
    """The differences for the writer's prompt, each side with its items (English: the prompt's
    language); "" when the outlets of no story differ."""
    lines = []
    for table in tables_of(stories_fold(items)):
        for difference in table.differences:
            sides = "; ".join(
                f"{s.source} says {s.text} {_cites(s.items)}" for s in difference.said
            )
            lines.append(f"- items {_cites(table.items)} differ on a {difference.kind}: {sides}")
    if not lines:
        return ""
    return (
        "\nThe sources of these stories differ. Report each difference in one sentence that "
        "says what happened in the items' own words, then each side with the citation of the "
        "item that says it: <what happened>: <source> says <value> [n]; <source> says <value> "
        "[m].\n" + "\n".join(lines)
    )
