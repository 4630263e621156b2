"""Email about watches: a run's brief (new items, or recovered sources), the notice that a
watch's sources keep failing, and the notice that scheduled runs did not start (the owner's
limits refused them). Plain text and HTML, in the brief's language, with links back to
the site (``SITE_URL``) and an unsubscribe link that pauses the watch.

The unsubscribe link (``watches.unsubscribe``) works without signing in, for that one watch,
names it by no readable id and expires; it is announced in the ``List-Unsubscribe`` headers for
mail clients' one-click unsubscribe (RFC 8058).

Sending goes through Django's email framework (``EMAIL_*`` settings: the console backend unless
``EMAIL_HOST`` is set). A failure is logged by kind, never with the server's password, and does
not fail the run.
"""

import logging

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from briefs.language import brief_locale, question_language
from briefs.markdown import brief_html, brief_markdown_export, citations_read
from briefs.quotas import quota_reason
from watches.models import NO_DATA_FAILING, DigestFrequency, Watch, WatchDigest, WatchRun
from watches.unsubscribe import unsubscribe_token

log = logging.getLogger(__name__)

SUBJECT_QUESTION_CHARS = 80


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def _subject(text: str, watch: Watch) -> str:
    question = " ".join(watch.question.split())
    if len(question) > SUBJECT_QUESTION_CHARS:
        question = question[: SUBJECT_QUESTION_CHARS - 1] + "…"
    return text % {"question": question}


def _message(run: WatchRun, *, template: str, subject: str, **extra) -> EmailMultiAlternatives:
    watch, brief = run.watch, run.brief
    unsubscribe = site_url(reverse("watch-unsubscribe", args=[unsubscribe_token(watch)]))
    citations = citations_read(brief.citations)
    context = {
        "watch": watch,
        "brief": brief,
        "delta": brief.delta or {},
        "citations": citations,
        "body_html": brief_html(brief.body, citations),
        "body_text": brief_markdown_export(
            question=brief.question, body=brief.body, citations=citations
        ),
        "brief_url": site_url(reverse("watch-run-open", args=[run.pk])),
        "watch_url": site_url(reverse("watch-detail", args=[watch.pk])),
        "unsubscribe_url": unsubscribe,
        **extra,
    }
    message = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string(f"watches/email/{template}.txt", context),
        to=[watch.owner.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(
        render_to_string(f"watches/email/{template}.html", context), "text/html"
    )
    return message


def run_email(run: WatchRun, *, recovered: bool = False) -> EmailMultiAlternatives:
    """The run's brief, with its citations; says first when the sources answer again."""
    with translation.override(brief_locale(run.brief.language)):
        if recovered:
            subject = _subject(_("Your watch's sources answer again: %(question)s"), run.watch)
        else:
            subject = _subject(_("New on your watch: %(question)s"), run.watch)
        return _message(run, template="run", subject=subject, recovered=recovered)


def failing_email(run: WatchRun) -> EmailMultiAlternatives:
    """The watch's sources gave no data several runs in a row (said once)."""
    with translation.override(brief_locale(run.brief.language)):
        subject = _subject(_("Your watch's sources are failing: %(question)s"), run.watch)
        return _message(run, template="failing", subject=subject, runs=NO_DATA_FAILING)


def skipped_email(watches: list[Watch]) -> EmailMultiAlternatives:
    """Scheduled runs of ``watches`` (one owner's) did not start: which, and which limit
    refused each (``watches.skips`` decides when this is sent). In the language of their
    questions; the subject names no question, so nothing of it reaches a header."""
    owner = watches[0].owner
    language = question_language(" ".join(watch.question for watch in watches))
    with translation.override(brief_locale(language or "en")):
        context = {
            "watches": [
                {
                    "question": watch.question,
                    "reason": quota_reason(watch.skip_reason),
                    "url": site_url(reverse("watch-detail", args=[watch.pk])),
                }
                for watch in watches
            ],
            "html_lang": "zh-Hans" if language == "zh" else "en",
        }
        subject = ngettext(
            "A scheduled run of your watch did not start",
            "Scheduled runs of %(count)d of your watches did not start",
            len(watches),
        ) % {"count": len(watches)}
        message = EmailMultiAlternatives(
            subject=subject,
            body=render_to_string("watches/email/skipped.txt", context),
            to=[owner.email],
        )
        message.attach_alternative(
            render_to_string("watches/email/skipped.html", context), "text/html"
        )
    return message


def digest_email(digest: WatchDigest, items: list) -> EmailMultiAlternatives:
    """What is new across the owner's watches since the last digest (``watches.news``), newest
    first, each item with its watch and a link to the brief that cites it. In the language of
    the watches' questions; the subject names no question."""
    language = question_language(" ".join({item.run.watch.question for item in items}))
    with translation.override(brief_locale(language or "en")):
        context = {
            "items": [
                {
                    "item": item,
                    "question": item.run.watch.question,
                    "watch_url": site_url(reverse("watch-detail", args=[item.run.watch_id])),
                    "brief_url": site_url(reverse("watch-run-open", args=[item.run.pk])),
                }
                for item in items
            ],
            "html_lang": "zh-Hans" if translation.get_language().startswith("zh") else "en",
            "news_url": site_url(reverse("watch-news")),
            "daily": digest.frequency == DigestFrequency.DAILY,
        }
        if context["daily"]:
            subject = ngettext(
                "Today on your watches: %(count)d new item",
                "Today on your watches: %(count)d new items",
                len(items),
            )
        else:
            subject = ngettext(
                "This week on your watches: %(count)d new item",
                "This week on your watches: %(count)d new items",
                len(items),
            )
        message = EmailMultiAlternatives(
            subject=subject % {"count": len(items)},
            body=render_to_string("watches/email/digest.txt", context),
            to=[digest.owner.email],
        )
        message.attach_alternative(
            render_to_string("watches/email/digest.html", context), "text/html"
        )
    return message


def email_send(message: EmailMultiAlternatives, *, what: str) -> bool:
    """Send; False (logged by kind, the password never in it) when it could not be sent."""
    try:
        message.send()
    except Exception as exc:  # any backend failure: SMTP, DNS, TLS, refused recipients
        detail = str(exc)[:200]
        password = getattr(settings, "EMAIL_HOST_PASSWORD", "")
        if password:
            detail = detail.replace(password, "***")
        log.warning("email for %s not sent: %s: %s", what, type(exc).__name__, detail)
        return False
    return True
