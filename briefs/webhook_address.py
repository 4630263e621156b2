"""Which addresses a webhook may reach: public unicast only, decided by rule, not by a list.

``address_refused`` is the one check; ``briefs.webhooks.webhook_target`` runs it on every
address a host name resolves to, when a webhook is created and again before every delivery.

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
