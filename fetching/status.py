"""Whether RSSHub answers, as last probed for the dashboard's banner, kept in the cache.

The probe is remembered so a page view does not wait on RSSHub; any fetch that finds RSSHub
unreachable forgets it, so the banner never says "RSSHub answers" about an RSSHub that just
went down.
"""

from django.core.cache import cache

RSSHUB_STATUS_CACHE_KEY = "dashboard:rsshub-answers"
# A success stays until a fetch sees RSSHub unreachable; a failure is probed again sooner, so
# the banner notices the recovery quickly without probing a dead RSSHub on every page.
RSSHUB_UP_SECONDS = 30
RSSHUB_DOWN_SECONDS = 10


def rsshub_status_remembered() -> bool | None:
    return cache.get(RSSHUB_STATUS_CACHE_KEY)


def rsshub_status_remember(answers: bool) -> None:
    seconds = RSSHUB_UP_SECONDS if answers else RSSHUB_DOWN_SECONDS
    cache.set(RSSHUB_STATUS_CACHE_KEY, answers, seconds)


async def rsshub_status_forget() -> None:
    await cache.adelete(RSSHUB_STATUS_CACHE_KEY)
