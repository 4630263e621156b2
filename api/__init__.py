"""The integration API's foundation under ``/api/``: what every endpoint shares (``base``: parsing,
authentication, throttles, pagination, schema helpers), the one error shape (``errors``), the URL
conf (``urls``), the OpenAPI schema and its docs page (``schema``, ``docs``), and the status
endpoint (``status``). The endpoints live with their apps: ``briefs.api`` (briefs, webhooks,
quota), ``briefs.tokens.api`` (tokens) and ``catalog.api`` (platforms and routes).
"""
