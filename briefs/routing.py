"""Websocket routes: the live step log of one brief (see ``briefs.consumers``)."""

from django.urls import path

from briefs.consumers import BriefStepsConsumer

websocket_urlpatterns = [
    path("ws/briefs/<int:brief_id>/", BriefStepsConsumer.as_asgi()),
]
