"""The local RSSHub lives in bench/support (benchmarks start it without the dev requirements);
tests keep importing it from here."""

from bench.support.rsshub_server import (
    INSTALL_SCRIPT,
    LocalRSSHub,
    rsshub_installed,
)

__all__ = ["INSTALL_SCRIPT", "LocalRSSHub", "rsshub_installed"]
