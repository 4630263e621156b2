"""Measure the agent's routing on a file of questions: rewrite, platform and route, no fetch.

Each non-blank line of FILE is a JSON object, as in ``../shared/eval/routing-dev.jsonl``::

    {"question": "...", "namespaces": ["36kr"], "routes": ["/36kr/hot-list/:category?"]}

``routes`` is optional, and so are ``paths`` (the acceptable full paths) and
``"no_example_entity": true`` (the question names no subject). Every question goes through the
agent's own nodes (``node_rewrite``, ``node_platform``, ``node_route``: the model method when
an API key is configured, else the offline one), with its steps kept in memory; nothing is
fetched and no brief is saved.

- platform hit@1: the platform step's first choice is one of the line's namespaces;
- platform hit@3: one of its first three is. The ranking is the step's choices in their order,
  then the other candidates of the catalog search in search order;
- route hit, over the lines that name routes: the route template (not the filled path) of the
  route step's first path is one of them;
- path hit, over the lines that name paths: the first path is one of them, compared
  percent-decoded and without a trailing slash;
- example leak, over the lines that name no subject: the run did not end asking for input
  (``needs_input``) and a chosen path carries a subject value taken from its route's example;
- invented subjects, over the lines that name no subject: the run did not end asking for
  input and the first path gives a subject parameter a value (any value: the question gave none),
  unless that path is one the line expects (its value is then the line's own);
- needs input: the route node found no route it could fill and asked for what was missing;
- needs setup: the only route that fits needs setting up by staff (``agent.routes.setup``), so
  nothing is read; the line's ``routes`` listing that route counts it as a *right* setup;
- path hit by kind of question: *names a subject* (the line's ``paths`` and no
  ``no_example_entity``), *head* (names none, and a route that needs none serves it: the line
  gives ``paths`` too); and *asks*, over the lines naming no subject that give no ``paths``: the
  run ended asking for input (or *needs setup* on one of the line's routes);
- topic hit, over the lines that give ``"topic"`` (the terms the topic check must look for in the
  items, ``[]`` when the question names no topic and must never end off topic): the subject the
  topic check (``agent.summary.subject``) reads from the question and the platforms and routes
  chosen has exactly these terms, case-folded; none when every path read carries one of them
  (``/gitlab/release/inkscape/inkscape`` was chosen for inkscape: its items need not say it).
"""

import json
from urllib.parse import unquote

from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.core.management.base import BaseCommand

from agent import llm
from agent.context import RunContext
from agent.management.commands.ask import CLI_USER, cli_owner
from agent.management.eval_lines import eval_lines_read
from agent.management.routing_outcomes import EvalCase, EvalOutcome, case_parse, totals_of
from agent.platform import node_platform
from agent.rewrite import node_rewrite
from agent.route import node_route
from agent.routes.params import example_leaks
from agent.routes.slots import route_slots
from agent.summary.answer import topic_subject
from briefs.models import Brief
from catalog.models import Route
from fetching.paths import template_values


def cases_read(path: str) -> list[EvalCase]:
    """Every question of the file; ``CommandError`` naming the first bad line."""
    return eval_lines_read(path, case_parse, what="questions")


def _templates(route_ids: list[int | None]) -> list[str]:
    known = dict(Route.objects.filter(pk__in=[r for r in route_ids if r]).values_list("id", "path"))
    return [known.get(route_id, "") for route_id in route_ids]


def _leaks(chosen: list[tuple[str, int | None]]) -> list[str]:
    """Each chosen path's subject parameters that carry their route example's value."""
    routes = Route.objects.in_bulk([route_id for _path, route_id in chosen if route_id])
    found = []
    for path, route_id in chosen:
        route = routes.get(route_id)
        if route is None:
            continue
        names = example_leaks(
            template=route.path,
            parameters=route.parameters,
            description=route.description,
            example=route.example,
            path=path,
        )
        found.extend(f"{path} :{name}" for name in names)
    return found


