"""The language a brief is written in, decided once when it is asked.

A brief speaks one language throughout: its lead line, framing, outcome texts, coverage words,
dates and numbers. The reader may choose it (the ask form, the API's and MCP's ``language``; a
form left blank takes the reader's default, kept in their session: ``reader_language``; the
API and MCP left blank take it from the profile: ``owner_language``);
otherwise it is the question's (Chinese when it has Chinese characters, English when it has
Latin letters outside addresses), and a question with neither (an address, a figure) takes the
reader's interface language. The choice is stored on ``Brief.language`` as the site's language
code, so the page renders the brief's element with ``translation.override(brief.language)``
while the page around it stays in the interface language.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.utils import translation
from django.utils.translation import gettext_lazy

from briefs.agent_hooks import agent_hooks
from briefs.errors import FieldInvalid

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

    from briefs.markdown import Citation

LANGUAGE_EN = "en"
LANGUAGE_ZH = "zh-hans"
BRIEF_LANGUAGES = (LANGUAGE_EN, LANGUAGE_ZH)
# The agent names a language by its family ("zh", "en"); the site by its translation.
AGENT_LANGUAGES = {LANGUAGE_EN: "en", LANGUAGE_ZH: "zh"}
# The choice of a language on every form (the question's, the profile's), named in the page's.
LANGUAGE_CHOICES = [(LANGUAGE_EN, gettext_lazy("English")), (LANGUAGE_ZH, gettext_lazy("Chinese"))]
# A brief's language: blank follows the question.
BRIEF_LANGUAGE_CHOICES = [("", gettext_lazy("the question's")), *LANGUAGE_CHOICES]

CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_RE = re.compile(r"[A-Za-z]")
# An address or a host name says nothing of the reader's language: "https://36kr.com/ 2026".
ADDRESS_RE = re.compile(r"\S*(?:://|\.[A-Za-z]{2,})\S*")


def language_clean(value: object) -> str:
    """A reader's choice as stored: ``""`` for none, else one of ``BRIEF_LANGUAGES``;
    ``FieldInvalid`` for anything else (the field is user input)."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str) or value.lower() not in BRIEF_LANGUAGES:
        raise FieldInvalid("language", "The language must be one of: en, zh-hans.")
    return value.lower()


# The reader's own default, kept in their session by whatever knows the reader (their profile, at
# sign-in and when it changes): the reader's choice when the ask form leaves the language blank.
READER_LANGUAGE_SESSION_KEY = "brief_language"


def reader_language(session) -> str:
    """The reader's default brief language from their session, ``""`` when none (or garbled)."""
    try:
        return language_clean(session.get(READER_LANGUAGE_SESSION_KEY, ""))
    except FieldInvalid:
        return ""


# The reader's default read from their profile, for askers with no session (the API, MCP
# ``ask``): the app that keeps profiles hands its reader in when it is ready
# (``accounts.apps.AccountsConfig.ready``); briefs imports none of it.
_owner_language_readers: list[Callable[[AbstractBaseUser], str]] = []


def owner_language_provide(reader: Callable[[AbstractBaseUser], str]) -> None:
    """Called once by the app that keeps the readers' profiles, as Django starts."""
    _owner_language_readers[:] = [reader]


def owner_language(owner: AbstractBaseUser) -> str:
    """The owner's default brief language, as ``reader_language`` is for a session: ``""`` when
    they chose none (or no app keeps profiles, or the stored value is garbled)."""
    if not _owner_language_readers:
        return ""
    try:
        return language_clean(_owner_language_readers[0](owner))
    except FieldInvalid:
        return ""


def question_language(question: str) -> str:
    """The language a question is written in, or ``""`` when it shows none."""
    if CJK_RE.search(question):
        return LANGUAGE_ZH
    return LANGUAGE_EN if LATIN_RE.search(ADDRESS_RE.sub(" ", question)) else ""


def interface_language(code: str | None) -> str:
    """The brief language nearest the reader's interface language (``en`` when unknown)."""
    return LANGUAGE_ZH if (code or "").lower().startswith("zh") else LANGUAGE_EN


def brief_language_decide(*, chosen: str, question: str, interface: str | None) -> str:
    """The reader's choice, else the question's language, else the interface's."""
    return chosen or question_language(question) or interface_language(interface)


def brief_locale(language: str) -> str:
    """The translation a stored ``Brief.language`` renders with; older rows held ``zh``."""
    return interface_language(language) if language else translation.get_language() or "en"


def language_family(code: str) -> str:
    """The agent's name (``zh``, ``en``) for a site language code (``zh-hans``, ``en``)."""
    return "zh" if code.lower().startswith("zh") else "en"


def agent_language(language: str) -> str:
    """The agent's name for a brief's language: ``zh`` or ``en``."""
    return AGENT_LANGUAGES[interface_language(language)]


def html_lang(language: str) -> str:
    """The ``lang`` attribute (BCP 47) of an element written in a brief's language."""
    return "zh-Hans" if brief_locale(language) == LANGUAGE_ZH else "en"


def brief_language_context(language: str) -> dict[str, str]:
    """What a template needs to render a brief's own element in its language."""
    return {"brief_locale": brief_locale(language), "brief_lang": html_lang(language)}


# An item's language as a reader of a brief in another language is told it, and its ``lang``.
ITEM_LANGUAGE_NAMES = {"zh": gettext_lazy("in Chinese"), "en": gettext_lazy("in English")}
ITEM_LANGUAGE_TAGS = {"zh": "zh-Hans", "en": "en"}


def citations_marked(citations: list[Citation], language: str) -> list[Citation]:
    """The citations, each whose title is in another language than the brief's marked with
    its language (named in the active language) and its ``lang``: the title itself is kept as
    the item gave it, beside any translation (``title_translated``). A title too short to tell
    (``agent.summary.facts.text_language``, through ``briefs.agent_hooks``) is not marked."""
    family = language_family(brief_locale(language))
    text_language = agent_hooks().text_language
    marked = []
    for c in citations:
        written_in = text_language(c.title)
        name = ITEM_LANGUAGE_NAMES.get(written_in) if written_in != family else None
        tag = ITEM_LANGUAGE_TAGS[written_in] if name else ""
        marked.append(dataclasses.replace(c, language_mark=name, title_lang=tag) if name else c)
    return marked
