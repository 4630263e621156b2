from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog

from rsshub_agent.route_health import route_health

urlpatterns = [
    # Browsers ask for /favicon.ico whatever the page says; the icon is a static SVG.
    path("favicon.ico", RedirectView.as_view(url=static("dashboard/favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # The dashboard script's own words (locale/*/djangojs.po), in the page's language. Pages ask
    # for it with their language in the query, so the browser keeps one copy per language and
    # a page's scripts do not wait for it after the first page.
    path(
        "jsi18n/",
        cache_control(max_age=86400, private=True)(JavaScriptCatalog.as_view()),
        name="javascript-catalog",
    ),
    path("api/", include("rsshub_agent.api_urls")),
    path("accounts/", include("accounts.urls")),
    path("health/routes/", route_health, name="route-health"),
    path("", include("sharing.urls")),
    path("watches/", include("watches.urls")),
    path("", include("briefs.urls")),
]
