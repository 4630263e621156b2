"""One path's fetch across the RSSHub instances: the next instance takes over, within the same
step, when the one asked failed by its own fault.

An instance is to blame, and the path moves on to the next instance (``instances_ranked``
order), when:

- it cannot be reached: the connection is refused, or not made within the connect timeout
  (``rsshub_unavailable`` from the client);
- it refused our access key (RSSHub's "Authentication failed. Access denied");
- its egress is down (``fetching.egress``: its canary fails too);
- it hung (``timeout``) or answered an error of its own (a 5xx, or a broken-off answer, that
  names no route: no ``x-rsshub-route``, no ``SomeError: ...`` route error in the body, the way
  RSSHub reports a route's failure) *and* its ``/healthz``
  fails too (no answer, a 5xx, our key refused: ``RSSHubReachability.instance_to_blame``). One
  probe per instance and batch answers for every suspect of the batch. When ``/healthz``
  answers, the failure was the route's, and counts as it always did.

Such a failure never counts against the route: it is written as an attempt of its own (outcome
``rsshub_unavailable`` with the reason ``instance`` for a hang or an error of its own; the key
refusal keeps ``auth_required``), and it counts against the instance (``fetching.instances``:
its health and its circuit). An instance that failed on its own is not asked again within the
batch while another may serve. When every instance failed, the path's result is the last
instance's failure (one instance: exactly what a fetch ended with before instances existed).

A half-open instance (its circuit open, and the backoff over) is probed with ``/healthz`` by the
one batch that claimed the probe, as the batch starts and before any path is sent to it: a
user's step never waits on a request to an instance that is still down, beyond the probe's two
seconds (and only a step that would go there first, or the end of the batch, waits for it).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

from asgiref.sync import sync_to_async
from django.conf import settings

from fetching.circuit import INSTANCES, circuit_probe_release
from fetching.client import FetchFailed, RSSHubClient, RSSHubResponse
from fetching.egress import EgressGuard
from fetching.instances import InstanceRef, instance_health_record
from fetching.models import Outcome
from fetching.outcomes import ACCESS_KEY_REASON, Verdict, message_clean
from fetching.paths import RoutePathRejected
from fetching.reachability import PROBE_TIMEOUT, RSSHubReachability, instance_probe
from fetching.recording import verdict_for
from fetching.results import Done, Plan
from fetching.status import rsshub_status_forget

INSTANCE_REASON = "instance"  # Verdict.reason: the instance failed on its own (hang, own 5xx)
# RSSHub reports a route's failure as "<ErrorName>: message" (its error page, or JSON): such an
# answer names a route error, unlike a proxy's "502 Bad Gateway" or a bare 503.
ROUTE_ERROR_RE = re.compile(r"\s*[A-Za-z]*(?:Error|Exception)\b\s*:")


def fault_certain(verdict: Verdict) -> bool:
    """The instance is to blame without asking it anything more."""
    return verdict.outcome == Outcome.RSSHUB_UNAVAILABLE or verdict.reason == ACCESS_KEY_REASON


def fault_suspected(done: Done) -> bool:
    """A failure that is the route's or the instance's: its ``/healthz`` decides."""
    verdict = done.verdict
    if not verdict.counts_for_route or verdict.network:
        return False  # said nothing against the route anyway, or the egress guard's to settle
    if done.response is not None and done.response.route_template:
        return False  # RSSHub ran the route: whatever failed, failed in the route
    if ROUTE_ERROR_RE.match(verdict.message):
        return False  # RSSHub's report of a route's failure: "HTTPError: Response code 502"
    if verdict.outcome == Outcome.TIMEOUT:
        return True
    status = verdict.http_status
    return verdict.outcome == Outcome.UPSTREAM_ERROR and (status is None or status >= 500)


def fault_verdict(verdict: Verdict, probe: RSSHubReachability) -> Verdict:
    """A suspect the probe confirmed: the instance's failure, no route's."""
    message = f"RSSHub fails its health check too ({probe.detail}): {verdict.message}"
    return Verdict(
        Outcome.RSSHUB_UNAVAILABLE, message_clean(message), verdict.http_status,
        counts_for_route=False, reason=INSTANCE_REASON,
    )  # fmt: skip


class InstancePool:
    """The instances one batch uses: a client, an egress guard and at most one health probe
    each, made on first use; and which of them failed on their own in this batch."""

    def __init__(self, given: RSSHubClient | None = None) -> None:
        self._given = given
        self._clients: dict[str, RSSHubClient] = {}
        self._guards: dict[str, EgressGuard] = {}
        self._probes: dict[str, asyncio.Future] = {}
        self._claims: dict[str, InstanceRef] = {}  # half-open probes this batch holds
        self._ready: dict[str, asyncio.Future] = {}  # their answers, once asked
        self.faults: dict[str, Verdict] = {}  # base URL -> its own failure in this batch

    def given_ref(self) -> InstanceRef | None:
        """The caller's own client as the batch's only instance (no row, no failover)."""
        if self._given is None:
            return None
        return InstanceRef(None, "", self._given.base_url)

    def client(self, ref: InstanceRef) -> RSSHubClient:
        if self._given is not None and ref.id is None:
            return self._given
        client = self._clients.get(ref.base_url)
        if client is None:
            client = RSSHubClient(base_url=ref.base_url, access_key=ref.access_key)
            self._clients[ref.base_url] = client
        return client

    def guard(self, ref: InstanceRef) -> EgressGuard:
        guard = self._guards.get(ref.base_url)
        if guard is None:
            guard = EgressGuard(self.client(ref), instance_id=ref.id)
            self._guards[ref.base_url] = guard
        return guard

    async def probe(self, ref: InstanceRef) -> RSSHubReachability:
        """The instance's ``/healthz``, asked once per batch whoever asks."""
        future = self._probes.get(ref.base_url)
        if future is None:
            # Never longer than a fetch's own deadline (short in tests and small deployments).
            timeout = min(PROBE_TIMEOUT, settings.RSSHUB_TIMEOUT)
            probe = instance_probe(ref.base_url, ref.access_key, timeout=timeout)
            future = asyncio.ensure_future(probe)
            self._probes[ref.base_url] = future
        return await asyncio.shield(future)

    def claim_hold(self, ref: InstanceRef) -> None:
        """This batch holds ``ref``'s half-open probe: ``ready`` asks ``/healthz`` first."""
        if ref.id is not None and ref.probe_at is not None:
            self._claims.setdefault(ref.base_url, ref)

    def probes_start(self) -> None:
        """Ask ``/healthz`` of every instance whose half-open probe this batch holds, at once and
        beside the requests: its circuit closes (or opens again) whether or not a path of the
        batch goes there, instead of the claim being taken and given back batch after batch."""
        for url, ref in self._claims.items():
            if url not in self._ready:
                self._ready[url] = asyncio.ensure_future(self._probe_claimed(ref))

    async def ready(self, ref: InstanceRef) -> bool:
        """Whether a path may be sent to ``ref`` now: not failed in this batch, and its
        half-open probe (when this batch holds it) answered, whoever of the batch asks first;
        the probe's answer is recorded on the instance."""
        if ref.base_url in self._claims and ref.base_url not in self._ready:
            self._ready[ref.base_url] = asyncio.ensure_future(self._probe_claimed(ref))
        if ref.base_url in self._ready and not await asyncio.shield(self._ready[ref.base_url]):
            return False
        return ref.base_url not in self.faults

    async def _probe_claimed(self, ref: InstanceRef) -> bool:
        probe = await self.probe(ref)
        self._claims.pop(ref.base_url, None)  # spent: the record below moves the circuit
        if probe.instance_to_blame:
            fault = Verdict(Outcome.RSSHUB_UNAVAILABLE, f"probe: {probe.detail}", reason="probe")
            await self.fault_record(ref, fault, probe.latency_ms or 0)
            return False
        record = sync_to_async(instance_health_record)
        await record(ref.id, fault=None, latency_ms=probe.latency_ms or 0)
        return True

    async def fault_record(self, ref: InstanceRef, fault: Verdict, latency_ms: int) -> None:
        self.faults.setdefault(ref.base_url, fault)
        await rsshub_status_forget()  # the banner must not keep saying it answers
        if ref.id is not None:
            record = sync_to_async(instance_health_record)
            await record(ref.id, fault=fault, latency_ms=latency_ms)

    async def close(self) -> None:
        """Wait for egress checks and probes under way, give back unused probe claims, close
        the clients the pool made (also when the batch was cancelled)."""
        for guard in self._guards.values():
            await guard.close()
        await asyncio.gather(*self._probes.values(), *self._ready.values(), return_exceptions=True)
        for ref in self._claims.values():
            await sync_to_async(circuit_probe_release)(ref.id, ref.probe_at, breaker=INSTANCES)
        for client in self._clients.values():
            await client.aclose()


