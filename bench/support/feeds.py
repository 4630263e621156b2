"""Generated RSS bodies: the inputs benchmarks and tests feed through the stand-in RSSHub."""

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

RSS_TYPE = {"Content-Type": "application/rss+xml; charset=utf-8"}


def rss(count: int = 5, *, title: str = "Scripted feed", prefix: str = "item") -> bytes:
    """An RSS 2.0 body with ``count`` items, newest first, one hour apart."""
    start = datetime(2026, 11, 1, 12, tzinfo=UTC)
    items = "".join(
        f"<item><title>{prefix} {n}</title><link>https://example.com/{prefix}/{n}</link>"
        f"<guid>https://example.com/{prefix}/{n}</guid><description>Body {n}</description>"
        f"<pubDate>{format_datetime(start - timedelta(hours=n))}</pubDate></item>"
        for n in range(count)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
        f"<title>{title}</title><link>https://example.com/</link><description>d</description>"
        f"{items}</channel></rss>"
    ).encode()
