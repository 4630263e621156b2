"""Feeds out and share links: the owner's Feeds page, their Atom feed, and a brief's read-only
page behind a share link.

The feed and the shared page answer without a session: the secret in the URL is the whole
credential, so a wrong, rotated, revoked or malformed one is the same 404 as a missing page.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from briefs.language import brief_language_context, brief_locale, citations_marked
from briefs.markdown import brief_markdown_export, brief_page_html, citations_read
from briefs.models import Brief
from sharing import selectors, services
from sharing.atom import atom_response, feed_tag_uri
from sharing.models import FeedKey


def feed_url(request: HttpRequest, key: FeedKey) -> str:
    return request.build_absolute_uri(reverse("feed-briefs", args=[key.secret]))


def share_url(request: HttpRequest, secret: str) -> str:
    return request.build_absolute_uri(reverse("shared-brief", args=[secret]))


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"  # the page shows secrets
    return response


@login_required
@require_GET
def feeds_page(request: HttpRequest) -> HttpResponse:
    """The owner's feed URL (copy, rotate) and their live share links (revoke)."""
    key = services.feed_key_of(owner=request.user)
    shares = [
        (share, share_url(request, share.secret))
        for share in selectors.shares_live(owner=request.user)
    ]
    context = {"feed_url": feed_url(request, key), "key": key, "shares": shares}
    return _no_store(render(request, "sharing/feeds.html", context))


@login_required
@require_POST
def feed_rotate(request: HttpRequest) -> HttpResponse:
    services.feed_key_rotate(owner=request.user)
    messages.success(request, _("The feed has a new address; the old one no longer works."))
    return redirect("feeds")


@require_http_methods(["GET", "HEAD"])
def feed_briefs(request: HttpRequest, secret: str) -> HttpResponse:
    """The Atom feed of the key's owner's finished briefs, newest first."""
    try:
        key = selectors.feed_key_by_secret(secret)
    except FeedKey.DoesNotExist:
        raise Http404("No such feed.") from None
    owner = key.owner
    return atom_response(
        request,
        selectors.feed_briefs(owner=owner),
        title=_("RSSHub Agent: my briefs"),
        feed_id=feed_tag_uri(request, since=owner.date_joined, name=f"briefs/user/{owner.pk}"),
        self_url=reverse("feed-briefs", args=[key.secret]),
        updated_floor=owner.date_joined,
    )


@login_required
@require_POST
def brief_share(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.brief_share_create(owner=request.user, brief_id=pk)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    except services.ShareRefused as exc:
        messages.error(request, exc.reader_message())
        return redirect("brief-detail", pk=pk)
    messages.success(request, _("Share link made: anyone who has it can read this brief."))
    return redirect(reverse("brief-detail", args=[pk]) + "#share")


@login_required
@require_POST
def brief_share_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        revoked = services.brief_share_revoke(owner=request.user, brief_id=pk)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    if revoked:
        messages.success(request, _("Share link revoked: it no longer opens this brief."))
    if request.POST.get("next") == "feeds":
        return redirect("feeds")
    return redirect(reverse("brief-detail", args=[pk]) + "#share")


def sources_fetched(brief: Brief) -> int:
    """How many feeds the brief was written from: those that answered, else those it cites."""
    coverage = brief.coverage if isinstance(brief.coverage, dict) else {}
    answered = coverage.get("succeeded")
    if isinstance(answered, list) and answered:
        return len(answered)
    return len({c.path for c in citations_read(brief.citations) if c.path})


@require_GET
def shared_brief(request: HttpRequest, secret: str) -> HttpResponse:
    """The brief behind a live share link, read-only and without login: its question, answer
    and sources; nothing of its owner, no actions, no link to any other brief."""
    try:
        brief = selectors.shared_brief(secret)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    citations = citations_marked(citations_read(brief.citations), brief.language)
    context = {
        "brief": brief,
        "citations": citations,
        "body_html": brief_page_html(
            brief.body,
            citations,
            as_of=brief.as_of,
            coverage_apart=False,
            language=brief_locale(brief.language),
        ),
        **brief_language_context(brief.language),
        "markdown": brief_markdown_export(
            question=brief.question, body=brief.body, citations=citations
        ),
        "sources_fetched": sources_fetched(brief),
    }
    response = render(request, "sharing/shared_brief.html", context)
    # A revoked link must stop working at once: no cache keeps the page. The secret must not
    # leave in a Referer header to another site (a cited item's), and search engines must not
    # list the page. Not "no-referrer": the browser would then send "Origin: null" with the
    # page's own form (the language switch), which the CSRF check refuses.
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response
