"""The integration API's foundation under ``/api/``: what every endpoint shares (``base``: parsing,
authentication, throttles, pagination, schema helpers) and the one error shape (``errors``). It
imports no app: it is the ground floor (README: How it fits together). The endpoints live with
their apps (``briefs.api``, ``briefs.tokens.api``, ``catalog.api``, ``sharing.api``,
``watches.api``); the project puts them together (``rsshub_agent.api_urls``, ``api_v1_urls``),
with the OpenAPI schema and its docs page (``api_schema``, ``api_docs``) and the status endpoint
(``api_status``).
"""
