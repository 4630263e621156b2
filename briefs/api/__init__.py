"""The briefs' endpoints of the integration API (DRF, on the foundation in ``api``): one view per
operation, nested input and output serializers. Modules by sub-domain: ``briefs``, ``outcome``,
``webhooks``, ``account`` (tokens, quota) and ``auth`` (the bearer-token scheme).
"""
