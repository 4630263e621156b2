"""What a worker process does once, as django-q starts it (``post_spawn``, sent in workers only):
map the catalog's search index (built first by whichever process finds no current file in
``DATA_DIR``: ``catalog.search_store``) and start a feed parser, so that the first question a worker
takes (after a start, a restart or a recycle) waits for neither. The index then keeps itself
current (``catalog.search_index``); the parser serves every fetch of this worker
(``fetching.ingest``). And ask whether RSSHub reaches the internet (``fetching.egress``; once a
minute whichever worker starts first), so the banner says it before the first question."""

import logging

from catalog.search_index import search_index_current
from fetching.egress import egress_startup_check
from fetching.parsing import feed_parser_warm

log = logging.getLogger(__name__)


def worker_warm(sender: object = None, **kwargs: object) -> None:
    """The ``post_spawn`` receiver. A failure is logged, never fatal: the first question pays
    for what is missing, as it would without this. (The database connection it used is closed
    by django-q before the worker's first task.)"""
    warmers = (
        ("the search index", search_index_current),
        ("a feed parser", feed_parser_warm),
        ("the check of RSSHub's internet access", egress_startup_check),
    )
    for what, warm in warmers:
        try:
            warm()
        except Exception:
            log.warning("%s at worker start failed", what, exc_info=True)
