from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    # Browsers ask for /favicon.ico whatever the page says; the icon is a static SVG.
    path("favicon.ico", RedirectView.as_view(url=static("dashboard/favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("api.urls")),
    path("", include("catalog.urls")),
    path("", include("sharing.urls")),
    path("watches/", include("watches.urls")),
    path("", include("briefs.urls")),
]
