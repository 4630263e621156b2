"""Date formats per language (``FORMAT_MODULE_PATH``): Django's own, each time ending with the
zone's abbreviation (``T``), so a reader always sees which zone a time is in (``briefs.middleware``
activates the reader's)."""
