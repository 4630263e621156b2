"""Dashboard pages, and Django's own auth views (``login``, ``logout``, ``password_change``...)."""

from django.urls import include, path

from briefs import views
from rsshub_agent import signin

urlpatterns = [
    path("", views.home, name="home"),
    path("briefs/", views.brief_list, name="brief-list"),
    path("briefs/<int:pk>/", views.brief_detail, name="brief-detail"),
    path("briefs/<int:pk>/fragment/", views.brief_fragment, name="brief-fragment"),
    path("briefs/<int:pk>/markdown/", views.brief_markdown, name="brief-markdown"),
    path("briefs/<int:pk>/cancel/", views.brief_cancel, name="brief-cancel"),
    path("briefs/<int:pk>/rerun/", views.brief_rerun, name="brief-rerun"),
    path("briefs/<int:pk>/translate/", views.brief_translate, name="brief-translate"),
    path("briefs/<int:pk>/answer/", views.brief_needs_answer, name="brief-answer"),
    path("briefs/<int:pk>/delete/", views.brief_delete, name="brief-delete"),
    path("tokens/", include("briefs.tokens.urls")),
    path("webhooks/", include("briefs.webhooks.urls")),
    # Django's own account views, with the sign-in limit shown and applied (rsshub_agent.signin).
    path("accounts/login/", signin.SignInView.as_view(), name="login"),
    path(
        "accounts/password_change/",
        signin.CountedPasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_reset/",
        signin.ThrottledPasswordResetView.as_view(),
        name="password_reset",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
]
