"""Settings for serving on the open internet: TLS behind a proxy, security headers and sign-in
limits, read from the environment like the rest (``rsshub_agent.settings`` takes them all).
"""

from datetime import timedelta

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from rsshub_agent.env import env_bool, env_int

# --- Serving over TLS behind a proxy -------------------------------------------------------------
# HTTPS=true: the site is only reached through a TLS-terminating proxy that sets
# X-Forwarded-Proto (and overwrites any value the client sent). Off by default: a local run is http.
HTTPS = env_bool("HTTPS", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = LANGUAGE_COOKIE_SECURE = HTTPS
# Nothing in the pages reads these cookies from JavaScript (forms carry the CSRF token).
SESSION_COOKIE_HTTPONLY = CSRF_COOKIE_HTTPONLY = LANGUAGE_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
# One year: what browsers' preload lists ask for. Start lower (e.g. 3600) on a first deployment:
# a browser that saw the header refuses plain http for this long.
HSTS_SECONDS = env_int("HSTS_SECONDS", 31_536_000, minimum=0)
SECURE_HSTS_SECONDS = HSTS_SECONDS if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", False)
if SECURE_HSTS_PRELOAD and not (SECURE_HSTS_INCLUDE_SUBDOMAINS and HSTS_SECONDS >= 31_536_000):
    raise ImproperlyConfigured(
        "HSTS_PRELOAD needs HSTS_INCLUDE_SUBDOMAINS=true and HSTS_SECONDS of at least 31536000"
    )
# Subdomains and preload reach past this service (every host under the domain; browsers' built-in
# lists), so they are the operator's explicit opt-ins: leaving them off is a decision, not an
# oversight for `check --deploy` to warn about.
SILENCED_SYSTEM_CHECKS = [
    check
    for check, opted_in in (
        ("security.W005", SECURE_HSTS_INCLUDE_SUBDOMAINS),
        ("security.W021", SECURE_HSTS_PRELOAD),
    )
    if not opted_in
]

# --- Security headers ---------------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Only the app's own files; no inline script or style anywhere (templates pass data to scripts
# in data- attributes). 'self' covers the dashboard's ws:/wss: connection to the same host.
# Swagger UI's stylesheet draws icons from data: images.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Powerful browser features no page here uses (rsshub_agent/middleware.py sends the header).
PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), "
    "microphone=(), payment=(), usb=()"
)

# --- Sign-in limits (django-axes) ---------------------------------------------------------------
# Failures count per pair (account, client address): LOGIN_FAILURE_LIMIT failures within
# LOGIN_COOLOFF_MINUTES of each other lock that account *from that address* until the cool-off
# has passed since the last failure. Locking the account from everywhere, or the address for
# every account, would hand the lock to anyone: five wrong passwords for "bob" would keep bob out
# from his own desk, one colleague's typos would lock a whole office behind one address. A slower
# back-off per account still slows a guess spread over many addresses: past
# LOGIN_ACCOUNT_FAILURE_LIMIT failures for one account (from anywhere), an address that has
# failed for it is locked after its first failure, while an address that has not failed is still
# heard (accounts.lockout.failure_limit). Unknown usernames count the same as real ones, so
# the lock-out tells nothing about which accounts exist. Covers every form that calls
# authenticate() with the request: the dashboard's and the admin's sign-in and the change-password
# form's current password. API tokens never go through it (their own throttles apply).
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
LOGIN_ACCOUNT_FAILURE_LIMIT = env_int("LOGIN_ACCOUNT_FAILURE_LIMIT", 20, minimum=1)
AXES_FAILURE_LIMIT = "accounts.lockout.failure_limit"
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# Password reset emails per account and per client address, per hour (accounts.signin).
PASSWORD_RESETS_PER_ACCOUNT_HOUR = env_int("PASSWORD_RESETS_PER_ACCOUNT_HOUR", 3, minimum=1)
PASSWORD_RESETS_PER_ADDRESS_HOUR = env_int("PASSWORD_RESETS_PER_ADDRESS_HOUR", 10, minimum=1)
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_address"
# Behind proxies that append the client's address to X-Forwarded-For: how many of them. 0 reads
# the socket's address (behind a proxy, set this, or every client shares the proxy's address).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0, maximum=10)
# Successful sign-ins are not recorded (they would grow without bound); failures are.
AXES_DISABLE_ACCESS_LOG = True
# No start-up banner on every command; log lines name only what the limit counts (masked).
AXES_VERBOSE = False
