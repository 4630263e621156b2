"""One direction (README: How it fits together): each app imports only the apps below it, and
the modules of one app import each other in no circle.

Read from the source with ``ast``: every ``import x`` and ``from x import y``, at the top of a
module, inside a function or under ``TYPE_CHECKING``. Migrations and tests are left out. A new
app goes into ``STACK`` on the floor its imports allow; an import that must run up goes into
``UP_ALLOWED`` with its reason in the README, and nowhere else.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The stack, from the ground up. An app may import the apps of the floors below its own; the
# apps of one floor import neither each other nor anything above.
STACK: list[tuple[str, ...]] = [
    ("api",),  # the API's foundation: base view, error shape, pagination
    ("catalog",),  # platforms, routes, route search, route health's rules
    ("fetching",),  # the one RSSHub client, feeds, items, attempts, circuits, instances
    ("briefs",),  # the store: briefs, steps, quotas, admission; its pages, API and tasks
    ("agent",),  # a question -> a brief, one node at a time
    ("housekeeping", "sharing", "mcp_server"),  # entry points
    ("watches",),  # reruns a question; sends its briefs out through sharing's feeds
    ("accounts",),  # sign-in and its limits, invitations, sign-up, profile, export, deletion
    ("rsshub_agent",),  # the project: settings, URLs, ASGI, the API's wiring, status pages
]

# (importing module, imported module) pairs allowed to run up, each explained in the README.
UP_ALLOWED: set[tuple[str, str]] = set()

# Top-level packages that are no app: they stand outside the stack and may import any app.
NOT_APPS = {"tests", "bench"}

FLOOR = {app: n for n, floor in enumerate(STACK) for app in floor}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _source_files(app: str) -> list[Path]:
    return sorted(
        p
        for p in (ROOT / app).rglob("*.py")
        if not {"migrations", "tests"} & set(p.relative_to(ROOT).parts)
    )


def _resolved(name: str, known: set[str]) -> str | None:
    """The project module ``name`` stands for: itself, or its nearest known parent."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path, known: set[str]) -> list[tuple[str, int]]:
    """Each project module ``path`` imports, with the line that imports it."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from pkg import mod`` imports the module pkg.mod where there is one.
            names = [f"{base}.{alias.name}" for alias in node.names] or [base]
        for name in names:
            target = _resolved(name, known)
            if target and target != module:
                found.append((target, node.lineno))
    return found


def _graph() -> tuple[dict[str, list[tuple[str, int]]], dict[str, Path]]:
    files = {_module_name(p): p for app in FLOOR for p in _source_files(app)}
    known = set(files)
    return {m: _imports(p, known) for m, p in files.items()}, files


def _app(module: str) -> str:
    return module.partition(".")[0]


def test_every_app_stands_on_a_floor_of_the_stack():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - NOT_APPS
    missing = sorted(packages - set(FLOOR))
    assert not missing, f"apps on no floor of STACK (tests/test_layers.py): {missing}"


def test_each_app_imports_only_the_apps_below_it():
    graph, files = _graph()
    wrong = []
    for module, imported in graph.items():
        for target, line in imported:
            if _app(target) == _app(module) or (module, target) in UP_ALLOWED:
                continue
            if FLOOR[_app(target)] >= FLOOR[_app(module)]:
                where = files[module].relative_to(ROOT)
                wrong.append(f"{where}:{line} imports {target} (not below {_app(module)})")
    assert not wrong, "imports that do not run down the stack:\n" + "\n".join(sorted(wrong))


def test_no_app_imports_one_that_imports_it():
    graph, _ = _graph()
    pairs = {(_app(m), _app(t)) for m, imported in graph.items() for t, _line in imported}
    both = sorted({tuple(sorted(p)) for p in pairs if p[0] != p[1] and p[::-1] in pairs})
    assert not both, f"apps that import each other: {both}"


def _circles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        work = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, ()))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_no_circle_of_imports_inside_an_app():
    graph, files = _graph()
    # A package's __init__ that hands its modules' names on is no room of its own: its
    # imports of its own modules draw no arrow (``from agent.llm import x`` is the module's).
    inside = {
        m: [t for t, _line in imported if _app(t) == _app(m)]
        for m, imported in graph.items()
        if files[m].name != "__init__.py"
    }
    circles = _circles(inside)
    assert not circles, f"modules that import each other in a circle: {circles}"


def test_the_check_sees_a_circle_and_an_import_running_up():
    """The reading itself: a circle of three is found, and a chain is not one."""
    assert _circles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert _circles({"a": ["b"], "b": ["c"]}) == []
    assert FLOOR["api"] < FLOOR["catalog"] < FLOOR["briefs"] < FLOOR["agent"]
