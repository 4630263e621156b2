"""Worker tasks of fetching (django-q2). Thin: each calls one service."""

from fetching.egress import egress_recover


def egress_recovery_check() -> int:
    """Every minute (a django-q schedule): while RSSHub cannot reach the internet, ask again;
    how many instances recovered."""
    return egress_recover()
