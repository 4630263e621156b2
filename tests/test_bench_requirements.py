"""Benchmarks run with the runtime requirements alone and carry their own inputs."""

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = sorted((ROOT / "bench").rglob("*.py"))
PROJECT = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()} - {"tests"}
# Import names of the runtime requirements that differ from their distribution names.
IMPORT_NAMES = {"djangorestframework": "rest_framework", "django-q2": "django_q",
                "dj-database-url": "dj_database_url", "python-dotenv": "dotenv",
                "markdown-it-py": "markdown_it", "channels-redis": "channels_redis",
                "drf-spectacular": "drf_spectacular", "django-axes": "axes",
                "django-csp": "csp"}  # fmt: skip
# The one exception: a person's latency includes the browser's, so bench/latency.py drives
# Chromium through Selenium, a dev requirement (its docstring says so).
DEV_ONLY = {"latency.py": {"selenium"}}


def runtime_modules() -> set[str]:
    names = set()
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        match = re.match(r"([A-Za-z0-9_.-]+)", line)
        if match and not line.startswith("#"):
            name = match.group(1).lower()
            names.add(IMPORT_NAMES.get(name, name.replace("-", "_")))
    return names


def top_level_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", BENCH, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_benchmark_imports_only_runtime_requirements(path):
    # asgiref comes with Django itself.
    allowed = set(sys.stdlib_module_names) | PROJECT | runtime_modules() | {"asgiref"}
    allowed |= DEV_ONLY.get(path.name, set())
    outside = top_level_imports(path) - allowed
    assert not outside, f"{path.name} imports {sorted(outside)}: not in requirements.txt"
    assert "tests" not in top_level_imports(path), f"{path.name} imports from tests/"


def test_the_catalog_benchmark_carries_its_questions():
    source = (ROOT / "bench" / "catalog.py").read_text()
    assert '"shared"' not in source, "bench/catalog.py reads questions outside the repository"
    questions = (ROOT / "eval" / "routing-dev.jsonl").read_text().splitlines()
    assert len([q for q in questions if q.strip()]) >= 20
