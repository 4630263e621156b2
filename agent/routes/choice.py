"""The route node's model method: what the model is shown, the schema it answers in, and the
rules its answer must pass.

The model sees each candidate route with its parameters: description, whether required, the
enumerated values (upstream ``options``, or the value table of the route description) and the
example's value as a format hint only. Its answer is checked here:

- a route must be one offered, and its path must pass ``fetching.paths.path_build``;
- a value for a parameter that names a subject (``slots.route_slots`` says which: anything not
  enumerated and not named like a setting such as ``sort`` or ``type``) must be a whole-token
  subject of the question (``subject_given``: compared after case, width and space folding, no
  letter or digit joined to either end, so the "git" of "GitHub" is none; neither filler such
  as "my" or "某个" nor the platform's own name), or be one of the parameter's enumerated
  values. The example's value is no exception: a subject the question does not give
  is a subject the model made up;
- instead of routes, the model may answer ``needs_input``: the required subject parameters the
  question leaves open.

Every rejected value is kept (``RouteChoice.rejected``) for a ``choice_rejected`` step; the
node gives the model one repair turn, then ends the run ``needs_input`` when a subject value was
what failed.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from agent.routes.slots import Slot, route_slots
from agent.routes.unsaid import SubjectMissing
from agent.vocabulary import (
    CLAUSE_PRONOUNS,
    EN_KIND_NOUNS,
    FILLER_ZH,
    ZH_KIND_NOUNS,
    filler_en,
    intent_word,
)
from briefs import reasons
from catalog.models import Route
from fetching.paths import RoutePathRejected, path_build

MAX_PATHS = 3
FOLD_SPACES = re.compile(r"\s+")
LATIN_EDGE = re.compile(r"[a-z0-9]")


@dataclass(frozen=True)
class Candidate:
    route_id: int
    template: str
    name: str
    source: str
    params: tuple[Slot, ...]


@dataclass
class RouteChoice:
    """A validated answer: paths to fetch, or the inputs the question lacks."""

    chosen: list[tuple[str, int]] = field(default_factory=list)
    needs: list[dict[str, str]] = field(default_factory=list)
    reason: str = ""


@dataclass
class Rejections:
    """Values refused across the conversation, for ``choice_rejected`` steps (in order)."""

    entries: list[dict[str, str]] = field(default_factory=list)
    subject: dict[str, tuple[Candidate, Slot]] = field(default_factory=dict)

    def add(self, value: str, reason: str, hit: tuple[Candidate, Slot] | None = None):
        self.entries.append({"value": value[:300], "reason": reason[:300]})
        if hit is not None:
            self.subject[f"{hit[0].template}:{hit[1].name}"] = hit


def fold(text: str) -> str:
    """Case, width and space folding: full-width "SH600519" and "sh 600519" read the same."""
    return FOLD_SPACES.sub("", unicodedata.normalize("NFKC", text).casefold())


def subject_given(value: str, asked: str, *, names: tuple[str, ...] = ()) -> bool:
    """``value`` is a whole-token subject of ``asked``: found there after folding (spaces may
    come and go: "sh 600519" is SH600519) with no Latin letter or digit joined to either end,
    and neither filler nor one of ``names`` (the platform's own)."""
    folded = fold(value)
    if not folded or folded in {fold(n) for n in names if n}:
        return False
    if filler_en(folded) or folded in FILLER_ZH or _kind_word(folded):
        return False
    text = unicodedata.normalize("NFKC", asked).casefold()
    body = r"\s*".join(re.escape(c) for c in folded)
    before = r"(?<![a-z0-9])" if LATIN_EDGE.match(folded[0]) else ""
    after = r"(?![a-z0-9])" if LATIN_EDGE.match(folded[-1]) else ""
    # "the lab I follow": a word heading a clause about the asker is no name
    clause = rf"(?!\s+(?:{'|'.join(map(re.escape, CLAUSE_PRONOUNS))})\b)"
    return re.search(before + body + after + clause, text) is not None


def _kind_word(folded: str) -> bool:
    """A word for a kind of subject or of feed ("user", "channel", 仓库, "releases") names none."""
    return folded in EN_KIND_NOUNS or folded in ZH_KIND_NOUNS or intent_word(folded)


# --- what the model is shown --------------------------------------------------------------------


def candidates_describe(routes: list[Route]) -> list[Candidate]:
    """The candidates with their parameters read from the catalog (routes with platforms)."""
    return [
        Candidate(
            route_id=route.pk,
            template=route.path,
            name=route.name,
            source=route.platform.name,
            params=tuple(_params(route)),
        )
        for route in routes
    ]


def _params(route: Route) -> list[Slot]:
    return route_slots(route.path, route.parameters, route.description, route.example)


def candidates_listing(candidates: list[Candidate]) -> str:
    """The candidates as the prompt lists them, one block each."""
    return "\n".join(_listing(c) for c in candidates)


def _listing(candidate: Candidate) -> str:
    lines = [f"- route {candidate.template} ({candidate.source}: {candidate.name})"]
    for p in candidate.params:
        kind = "optional" if p.optional else "required"
        role = "subject: only a value the question gives" if p.subject else "setting"
        description = " ".join(p.description.split())[:300]
        line = f"    :{p.name} ({kind}, {role}) {description}".rstrip()
        if p.choices:
            values = json.dumps([v for _label, v in p.choices[:40]], ensure_ascii=False)[:600]
            labels = ", ".join(f"{label}={value}" for label, value in p.choices[:20])
            line += f"; values {values} ({labels[:600]})"
        if p.example:
            line += f"; format like {json.dumps(p.example, ensure_ascii=False)} (not a value)"
        lines.append(line)
    if not candidate.params:
        lines.append("    (no parameters)")
    return "\n".join(lines)


def route_schema(candidates: list[Candidate]) -> dict[str, Any]:
    """A strict schema: each route's object names its own parameters (required ones as strings,
    optional ones as string or null), and ``needs_input`` lists what the question lacks."""
    return _object(
        {
            "routes": {
                "type": "array",
                "description": f"at most {MAX_PATHS} routes, best first; empty with needs_input",
                "items": {"anyOf": [_route_item(c) for c in candidates]},
            },
            "needs_input": {
                "type": "array",
                "description": "required subject parameters the question gives no value for",
                "items": _object(
                    {
                        "route": {"type": "string", "enum": [c.template for c in candidates]},
                        "parameter": {"type": "string"},
                    }
                ),
            },
            "reason": {"type": "string"},
        }
    )


def _route_item(candidate: Candidate) -> dict[str, Any]:
    params = {
        p.name: {"type": ["string", "null"] if p.optional else "string"} for p in candidate.params
    }
    return _object(
        {"route": {"type": "string", "enum": [candidate.template]}, "params": _object(params)}
    )


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


# --- checking the answer --------------------------------------------------------------------------


def routes_validate(
    value: dict[str, Any], candidates: list[Candidate], *, asked: str, rejections: Rejections
) -> RouteChoice:
    """The answer as a ``RouteChoice``; ``ValueError`` (sent back as the repair) otherwise."""
    by_template = {c.template: c for c in candidates}
    picks = value.get("routes") if isinstance(value.get("routes"), list) else []
    reason = value.get("reason") if isinstance(value.get("reason"), str) else ""
    if not picks:
        needs = _needs_answered(value.get("needs_input"), by_template, rejections)
        if not needs:
            raise ValueError("choose at least one offered route, or list needs_input")
        return RouteChoice(needs=needs, reason=reason[:300])
    chosen = [_pick(pick, by_template, asked, rejections) for pick in picks[:MAX_PATHS]]
    return RouteChoice(chosen=list(dict.fromkeys(chosen)), reason=reason[:300])


def _pick(
    pick: Any, by_template: dict[str, Candidate], asked: str, rejections: Rejections
) -> tuple[str, int]:
    template = pick.get("route") if isinstance(pick, dict) else None
    candidate = by_template.get(template) if isinstance(template, str) else None
    if candidate is None:
        rejections.add(str(template), "route not offered")
        raise ValueError(f"route {template!r} was not offered")
    raw = pick.get("params") if isinstance(pick.get("params"), dict) else {}
    params = {k: v.strip() for k, v in raw.items() if isinstance(v, str) and v.strip()}
    for spec in candidate.params:
        if spec.name in params:
            _value_check(candidate, spec, params[spec.name], asked, rejections)
    try:
        return path_build(template, params), candidate.route_id
    except RoutePathRejected as exc:
        rejections.add(template, str(exc))
        raise ValueError(f"{template}: {exc}") from None


def _value_check(
    candidate: Candidate, spec: Slot, value: str, asked: str, rejections: Rejections
) -> None:
    """A subject value must be a subject of the question; an enumerated one may also be a
    listed value; a setting without a value list, any value of the question."""
    if value in {v for _label, v in spec.choices}:
        return
    if not spec.subject and not spec.choices:
        return  # a setting without a value list: path_build checks its form
    namespace = candidate.template.split("/")[1]
    if spec.subject and subject_given(value, asked, names=(namespace, candidate.source)):
        return
    if not spec.subject and fold(value) and fold(value) in fold(asked):
        return
    why = (reasons.NOT_LISTED if spec.choices else reasons.SUBJECT_NOT_GIVEN).english(
        name=spec.name
    )
    hit = (candidate, spec) if spec.subject and not spec.optional else None
    rejections.add(value, why, hit)
    raise ValueError(f"{candidate.template} {why} ({value!r}); use needs_input if it gives none")


def _needs_answered(
    raw: Any, by_template: dict[str, Candidate], rejections: Rejections
) -> list[dict[str, str]]:
    """The model's ``needs_input``: only required subject parameters of offered routes."""
    needs = []
    for entry in raw if isinstance(raw, list) else []:
        entry = entry if isinstance(entry, dict) else {}
        candidate = by_template.get(entry.get("route"))  # type: ignore[arg-type]
        spec = next(
            (p for p in candidate.params if p.name == entry.get("parameter")) if candidate else (),
            None,
        )
        if candidate is None or spec is None or spec.optional or not spec.subject:
            rejections.add(json.dumps(entry, ensure_ascii=False)[:300], "not a required subject")
            raise ValueError("needs_input lists only required subject parameters of offered routes")
        needs.append(need_of(candidate, spec))
    return needs


def need_of(candidate: Candidate, spec: Slot) -> dict[str, str]:
    """The ``RunContext.needs`` entry asking for ``spec`` of ``candidate`` (the shape
    ``params.SubjectMissing`` gives the offline method's needs)."""
    [need] = SubjectMissing([spec]).needs(route=candidate.template, source=candidate.source)
    return need