def _subject_values(chosen: list[tuple[str, int | None]]) -> list[str]:
    """The subject parameters the first chosen path gives a value."""
    if not chosen or not chosen[0][1]:
        return []
    path, route_id = chosen[0]
    route = Route.objects.filter(pk=route_id).first()
    if route is None:
        return []
    values = template_values(route.path, unquote(path))
    slots = route_slots(route.path, route.parameters, route.description, route.example)
    return [f"{path} :{s.name}" for s in slots if s.subject and values.get(s.name)]


def _topic_terms(ctx: RunContext) -> list[str]:
    """The terms the topic check would look for in the items of the chosen paths (none when
    every path carries one: ``agent.summary.answer`` keeps such a feed's items whole)."""
    subject = topic_subject(ctx)
    if ctx.paths and all(subject.carried_by(path) for path, _route in ctx.paths):
        return []  # every feed read was chosen for the subject: its items need not mention it
    return list(subject.terms)


async def case_route(case: EvalCase, *, owner, use_llm: bool) -> EvalOutcome:
    """Run the agent's rewrite, platform and route nodes for one question, steps in memory."""
    ctx = RunContext(
        brief=Brief(question=case.question),
        owner=owner,
        use_llm=use_llm,
        budget=settings.AGENT_ROUTER_BUDGET,
        fetch_retry=settings.AGENT_FETCH_RETRY,
        memory_steps=[],
    )
    try:
        ctx.rewrite = await node_rewrite(ctx)
        outcome = EvalOutcome(case, query=ctx.rewrite.query, keywords=list(ctx.rewrite.keywords))
        if await node_platform(ctx):
            await node_route(ctx)
    finally:
        await ctx.model_thread_close()
    offered: list[str] = []
    for kind, payload in ctx.memory_steps:
        if kind == "candidates" and payload["node"] == "platform":
            offered = [item["namespace"] for item in payload["items"]]
        elif kind == "choice":
            outcome.methods[payload["node"]] = payload["method"]
        elif kind == "llm_fallback":
            outcome.fallbacks.append(payload["node"])
    outcome.chosen = list(ctx.platforms)
    if ctx.platforms:
        outcome.ranking = ctx.platforms + [ns for ns in offered if ns not in ctx.platforms]
    outcome.paths = [path for path, _ in ctx.paths]
    outcome.templates = await sync_to_async(_templates)([route_id for _, route_id in ctx.paths])
    outcome.needs = list(ctx.needs)
    outcome.leaks = await sync_to_async(_leaks)(list(ctx.paths))
    outcome.subjects = await sync_to_async(_subject_values)(list(ctx.paths))
    outcome.topic = await sync_to_async(_topic_terms)(ctx)
    outcome.setup = [s["route"] for s in ctx.setup_needed]
    return outcome


async def cases_route(cases: list[EvalCase], *, owner, use_llm: bool) -> list[EvalOutcome]:
    return [await case_route(case, owner=owner, use_llm=use_llm) for case in cases]


def _mark(hit: bool | None) -> str:
    return {True: "hit ", False: "MISS", None: " -  "}[hit]


