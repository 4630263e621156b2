"""API tokens, all in one place: issue, check and revoke (``service``), the Bearer
authentication of the API (``auth``), the caller's tokens over the API (``api``) and the
dashboard's token page (``views``, ``urls``). The ``ApiToken`` row is in ``briefs.models``."""
