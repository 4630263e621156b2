"""The account pages: Django's own (sign-in, sign-out, passwords) with the sign-in limit shown
and applied (``accounts.signin``), and this app's (invitations, sign-up, profile)."""

from django.urls import include, path

from accounts import signin, views

urlpatterns = [
    path("login/", views.AccountSignInView.as_view(), name="login"),
    path("password_change/", signin.CountedPasswordChangeView.as_view(), name="password_change"),
    path("password_reset/", signin.ThrottledPasswordResetView.as_view(), name="password_reset"),
    path("", include("django.contrib.auth.urls")),
    path("invitation/<str:secret>/", views.invitation_accept, name="invitation-accept"),
    path("signup/", views.signup_page, name="signup"),
    path("signup/verify/<str:token>/", views.signup_verify, name="signup-verify"),
    path("profile/", views.profile_page, name="profile"),
    path("profile/export/", views.export_download, name="account-export"),
    path("profile/delete/", views.account_delete_page, name="account-delete"),
]
