"""The RSSHub client against hostile answers from a real HTTP server on 127.0.0.1.

Each case ends in its named outcome, in bounded time and memory, and loses nothing else.
"""

import asyncio
import gzip
import logging
import threading
import time
import tracemalloc
import zlib
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import Platform, Route
from fetching.client import FetchFailed, RSSHubClient
from fetching.models import (
    Feed,
    FetchAttempt,
    Item,
    Outcome,
    PathFetch,
    RouteInstanceHealth,
    RSSHubInstance,
)
from fetching.outcomes import ERROR_BODY_LIMIT
from fetching.paths import RoutePathRejected
from fetching.services import fetch_path_sync, fetch_paths, fetch_paths_sync, route_probe
from tests.feeds import RSS_TYPE, feed_reply, rss
from tests.fetching.test_paths import ESCAPES
from tests.httpserver import Reply, ScriptedServer
from tests.ports import free_port

MiB = 1024 * 1024


def client_for(server, **options) -> RSSHubClient:
    defaults = {"timeout": 2.0, "connect_timeout": 1.0, "access_key": ""}
    return RSSHubClient(base_url=server.url, **{**defaults, **options})


async def get(server, path, **options):
    validators = {k: options.pop(k) for k in ("etag", "last_modified") if k in options}
    async with client_for(server, **options) as client:
        return await client.get(path, **validators)


async def failure(server, path, **options) -> FetchFailed:
    with pytest.raises(FetchFailed) as failed:
        await get(server, path, **options)
    return failed.value


def drip(request):
    """Headers promising a big body, then one byte every 0.1 s."""
    request.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n")
    request.wfile.write(b"Content-Length: 100000\r\n\r\n")
    for _ in range(1000):
        if request.stopping.wait(0.1):
            return None
        try:
            request.wfile.write(b"<")
            request.wfile.flush()
        except OSError:
            return None  # the client gave up, as it should
    return None


