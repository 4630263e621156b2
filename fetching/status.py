"""Every instance's reachability, as last probed for the dashboard's banner, kept in the cache.

The probes are remembered so a page view does not wait on RSSHub; any fetch that finds an
instance unreachable forgets them, so the banner never says "RSSHub answers" about an instance
that just went down.
"""

from django.core.cache import cache

RSSHUB_STATUS_CACHE_KEY = "dashboard:rsshub-instances"
# While every instance answers, the answers stay until a fetch sees one unreachable; while one is
# down they are probed again sooner, so the banner notices the recovery quickly without probing
# a dead RSSHub on every page.
RSSHUB_UP_SECONDS = 30
RSSHUB_DOWN_SECONDS = 10


def rsshub_status_remembered() -> list | None:
    """The ``fetching.reachability.InstanceStatus`` list last remembered, or None."""
    return cache.get(RSSHUB_STATUS_CACHE_KEY)


def rsshub_status_remember(statuses: list, *, answers: bool) -> None:
    seconds = RSSHUB_UP_SECONDS if answers else RSSHUB_DOWN_SECONDS
    cache.set(RSSHUB_STATUS_CACHE_KEY, statuses, seconds)


async def rsshub_status_forget() -> None:
    await cache.adelete(RSSHUB_STATUS_CACHE_KEY)
