"""Dashboard pages for watches. Thin: read through ``watches.selectors``, write through
``watches.services``. Another user's watch is a 404 on every page and action."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from agent.llm import llm_configured
from briefs.middleware import TIMEZONE_COOKIE, zone_named
from briefs.models import Brief
from briefs.quotas import QuotaExceeded, quota_reason
from briefs.selectors import brief_of, brief_queue_position, brief_steps
from sharing.atom import atom_response, feed_tag_uri
from sharing.models import secret_hint
from watches import news, selectors, services
from watches.forms import DigestForm, WatchForm
from watches.models import DEFAULT_TIME, Watch, WatchRun
from watches.schedules import DAILY, zone_names
from watches.unsubscribe import unsubscribe_watch


def _own_watch(request: HttpRequest, pk: int) -> Watch:
    try:
        return selectors.watch_of(owner=request.user, watch_id=pk)
    except Watch.DoesNotExist:
        raise Http404("No such watch.") from None


def _zone_default(request: HttpRequest) -> str:
    """The browser's zone (the dashboard's ``tz`` cookie) when it is a listed one."""
    zone = zone_named(request.COOKIES.get(TIMEZONE_COOKIE))
    name = getattr(zone, "key", "")
    return name if name in zone_names() else settings.TIME_ZONE


def _saved(request: HttpRequest, form: WatchForm, *, watch: Watch | None = None) -> Watch | None:
    """Create (or change ``watch``) from a valid form; None with the form's errors set."""
    if not form.is_valid():
        return None
    try:
        if watch is None:
            return services.watch_create(owner=request.user, **form.changes())
        return services.watch_update(owner=request.user, watch_id=watch.pk, **form.changes())
    except services.WatchInvalid as exc:
        form.field_error(exc.field, exc.reader_message())
        return None


def _question_of(request: HttpRequest) -> str:
    """The question of the brief ``?brief=`` names, when it is the user's ("Watch this
    question" on a brief's page); "" otherwise."""
    brief_id = request.GET.get("brief", "")
    if not (brief_id.isdigit() and len(brief_id) <= 18):
        return ""
    try:
        return brief_of(owner=request.user, brief_id=int(brief_id)).question
    except Brief.DoesNotExist:
        return ""


