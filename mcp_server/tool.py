"""What a tool is here: its name, schema and description for the model, and the coroutine that
answers a call with a JSON object and the text the model reads."""

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import mcp_types as types

from mcp_server.caller import Caller

ProgressReport = Callable[[float, str], Awaitable[None]]


@dataclass(frozen=True)
class ToolCall:
    caller: Caller
    arguments: dict | None
    progress: ProgressReport  # (a rising number, a line about the step); no-op if not asked for


@dataclass(frozen=True)
class ToolAnswer:
    data: dict
    text: str = ""  # markdown for the model; the JSON of ``data`` when empty

    def as_result(self) -> types.CallToolResult:
        text = self.text or json.dumps(self.data, ensure_ascii=False, indent=1)
        return types.CallToolResult(
            content=[types.TextContent(text=text)], structured_content=self.data
        )


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict
    run: Callable[[ToolCall], Awaitable[ToolAnswer]]
    creates: bool = False  # makes a brief: goes through the briefs' admission (briefs.admission)
    open_world: bool = False  # reaches sites outside this service (through RSSHub)

    def as_tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=not self.creates,
                destructive_hint=False,
                idempotent_hint=not self.creates,
                open_world_hint=self.open_world,
            ),
        )
