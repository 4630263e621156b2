"""RSS bodies for the stand-ins: one envelope shaped like RSSHub's output, and the items in it.

``rss_document`` takes raw item XML (the feed parser's tests feed it hostile markup);
``rss`` numbers ``count`` items at fixed times; ``rss_body`` writes ``FeedItem``s dated relative
to now, for briefs that must see fresh news.
"""

import re
from dataclasses import dataclass
from datetime import timedelta
from xml.sax.saxutils import escape

from django.utils import timezone

from bench.support.feeds import RSS_TYPE, rss, rss_document, rss_item
from tests.httpserver import Reply

__all__ = ["RSS_TYPE", "FeedItem", "feed_reply", "rss", "rss_body", "rss_document", "rss_item"]


def feed_reply(count: int = 5, **headers: str) -> Reply:
    return Reply(200, {**RSS_TYPE, **headers}, rss(count))


@dataclass(frozen=True)
class FeedItem:
    title: str
    summary: str = ""
    hours_ago: float = 1.0
    link: str = ""


def rss_body(items: list[FeedItem], *, title: str = "Stand-in feed") -> bytes:
    """An RSS 2.0 document of ``items``, each dated ``hours_ago`` before now."""
    now = timezone.now()
    slug = re.sub(r"\W+", "-", title)
    return rss_document(
        "".join(
            rss_item(
                item.title,
                link=item.link or f"https://example.com/{slug}/{n}",
                description=item.summary,
                published=now - timedelta(hours=item.hours_ago),
            )
            for n, item in enumerate(items)
        ),
        channel=f"<title>{escape(title)}</title>",
    )
