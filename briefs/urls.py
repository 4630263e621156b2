"""Dashboard pages (filled by the dashboard work)."""


urlpatterns: list = []
