"""Where a webhook may send: an http(s) URL without credentials (``webhook_url_clean``), whose
host name resolves to public unicast addresses only, decided by rule, not by a list.

``address_refused`` is the one check; ``webhook_target`` runs it on every address a host name
resolves to, when a webhook is created and again before every delivery, and pins the request to
the address it checked.

IPv4: refused unless globally routable unicast (private, loopback, link-local, shared, "this
network", documentation, benchmarking, reserved, broadcast and multicast are all refused).

IPv6, in this order:

1. Refused outright: unspecified ``::``, loopback ``::1``, link-local ``fe80::/10``, site-local
   ``fec0::/10`` (deprecated, still routed inside some sites), unique-local ``fc00::/7``,
   multicast ``ff00::/8``, and NAT64 local-use ``64:ff9b:1::/48`` (RFC 8215: it translates into
   the operator's own network, and where the IPv4 address sits depends on a prefix length only
   the operator knows).
2. An address that *is* an IPv4 address in IPv6 form takes that address's verdict: IPv4-compatible
   ``::a.b.c.d`` (``::/96``), IPv4-mapped ``::ffff:a.b.c.d``, IPv4-translated
   ``::ffff:0:a.b.c.d``, NAT64 well-known ``64:ff9b::a.b.c.d`` and 6to4 ``2002:AABB:CCDD::/48``.
   Python counts ``::7f00:1`` and ``::ffff:127.0.0.1`` as global, which is why this is explicit.
3. An address that tunnels to an IPv4 address is refused when that address would be: Teredo
   (``2001::/32``, its server and its obfuscated client) and ISATAP (an interface identifier
   ``0:5efe:a.b.c.d`` or ``200:5efe:a.b.c.d`` under any prefix).
4. Otherwise refused unless Python's special-purpose registry calls it global (documentation
   ``2001:db8::/32``, discard ``100::/64``, ORCHID and the like).
"""

from __future__ import annotations

import ipaddress
import socket
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
from django.conf import settings

from briefs.errors import FieldInvalid

URL_MAX_LENGTH = 2000
IPv4 = ipaddress.IPv4Address
IPv6 = ipaddress.IPv6Address

_V6_REFUSED = tuple(
    ipaddress.ip_network(net)
    for net in (
        "::/128",  # unspecified
        "::1/128",  # loopback
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local
        "fc00::/7",  # unique-local
        "ff00::/8",  # multicast
        "64:ff9b:1::/48",  # NAT64 local-use
    )
)
# Prefixes whose low 32 bits are the whole destination: the IPv6 address stands for an IPv4 one.
_V6_AS_V4 = tuple(
    ipaddress.ip_network(net)
    for net in (
        "::/96",  # IPv4-compatible (deprecated)
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated (SIIT)
        "64:ff9b::/96",  # NAT64 well-known prefix
    )
)
_ISATAP_IDS = (0x00005EFE, 0x02005EFE)  # bits 32-63 of the interface id, u/l bit clear or set


class WebhookInvalid(FieldInvalid):
    """A webhook cannot be registered as asked, or its address is refused; ``field`` names the
    offending input."""


@dataclass(frozen=True)
class Target:
    """Where one attempt goes: the URL with the checked address in place of the host name."""

    url: str
    host_header: str
    hostname: str
    scheme: str


def webhook_url_clean(url: object) -> str:
    """The URL if its form is acceptable (http(s), a host, no credentials), else
    ``WebhookInvalid``. Addresses are checked by ``webhook_target``."""
    if not isinstance(url, str):
        raise WebhookInvalid("url", "The URL must be text.")
    url = url.strip()
    if not url:
        raise WebhookInvalid("url", "The URL is empty.")
    if len(url) > URL_MAX_LENGTH:
        raise WebhookInvalid("url", f"The URL is longer than {URL_MAX_LENGTH} characters.")
    if any(c.isspace() or unicodedata.category(c)[0] == "C" for c in url):
        raise WebhookInvalid("url", "The URL contains spaces or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise WebhookInvalid("url", "The URL cannot be parsed.") from None
    if parts.scheme not in ("http", "https"):
        raise WebhookInvalid("url", "Only http and https URLs are accepted.")
    if not parts.hostname:
        raise WebhookInvalid("url", "The URL has no host.")
    if "@" in parts.netloc:
        raise WebhookInvalid("url", "The URL must not carry credentials.")
    if port == 0:
        raise WebhookInvalid("url", "The URL's port is not valid.")
    return url


def host_resolve(hostname: str, port: int) -> list[str]:
    """Every address ``hostname`` resolves to (the seam tests replace for public names)."""
    infos = socket.getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def private_addresses_allowed() -> bool:
    """``WEBHOOK_ALLOW_PRIVATE``: loopback, private and reserved addresses are accepted too
    (a receiver on the same machine or network); the webhook page says which rule holds."""
    return bool(getattr(settings, "WEBHOOK_ALLOW_PRIVATE", False))


def webhook_target(url: str) -> Target:
    """Resolve the URL's host and check every address; ``WebhookInvalid`` when refused."""
    url = webhook_url_clean(url)
    parts = urlsplit(url)
    hostname, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = host_resolve(hostname, port)
    except (OSError, UnicodeError):
        raise WebhookInvalid("url", f"The host name {hostname!r} does not resolve.") from None
    if not addresses:
        raise WebhookInvalid("url", f"The host name {hostname!r} does not resolve.")
    if not private_addresses_allowed():
        refused = [a for a in addresses if address_refused(a)]
        if refused:
            raise WebhookInvalid(
                "url",
                f"The host resolves to a private, loopback or reserved address ({refused[0]}).",
            )
    try:
        pinned = httpx.URL(url).copy_with(host=addresses[0].split("%", 1)[0])
    except httpx.InvalidURL:
        raise WebhookInvalid("url", "The URL cannot be parsed.") from None
    return Target(url=str(pinned), host_header=parts.netloc, hostname=hostname, scheme=parts.scheme)


def address_refused(address: str) -> bool:
    """True for an address a webhook must not reach: anything but public unicast (see above).

    ``address`` is a textual IPv4 or IPv6 address, with or without a ``%zone``; text that is no
    address at all is refused too."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return True
    if isinstance(ip, IPv4):
        return ipv4_refused(ip)
    return ipv6_refused(ip)


def ipv4_refused(ip: IPv4) -> bool:
    return not ip.is_global or ip.is_multicast


def ipv6_refused(ip: IPv6) -> bool:
    if any(ip in net for net in _V6_REFUSED):
        return True
    standing_for = ipv4_standing_for(ip)
    if standing_for is not None:
        return ipv4_refused(standing_for)
    if any(ipv4_refused(inner) for inner in ipv4_tunnelled_to(ip)):
        return True
    return not ip.is_global


def ipv4_standing_for(ip: IPv6) -> IPv4 | None:
    """The IPv4 address an IPv4-compatible, mapped, translated, NAT64 or 6to4 address names."""
    if any(ip in net for net in _V6_AS_V4):
        return IPv4(int(ip) & 0xFFFFFFFF)
    return ip.sixtofour


def ipv4_tunnelled_to(ip: IPv6) -> list[IPv4]:
    """The IPv4 ends of a Teredo (server and client) or ISATAP address; [] for other addresses."""
    if ip.teredo:
        return list(ip.teredo)
    if (int(ip) >> 32) & 0xFFFFFFFF in _ISATAP_IDS:
        return [IPv4(int(ip) & 0xFFFFFFFF)]
    return []