def lying_length(request):
    request.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n")
    request.wfile.write(b"Content-Length: 5000\r\nConnection: close\r\n\r\n")
    request.wfile.write(rss(1)[:100])
    return None  # and the connection closes after 100 of 5000 bytes


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """256 MiB of zeros in about 250 KB."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(MiB)
    parts = [compressor.compress(block) for _ in range(256)]
    return b"".join(parts) + compressor.flush()


# --- The deadline ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_it_ends_a_dripping_body_at_the_deadline(server):
    server.route("/test/drip", drip)
    failed = await failure(server, "/test/drip", timeout=1.0)
    # The total deadline's message, not httpx's per-read timeout, which the drip keeps alive.
    assert (failed.outcome, failed.message) == (Outcome.TIMEOUT, "no complete answer within 1 s")


@pytest.mark.asyncio
async def test_it_ends_a_server_that_never_answers(server):
    # Without a deadline the stall would end in a closed connection, an upstream error.
    server.route("/test/stall", lambda request: request.stopping.wait(10) and None)
    assert (await failure(server, "/test/stall", timeout=0.5)).outcome == Outcome.TIMEOUT


@pytest.mark.asyncio
async def test_it_calls_a_refused_connection_rsshub_unavailable():
    port = free_port()
    async with RSSHubClient(base_url=f"http://127.0.0.1:{port}", access_key="") as client:
        with pytest.raises(FetchFailed) as failed:
            await client.get("/test/1")
    assert failed.value.outcome == Outcome.RSSHUB_UNAVAILABLE


# --- The byte cap ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_it_stops_a_gzip_bomb_at_the_cap_in_bounded_memory(server, gzip_bomb):
    headers = {**RSS_TYPE, "Content-Encoding": "gzip"}
    server.route("/test/bomb", Reply(200, headers, gzip_bomb))
    tracemalloc.start()
    try:
        failed = await failure(server, "/test/bomb", max_bytes=5 * MiB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert failed.outcome == Outcome.TOO_LARGE
    assert peak < 24 * MiB  # the 5 MiB cap plus buffers, not 256 MiB


@pytest.mark.asyncio
async def test_it_decodes_a_normal_gzip_body(server):
    headers = {**RSS_TYPE, "Content-Encoding": "gzip"}
    server.route("/test/gz", Reply(200, headers, gzip.compress(rss(3))))
    response = await get(server, "/test/gz")
    assert response.body == rss(3)


@pytest.mark.asyncio
async def test_it_decodes_a_deflate_body(server):
    headers = {**RSS_TYPE, "Content-Encoding": "deflate"}
    server.route("/test/deflate", Reply(200, headers, zlib.compress(rss(3))))
    assert (await get(server, "/test/deflate")).body == rss(3)


@pytest.mark.asyncio
@pytest.mark.parametrize("encoding", ["br", "compress", "gzip, gzip", "zstd"])
async def test_it_refuses_an_encoding_it_did_not_ask_for(server, encoding):
    server.route("/test/enc", Reply(200, {**RSS_TYPE, "Content-Encoding": encoding}, rss(1)))
    failed = await failure(server, "/test/enc")
    assert (failed.outcome, failed.message) == (
        Outcome.UPSTREAM_ERROR, f"unsupported content encoding {encoding!r}",
    )  # fmt: skip


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", b"\x1f\x8b\x08\x00 this is not deflate data at all"),
        ("gzip", b"<rss>plain text labelled gzip</rss>"),
        ("deflate", gzip.compress(b"<rss/>")),  # a gzip header where zlib's belongs
    ],
    ids=["garbage after the magic", "not compressed", "gzip labelled deflate"],
)
async def test_it_calls_a_corrupt_compressed_body_upstream_error(server, encoding, body):
    server.route("/test/corrupt", Reply(200, {**RSS_TYPE, "Content-Encoding": encoding}, body))
    failed = await failure(server, "/test/corrupt")
    assert (failed.outcome, failed.message) == (Outcome.UPSTREAM_ERROR, "corrupt compressed body")


@pytest.mark.asyncio
async def test_it_keeps_only_the_head_of_a_huge_error_page(server):
    page = b"RSSHub error: " + b"x" * (2 * ERROR_BODY_LIMIT)
    server.route("/test/err", Reply(503, {"Content-Type": "text/html"}, page))
    response = await get(server, "/test/err")
    assert (response.status, response.body) == (503, page[:ERROR_BODY_LIMIT])


@pytest.mark.asyncio
async def test_it_calls_a_connection_reset_mid_body_upstream_error(server):
    def reset(request):
        request.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n<rss>")
        request.reset()

    server.route("/test/reset", reset)
    failed = await failure(server, "/test/reset")
    assert failed.outcome == Outcome.UPSTREAM_ERROR
    assert failed.message.startswith("ReadError"), failed.message


@pytest.mark.asyncio
@pytest.mark.parametrize("validator", ['"caf\u00e9"', '"\u4e2d"', "a\nb", "a\x00b"])
async def test_a_validator_that_cannot_be_a_header_is_not_sent(server, validator):
    """Stored from an upstream's header: sending it back must not break the fetch."""
    server.route("/test/v", feed_reply(1))
    response = await get(server, "/test/v", etag=validator, last_modified=validator)
    assert response.status == 200
    assert {"if-none-match", "if-modified-since"}.isdisjoint(server.requests[0].headers)


@pytest.mark.asyncio
async def test_it_refuses_a_body_past_the_cap(server):
    server.route("/test/big", Reply(200, RSS_TYPE, b"x" * (2 * MiB)))
    failed = await failure(server, "/test/big", max_bytes=MiB)
    assert failed.outcome == Outcome.TOO_LARGE


@pytest.mark.asyncio
async def test_it_refuses_a_declared_length_past_the_cap_before_reading(server):
    def huge(request):
        request.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10737418240\r\n\r\n")
        request.stopping.wait(5)

    server.route("/test/huge", huge)
    failed = await failure(server, "/test/huge", max_bytes=MiB)
    assert failed.outcome == Outcome.TOO_LARGE and "declares" in failed.message  # no body read


@pytest.mark.asyncio
async def test_it_calls_a_lying_content_length_upstream_error(server):
    server.route("/test/liar", lying_length)
    failed = await failure(server, "/test/liar")
    assert failed.outcome == Outcome.UPSTREAM_ERROR
    assert "broke off" in failed.message


# --- Redirects ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_it_follows_a_redirect_within_the_origin(server):
    server.route("/test/old", Reply(301, {"Location": "/test/new"}))
    server.route("/test/new", feed_reply(2))
    response = await get(server, "/test/old")
    assert (response.status, response.path, response.redirects) == (200, "/test/new", 1)


