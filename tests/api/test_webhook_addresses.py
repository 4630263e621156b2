"""The webhook address rule: every IPv6 form of a refused IPv4 address is refused, public
addresses in the same forms pass, and the API and each delivery apply the one check."""

from ipaddress import IPv4Address, IPv6Address

import pytest

from briefs.models import BriefStatus, DeliveryStatus, Webhook, WebhookDelivery
from briefs.webhooks import webhook_create, webhook_deliver, webhooks_brief_finished
from briefs.webhooks.address import address_refused
from tests.api.conftest import error_of
from tests.httpserver import Reply

REFUSED_V4 = {
    "loopback": "127.0.0.1",
    "private-10": "10.0.0.1",
    "private-172": "172.16.0.1",
    "private-192": "192.168.1.1",
    "link-local": "169.254.1.1",
    "metadata": "169.254.169.254",
    "shared": "100.64.0.1",
    "this-network": "0.0.0.0",
    "multicast": "224.0.0.1",
    "broadcast": "255.255.255.255",
}
PUBLIC_V4 = {"example": "93.184.215.14", "dns": "8.8.8.8"}


def v4(text: str) -> int:
    return int(IPv4Address(text))


def v6(number: int) -> str:
    return str(IPv6Address(number))


# Each embedding, as a function of the IPv4 address it carries.
EMBEDDINGS = {
    "compatible": lambda a: v6(v4(a)),  # ::a.b.c.d
    "mapped": lambda a: v6(0xFFFF << 32 | v4(a)),  # ::ffff:a.b.c.d
    "translated": lambda a: v6(0xFFFF << 48 | v4(a)),  # ::ffff:0:a.b.c.d
    "nat64": lambda a: v6(0x64FF9B << 96 | v4(a)),  # 64:ff9b::a.b.c.d
    "6to4": lambda a: v6(0x2002 << 112 | v4(a) << 80 | 1),  # 2002:AABB:CCDD::1
    # Teredo: server 65.54.227.120, client obfuscated (every bit flipped) in the low 32 bits.
    "teredo-client": lambda a: v6(
        0x20010000 << 96 | v4("65.54.227.120") << 64 | v4(a) ^ 0xFFFFFFFF
    ),
    "teredo-server": lambda a: v6(0x20010000 << 96 | v4(a) << 64 | v4("8.8.8.8") ^ 0xFFFFFFFF),
    # ISATAP under a public prefix (2001:4860:1::/64), u/l bit clear and set.
    "isatap": lambda a: v6(0x20014860_0001_0000 << 64 | 0x5EFE << 32 | v4(a)),
    "isatap-ul": lambda a: v6(0x20014860_0001_0000 << 64 | 0x02005EFE << 32 | v4(a)),
}

EMBEDDED_REFUSED = [
    pytest.param(embed(address), id=f"{form}-{name}")
    for form, embed in EMBEDDINGS.items()
    for name, address in REFUSED_V4.items()
    if name in ("loopback", "private-10", "private-192", "metadata", "link-local", "this-network")
]
RANGES_REFUSED = [
    pytest.param(address, id=address)
    for address in (
        "::",
        "::1",
        "fe80::1",
        "fe80::1%eth0",
        "febf:ffff::1",
        "fec0::1",
        "feff::1",
        "fc00::1",
        "fd12:3456:789a::1",
        "ff02::1",
        "ff0e::1",
        "64:ff9b:1::808:808",
        "64:ff9b:1:5db8:d7:e00::",
        "2001:db8::1",
        "100::1",
        "::7f00:1",
        "::127.0.0.1",
        "::10.0.0.1",
        "::169.254.169.254",
        "::192.168.1.1",
        "not-an-address",
    )
]
V4_REFUSED = [pytest.param(address, id=name) for name, address in REFUSED_V4.items()]
PUBLIC = [
    pytest.param(address, id=address)
    for address in (
        "93.184.215.14",
        "8.8.8.8",
        "1.1.1.1",
        "2606:4700:4700::1111",
        "2a00:1450:4001:80b::200e",
        "2001:4860:4860::8888",
    )
] + [
    pytest.param(embed(address), id=f"{form}-{name}")
    for form in ("compatible", "mapped", "translated", "nat64", "6to4", "isatap", "isatap-ul")
    for name, address in PUBLIC_V4.items()
    for embed in [EMBEDDINGS[form]]
]


def test_the_table_is_broad_enough():
    assert len(EMBEDDED_REFUSED) + len(RANGES_REFUSED) + len(V4_REFUSED) + len(PUBLIC) >= 40


@pytest.mark.parametrize("address", EMBEDDED_REFUSED)
def test_every_ipv6_form_of_a_refused_ipv4_address_is_refused(address):
    assert address_refused(address), f"{address} reaches a refused IPv4 address"


@pytest.mark.parametrize("address", RANGES_REFUSED + V4_REFUSED)
def test_non_public_ranges_are_refused(address):
    assert address_refused(address), f"{address} is not a public unicast address"


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address):
    assert not address_refused(address), f"{address} is public and was refused"


# --- the same check at creation and at delivery ----------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "http://[::127.0.0.1]/",
        "http://[::7f00:1]/hook",
        "http://[::169.254.169.254]/latest/meta-data",
        "http://[::ffff:0:10.0.0.1]/hook",
        "http://[64:ff9b::192.168.1.1]/hook",
        "http://[2002:a9fe:a9fe::1]/hook",
        "http://[fec0::1]/hook",
        "http://[64:ff9b:1::1]/hook",
    ],
)
def test_the_api_refuses_an_embedded_private_address(api, url):
    response = api.post("/api/v1/webhooks", {"url": url})

    assert response.status_code == 400, response.content
    assert "private" in " ".join(error_of(response)["extra"]["fields"]["url"]).lower()
    assert not Webhook.objects.exists()


@pytest.mark.django_db
def test_each_delivery_refuses_an_embedded_private_address(owner, receiver, settings):
    # Registered while private targets were allowed; refused when sending, before any request.
    settings.WEBHOOK_ALLOW_PRIVATE = True
    port = receiver.url.rsplit(":", 1)[1]
    webhook_create(owner=owner, url=f"http://[::ffff:127.0.0.1]:{port}/hook")
    receiver.route("/hook", Reply(204))
    brief = owner.briefs.create(question="q", status=BriefStatus.SUCCEEDED)
    webhooks_brief_finished(brief.pk)
    settings.WEBHOOK_ALLOW_PRIVATE = False

    assert webhook_deliver(WebhookDelivery.objects.get().pk) == DeliveryStatus.FAILED
    assert receiver.requests_to("/hook") == []
    assert "refused" in WebhookDelivery.objects.get().last_error
