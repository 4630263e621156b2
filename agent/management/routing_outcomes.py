"""What ``manage.py eval_routing`` reads and scores: one line of a question file
(``EvalCase``, read by ``case_parse``), what the agent chose for it (``EvalOutcome``, with each
hit it counts) and the totals over a file (``totals_of``). The command's docstring says what each
figure means."""

from dataclasses import dataclass, field
from urllib.parse import unquote

from agent.management.eval_lines import json_object
from briefs.services import BriefInvalid, question_clean


@dataclass(frozen=True)
class EvalCase:
    line: int
    question: str
    namespaces: tuple[str, ...]
    routes: tuple[str, ...] | None  # None: the line names no routes
    paths: tuple[str, ...] | None = None  # None: the line names no paths
    no_example_entity: bool = False  # the question names no subject
    topic: tuple[str, ...] | None = None  # the topic check's terms; None: the line gives none

    @property
    def kind(self) -> str:
        """subject (names one), head (names none; a route that needs none serves it) or asks
        (names none; the run should ask)."""
        if not self.no_example_entity:
            return "subject"
        return "head" if self.paths is not None else "asks"


@dataclass
class EvalOutcome:
    case: EvalCase
    query: str = ""
    keywords: list[str] = field(default_factory=list)
    ranking: list[str] = field(default_factory=list)  # platforms: choices first, then candidates
    chosen: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    templates: list[str] = field(default_factory=list)  # the route template of each path
    methods: dict[str, str] = field(default_factory=dict)  # node -> model | offline
    fallbacks: list[str] = field(default_factory=list)
    needs: list[dict[str, str]] = field(default_factory=list)  # what the route node asked for
    leaks: list[str] = field(default_factory=list)  # "path :parameter" taken from the example
    subjects: list[str] = field(default_factory=list)  # "path :parameter" given a subject value
    topic: list[str] = field(default_factory=list)  # the terms the topic check would look for
    setup: list[str] = field(default_factory=list)  # routes that fit but need setting up

    @property
    def platform_hit_1(self) -> bool:
        return bool(self.ranking) and self.ranking[0] in self.case.namespaces

    @property
    def platform_hit_3(self) -> bool:
        return any(ns in self.case.namespaces for ns in self.ranking[:3])

    @property
    def route_hit(self) -> bool | None:
        if self.case.routes is None:
            return None
        return bool(self.templates) and self.templates[0] in self.case.routes

    @property
    def path_hit(self) -> bool | None:
        if self.case.paths is None:
            return None
        return bool(self.paths) and path_key(self.paths[0]) in {
            path_key(p) for p in self.case.paths
        }

    @property
    def topic_hit(self) -> bool | None:
        if self.case.topic is None:
            return None
        return {t.casefold() for t in self.topic} == {t.casefold() for t in self.case.topic}

    @property
    def needs_input(self) -> bool:
        return bool(self.needs) and not self.paths

    @property
    def setup_right(self) -> bool:
        return bool(self.setup) and self.setup[0] in (self.case.routes or ())

    @property
    def asked_right(self) -> bool | None:
        """Over the lines that name no subject and give no path: the run asked (or the line's
        own route needs setting up)."""
        if self.case.kind != "asks":
            return None
        return self.needs_input or self.setup_right

    @property
    def example_leak(self) -> bool | None:
        if not self.case.no_example_entity:
            return None
        return not self.needs_input and bool(self.leaks)

    @property
    def invented_subject(self) -> bool | None:
        if not self.case.no_example_entity:
            return None
        # a value the line's own expected path holds is none invented (a head line whose path
        # takes a section the question names: BBC's /bbc/technology)
        return not self.needs_input and bool(self.subjects) and not self.path_hit

    def as_dict(self) -> dict:
        return {
            "line": self.case.line,
            "question": self.case.question,
            "query": self.query,
            "keywords": self.keywords,
            "platforms": self.ranking[:3],
            "chosen_platforms": self.chosen,
            "paths": self.paths,
            "route_templates": self.templates,
            "methods": self.methods,
            "llm_fallbacks": self.fallbacks,
            "expected_namespaces": list(self.case.namespaces),
            "expected_routes": list(self.case.routes) if self.case.routes is not None else None,
            "platform_hit_at_1": self.platform_hit_1,
            "platform_hit_at_3": self.platform_hit_3,
            "route_hit": self.route_hit,
            "expected_paths": list(self.case.paths) if self.case.paths is not None else None,
            "path_hit": self.path_hit,
            "no_example_entity": self.case.no_example_entity,
            "kind": self.case.kind,
            "asked_right": self.asked_right,
            "needs_input": self.needs_input,
            "needs": self.needs,
            "example_leaks": self.leaks,
            "example_leak": self.example_leak,
            "subject_values": self.subjects,
            "invented_subject": self.invented_subject,
            "expected_topic": list(self.case.topic) if self.case.topic is not None else None,
            "topic": self.topic,
            "topic_hit": self.topic_hit,
            "needs_setup": self.setup,
        }


