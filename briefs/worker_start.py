"""What a worker process does once, as django-q starts it (``post_spawn``, sent in workers only):
build the catalog's search index, so that the first question a worker takes (after a start, a
restart or a recycle) does not wait for it. The index then keeps itself current
(``catalog.search_index``)."""

import logging

from catalog.search_index import search_index_current

log = logging.getLogger(__name__)


def worker_warm(sender: object = None, **kwargs: object) -> None:
    """The ``post_spawn`` receiver. A failure is logged, never fatal: the first search builds
    the index then, as it would without this. (The connection it used is closed by django-q
    before the worker's first task.)"""
    try:
        search_index_current()
    except Exception:
        log.warning("building the search index at worker start failed", exc_info=True)
