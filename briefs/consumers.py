"""The websocket of one brief: ``/ws/briefs/<id>/?after=<seq>&lang=<code>``.

Only the owner may watch. The socket is accepted first and then closed with a code, because a
refusal before the handshake reaches the browser as a bare failure with no code at all:

- ``4401`` not signed in;
- ``4403`` not the owner's brief, or no such brief (the same code: existence is not revealed);
- ``4410`` the brief was deleted while being watched.

Messages to the client (JSON):

- ``{"type": "status", "status", "status_label", "finished", "queue_position", "created_at",
  "started_at", "finished_at", "error"}`` on connect and whenever it changes;
- ``{"type": "step", "seq", "kind", "payload", "created_at", "html"}`` for every step after
  ``after``, each exactly once and in ``seq`` order (a reconnecting client passes the last seq it
  has); ``html`` is the timeline entry, rendered and escaped by the server in ``lang``.
"""

import asyncio
import contextlib
import json
import re
from collections import OrderedDict
from urllib.parse import parse_qs
from zoneinfo import ZoneInfo

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation

from briefs import live
from briefs.middleware import TIMEZONE_COOKIE, zone_named
from briefs.models import RunStep
from briefs.selectors import brief_live_read, brief_steps
from briefs.templatetags.steps import step_html

CLOSE_NOT_SIGNED_IN = 4401
CLOSE_NOT_YOURS = 4403
CLOSE_GONE = 4410
SEQ_RE = re.compile(r"[0-9]{1,9}")


def _query_value(scope: dict, name: str) -> str:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(name) or [""]
    return values[0]


def _seq(value: str) -> int:
    """The seq a reconnecting client names; anything but plain ASCII digits (``str.isdigit``
    also takes superscripts and other scripts' digits) or a figure past any real log replays
    from the start."""
    return int(value) if SEQ_RE.fullmatch(value) else 0


def _language(code: str) -> str:
    try:
        return translation.get_supported_language_variant(code) if code else settings.LANGUAGE_CODE
    except LookupError:
        return settings.LANGUAGE_CODE


MESSAGE_CACHE_SIZE = 2048
_messages: OrderedDict[tuple, str] = OrderedDict()


def step_message(step: RunStep, *, language: str, zone: ZoneInfo | None) -> str:
    """The JSON text of a step for watchers in ``language`` and ``zone``. A step never changes,
    so a hundred watchers of one brief share one serialisation (and one rendering)."""
    key = (step.brief_id, step.seq, language, zone.key if zone else "")
    text = _messages.get(key)
    if text is None:
        text = json.dumps(
            {
                "type": "step",
                "seq": step.seq,
                "kind": step.kind,
                "payload": step.payload,
                "created_at": step.created_at.isoformat(),
                "html": step_html(step, language=language, zone=zone),
            },
            ensure_ascii=False,
        )
        _messages[key] = text
        if len(_messages) > MESSAGE_CACHE_SIZE:
            _messages.popitem(last=False)
    return text


class BriefStepsConsumer(AsyncJsonWebsocketConsumer):
    # The shared ``live.BriefFeed`` listens to the brief's group; sockets need no channel.
    channel_layer_alias = "no-layer-for-sockets"

    feed: live.BriefFeed | None = None
    pump: asyncio.Task | None = None

    async def connect(self) -> None:
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.brief_id = int(self.scope["url_route"]["kwargs"]["brief_id"])
        self.sent = _seq(_query_value(self.scope, "after"))
        # One read for the state and the steps to replay, on the live reader's own connection.
        state, steps = await live.reader_call(
            brief_live_read, brief_id=self.brief_id, after=self.sent, owner=user
        )
        if state is None:
            await self.close(code=CLOSE_NOT_YOURS)
            return
        self.language = _language(_query_value(self.scope, "lang"))
        self.zone = zone_named(self.scope.get("cookies", {}).get(TIMEZONE_COOKIE))
        self.last_status: dict | None = None
        await self._send_status(state)
        await self._send_steps(steps)
        self.feed, self.queue, passed = live.feed_join(self.brief_id, after=self.sent)
        if passed > self.sent:
            await self._send_from_log()
        self.pump = asyncio.ensure_future(self._pump())

    async def disconnect(self, code: int) -> None:
        if self.pump is not None:
            self.pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.pump
        if self.feed is not None:
            self.feed.leave(self.queue)

    async def websocket_receive(self, message: dict) -> None:
        """Clients have nothing to say: every frame (text, binary, JSON or not, of any size) is
        dropped undecoded."""

    async def _pump(self) -> None:
        while True:
            event = await self.queue.get()
            if isinstance(event, live.StepsArrived):
                await self._send_steps(event.steps)
            elif event.state is None:
                await self.close(code=CLOSE_GONE)
                return
            else:
                await self._send_status(event.state)

    async def _send_steps(self, steps: list[RunStep]) -> None:
        for step in steps:
            if step.seq <= self.sent:
                continue
            if step.seq > self.sent + 1:  # a gap: the log is the truth, read it
                await self._send_from_log()
                continue
            await self._send_step(step)

    async def _send_from_log(self) -> None:
        for step in await database_sync_to_async(brief_steps)(
            brief_id=self.brief_id, after=self.sent
        ):
            await self._send_step(step)

    async def _send_step(self, step: RunStep) -> None:
        await self.send(text_data=step_message(step, language=self.language, zone=self.zone))
        self.sent = step.seq

    async def _send_status(self, state) -> None:
        with translation.override(self.language):  # the badge's label, in the page's language
            message = state.as_message()
        if message != self.last_status:
            self.last_status = message
            await self.send_json(message)
