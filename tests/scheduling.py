"""How the parallel workers of scripts/test share the suite (pytest-xdist, ``--dist loadgroup``).

A work unit is a test module, so a module-scoped scenario starts once; the tests sharing one
stack of processes (the browser, the MCP server) are one unit, so the stack is built once; the
scenarios that start whole worker clusters are one unit, so no two clusters at once crowd
PostgreSQL's connections or the machine's cores. The longest units are handed out first, so the
run does not end waiting on one of them.

pytest-xdist's own ``xdist_group`` marker renames each test's node id, which pytest 9 no longer
lets a plugin do; the scheduler here reads the group from the node id instead.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

SHARED_UNITS = {
    # Two browser stacks on two workers: the pages added last (accounts, the admin under axe, the
    # answer page, live watches) on one, the rest on the other, so neither ends the run alone.
    "tests/browser/test_accounts.py": "browser-b",
    "tests/browser/test_admin_axe.py": "browser-b",
    "tests/browser/test_answer_page.py": "browser-b",
    "tests/browser/test_watch_live.py": "browser-b",
    "tests/browser/": "browser",
    "tests/mcp_server/": "mcp-stack",
    "tests/briefs/test_worker.py": "clusters",
    "tests/briefs/test_worker_cluster.py": "clusters",
    "tests/briefs/test_worker_flight.py": "clusters",
    "tests/watches/test_cluster.py": "clusters",
}
# The units that take minutes, longest first (measured with --durations): started first.
LONGEST_FIRST = ("clusters", "tests/api/test_schema.py", "browser", "browser-b", "mcp-stack")
# Modules whose tests are units of their own: each fuzzes the API for minutes, with no stack to
# share.
TEST_UNITS = ("tests/api/test_schema.py",)


def work_unit(nodeid: str) -> str:
    """The unit a test belongs to: a shared one, else its module (or itself, in
    ``TEST_UNITS``)."""
    module = nodeid.split("::", 1)[0]
    if module in TEST_UNITS:
        return nodeid
    return next(
        (unit for prefix, unit in SHARED_UNITS.items() if module.startswith(prefix)), module
    )


def longest_first(items: list) -> None:
    """Reorder ``items`` in place: the longest units first, the rest as collected. Every worker
    collects the same order, which is the order units are handed out in."""

    def rank(item) -> int:
        unit = work_unit(item.nodeid)
        unit = unit.split("::", 1)[0]  # a test that is a unit of its own ranks as its module
        return LONGEST_FIRST.index(unit) if unit in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)


class UnitScheduling(LoadScopeScheduling):
    """xdist's scope scheduling, with ``work_unit`` as the scope, in collection order."""

    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # keep LONGEST_FIRST's order

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)