@pytest.mark.asyncio
async def test_it_never_follows_a_redirect_to_another_host(server):
    with ScriptedServer() as elsewhere:
        elsewhere.route("/test/1", feed_reply())
        server.route("/test/away", Reply(302, {"Location": f"{elsewhere.url}/test/1"}))
        failed = await failure(server, "/test/away")
        assert (failed.outcome, failed.http_status) == (Outcome.REJECTED, 302)
        assert elsewhere.requests == []


@pytest.mark.asyncio
async def test_it_never_follows_a_redirect_to_another_port(server):
    port = free_port()
    server.route("/test/port", Reply(307, {"Location": f"http://127.0.0.1:{port}/test/1"}))
    assert (await failure(server, "/test/port")).outcome == Outcome.REJECTED


@pytest.mark.parametrize(
    "location", ["/test/../rsshub/routes", "/test/1?format=json", "//evil.example/x"]
)
@pytest.mark.asyncio
async def test_it_refuses_a_redirect_to_a_path_it_would_refuse(server, location):
    server.route("/test/bad", Reply(302, {"Location": location}))
    failed = await failure(server, "/test/bad")
    assert failed.outcome == Outcome.REJECTED
    assert [r.path for r in server.requests] == ["/test/bad"]


UNREADABLE_LOCATIONS = [
    "http://[::1",  # httpx refuses it
    "//[zz]/x",
    "http://a:b:c/x",
    ":http://http:]%/",  # urllib's ValueError, past httpx's own check
    "http://://] \u00e9[",
    ":http://-:.",  # httpx's InvalidURL, once joined to the current URL
]


@pytest.mark.parametrize("location", UNREADABLE_LOCATIONS)
@pytest.mark.asyncio
async def test_it_calls_an_unreadable_redirect_upstream_error(server, location):
    server.route("/test/moved", Reply(301, {"Location": location}))
    failed = await failure(server, "/test/moved")
    assert (failed.outcome, failed.message, failed.http_status) == (
        Outcome.UPSTREAM_ERROR, "unreadable redirect", 301,
    )  # fmt: skip
    assert [r.path for r in server.requests] == ["/test/moved"]


@pytest.mark.asyncio
async def test_it_gives_up_on_a_redirect_loop(server):
    server.route("/test/a", Reply(302, {"Location": "/test/b"}))
    server.route("/test/b", Reply(302, {"Location": "/test/a"}))
    failed = await failure(server, "/test/a")
    assert failed.outcome == Outcome.UPSTREAM_ERROR and "redirects" in failed.message
    assert len(server.requests) == 4  # the request and three redirects, no more


# --- Conditional GET, headers, the key --------------------------------------------------------


@pytest.mark.asyncio
async def test_it_sends_the_etag_and_reads_304(server):
    def conditional(request):
        if '"v1"' in request.headers.get("if-none-match", ""):
            return Reply(304, {"ETag": '"v1"'})
        return feed_reply(ETag='"v1"')

    server.route("/test/cond", conditional)
    assert (await get(server, "/test/cond", etag='"v1"')).status == 304
    assert (await get(server, "/test/cond", etag='"v0"')).status == 200


@pytest.mark.asyncio
async def test_it_sends_last_modified_and_reads_304(server):
    stamp = "Tue, 01 Dec 2026 03:00:00 GMT"
    server.route("/test/since", Reply(304, {"Last-Modified": stamp}))
    assert (await get(server, "/test/since", last_modified=stamp)).status == 304
    assert server.requests[0].headers["if-modified-since"] == stamp


@pytest.mark.asyncio
async def test_a_weak_etag_is_also_sent_strong(server):
    server.route("/test/weak", Reply(304))
    await get(server, "/test/weak", etag='W/"3b5-abc"')
    assert server.requests[0].headers["if-none-match"] == 'W/"3b5-abc", "3b5-abc"'


@pytest.mark.asyncio
async def test_it_identifies_itself_and_asks_for_gzip_only(server):
    server.route("/test/1", feed_reply())
    await get(server, "/test/1")
    headers = server.requests[0].headers
    assert headers["user-agent"].startswith("RSSHubAgent/")
    assert headers["accept-encoding"] == "gzip"


@pytest.mark.asyncio
async def test_it_adds_the_key_and_logs_never_show_it(server, caplog):
    secret = "s3cret-access-key"
    server.route("/test/1", feed_reply())
    # Settings silence httpx; open it up to prove the key is not there even when it logs.
    for name in ("httpx", "httpcore", "fetching"):
        caplog.set_level(logging.DEBUG, logger=name)
    response = await get(server, "/test/1", access_key=secret)
    assert server.requests[0].query == {"key": [secret]}
    assert secret not in str(response.headers) and response.path == "/test/1"
    assert "HTTP Request" in caplog.text  # httpx did log the request...
    assert secret not in caplog.text  # ...without the key


