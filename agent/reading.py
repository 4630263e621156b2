"""One reading of a question, computed once per run and read by every node.

The rewrite (``agent.question``) gives the self-contained query and its topic phrases; the
reading adds what the later nodes ask of the question, each read by one rule:

- ``intents``: the kinds of feed it asks for (releases, 发行版, discussions...:
  ``agent.vocabulary.INTENTS``), which choose among a platform's routes;
- ``unnamed``: it says someone is meant without naming them (some user, 某位 UP 主), so a route
  naming no one is not read for it;
- ``subjects(platform_words, excluded)``: what it names for one platform's routes, with their
  shapes (``agent.routes.entities.question_read``), kept per platform for the run;
- ``platforms_named()``: the platforms it names and how strongly, which the platform step
  weighs three times (a platform waiting for staff, a value's home, names close to the top);
- ``topic(context_words)``: the subject the topic check looks for in items
  (``agent.summary.subject``): the marked topic, else the topic words without the platform's and
  routes' words, the filler and what the asker says of themselves, Chinese in a real
  segmenter's words.

- ``route_subjects(platform_words, excluded)``: what the self-contained query names for one
  route (its own words ``excluded``: "User Activities" is no user), the values parameter
  filling (``agent.routes.params.params_fill``) takes.

Route choice (intents, an unnamed subject), parameter filling, the model path's count of the
question's own subjects and the topic check (and ``eval_routing``'s measure of it) read it from
``RunContext.reading``, computed on first use and kept while the rewrite's query stands. The
dataclass is frozen; its one mutable part is the cache of what was read per platform and route.
"""

from dataclasses import dataclass, field

from agent.question import Rewrite
from agent.routes.entities import Asked, question_read
from agent.summary.subject import Subject, asker_said, subject_of, topic_of
from agent.unnamed import subject_unnamed
from agent.vocabulary import asked_intents
from catalog.search import platforms_named
from catalog.segment import zh_simplified
from fetching.radar import RadarHit, radar_hits


@dataclass(frozen=True)
class Reading:
    question: str  # as asked
    query: str  # self-contained (a follow-up carries its thread's words)
    keywords: tuple[str, ...]  # topic phrases, the filler out (a search takes them whole)
    intents: frozenset[str]
    unnamed: bool
    _asked: dict = field(default_factory=dict, compare=False, repr=False)

    def subjects(
        self, platform_words: tuple[str, ...], excluded: frozenset[str] = frozenset()
    ) -> Asked:
        """The question as asked, read for one platform's routes (``Asked``), once per
        platform: a subject the model gives must be one of these."""
        key = (tuple(platform_words), excluded)
        if key not in self._asked:
            self._asked[key] = question_read(
                self.question, platform_words=platform_words, excluded=excluded
            )
        return self._asked[key]

    def route_subjects(
        self,
        platform_words: tuple[str, ...],
        excluded: frozenset[str] = frozenset(),
        hosts: tuple[str, ...] = (),
    ) -> Asked:
        """The query read for one route's parameters (its platform's names blanked, its own
        words ``excluded``), once per route and run."""
        key = ("query", tuple(platform_words), excluded, hosts)
        if key not in self._asked:
            self._asked[key] = question_read(
                self.query, platform_words=platform_words, excluded=excluded, hosts=hosts
            )
        return self._asked[key]

    def platforms_named(self) -> dict[str, float]:
        """Every platform the query names, searchable or not, with the strength of its name
        found (``catalog.search.platforms_named``), strongest first; once per query."""
        if "platforms_named" not in self._asked:
            self._asked["platforms_named"] = dict(platforms_named(self.query))
        return self._asked["platforms_named"]

    def pages(self) -> list[RadarHit]:
        """The routes the page address the question gives maps to (``fetching.radar``); once
        per run: the platform and the route node both read them."""
        if "pages" not in self._asked:
            self._asked["pages"] = radar_hits(self.question)
        return self._asked["pages"]

    def topic(self, context_words: set[str]) -> Subject:
        """What the items must mention, the words naming the feeds read (``context_words``)
        out."""
        topics = topic_of(self.question, context_words)
        # what the asker says of themselves ("I run an Unraid server") is no topic either
        context_words = context_words | asker_said(self.question)
        return subject_of(list(self.keywords), context_words, topics=topics)


def question_reading(question: str, rewrite: Rewrite) -> Reading:
    return Reading(
        question=question,
        query=rewrite.query,
        keywords=tuple(rewrite.keywords),
        intents=asked_intents(rewrite.query),
        unnamed=subject_unnamed(zh_simplified(rewrite.query)),  # 有個作者 is 有个作者
    )