async def _request(rsshub: RSSHubClient, plan: Plan) -> Done:
    feed = plan.feed
    try:
        response = await rsshub.get(
            plan.path,
            etag=feed.etag if feed else "",
            last_modified=feed.last_modified if feed else "",
        )
    except FetchFailed as exc:
        counts = exc.outcome != Outcome.RSSHUB_UNAVAILABLE  # RSSHub down: no route is sick
        verdict = Verdict(exc.outcome, exc.message, exc.http_status, counts_for_route=counts)
        return Done(plan, verdict, exc.latency_ms)
    except RoutePathRejected as exc:  # confined already; kept so no path can slip through
        verdict = Verdict(Outcome.REJECTED, f"path refused: {exc}", counts_for_route=False)
        return Done(plan, verdict, 0)
    verdict, parsed = await verdict_for(response, _fetched_url(rsshub, response))
    return Done(plan, verdict, response.latency_ms, response, parsed)


def _fetched_url(rsshub: RSSHubClient, response: RSSHubResponse) -> str:
    """The URL the feed came from: the last base for its relative links. Only joined with links,
    never requested; the path never holds the access key."""
    return rsshub.base_url.rstrip("/") + response.path


async def _try(pool: InstancePool, plan: Plan, ref: InstanceRef) -> tuple[Done, Verdict | None]:
    """Ask one instance; the answer, and the instance's own failure when it was one."""
    client = pool.client(ref)
    done = await _request(client, plan)
    done.instance = ref
    # An error page may echo the request URL; the key must not travel on into steps or logs.
    done.verdict = replace(done.verdict, message=client.redact(done.verdict.message))
    # No answer from the source at all: the route's fault, or the instance's lost internet?
    done.verdict = await pool.guard(ref).settle(plan.path, done.verdict)
    fault = done.verdict if fault_certain(done.verdict) else None
    if fault is None and fault_suspected(done):
        probe = await pool.probe(ref)
        if probe.instance_to_blame:
            fault = fault_verdict(done.verdict, probe)
    if fault is not None:
        await pool.fault_record(ref, fault, done.latency_ms)
    elif ref.id is not None:
        record = sync_to_async(instance_health_record)
        await record(ref.id, fault=None, latency_ms=done.latency_ms)
    return done, fault


def _every_instance_failed(plan: Plan, tries: list[Done], pool: InstancePool) -> Done:
    """The result when no instance could serve: the last failure, naming each instance's."""
    if not tries:  # every instance had failed earlier in this batch: nothing new was sent
        ref = plan.instances[-1]
        fault = pool.faults[ref.base_url]
        message = message_clean(f"{fault.message} (not asked again in this batch)")
        verdict = replace(fault, message=message, counts_for_route=False)
        return Done(plan, verdict, 0, instance=ref)
    last = tries[-1]
    if len(tries) > 1:
        joined = "; ".join(f"{d.instance.label}: {d.verdict.message}" for d in tries)
        last.verdict = replace(last.verdict, message=message_clean(joined))
    last.failovers = tries[:-1]
    return last


async def fetch_across_instances(pool: InstancePool, plan: Plan) -> Done:
    """Fetch one claimed path from the best instance that serves it (see the module)."""
    tries: list[Done] = []
    for ref in plan.instances:
        if not await pool.ready(ref):
            continue
        done, fault = await _try(pool, plan, ref)
        if fault is None:
            done.failovers = tries
            return done
        done.verdict = replace(fault, counts_for_route=False)
        tries.append(done)
    return _every_instance_failed(plan, tries, pool)
