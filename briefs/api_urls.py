"""The integration API under /api/ (filled by the API work)."""

urlpatterns: list = []
