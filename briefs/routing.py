"""Websocket routes (filled by the dashboard work)."""

websocket_urlpatterns: list = []
