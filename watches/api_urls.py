"""The watches' paths under /api/v1/, which ``rsshub_agent.api_v1_urls`` lists with the others (a
function: the ``api_id`` converter is registered there first)."""

from django.urls import URLPattern, path

from watches import api


def watch_paths() -> list[URLPattern]:
    return [
        path("watches", api.WatchCollectionApi.as_view(), name="api-watches"),
        path("watches/<api_id:watch_id>", api.WatchDetailApi.as_view(), name="api-watch-detail"),
        path("watches/<api_id:watch_id>/run", api.WatchRunApi.as_view(), name="api-watch-run"),
        path(
            "watches/<api_id:watch_id>/rotate-feed",
            api.WatchFeedRotateApi.as_view(),
            name="api-watch-rotate-feed",
        ),
    ]