@pytest.mark.asyncio
async def test_it_refuses_a_bad_path_without_a_request(server):
    async with client_for(server) as client:
        with pytest.raises(RoutePathRejected):
            await client.get("//evil.example/test/1")
    assert server.requests == []


# --- Concurrency limits ------------------------------------------------------------------------


def counting(delay: float):
    state = {"now": 0, "max": 0}
    lock = threading.Lock()

    def handler(request):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(delay)
        with lock:
            state["now"] -= 1
        return feed_reply(1)

    return handler, state


@pytest.mark.asyncio
async def test_the_per_instance_limit_holds(server):
    handler, state = counting(0.2)
    server.route("/test/n", handler)
    async with client_for(server, concurrency=2) as client:
        await asyncio.gather(*(client.get("/test/n") for _ in range(6)))
    assert state["max"] == 2


@pytest.mark.asyncio
async def test_the_global_limit_holds_across_clients(server):
    handler, state = counting(0.2)
    server.route("/test/n", handler)
    async with (
        client_for(server, global_concurrency=3) as one,
        client_for(server, global_concurrency=3) as two,
    ):
        await asyncio.gather(*(c.get("/test/n") for c in (one, two) for _ in range(4)))
    assert state["max"] == 3


# --- Through the service: the named outcome, and nothing else lost ----------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "reason"), ESCAPES[:20] + ESCAPES[-10:])
def test_every_escape_is_rejected_with_zero_requests(rsshub_at_server, path, reason):
    result = fetch_path_sync(path)
    assert (result.outcome, result.transient, result.http_status) == (
        Outcome.REJECTED, False, None,
    )  # fmt: skip
    assert reason in result.message
    assert rsshub_at_server.requests == []
    attempt = FetchAttempt.objects.get(id=result.attempt_id)
    assert attempt.outcome == Outcome.REJECTED and "\x00" not in attempt.path


@pytest.mark.django_db
def test_an_html_page_is_not_a_feed(rsshub_at_server):
    page = b"<!DOCTYPE html><html><head><title>Hi</title></head><body>hello</body></html>"
    rsshub_at_server.route("/test/html", Reply(200, {"Content-Type": "text/html"}, page))
    result = fetch_path_sync("/test/html")
    assert (result.outcome, result.http_status) == (Outcome.NOT_A_FEED, 200)
    assert not Feed.objects.filter(path="/test/html").exists()


@pytest.mark.django_db
def test_an_empty_200_is_not_a_feed(rsshub_at_server):
    rsshub_at_server.route("/test/blank", Reply(200, RSS_TYPE, b""))
    assert fetch_path_sync("/test/blank").outcome == Outcome.NOT_A_FEED


@pytest.mark.django_db
def test_a_304_writes_nothing_but_the_attempt(rsshub_at_server):
    def conditional(request):
        if request.headers.get("if-none-match") == '"v1"':
            return Reply(304, {"ETag": '"v1"'})
        return feed_reply(5, ETag='"v1"')

    rsshub_at_server.route("/test/cond", conditional)
    first = fetch_path_sync("/test/cond")
    with CaptureQueriesContext(connection) as queries:
        second = fetch_path_sync("/test/cond", refresh=True)
    assert (first.outcome, second.outcome) == (Outcome.OK, Outcome.NOT_MODIFIED)
    assert second.feed_id == first.feed_id and len(second.item_ids) == 5
    writes = [q["sql"].split()[:3] for q in queries if q["sql"].startswith(("INSERT", "UPDATE"))]
    tables = {" ".join(w) for w in writes}
    assert tables == {
        f'INSERT INTO "{FetchAttempt._meta.db_table}"',
        f'UPDATE "{Route._meta.db_table}" SET',
        f'UPDATE "{PathFetch._meta.db_table}" SET',  # the path's claim and shared answer
        # The instance that answered: its own health, and the route's health on it.
        f'UPDATE "{RSSHubInstance._meta.db_table}" SET',
        f'UPDATE "{RouteInstanceHealth._meta.db_table}" SET',
    }


