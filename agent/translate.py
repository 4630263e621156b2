"""Titles of cited items made readable in the brief's language.

A brief is written in one language (``briefs.language``); the items it cites are in theirs. Each
cited item whose title is in another language (``agent.summary.facts.text_language``; a title
too short to tell is left alone) gets a title in the brief's language, kept beside the original
on the page (``title_translated`` in the brief's ``citations``):

- **Cached per item and language** (``fetching.models.ItemTranslation``, unique together): a
  second brief citing the item, or a watch's next run, reads it there and asks nothing.
- **One model call per brief** for the titles not cached yet, batched; its tokens count in the
  brief's ``usage`` under the node ``translate`` (``agent.mode.model_or_offline``).
- **The model's answer is hostile input.** A wrong count or an unknown number gets the repair
  turn; then each title is checked on its own and one that is empty, longer than its original
  allows, holds markup, a link, a citation or a phrase that reads like an instruction, or is not
  in the brief's language is dropped: that item keeps its original title only, as offline.
- **Offline** (no model, or the run asked for none) nothing is asked and no cached translation is
  shown: a brief made without a model shows no model's words. The page marks the item with its
  language (``briefs.language.citations_marked``).
"""

from __future__ import annotations

import re
from typing import Any

from asgiref.sync import sync_to_async

from agent import llm
from agent.context import RunContext
from agent.llm.prompts import INSTRUCTION_LIKE, LANGUAGE_NAMES
from agent.mode import model_or_offline
from agent.summary.facts import CJK_CHAR_RE, LATIN_WORD_RE, text_language
from fetching.models import ItemTranslation

NODE = "translate"
MAX_TITLE_CHARS = 300
SYSTEM_TRANSLATE = (
    "You translate the titles of news items for readers of another language. Translate each "
    "title faithfully and briefly, keeping names, figures and codes as they are; add nothing, "
    "explain nothing. Answer only by calling the function, with one title per item given."
)
TRANSLATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "titles": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "title": {"type": "string"}},
                "required": ["n", "title"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["titles"],
    "additionalProperties": False,
}
# What a title never holds once translated: markup, a link, a citation, a fence, a new line.
_UNSAFE = re.compile(r"[<>\n\r`]|\]\(|\[\s*\d+\s*\]|https?:|www\.", re.I)


def foreign_titles(citations: list[dict], language: str) -> dict[int, str]:
    """Item id -> title, for each cited item whose title is in another language than
    ``language`` (``zh`` or ``en``)."""
    found = {}
    for c in citations:
        item_id, title = c.get("item_id"), str(c.get("title") or "")
        if isinstance(item_id, int) and text_language(title) not in ("", language):
            found[item_id] = title
    return found


def title_acceptable(original: str, translated: str, language: str) -> bool:
    """Whether a model's title may stand beside ``original`` in a brief in ``language``."""
    limit = min(MAX_TITLE_CHARS, 4 * len(original) + 40)
    return (
        0 < len(translated) <= limit
        and not _UNSAFE.search(translated)
        and not INSTRUCTION_LIKE.search(translated)
        and _written_in(translated, language)
    )


def _written_in(text: str, language: str) -> bool:
    """Chinese must read as Chinese; an English title may be two words ("Apple earnings"),
    too few for ``text_language`` to tell, so it need only have Latin words and no Chinese."""
    if language == "en":
        return not CJK_CHAR_RE.search(text) and len(LATIN_WORD_RE.findall(text)) >= 1
    return text_language(text) == language


def titles_read(answer: dict[str, Any], wanted: dict[int, str], language: str) -> dict[int, str]:
    """The model's titles, by the numbers asked (``wanted``: n -> original): ``ValueError``
    (the repair turn) for a wrong count or an unknown or repeated number; each title that is not
    ``title_acceptable`` left out."""
    rows = answer.get("titles")
    if not isinstance(rows, list) or len(rows) != len(wanted):
        raise ValueError(f"give exactly {len(wanted)} titles, one for each item n given")
    titles: dict[int, str] = {}
    for row in rows:
        n = row.get("n") if isinstance(row, dict) else None
        if n not in wanted or n in titles:
            raise ValueError(f"give one title for each n in {sorted(wanted)}, each once")
        titles[n] = " ".join(str(row.get("title") or "").split())
    return {n: t for n, t in titles.items() if title_acceptable(wanted[n], t, language)}


def translations_cached(item_ids: list[int], language: str) -> dict[int, str]:
    rows = ItemTranslation.objects.filter(item_id__in=item_ids, language=language)
    return dict(rows.values_list("item_id", "title"))


def translations_store(titles: dict[int, str], language: str) -> None:
    """Keep the titles; a row another run wrote first stands (the constraint decides)."""
    ItemTranslation.objects.bulk_create(
        [ItemTranslation(item_id=i, language=language, title=t) for i, t in titles.items()],
        ignore_conflicts=True,
    )


def _prompt(wanted: dict[int, str], language: str) -> str:
    items = [llm.PromptItem(n=n, path="", title=title) for n, title in wanted.items()]
    target = LANGUAGE_NAMES[language]
    return (
        f"Translate into: {target}.\n\n{llm.fenced_items(items)}\n\n"
        f"Give each item's title in {target}, with its n: {len(items)} titles in all."
    )


async def titles_translate(ctx: RunContext, citations: list[dict]) -> list[dict]:
    """``citations`` with ``title_translated`` on each whose title is in another language than
    the brief's, when the run uses a model (see the module's note)."""
    language = ctx.rewrite.language if ctx.rewrite else ""
    foreign = foreign_titles(citations, language) if language in LANGUAGE_NAMES else {}
    if not foreign or not ctx.use_llm:
        return citations
    found = await sync_to_async(translations_cached)(list(foreign), language)
    missing = {i: t for i, t in foreign.items() if i not in found}
    if missing:
        found |= await _titles_asked(ctx, missing, language)
    return [
        c | {"title_translated": found[c["item_id"]]} if c.get("item_id") in found else c
        for c in citations
    ]


async def _titles_asked(ctx: RunContext, missing: dict[int, str], language: str) -> dict[int, str]:
    """One model call for the titles not cached (numbered 1..k in the prompt); kept for the next
    brief. Item id -> title; nothing when the call fails."""
    ids = list(missing)
    wanted = {n: missing[item_id] for n, item_id in enumerate(ids, 1)}

    def call() -> llm.LLMResult:
        return llm.llm_choose(
            user=ctx.owner,
            node=NODE,
            system=SYSTEM_TRANSLATE,
            prompt=_prompt(wanted, language),
            schema=TRANSLATE_SCHEMA,
            validate=lambda answer: titles_read(answer, wanted, language),
            role="writer",
            deadline=ctx.llm_deadline,
        )

    titles, _method = await model_or_offline(ctx, NODE, call, dict)
    translated = {ids[n - 1]: title for n, title in titles.items()}
    if translated:
        await sync_to_async(translations_store)(translated, language)
    return translated
