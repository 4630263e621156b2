"""The admin's field labels in the reader's language.

Django labels a field with its ``verbose_name``, derived from the field's name in English when
the model gives none ("last attempt at"). Our models give none on almost three hundred fields,
and writing each one out would touch every model and migration for no change in the schema: so
the derived name is read through the translation catalog instead (``locale/``), once, when the
apps are ready. Only the name Django shows changes: the field's own ``_verbose_name``, which
migrations compare, stays unset, so no migration follows from it.
"""

from __future__ import annotations

from django.apps import apps
from django.utils.translation import gettext_lazy

# The apps whose field names are ours to translate.
PROJECT_APPS = ("agent", "briefs", "catalog", "fetching", "housekeeping", "sharing", "watches")


def field_names_translated() -> None:
    """Give every field of the project's models that has a plain English ``verbose_name`` the
    catalog's translation of it (lazily: each request reads it in its own language)."""
    for model in apps.get_models():
        if model._meta.app_label not in PROJECT_APPS:
            continue
        for field in model._meta.get_fields():
            name = getattr(field, "verbose_name", None)
            if getattr(field, "concrete", False) and isinstance(name, str):
                field.verbose_name = gettext_lazy(name)  # the English is a msgid
