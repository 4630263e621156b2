"""A site the question gives by its host alone that is no platform's, but one instance of a
federated platform: Mastodon runs on many hosts (fosstodon.org, mstdn.jp), and its routes take
the instance as a parameter ("instance address, only domain"). A hashtag said on such a host
("#rust on fosstodon.org") is read on the one platform whose routes take an instance and a
hashtag."""

from django.db.models import Q

from agent.routes.documented import words_of
from agent.routes.forms import DOMAIN_RE, forms_read
from catalog.models import Platform, Route
from fetching.paths import template_parameters

# What a route's parameter says when it takes a federated platform's instance
INSTANCE_SAID = "instance address"


def instance_platform(query: str, tried: set[str]) -> str | None:
    """The one readable platform whose routes take an instance and a hashtag, when the question
    says a hashtag on a host no platform has; None otherwise."""
    _text, formed = forms_read(query)
    if not any(f.kind == "hashtag" for f in formed):
        return None
    hosts = {m.group(1).casefold().removeprefix("www.") for m in DOMAIN_RE.finditer(query)}
    hosts = {h for h in hosts if "." in h}
    if not hosts:
        return None
    known, read = Q(), Q()
    for host in hosts:
        known |= Q(url__icontains=host)
        read |= Q(radar__icontains=f'"{host}/') | Q(radar__icontains=f'"www.{host}/')
    # a platform's own host, one its Radar rules read, or one named by it (twitter.com)
    labels = {label for host in hosts for label in host.split(".")}
    if Platform.objects.filter(known | Q(namespace__in=labels)).exists():
        return None
    if Route.objects.filter(read).exists():
        return None
    routes = (
        Route.objects.filter(enabled=True, platform__enabled=True)
        .filter(parameters__icontains=INSTANCE_SAID)
        .exclude(platform__namespace__in=tried)
        .values_list("platform__namespace", "path")
    )
    found = {
        namespace
        for namespace, path in routes
        if any(words_of(name)[-1:] == ["hashtag"] for name, _r, _o in template_parameters(path))
    }
    return next(iter(found)) if len(found) == 1 else None
