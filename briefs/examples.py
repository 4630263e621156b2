"""Questions a new user can ask with one click: each is answered offline (no model) by the
seeded catalog's search, in English and in its Chinese translation
(tests/briefs/test_brief_list.py checks the route each one reaches)."""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

EXAMPLE_QUESTIONS: tuple[Promise, ...] = (
    _("What is new on Hacker News today?"),
    _("Latest topics on V2EX"),
    _("What is on the Zhihu hot list?"),
    _("Latest newsflashes from 36Kr"),
)
