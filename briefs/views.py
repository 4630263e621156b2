"""Dashboard pages. Thin: read through ``briefs.selectors``, write through ``briefs.services``;
every new brief (ask, follow-up, rerun, needs_input answer) through ``briefs.admission``, whose
refusal is shown in the reader's language.

Another user's brief is a 404 on every page and action, exactly like a brief that does not exist.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from briefs import admission, selectors, services
from briefs import translation as translation_service
from briefs.agent_hooks import agent_hooks
from briefs.examples import EXAMPLE_QUESTIONS
from briefs.forms import AskForm, BriefSearchForm, FollowUpForm, NeedsAnswerForm
from briefs.language import (
    LANGUAGE_EN,
    LANGUAGE_ZH,
    brief_language_context,
    brief_locale,
    citations_marked,
    reader_language,
)
from briefs.markdown import (
    body_snippet,
    brief_markdown_export,
    brief_page_html,
    citations_read,
)
from briefs.models import Brief, BriefOutcome, BriefStatus
from briefs.quotas import QuotaExceeded
from briefs.step_folds import timeline_entries
from briefs.suggestions import brief_suggestions
from catalog.search_terms import MAX_QUESTION_CHARS
from fetching.egress import egress_outage_everywhere, egress_outages
from fetching.reachability import instances_status

BRIEFS_PER_PAGE = 20


def _own_brief(request: HttpRequest, pk: int) -> Brief:
    try:
        return selectors.brief_of(owner=request.user, brief_id=pk)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None


def _ask_form(request: HttpRequest, *, data=None, follow_up: Brief | None = None) -> AskForm:
    return AskForm(
        data=data,
        initial={"follow_up_of": follow_up.pk if follow_up else None},
        follow_up_choices=selectors.follow_up_choices(owner=request.user, include=follow_up),
        llm=agent_hooks().llm_configured(),
    )


def _follow_up_asked(request: HttpRequest) -> Brief | None:
    """The brief named by ``?follow_up=``; one that is not the user's (or not a brief at all)
    leaves the home page as it is, with a message, and says nothing of whether it exists."""
    follow_up_id = request.GET.get("follow_up", "")
    if not follow_up_id:
        return None
    if follow_up_id.isdigit() and len(follow_up_id) <= 18:
        try:
            return _own_brief(request, int(follow_up_id))
        except Http404:
            pass
    message = _(
        "That brief cannot be followed up: it does not exist or is not yours. Ask a new question."
    )
    messages.warning(request, message)
    return None


@login_required
@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """The question box, the recent briefs and which mode answers."""
    status = 200
    if request.method == "POST":
        form = _ask_form(request, data=request.POST)
        if form.is_valid():
            try:
                brief = admission.brief_ask(
                    owner=request.user,
                    question=form.cleaned_data["question"],
                    follow_up_of=form.cleaned_data["follow_up_of"],
                    offline=form.cleaned_data.get("offline", False),
                    language=form.cleaned_data.get("language", "")
                    or reader_language(request.session),
                    interface=translation.get_language(),
                )
            except services.BriefInvalid as exc:
                field = exc.field if exc.field in form.fields else None
                form.add_error(field, exc.reader_message())
            except QuotaExceeded as exc:
                form.add_error(None, exc.reader_message())
                status = 429
            else:
                return redirect(brief)
    else:
        follow_up = _follow_up_asked(request)
        form = _ask_form(request, follow_up=follow_up)
    context = {
        "form": form,
        "recent": selectors.briefs_recent(owner=request.user),
        "examples": EXAMPLE_QUESTIONS,
        "mode": agent_hooks().llm_mode_label(),
        **_rsshub_banner(),
    }
    if form.errors and status == 200:
        status = 400
    return render(request, "briefs/home.html", context, status=status)


def _rsshub_banner() -> dict:
    """Every enabled RSSHub instance, up or down (as remembered: ``fetching.reachability``)."""
    statuses = instances_status()
    offline = egress_outages()
    return {
        "rsshub_up": any(status.ok for status in statuses),
        "rsshub_all_up": bool(statuses) and all(status.ok for status in statuses),
        "rsshub_instances": [(status, status.id in offline) for status in statuses],
        "egress_outage": egress_outage_everywhere(),
    }


@login_required
@require_GET
def brief_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "briefs/detail.html", _detail_context(_own_brief(request, pk)))


# The brief's page without the site around it: its <article> alone.
FRAGMENT_BASE = "briefs/_fragment.html"


@login_required
@require_GET
def brief_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The brief's article alone, as on its page: a live page swaps it in when the run ends
    instead of reloading."""
    context = {**_detail_context(_own_brief(request, pk)), "base_template": FRAGMENT_BASE}
    return render(request, "briefs/detail.html", context)


