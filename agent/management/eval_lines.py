"""What the eval commands share: reading a JSON-lines file of labelled cases, each line a JSON
object, and printing a score."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from django.core.management.base import CommandError

Case = TypeVar("Case")


def eval_lines_read(path: str, parse: Callable[[str, int], Case], *, what: str) -> list[Case]:
    """Every non-blank line of ``path`` through ``parse(text, line number)``; ``CommandError``
    naming the file and the first line ``parse`` refused (``ValueError``), or saying that the
    file holds no ``what``."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from None
    cases = []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            cases.append(parse(text, number))
        except ValueError as exc:
            raise CommandError(f"{path}, line {number}: {exc}") from None
    if not cases:
        raise CommandError(f"{path} holds no {what}")
    return cases


def json_object(text: str) -> dict:
    """One line as a JSON object; ``ValueError`` saying why it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def score_text(value: float | None) -> str:
    """A precision or recall as printed: three decimals, or "n/a" when nothing was counted."""
    return f"{value:.3f}" if value is not None else "  n/a"
