"""Dashboard pages of watches, under /watches/."""

from django.urls import path

from watches import views

urlpatterns = [
    path("", views.watch_list, name="watch-list"),
    path("<int:pk>/", views.watch_detail, name="watch-detail"),
    path("<int:pk>/run/", views.watch_run, name="watch-run"),
    path("<int:pk>/active/", views.watch_active, name="watch-active"),
    path("<int:pk>/delete/", views.watch_delete, name="watch-delete"),
    path("runs/<int:pk>/", views.watch_run_open, name="watch-run-open"),
    path("unsubscribe/<str:token>/", views.watch_unsubscribe, name="watch-unsubscribe"),
]
