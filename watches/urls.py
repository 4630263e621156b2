"""Dashboard pages of watches, under /watches/."""

from django.urls import path, register_converter

from watches import views


class FeedSecretConverter:
    """URL-safe base64 as ``sharing.link_secrets`` makes it; anything else is not a feed (the
    exact shape is checked again before the digest is computed)."""

    regex = "[A-Za-z0-9_-]{20,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(FeedSecretConverter, "feed_secret")

urlpatterns = [
    path("", views.watch_list, name="watch-list"),
    path("new/", views.watch_news, name="watch-news"),
    path("<int:pk>/", views.watch_detail, name="watch-detail"),
    path("<int:pk>/run/", views.watch_run, name="watch-run"),
    path("<int:pk>/runs/", views.watch_runs_fragment, name="watch-runs-fragment"),
    path("<int:pk>/active/", views.watch_active, name="watch-active"),
    path("<int:pk>/delete/", views.watch_delete, name="watch-delete"),
    path("<int:pk>/feed/rotate/", views.watch_feed_rotate, name="watch-feed-rotate"),
    path("feeds/<feed_secret:secret>.atom", views.watch_feed, name="watch-feed"),
    path("runs/<int:pk>/", views.watch_run_open, name="watch-run-open"),
    path("unsubscribe/<str:token>/", views.watch_unsubscribe, name="watch-unsubscribe"),
]