def _coverage_shown(brief: Brief) -> bool:
    """The page shows the coverage table (``briefs/detail.html``): the paths tried."""
    return isinstance(brief.coverage, dict) and bool(brief.coverage.get("tried"))


def _detail_context(brief: Brief) -> dict:
    citations = citations_marked(citations_read(brief.citations), brief.language)
    steps = selectors.brief_steps(brief_id=brief.pk)
    return {
        "brief": brief,
        "steps": steps,
        # A running brief's timeline grows step by step (the page appends them): folded once final.
        "timeline": timeline_entries(steps) if brief.is_finished else steps,
        "suggestions": brief_suggestions(brief, citations) if brief.is_finished else [],
        "question_max": MAX_QUESTION_CHARS,
        "last_seq": steps[-1].seq if steps else 0,
        "queue_position": selectors.brief_queue_position(brief),
        "citations": citations,
        "body_html": brief_page_html(
            brief.body,
            citations,
            as_of=brief.as_of,
            coverage_apart=_coverage_shown(brief),
            language=brief_locale(brief.language),
        ),
        **brief_language_context(brief.language),
        "markdown": brief_markdown_export(
            question=brief.question, body=brief.body, citations=citations
        ),
        "usage_nodes": _usage_rows(brief.usage),
        "needs_form": _needs_form(brief),
        # The translate action offers the other language (``briefs.translation``).
        "translate_to": LANGUAGE_EN if brief_locale(brief.language) == LANGUAGE_ZH else LANGUAGE_ZH,
    }


def _needs(brief: Brief) -> list[dict]:
    needs = brief.needs if brief.outcome == BriefOutcome.NEEDS_INPUT else []
    return [n for n in needs if isinstance(n, dict)] if isinstance(needs, list) else []


def _needs_form(brief: Brief, data=None) -> NeedsAnswerForm | None:
    needs = _needs(brief)
    return NeedsAnswerForm(data, needs=needs) if needs else None


@login_required
@require_POST
def brief_needs_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """The values a needs_input brief asked for: a follow-up brief that carries them."""
    brief = _own_brief(request, pk)
    form = _needs_form(brief, request.POST)
    if form is None or not form.is_valid():
        messages.error(request, _("Give a value for each question asked."))
        return redirect(brief)
    try:
        follow_up = admission.brief_needs_answer(
            owner=request.user, brief_id=brief.pk, values=form.values()
        )
    except services.BriefInvalid as exc:
        messages.error(request, exc.reader_message())
        return redirect(brief)
    except QuotaExceeded as exc:
        messages.error(request, exc.reader_message())
        return redirect(brief)
    return redirect(follow_up)


def _usage_rows(usage: object) -> list[dict]:
    nodes = usage.get("nodes") if isinstance(usage, dict) else None
    if not isinstance(nodes, dict):
        return []
    return [{"node": node, **totals} for node, totals in nodes.items() if isinstance(totals, dict)]


@login_required
@require_GET
def brief_markdown(request: HttpRequest, pk: int) -> HttpResponse:
    """The brief as markdown text, for copying or saving without JavaScript."""
    brief = _own_brief(request, pk)
    text = brief_markdown_export(
        question=brief.question, body=brief.body, citations=citations_read(brief.citations)
    )
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


@login_required
@require_POST
def brief_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        brief = services.brief_cancel(owner=request.user, brief_id=pk)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    if brief.status == BriefStatus.CANCELLED:
        messages.info(request, _("The brief is cancelled."))
    elif brief.is_finished:  # it ended before the cancel arrived: say so, promise nothing
        messages.info(request, _("The brief had already finished: there was nothing to cancel."))
    # A running brief shows "cancel requested" on its own page until it stops (detail.html).
    return redirect(brief)


