"""The catalog's pages."""

from django.urls import path

from catalog import views

urlpatterns = [
    path("health/routes/", views.route_health, name="route-health"),
]
