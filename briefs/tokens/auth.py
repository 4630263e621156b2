"""Bearer-token authentication for the API, and its OpenAPI security scheme."""

from __future__ import annotations

from typing import TYPE_CHECKING

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from briefs.models import ApiToken
from briefs.tokens.service import TokenRejected, token_check

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

SCHEME = "Bearer"


def token_from_header(header: str) -> ApiToken | None:
    """The live token an ``Authorization`` header carries: None without a header (not this
    scheme), ``TokenRejected`` saying what is wrong with any other. The API and the MCP server
    both authenticate through it."""
    if not header:
        return None
    scheme, _, secret = header.strip().partition(" ")
    if scheme.lower() != SCHEME.lower():
        raise TokenRejected("Unsupported Authorization scheme: use 'Bearer <token>'.")
    secret = secret.strip()
    if not secret:
        raise TokenRejected("The Authorization header holds no token.")
    if " " in secret:
        raise TokenRejected("The token must not contain spaces.")
    return token_check(secret)


class ApiTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer rsa_...``. No header: not this scheme (session may apply); any
    other header is a 401 saying what is wrong with it."""

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, ApiToken] | None:
        try:
            token = token_from_header(request.META.get("HTTP_AUTHORIZATION", ""))
        except TokenRejected as exc:
            raise exceptions.AuthenticationFailed(exc.message) from None
        return None if token is None else (token.user, token)

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) when credentials are missing or wrong.
        return f'{SCHEME} realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = ApiTokenAuthentication
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token (rsa_...) from the dashboard or `manage.py issue_token`.",
        }
