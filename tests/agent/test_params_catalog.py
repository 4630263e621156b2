"""The example is a format hint, never a value: a property over the real catalog snapshot.

For every route of the catalog with one required subject parameter (or an ``owner/name``
pair of them) that its example fills, a question made of the route's name and a fresh value
of the example's shape must put the fresh value in the path, never the example's; the same
question without a value must refuse the route, naming the parameter it lacks.
"""

import re
from dataclasses import dataclass

import pytest

from agent.routes.fit import route_fill, values_lent
from agent.routes.slots import route_slots, shape_of, slots_lent
from agent.routes.suits import WORD_NUMBERED_RE
from agent.routes.unsaid import SubjectMissing
from catalog.models import Route
from fetching.paths import RoutePathRejected, catalog_cache_clear, path_build, template_values

pytestmark = pytest.mark.django_db
MIN_ROUTES = 200
# A search written field:term, its key before it: search_query=all:
FIELDED_VALUE_RE = re.compile(r"^search_query=all:")


@dataclass(frozen=True)
class Case:
    route: Route
    subjects: list[str]  # parameter names, in path order
    fresh: str  # what the question names: one value, or owner/name for a pair
    question: str
    bare: str  # the same question without the value


def _fresh(example: str, index: int) -> str | None:
    """A value of the example's shape that is not the example's."""
    shape = shape_of(example)
    if WORD_NUMBERED_RE.fullmatch(example):  # forum-6-1: a word and numbers
        fresh = f"lumenqx-{index}"
    elif shape in ("number", "stock"):
        fresh = re.sub(r"[0-9]", lambda m: str((int(m.group(0)) + 3) % 10), example)
    else:
        fresh = {
            "video": "BV1Qx4y1z7Kp",
            "domain": "social.lumenqx.net",
            "pair": f"lumenqx{index}/orbitqx{index}",
            "word": f"lumenqx{index}",
        }.get(shape or "")
    return fresh if fresh and fresh != example else None


def _question(route: Route, value: str, index: int) -> tuple[str, str]:
    name, platform = route.name, route.platform.name
    if re.search(r"[\u4e00-\u9fff]", name):
        return f"{platform} {value} 的{name}", f"{platform} 的{name}"
    form = index % 3
    if form == 2 and shape_of(value) == "word":
        return f'"{value}" {name} on {platform}', f"{name} on {platform}"
    marker = ("of", "from", "by")[form]
    return f"{name} {marker} {value} on {platform}", f"{name} on {platform}"


def _case(route: Route, index: int) -> Case | None:
    slots = route_slots(route.path, route.parameters, route.description, route.example)
    slots = slots_lent(slots, values_lent(route))  # "as above": another route's values
    required = [s for s in slots if not s.optional]
    subjects = [s for s in required if s.subject]
    if not subjects or any(s.example is None for s in subjects):
        return None
    if any(not s.subject and not (s.default or s.example) for s in required):
        return None  # a setting with nothing to fall back on: not this property's business
    try:
        path_build(route.path, {s.name: s.example for s in slots if s.example})
    except RoutePathRejected:
        return None  # even its example cannot be sent (a utility route, a gap before a literal)
    names = [s.name for s in subjects]
    if len(subjects) == 2 and [s.name for s in slots[: slots.index(subjects[1]) + 1]][-2:] == names:
        example = "/".join(s.example for s in subjects)
    elif len(subjects) == 1:
        example = subjects[0].example
    else:
        return None
    fresh = _fresh(example, index)
    if fresh is None or any(s.regex and not re.fullmatch(s.regex, fresh) for s in subjects):
        return None
    question, bare = _question(route, fresh, index)
    return Case(route, names, fresh, question, bare)


@pytest.fixture(scope="module")
def cases(django_db_setup, django_db_blocker) -> list[Case]:
    with django_db_blocker.unblock():
        catalog_cache_clear()
        routes = Route.objects.select_related("platform").order_by("path")
        found = [_case(route, index) for index, route in enumerate(routes)]
    return [case for case in found if case is not None]


def test_the_property_covers_enough_routes(cases):
    assert len(cases) >= MIN_ROUTES, f"only {len(cases)} routes qualify"


def test_a_fresh_subject_in_the_question_is_the_value_in_the_path(cases):
    wrong = []
    for case in cases:
        try:
            filled = route_fill(case.route, case.question)
        except RoutePathRejected as exc:
            wrong.append(f"{case.route.path} | {case.question} | refused: {exc}")
            continue
        values = template_values(case.route.path, filled.path)
        # (written as a handle where the example writes one: @lumenqx7 for @Lizzard)
        got = "/".join(values.get(name, "").removeprefix("@") for name in case.subjects)
        # (or in the site's query language: arXiv's search_query=all:lumenqx255)
        got = FIELDED_VALUE_RE.sub("", got)
        if got.replace("%2F", "/") != case.fresh:
            wrong.append(f"{case.route.path} | {case.question} | {filled.path}")
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong[:25])


def test_without_a_subject_the_route_is_refused_for_what_it_lacks(cases):
    wrong = []
    for case in cases:
        try:
            filled = route_fill(case.route, case.bare)
        except SubjectMissing as exc:
            if not {s.name for s in exc.slots} <= set(case.subjects):
                wrong.append(f"{case.route.path} | {case.bare} | lacks {exc.slots}")
            continue
        except RoutePathRejected as exc:
            wrong.append(f"{case.route.path} | {case.bare} | refused otherwise: {exc}")
            continue
        wrong.append(f"{case.route.path} | {case.bare} | filled {filled.path}")
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong[:25])
