"""The integration API under ``/api/v1/`` (DRF): one view per operation, nested input and output
serializers, errors in one shape (``briefs.api_errors``). Modules by sub-domain: ``briefs``,
``catalog``, ``webhooks``, ``account`` (tokens, quota), ``status``; ``base`` holds what every
view shares (authentication, parsing, throttles, pagination, error responses for the schema).
"""