def _follow_up_refusal(form: FollowUpForm) -> str:
    errors = form.errors.get("question") or form.non_field_errors()
    return str(errors[0]) if errors else _("Give a question to ask.")


@login_required
@require_POST
def brief_follow_up(request: HttpRequest, pk: int) -> HttpResponse:
    """A follow-up asked under the brief (its box or a suggested question). Without script, the
    follow-up's page; the page's script asks for JSON and shows the follow-up live in place."""
    brief = _own_brief(request, pk)
    in_place = "application/json" in request.headers.get("Accept", "")
    form = FollowUpForm(request.POST)
    refusal, status = _follow_up_refusal(form), 400
    if form.is_valid():
        try:
            follow_up = admission.brief_follow_up(
                owner=request.user,
                brief_id=brief.pk,
                question=form.cleaned_data["question"],
                interface=translation.get_language(),
            )
        except services.BriefInvalid as exc:
            refusal = exc.message
        except QuotaExceeded as exc:
            refusal, status = exc.reader_message(), 429
        else:
            if not in_place:
                return redirect(follow_up)
            where = {"id": follow_up.pk, "url": follow_up.get_absolute_url()}
            fragment = reverse("brief-fragment", args=[follow_up.pk])
            return JsonResponse({**where, "fragment": fragment}, status=201)
    if in_place:
        return JsonResponse({"message": str(refusal)}, status=status)
    messages.error(request, refusal)
    return redirect(brief)


@login_required
@require_POST
def brief_rerun(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        brief = admission.brief_rerun(owner=request.user, brief_id=pk)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    except services.BriefInvalid as exc:
        messages.error(request, exc.reader_message())
        return redirect("brief-detail", pk=pk)
    except QuotaExceeded as exc:
        messages.error(request, exc.reader_message())
        return redirect("brief-detail", pk=pk)
    return redirect(brief)


@login_required
@require_POST
def brief_translate(request: HttpRequest, pk: int) -> HttpResponse:
    """The brief told in the language the form names (``briefs.translation``)."""
    try:
        brief = translation_service.brief_translate(
            owner=request.user, brief_id=pk, language=request.POST.get("language", "")
        )
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    except services.BriefInvalid as exc:
        messages.error(request, exc.reader_message())
        return redirect("brief-detail", pk=pk)
    return redirect(brief)


def _back_to(request: HttpRequest, fallback: str) -> str:
    """The page a list action came from (``next``, this site only), else ``fallback``."""
    target = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe and target.startswith("/") else fallback


@login_required
@require_http_methods(["GET", "POST"])
def brief_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST deletes. A POST from the list carries ``ask_first``,
    which its script drops once the person confirmed: without the script, the confirmation
    page is the answer."""
    brief = _own_brief(request, pk)
    if request.method == "GET" or request.POST.get("ask_first"):
        context = {"brief": brief, "next": _back_to(request, "")}
        return render(request, "briefs/confirm_delete.html", context)
    try:
        services.brief_delete(owner=request.user, brief_id=pk)
    except Brief.DoesNotExist:
        raise Http404("No such brief.") from None
    messages.success(request, _("The brief is deleted."))
    return redirect(_back_to(request, reverse("brief-list")))


@login_required
@require_GET
def brief_list(request: HttpRequest) -> HttpResponse:
    """The owner's briefs, filtered; filters that do not make sense list nothing."""
    form = BriefSearchForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        briefs = Brief.objects.none()
    else:
        filters = form.cleaned_data if form.is_bound else {}
        briefs = selectors.briefs_search(
            owner=request.user,
            text=filters.get("q", ""),
            status=filters.get("status", ""),
            outcome=filters.get("outcome", ""),
            **selectors.days_bounds(filters.get("since"), filters.get("until")),
        )
    page = Paginator(selectors.briefs_listed(briefs), BRIEFS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    for brief in page.object_list:
        brief.snippet = body_snippet(brief.body_head)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "query": query.urlencode(),
        "filtered": any(v for k, v in request.GET.items() if k != "page"),
        "examples": EXAMPLE_QUESTIONS,
    }
    return render(request, "briefs/list.html", context)
