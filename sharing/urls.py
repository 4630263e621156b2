"""Feeds out and share links; included at the site root by ``rsshub_agent.urls``."""

from django.urls import path

from sharing import views

urlpatterns = [
    path("feeds/", views.feeds_page, name="feeds"),
    path("feeds/rotate/", views.feed_rotate, name="feed-rotate"),
    path("feeds/<str:secret>/briefs.atom", views.feed_briefs, name="feed-briefs"),
    path("briefs/<int:pk>/share/", views.brief_share, name="brief-share"),
    path("briefs/<int:pk>/share/revoke/", views.brief_share_revoke, name="brief-share-revoke"),
    path("s/<str:secret>", views.shared_brief, name="shared-brief"),
]
