"""Dashboard pages. The account pages (sign-in, passwords, profile) are ``accounts.urls``."""

from django.urls import include, path

from briefs import views

urlpatterns = [
    path("", views.home, name="home"),
    path("briefs/", views.brief_list, name="brief-list"),
    path("briefs/<int:pk>/", views.brief_detail, name="brief-detail"),
    path("briefs/<int:pk>/fragment/", views.brief_fragment, name="brief-fragment"),
    path("briefs/<int:pk>/markdown/", views.brief_markdown, name="brief-markdown"),
    path("briefs/<int:pk>/cancel/", views.brief_cancel, name="brief-cancel"),
    path("briefs/<int:pk>/rerun/", views.brief_rerun, name="brief-rerun"),
    path("briefs/<int:pk>/follow-up/", views.brief_follow_up, name="brief-follow-up"),
    path("briefs/<int:pk>/translate/", views.brief_translate, name="brief-translate"),
    path("briefs/<int:pk>/answer/", views.brief_needs_answer, name="brief-answer"),
    path("briefs/<int:pk>/delete/", views.brief_delete, name="brief-delete"),
    path("tokens/", include("briefs.tokens.urls")),
    path("webhooks/", include("briefs.webhooks.urls")),
]