def path_key(path: str) -> str:
    """A path as compared: percent-decoded, without a trailing slash."""
    return unquote(path).rstrip("/") or "/"


def _strings(value: object, name: str, *, required: bool) -> tuple[str, ...] | None:
    if value is None and not required:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f'"{name}" must be a non-empty list of strings')
    return tuple(value)


def case_parse(text: str, line: int) -> EvalCase:
    """One line of the file; ``ValueError`` saying what is wrong with it."""
    data = json_object(text)
    try:
        question = question_clean(data.get("question"))
    except BriefInvalid as exc:
        raise ValueError(f'"question": {exc.message}') from None
    no_example_entity = data.get("no_example_entity", False)
    if not isinstance(no_example_entity, bool):
        raise ValueError('"no_example_entity" must be true or false')
    topic = data.get("topic")
    if topic is not None and not (
        isinstance(topic, list) and all(isinstance(t, str) for t in topic)
    ):
        raise ValueError('"topic" must be a list of strings')
    return EvalCase(
        line=line,
        question=question,
        namespaces=_strings(data.get("namespaces"), "namespaces", required=True),
        routes=_strings(data.get("routes"), "routes", required=False),
        paths=_strings(data.get("paths"), "paths", required=False),
        no_example_entity=no_example_entity,
        topic=None if topic is None else tuple(topic),
    )


def totals_of(outcomes: list[EvalOutcome]) -> dict:
    with_routes = [o for o in outcomes if o.route_hit is not None]

    def share(hits: int, of: int) -> float | None:
        return round(hits / of, 4) if of else None

    hit1 = sum(o.platform_hit_1 for o in outcomes)
    hit3 = sum(o.platform_hit_3 for o in outcomes)
    route = sum(bool(o.route_hit) for o in with_routes)
    with_paths = [o for o in outcomes if o.path_hit is not None]
    path = sum(bool(o.path_hit) for o in with_paths)
    with_topic = [o for o in outcomes if o.topic_hit is not None]
    topic = sum(bool(o.topic_hit) for o in with_topic)
    asks = [o for o in outcomes if o.asked_right is not None]
    return {
        "questions": len(outcomes),
        "route_questions": len(with_routes),
        "platform_hits_at_1": hit1,
        "platform_hits_at_3": hit3,
        "route_hits": route,
        "platform_hit_at_1": share(hit1, len(outcomes)),
        "platform_hit_at_3": share(hit3, len(outcomes)),
        "route_hit": share(route, len(with_routes)),
        "path_questions": len(with_paths),
        "path_hits": path,
        "path_hit": share(path, len(with_paths)),
        "no_example_entity_questions": sum(o.case.no_example_entity for o in outcomes),
        "example_leaks": sum(bool(o.example_leak) for o in outcomes),
        "invented_subjects": sum(bool(o.invented_subject) for o in outcomes),
        "needs_input": sum(o.needs_input for o in outcomes),
        "needs_setup": sum(bool(o.setup) for o in outcomes),
        "needs_setup_right": sum(o.setup_right for o in outcomes),
        **{
            f"{kind}_path_{name}": value
            for kind in ("subject", "head")
            for name, value in _path_share(
                [o for o in with_paths if o.case.kind == kind], share
            ).items()
        },
        "asks_questions": len(asks),
        "asks_right": sum(bool(o.asked_right) for o in asks),
        "topic_questions": len(with_topic),
        "topic_hits": topic,
        "topic_hit": share(topic, len(with_topic)),
    }


def _path_share(outcomes: list[EvalOutcome], share) -> dict:
    hits = sum(bool(o.path_hit) for o in outcomes)
    return {"questions": len(outcomes), "hits": hits, "hit": share(hits, len(outcomes))}