@login_required
@require_http_methods(["GET", "POST"])
def watch_list(request: HttpRequest) -> HttpResponse:
    """The user's watches and the form for a new one (``?brief=`` fills in that brief's
    question)."""
    if request.method == "POST":
        form = WatchForm(request.POST)
        watch = _saved(request, form)
        if watch is not None:
            messages.success(request, _("The watch is set: it runs at its next time."))
            return redirect("watch-detail", pk=watch.pk)
    else:
        initial = {
            "question": _question_of(request),
            "schedule": DAILY,
            "time_of_day": DEFAULT_TIME,
            "minute": 0,
            # Without a model every run is offline: the box says so from the start.
            "offline": not llm_configured(),
        }
        form = WatchForm(initial={**initial, "timezone": _zone_default(request)})
    context = {
        "form": form,
        "watches": selectors.watches_listed(request.user),
        "zone_names": sorted(zone_names()),
        "limit": services.watches_per_user(),
    }
    return render(request, "watches/list.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def watch_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A watch: its history (new items per run), its schedule to edit. Seeing the page reads
    its runs."""
    watch = _own_watch(request, pk)
    if request.method == "POST":
        form = WatchForm(request.POST)
        if _saved(request, form, watch=watch) is not None:
            messages.success(request, _("The watch is saved."))
            return redirect("watch-detail", pk=watch.pk)
    else:
        form = WatchForm(initial=WatchForm.initial_of(watch))
    return _detail_page(request, watch, form)


def _detail_page(
    request: HttpRequest, watch: Watch, form: WatchForm, *, feed_secret: str = ""
) -> HttpResponse:
    """The watch's page; with the whole feed address only in the answer that made it."""
    feed_url = feed_secret and request.build_absolute_uri(reverse("watch-feed", args=[feed_secret]))
    context = {
        "watch": watch,
        "form": form,
        **_runs_context(watch),
        "skip_reason": quota_reason(watch.skip_reason) if watch.skip_shown else "",
        "zone_names": sorted(zone_names()),
        "feed_url": feed_url,
        "feed_start": secret_hint(watch.feed_hint) if watch.feed_digest else "",
    }
    return render(request, "watches/detail.html", context, status=400 if form.errors else 200)


def _runs_context(watch: Watch, *, shown_run: int | None = None) -> dict:
    """The watch's history, and its latest run when it is still going (shown live, its steps
    so far) or is ``shown_run`` (the run the page watched, now finished). Reading them marks
    the settled runs read."""
    history = selectors.watch_history(watch)
    latest = history[0] if history else None
    current = None
    if latest is not None and (not latest.brief.is_finished or latest.pk == shown_run):
        current = latest
    steps = brief_steps(brief_id=current.brief_id) if current else []
    services.watch_runs_read(watch=watch)
    return {
        "runs": history,
        "current": current,
        "steps": steps,
        "last_seq": steps[-1].seq if steps else 0,
        "queue_position": brief_queue_position(current.brief) if current else None,
    }


@login_required
@require_POST
def watch_run(request: HttpRequest, pk: int) -> HttpResponse:
    """Run the watch now; its page shows the run going (``watches/_runs.html``)."""
    watch = _own_watch(request, pk)
    try:
        services.watch_run_now(owner=request.user, watch_id=watch.pk)
    except QuotaExceeded as exc:
        messages.error(request, exc.reader_message())
    return redirect(reverse("watch-detail", args=[watch.pk]) + "#runs")


@login_required
@require_GET
def watch_runs_fragment(request: HttpRequest, pk: int) -> HttpResponse:
    """The watch's runs alone (``?run=``: the run its page was watching, shown finished): the
    live page swaps them in when that run ends."""
    watch = _own_watch(request, pk)
    run = request.GET.get("run", "")
    shown = int(run) if run.isdigit() and len(run) <= 18 else None
    context = {"watch": watch, **_runs_context(watch, shown_run=shown)}
    return render(request, "watches/_runs.html", context)


@login_required
@require_POST
def watch_active(request: HttpRequest, pk: int) -> HttpResponse:
    """Pause (``active=0``) or resume (``active=1``) a watch."""
    watch = _own_watch(request, pk)
    active = request.POST.get("active") == "1"
    services.watch_update(owner=request.user, watch_id=watch.pk, active=active)
    messages.info(request, _("The watch runs again.") if active else _("The watch is paused."))
    return redirect("watch-detail", pk=watch.pk)


@login_required
@require_http_methods(["GET", "POST"])
def watch_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """GET asks for confirmation; POST deletes."""
    watch = _own_watch(request, pk)
    if request.method == "GET":
        return render(request, "watches/confirm_delete.html", {"watch": watch})
    services.watch_delete(owner=request.user, watch_id=watch.pk)
    messages.success(request, _("The watch is deleted; its briefs stay."))
    return redirect("watch-list")


@login_required
def watch_run_open(request: HttpRequest, pk: int) -> HttpResponse:
    """A run's brief, from an email or the history: the run is read."""
    run = get_object_or_404(WatchRun.objects.select_related("watch"), pk=pk)
    if run.watch.owner_id != request.user.pk:
        raise Http404("No such run.")
    services.watch_runs_read(watch=run.watch, run_id=run.pk)
    return redirect("brief-detail", pk=run.brief_id)


@csrf_exempt  # the signed token is the credential; mail clients POST it one-click (RFC 8058)
@require_http_methods(["GET", "POST"])
def watch_unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The email's unsubscribe link: GET asks (link scanners follow links), POST pauses."""
    watch = unsubscribe_watch(token)
    if watch is None:
        raise Http404("No such watch.")
    paused = False
    if request.method == "POST":
        services.watch_pause(watch_id=watch.pk)
        paused = True
    return render(request, "watches/unsubscribe.html", {"watch": watch, "paused": paused})


@login_required
@require_POST
def watch_feed_rotate(request: HttpRequest, pk: int) -> HttpResponse:
    """A new feed address, shown on the page this POST answers and never again (not a
    redirect: the secret would have to be kept somewhere until the next request)."""
    had_feed = _own_watch(request, pk).feed_digest is not None
    watch, secret = services.watch_feed_rotate(owner=request.user, watch_id=pk)
    if had_feed:
        messages.success(request, _("The feed has a new address; the old one no longer works."))
    form = WatchForm(initial=WatchForm.initial_of(watch))
    response = _detail_page(request, watch, form, feed_secret=secret)
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def watch_feed(request: HttpRequest, secret: str) -> HttpResponse:
    """The watch's private Atom feed: no sign-in, the secret in the URL is the credential."""
    watch = selectors.watch_by_feed_secret(secret)
    if watch is None:
        raise Http404("No such feed.")
    return atom_response(
        request,
        selectors.watch_feed_briefs(watch),
        title=_("Watch: %(question)s") % {"question": watch.question},
        feed_id=feed_tag_uri(request, since=watch.created_at, name=f"watch/{watch.pk}"),
        self_url=request.path,
        updated_floor=watch.created_at,
    )


@login_required
@require_http_methods(["GET", "POST"])
def watch_news(request: HttpRequest) -> HttpResponse:
    """What is new across the user's watches, newest first (``watches.news``), and the choice
    of a digest email of it; the runs shown are read."""
    digest = news.digest_of(request.user)
    if request.method == "POST":
        form = DigestForm(request.POST)
        if form.is_valid():
            news.digest_choose(owner=request.user, frequency=form.cleaned_data["frequency"])
            messages.success(request, _("The digest is saved."))
            return redirect("watch-news")
    else:
        form = DigestForm(initial={"frequency": digest.frequency if digest else "off"})
    items = news.news_items(request.user)
    unread = {item.run.pk for item in items if item.run.settled_at and not item.run.read_at}
    news.news_runs_read(request.user, list(unread))
    context = {
        "items": items,
        "unread": unread,
        "form": form,
        "has_email": bool(request.user.email),
    }
    return render(request, "watches/news.html", context, status=400 if form.errors else 200)
