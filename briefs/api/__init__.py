"""The briefs' endpoints of the integration API (DRF, on the foundation in ``api``): one view per
operation, nested input and output serializers. Modules by sub-domain: ``briefs`` and
``brief_detail``, ``outcome``, ``webhooks``, ``quota``; the token endpoints and the bearer-token
scheme live with the tokens (``briefs.tokens.api``, ``briefs.tokens.auth``).
"""
