"""What a route's parameters take where the question says nothing: a setting its documented
default (a listed value's label said as one: "English by default" is ``en``) or its example's
value, a subject its default only beside a subject named; Hono's order kept (no optional left
out before a given one); else the subject parameters to ask for (``SubjectMissing``)."""

from agent.routes.slots import Slot, value_format
from briefs import reasons
from fetching.paths import RoutePathRejected

NOT_NAMED = frozenset({"option", "keywords", "default", "example"})  # sources that name no subject


class SubjectMissing(RoutePathRejected):
    """A required subject parameter has no value in the question; ``slots`` says which."""

    def __init__(self, slots: list[Slot]) -> None:
        self.slots = slots
        names = ", ".join(f":{s.name}" for s in slots)
        code, _sep, detail = reasons.SUBJECT_NO_VALUE.english(names=names).partition(": ")
        super().__init__(code, detail)

    def needs(self, *, route: str, source: str) -> list[dict[str, str]]:
        """What to ask for, in the shape of ``RunContext.needs``."""
        return [
            {
                "parameter": slot.name,
                "description": slot.description,
                "format": value_format(slot),
                "route": route,
                "source": source,
            }
            for slot in self.slots
        ]


def unsaid_fill(slots: list[Slot], values: dict[str, str], sources: dict[str, str]) -> None:
    """Fill what the question left to defaults, keep Hono's order, or refuse the route."""
    named = any(s not in NOT_NAMED for s in sources.values())
    for slot in slots:
        if slot.name in values or slot.optional:
            continue
        if not slot.subject and (slot.default or slot.example):
            values[slot.name] = slot.default or slot.example
            sources[slot.name] = "default" if slot.default else "example"
        elif slot.subject and slot.default and named:
            values[slot.name], sources[slot.name] = slot.default, "default"
    missing = [s for s in slots if not s.optional and s.name not in values and s.subject]
    if missing:  # one with a default is asked for only when it alone is missing
        raise SubjectMissing([s for s in missing if not s.default] or missing)
    _close_gaps(slots, values, sources)


def _close_gaps(slots: list[Slot], values: dict[str, str], sources: dict[str, str]) -> None:
    """Hono lets trailing optionals go, not one before a given value: a setting takes its
    default there; otherwise the later optional values are dropped."""
    last = max((i for i, s in enumerate(slots) if s.name in values), default=0)
    for index, slot in enumerate(slots[:last]):
        if slot.name in values:
            continue
        default = _listed_default(slot)
        if not slot.subject and (default or slot.example):
            values[slot.name] = default or slot.example
            sources[slot.name] = "default" if default else "example"
            continue
        for later in slots[index + 1 :]:
            if later.optional:
                values.pop(later.name, None)
                sources.pop(later.name, None)
        return


def _listed_default(slot: Slot) -> str | None:
    """A setting's documented default as the value to write: among listed values, the one it
    is or labels ("English by default" is ``en``), else none."""
    if not slot.default or not slot.choices:
        return slot.default
    said = slot.default.casefold()
    return next((v for label, v in slot.choices if said in {label.casefold(), v.casefold()}), None)