@pytest.mark.django_db
def test_an_unchanged_200_writes_no_item_or_feed_rows(rsshub_at_server):
    rsshub_at_server.route("/test/same", feed_reply(5))  # no validators: always a 200
    fetch_path_sync("/test/same")
    with CaptureQueriesContext(connection) as queries:
        again = fetch_path_sync("/test/same", refresh=True)
    assert (again.items_new, again.items_seen) == (0, 5)
    touched = [q["sql"] for q in queries if q["sql"].startswith(("INSERT", "UPDATE"))]
    assert not [sql for sql in touched if Item._meta.db_table in sql or Feed._meta.db_table in sql]


@pytest.mark.django_db
def test_429_keeps_retry_after_and_opens_the_circuit(rsshub_at_server):
    rsshub_at_server.route("/test/busy", Reply(429, {"Retry-After": "120"}, b"slow down"))
    result = fetch_path_sync("/test/busy")
    assert (result.outcome, result.retry_after, result.transient) == (
        Outcome.RATE_LIMITED, 120, True,
    )  # fmt: skip
    route = Route.objects.get(id=result.route_id)
    assert route.circuit == "open"
    assert 110 <= (route.circuit_open_until - route.last_attempt_at).total_seconds() <= 150


@pytest.mark.django_db
def test_a_redirect_off_the_origin_sends_nothing_there(rsshub_at_server):
    with ScriptedServer() as elsewhere:
        rsshub_at_server.route("/test/away", Reply(302, {"Location": f"{elsewhere.url}/x"}))
        result = fetch_path_sync("/test/away")
        assert elsewhere.requests == []
    assert (result.outcome, result.http_status) == (Outcome.REJECTED, 302)


@pytest.mark.django_db
def test_rsshub_down_is_no_routes_fault(settings):
    port = free_port()
    settings.RSSHUB_URL = f"http://127.0.0.1:{port}"
    result = fetch_path_sync("/test/1")
    assert (result.outcome, result.transient) == (Outcome.RSSHUB_UNAVAILABLE, True)
    route = Route.objects.get(path="/test/:id/:params?")
    assert (route.attempts, route.consecutive_failures) == (0, 0)


@pytest.mark.django_db
def test_an_error_page_echoing_the_key_is_redacted(rsshub_at_server, settings):
    secret = "do-not-leak-me"
    settings.RSSHUB_ACCESS_KEY = secret

    def echo(request):
        return Reply(503, {"Content-Type": "text/plain"}, f"failed: {request.query}".encode())

    rsshub_at_server.route("/test/echo", echo)
    result = fetch_path_sync("/test/echo")
    assert result.outcome == Outcome.UPSTREAM_ERROR
    assert rsshub_at_server.requests[0].query["key"] == [secret]
    assert secret not in result.message and "***" in result.message
    assert secret not in FetchAttempt.objects.get(id=result.attempt_id).message


@pytest.mark.django_db
def test_a_credential_in_an_upstream_address_rsshub_echoes_is_masked(rsshub_at_server):
    upstream = "https://frodo.example/api/v2/lists?apikey=0ac44ae0164&subject_type=movie"

    def echo(request):
        return Reply(
            503, {"Content-Type": "text/plain"}, f'FetchError: [GET] "{upstream}"'.encode()
        )

    rsshub_at_server.route("/test/upstream", echo)
    result = fetch_path_sync("/test/upstream")

    assert "0ac44ae0164" not in result.message
    assert "apikey=***&subject_type=movie" in result.message
    assert "0ac44ae0164" not in FetchAttempt.objects.get(id=result.attempt_id).message


@pytest.mark.django_db
def test_a_dripping_feed_times_out_and_other_paths_still_succeed(rsshub_at_server, settings):
    settings.RSSHUB_TIMEOUT = 1.0
    rsshub_at_server.route("/test/drip", drip)
    rsshub_at_server.route("/test/good", feed_reply(3))
    drip_result, good = fetch_paths_sync(["/test/drip", "/test/good"])
    assert (drip_result.outcome, good.outcome, good.items_new) == (Outcome.TIMEOUT, Outcome.OK, 3)


@pytest.mark.django_db
def test_a_batch_is_fetched_side_by_side(rsshub_at_server):
    """Each answer waits until all four requests are in: fetched one after another, the first
    would give up waiting and every answer would be an error."""
    together = threading.Barrier(4, timeout=10)

    def gathered(request):
        try:
            together.wait()
        except threading.BrokenBarrierError:
            return Reply(503, {"Content-Type": "text/plain"}, b"requests came one by one")
        return feed_reply(1)

    paths = [f"/test/side-{n}" for n in range(4)]
    for path in paths:
        rsshub_at_server.route(path, gathered)
    results = fetch_paths_sync(paths)
    assert [r.outcome for r in results] == [Outcome.OK] * 4, [r.message for r in results]


