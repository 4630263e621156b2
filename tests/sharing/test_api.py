"""``/api/v1/briefs/{id}/share``: read, make and revoke a brief's share link with a token;
another user's brief is a 404 on every verb, in the API's error shape."""

import pytest

from briefs.tokens.service import token_issue
from sharing.models import BriefShare
from tests.api.conftest import ApiClient, error_of
from tests.brief_examples import finished_brief, make_brief

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(owner, api_for) -> ApiClient:
    return api_for(owner)


@pytest.fixture
def other_api(other_user, api_for) -> ApiClient:
    return api_for(other_user)


@pytest.fixture
def api_for(settings):
    settings.API_THROTTLE_RATE = "100000/minute"
    return lambda user: ApiClient(token_issue(user=user, name="test").secret)


def share_path(brief_id: int) -> str:
    return f"/api/v1/briefs/{brief_id}/share"


def test_it_makes_reads_and_revokes_a_share_link(api, owner):
    brief = finished_brief(owner)
    assert error_of(api.get(share_path(brief.pk)))["message"] == "No such brief share."
    made = api.post(share_path(brief.pk))
    assert made.status_code == 201
    url = made.json()["url"]
    secret = BriefShare.objects.get(brief=brief).secret
    assert url == f"http://testserver/s/{secret}"
    again = api.post(share_path(brief.pk))
    assert again.status_code == 200 and again.json()["url"] == url
    read = api.get(share_path(brief.pk))
    assert read.status_code == 200 and read.json()["url"] == url
    assert api.client.get(url).status_code == 200
    assert api.delete(share_path(brief.pk)).status_code == 204
    assert api.client.get(url).status_code == 404
    assert api.get(share_path(brief.pk)).status_code == 404
    assert api.delete(share_path(brief.pk)).status_code == 204  # nothing live: still done


def test_another_users_brief_is_a_404_on_every_verb(api, other_api, owner):
    brief = finished_brief(owner)
    api.post(share_path(brief.pk))
    for response in (
        other_api.get(share_path(brief.pk)),
        other_api.post(share_path(brief.pk)),
        other_api.delete(share_path(brief.pk)),
    ):
        assert response.status_code == 404
        assert error_of(response)["message"] == "No such brief."
    assert BriefShare.objects.get(brief=brief).revoked_at is None


def test_an_unfinished_brief_is_refused_naming_the_brief(api, owner):
    response = api.post(share_path(make_brief(owner).pk))
    assert response.status_code == 400
    assert error_of(response)["extra"]["fields"] == {
        "brief": ["Only a finished brief can be shared."]
    }
    assert not BriefShare.objects.exists()


@pytest.mark.parametrize("brief_id", ["0", "-1", "abc", "9" * 19, "1%0A"])
def test_a_bad_id_is_a_404(api, brief_id):
    assert error_of(api.get(f"/api/v1/briefs/{brief_id}/share"))["message"]


def test_it_needs_a_token(owner):
    brief = finished_brief(owner)
    assert ApiClient().post(share_path(brief.pk)).status_code == 401
    assert not BriefShare.objects.exists()
