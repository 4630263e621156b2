from django.urls import path

from accounts import views

urlpatterns = [
    path("invitation/<str:secret>/", views.invitation_accept, name="invitation-accept"),
    path("signup/", views.signup_page, name="signup"),
    path("signup/verify/<str:token>/", views.signup_verify, name="signup-verify"),
    path("profile/", views.profile_page, name="profile"),
    path("profile/export/", views.export_download, name="account-export"),
    path("profile/delete/", views.account_delete_page, name="account-delete"),
]