@pytest.mark.django_db
def test_an_attempt_the_database_refuses_loses_only_itself(rsshub_at_server, monkeypatch):
    import fetching.recording

    real_store = fetching.recording.items_store

    def store(*, feed, items, now=None):
        if feed.path == "/test/bad":
            raise DatabaseError("simulated refusal")
        return real_store(feed=feed, items=items, now=now)

    monkeypatch.setattr(fetching.recording, "items_store", store)
    rsshub_at_server.route("/test/bad", feed_reply(2))
    rsshub_at_server.route("/test/good", feed_reply(3))
    bad, good = fetch_paths_sync(["/test/bad", "/test/good"])
    assert (good.outcome, good.items_new, good.attempt_id is not None) == (Outcome.OK, 3, True)
    assert bad.attempt_id is None and "not recorded" in bad.message
    assert not Feed.objects.filter(path="/test/bad").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_cancelling_a_batch_cancels_its_requests(rsshub_at_server, async_db_closed):
    await sync_to_async(Platform.objects.get_or_create)(namespace="test", name="RSSHub Test")
    hung_up, answering = threading.Event(), threading.Event()

    def drip_until_hangup(request):
        answering.set()
        request.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        while not request.stopping.wait(0.05):
            try:
                request.wfile.write(b"<")
                request.wfile.flush()
            except OSError:
                hung_up.set()
                return None
        return None

    rsshub_at_server.route("/test/drip", drip_until_hangup)
    task = asyncio.create_task(fetch_paths(["/test/drip"]))
    assert await asyncio.to_thread(answering.wait, 5), "the request never reached the server"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(hung_up.wait, 2)


@pytest.mark.django_db
def test_a_half_open_route_lets_one_path_of_a_batch_probe(rsshub_at_server):
    route = Route.objects.get(path="/test/:id/:params?")
    Route.objects.filter(id=route.id).update(
        circuit="open", circuit_open_until=timezone.now() - timedelta(seconds=1),
        consecutive_failures=3, last_error_class="timeout", last_error="no answer",
    )  # fmt: skip
    rsshub_at_server.route("/test/a", feed_reply(1))
    rsshub_at_server.route("/test/b", feed_reply(1))
    first, second = fetch_paths_sync(["/test/a", "/test/b"])
    assert (first.outcome, first.circuit_open) == (Outcome.OK, False)
    assert (second.outcome, second.transient, second.circuit_open) == (
        Outcome.TIMEOUT, True, True,
    )  # fmt: skip
    assert [r.path for r in rsshub_at_server.requests] == ["/test/a"]
    route.refresh_from_db()
    assert route.circuit == "closed"  # the probe succeeded


@pytest.mark.django_db
def test_a_staff_probe_reaches_a_disabled_route_and_credits_it(rsshub_at_server):
    route = Route.objects.get(path="/test/:id/:params?")
    Route.objects.filter(id=route.id).update(enabled=False)
    Platform.objects.filter(namespace="test").update(enabled=False)
    rsshub_at_server.route("/test/1", feed_reply(2))
    assert fetch_path_sync("/test/1").outcome == Outcome.REJECTED  # the agent may not
    route.refresh_from_db()
    result = route_probe(route)
    assert (result.outcome, result.route_id) == (Outcome.OK, route.id)
    route.refresh_from_db()
    assert route.successes == 1


@pytest.mark.django_db
def test_a_route_without_example_cannot_be_probed(rsshub_at_server):
    route = Route.objects.get(path="/test/:id/:params?")
    route.example = ""
    result = route_probe(route)
    assert result.outcome == Outcome.REJECTED and "no_example" in result.message
    assert rsshub_at_server.requests == []


@pytest.mark.django_db
def test_a_disabled_route_is_rejected_for_the_agent(rsshub_at_server):
    Route.objects.filter(path="/36kr/hot-list/:category?").update(enabled=False)
    Route.objects.filter(path="/36kr/:category/:subCategory?/:keyword?").update(enabled=False)
    result = fetch_path_sync("/36kr/hot-list")
    assert result.outcome == Outcome.REJECTED and "route_disabled" in result.message
    assert rsshub_at_server.requests == []