class Command(BaseCommand):
    help = (
        "Run rewrite, platform and route (no fetch) for each question of a JSON-lines file and "
        "print each choice, then platform hit@1, hit@3, route hit, path hit, example leaks, "
        "invented subjects, needs input and topic hit."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="JSON lines: question, namespaces, routes (optional)")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print one JSON object"
        )
        parser.add_argument(
            "--offline", action="store_true", help="use the offline methods even with a model"
        )
        parser.add_argument(
            "--user", default=CLI_USER, help="who pays the model's tokens (default: cli)"
        )

    def handle(self, *args, file: str, as_json: bool, offline: bool, user: str, **options):
        cases = cases_read(file)
        use_llm = llm.llm_configured() and not offline
        owner = cli_owner(user) if use_llm else None
        mode = llm.llm_mode_label() if use_llm else "offline"
        outcomes = async_to_sync(cases_route)(cases, owner=owner, use_llm=use_llm)
        totals = totals_of(outcomes)
        if as_json:
            report = {"mode": mode, "totals": totals, "lines": [o.as_dict() for o in outcomes]}
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for outcome in outcomes:
            self._print(outcome)
        self._print_totals(mode, totals)

    def _print(self, o: EvalOutcome) -> None:
        fallback = f"  (model fell back: {', '.join(o.fallbacks)})" if o.fallbacks else ""
        self.stdout.write(f"line {o.case.line}: {o.case.question}{fallback}")
        self.stdout.write(
            f"  platform {_mark(o.platform_hit_1)} {', '.join(o.ranking[:3]) or 'none'}"
            f"   (expected {', '.join(o.case.namespaces)})"
        )
        route = o.templates[0] if o.templates else "none"
        path = f" as {o.paths[0]}" if o.paths else ""
        self.stdout.write(f"  route    {_mark(o.route_hit)} {route}{path}")
        if o.path_hit is not None:
            self.stdout.write(
                f"  path     {_mark(o.path_hit)} (expected {', '.join(o.case.paths)})"
            )
        if o.needs_input:
            asked = ", ".join(f"{n['source']} :{n['parameter']}" for n in o.needs)
            self.stdout.write(f"  needs input: {asked}")
        if o.example_leak:
            self.stdout.write(f"  EXAMPLE LEAK {', '.join(o.leaks)}")
        if o.invented_subject:
            self.stdout.write(f"  INVENTED SUBJECT {', '.join(o.subjects)}")
        if o.setup:
            self.stdout.write(f"  needs setup: {', '.join(o.setup)}")
        if o.topic_hit is not None:
            expected = ", ".join(o.case.topic) or "none"
            self.stdout.write(
                f"  topic    {_mark(o.topic_hit)} {', '.join(o.topic) or 'none'}"
                f"   (expected {expected})"
            )

    def _print_totals(self, mode: str, t: dict) -> None:
        def line(label: str, hits: int, of: int, share: float | None) -> str:
            figure = f"{share:.3f}" if share is not None else "n/a"
            return f"{label:<15} {figure}  ({hits}/{of})"

        self.stdout.write(f"\n{t['questions']} questions, mode {mode}")
        self.stdout.write(
            line("platform hit@1", t["platform_hits_at_1"], t["questions"], t["platform_hit_at_1"])
        )
        self.stdout.write(
            line("platform hit@3", t["platform_hits_at_3"], t["questions"], t["platform_hit_at_3"])
        )
        self.stdout.write(line("route hit", t["route_hits"], t["route_questions"], t["route_hit"]))
        self.stdout.write(line("path hit", t["path_hits"], t["path_questions"], t["path_hit"]))
        for kind, label in (("subject", "  names subject"), ("head", "  head")):
            self.stdout.write(
                line(
                    label,
                    t[f"{kind}_path_hits"],
                    t[f"{kind}_path_questions"],
                    t[f"{kind}_path_hit"],
                )
            )
        self.stdout.write(
            f"{'asked':<15} {t['asks_right']}/{t['asks_questions']}  "
            "(of the questions naming no subject nor a path: asked, or its route needs setup)"
        )
        self.stdout.write(
            f"{'example leaks':<15} {t['example_leaks']}  "
            f"(of {t['no_example_entity_questions']} questions naming no subject)"
        )
        self.stdout.write(
            f"{'invented':<15} {t['invented_subjects']}  "
            f"(of {t['no_example_entity_questions']} questions naming no subject)"
        )
        self.stdout.write(f"{'needs input':<15} {t['needs_input']}")
        self.stdout.write(
            f"{'needs setup':<15} {t['needs_setup']}  "
            f"({t['needs_setup_right']} of them the line's own route)"
        )
        self.stdout.write(line("topic hit", t["topic_hits"], t["topic_questions"], t["topic_hit"]))
