"""The profile: the zone, interface language, default brief language and email a person saves
are kept on their profile and carried to where the site reads them (the zone and language
cookies, the session), at once and at every sign-in; a first sign-in stores the browser's
choices as the profile's. The ask form takes the profile's brief language when it leaves the
language blank. Input is checked against the zone database and the site's languages."""

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import Profile
from briefs.language import READER_LANGUAGE_SESSION_KEY
from briefs.middleware import TIMEZONE_COOKIE
from briefs.models import Brief

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

PROFILE = reverse("profile")
SAVED = {
    "email": "alice@example.org",
    "time_zone": "Asia/Shanghai",
    "interface_language": "zh-hans",
    "brief_language": "en",
}


@pytest.fixture(autouse=True)
def language_kept():
    """Saving a Chinese profile leaves Chinese active in this thread: put back what was."""
    language = translation.get_language()
    yield
    translation.activate(language)


def cookie(response, name: str) -> str:
    return response.cookies[name].value if name in response.cookies else ""


def test_it_suggests_the_browsers_zone_until_one_is_saved(owner_client):
    owner_client.cookies[TIMEZONE_COOKIE] = "Europe/Paris"
    response = owner_client.get(PROFILE)
    assert response.status_code == 200
    assert response.context["form"]["time_zone"].value() == "Europe/Paris"


def test_saving_keeps_the_choices_and_carries_them_at_once(owner, owner_client):
    response = owner_client.post(PROFILE, SAVED)
    assert response.status_code == 302
    profile = Profile.objects.get(user=owner)
    assert (profile.time_zone, profile.interface_language, profile.brief_language) == (
        "Asia/Shanghai",
        "zh-hans",
        "en",
    )
    owner.refresh_from_db()
    assert owner.email == "alice@example.org"
    assert cookie(response, TIMEZONE_COOKIE) == "Asia/Shanghai"
    assert cookie(response, settings.LANGUAGE_COOKIE_NAME) == "zh-hans"
    assert owner_client.session[READER_LANGUAGE_SESSION_KEY] == "en"
    page = owner_client.get(PROFILE)
    assert "个人资料已保存" in page.content.decode(), "the next page is in the saved language"


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
        ({"time_zone": "../../etc/passwd"}, "time_zone"),
        ({"time_zone": "x" * 5000}, "time_zone"),
        ({"interface_language": "klingon"}, "interface_language"),
        ({"brief_language": "fr"}, "brief_language"),
        ({"email": "not an email"}, "email"),
    ],
)
def test_it_refuses_what_it_cannot_keep(owner, owner_client, changes, field):
    response = owner_client.post(PROFILE, {**SAVED, **changes})
    assert response.status_code == 400 and response.context["form"].errors[field]
    assert not Profile.objects.filter(user=owner, time_zone="Asia/Shanghai").exists()


def test_a_first_sign_in_stores_the_browsers_zone_and_language(owner):
    client = Client()
    client.cookies[TIMEZONE_COOKIE] = "America/New_York"
    response = client.post(
        reverse("login"),
        {"username": "alice", "password": "alice-pass-1234"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 302
    profile = Profile.objects.get(user=owner)
    assert (profile.time_zone, profile.interface_language) == ("America/New_York", "zh-hans")


def test_a_forged_zone_cookie_is_not_stored(owner):
    client = Client()
    client.cookies[TIMEZONE_COOKIE] = "<script>"
    client.post(reverse("login"), {"username": "alice", "password": "alice-pass-1234"})
    assert Profile.objects.get(user=owner).time_zone == ""


def test_a_sign_in_elsewhere_brings_the_saved_choices(owner):
    Profile.objects.create(
        user=owner, time_zone="Asia/Tokyo", interface_language="zh-hans", brief_language="en"
    )
    client = Client()
    client.cookies[TIMEZONE_COOKIE] = "Europe/London"  # the other browser's own zone
    response = client.post(reverse("login"), {"username": "alice", "password": "alice-pass-1234"})
    assert cookie(response, TIMEZONE_COOKIE) == "Asia/Tokyo"
    assert cookie(response, settings.LANGUAGE_COOKIE_NAME) == "zh-hans"
    assert client.session[READER_LANGUAGE_SESSION_KEY] == "en"
    assert Profile.objects.get(user=owner).time_zone == "Asia/Tokyo", "the browser's does not win"


def test_times_show_in_the_profiles_zone_from_the_first_page(owner):
    from tests.brief_examples import finished_brief

    brief = finished_brief(owner)
    Profile.objects.create(user=owner, time_zone="Asia/Kolkata")
    client = Client()
    client.post(reverse("login"), {"username": "alice", "password": "alice-pass-1234"})
    page = client.get(reverse("brief-detail", args=[brief.pk])).content.decode()
    assert " IST" in page, "times read in the saved zone (India's abbreviation)"


def test_the_ask_form_takes_the_profiles_brief_language_when_left_blank(owner_client):
    owner_client.post(PROFILE, {**SAVED, "interface_language": "en", "brief_language": "zh-hans"})
    owner_client.post(reverse("home"), {"question": "what is new on hacker news", "language": ""})
    assert Brief.objects.get().language == "zh-hans"


def test_a_choice_on_the_form_still_wins(owner_client):
    owner_client.post(PROFILE, {**SAVED, "interface_language": "en", "brief_language": "zh-hans"})
    owner_client.post(reverse("home"), {"question": "what is new on hacker news", "language": "en"})
    assert Brief.objects.get().language == "en"


def test_without_a_default_the_question_decides(owner_client):
    owner_client.post(PROFILE, {**SAVED, "interface_language": "en", "brief_language": ""})
    owner_client.post(reverse("home"), {"question": "36kr 今天有什么新闻"})
    assert Brief.objects.get().language == "zh-hans"


def test_it_requires_login(client):
    response = client.get(PROFILE)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_saving_needs_the_csrf_token(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(PROFILE, SAVED).status_code == 403
    assert not Profile.objects.filter(user=owner, time_zone="Asia/Shanghai").exists()
