"""How a route path is shown on a page: it wraps only after a ``/``, never inside a word
(``/36kr/hot-list``, not ``/36kr/ho t-list``). The dashboard, the brief's text and the admin all
show paths this way."""

from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe


def path_with_breaks(path: str) -> SafeString:
    """The path escaped part by part, with a line-break opportunity after each ``/``."""
    return format_html_join(mark_safe("/<wbr>"), "{}", ((part,) for part in path.split("/")))
