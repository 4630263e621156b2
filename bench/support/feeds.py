"""Generated RSS bodies: the inputs benchmarks and tests feed through the stand-in RSSHub.

``rss_document`` takes raw item XML (the feed parser's tests feed it hostile markup); ``rss``
numbers ``count`` items at fixed times. Standard library only: benchmarks run without the dev
requirements.
"""

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from xml.sax.saxutils import escape

RSS_TYPE = {"Content-Type": "application/rss+xml; charset=utf-8"}


def rss_document(
    items: str = "",
    *,
    channel: str = "<title>Test 1</title>",
    head: str = "",
    link: str | None = "https://github.com/DIYgod/RSSHub",
) -> bytes:
    """An RSS 2.0 document shaped like RSSHub's output, around raw ``items`` XML (``link``
    None: a channel without one)."""
    channel_link = f"<link>{link}</link>" if link is not None else ""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{head}'
        '<rss xmlns:atom="http://www.w3.org/2005/Atom" version="2.0"><channel>'
        f"{channel}{channel_link}"
        "<description>A test route for RSSHub - Powered by RSSHub</description>"
        f"<generator>RSSHub</generator><ttl>5</ttl>{items}</channel></rss>"
    ).encode()


def rss_item(title: str, *, link: str, description: str, published: datetime) -> str:
    """One ``<item>``, its text escaped, its link doubling as its GUID."""
    return (
        f"<item><title>{escape(title)}</title><link>{escape(link)}</link>"
        f"<guid>{escape(link)}</guid><description>{escape(description)}</description>"
        f"<pubDate>{format_datetime(published)}</pubDate></item>"
    )


def rss(count: int = 5, *, title: str = "Scripted feed", prefix: str = "item") -> bytes:
    """An RSS 2.0 body with ``count`` items, newest first, one hour apart."""
    start = datetime(2026, 11, 1, 12, tzinfo=UTC)
    items = "".join(
        rss_item(
            f"{prefix} {n}",
            link=f"https://example.com/{prefix}/{n}",
            description=f"Body {n}",
            published=start - timedelta(hours=n),
        )
        for n in range(count)
    )
    return rss_document(items, channel=f"<title>{escape(title)}</title>")
