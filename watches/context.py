"""The dashboard's navigation shows how many watch runs are unread (a template context
processor, in ``settings.TEMPLATES``)."""

from functools import cache

from django.http import HttpRequest

from watches.selectors import unread_count


def watches_unread(request: HttpRequest) -> dict:
    """``watches_unread``: a callable, so a page that does not show it runs no query, and
    one that shows it runs one."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"watches_unread": cache(lambda: unread_count(user))}
