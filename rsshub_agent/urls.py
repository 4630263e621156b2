from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog

urlpatterns = [
    # Browsers ask for /favicon.ico whatever the page says; the icon is a static SVG.
    path("favicon.ico", RedirectView.as_view(url=static("dashboard/favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # The dashboard script's own words (locale/*/djangojs.po), in the page's language.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("api/", include("api.urls")),
    path("", include("catalog.urls")),
    path("", include("sharing.urls")),
    path("watches/", include("watches.urls")),
    path("", include("briefs.urls")),
]
