"""Every brief names its language as the site does (``en``, ``zh-hans``), decided once.

Briefs written before held the agent's ``zh`` / ``en`` (or nothing when they never ran): each
gets the language its question is in, as ``briefs.language`` decides for a new brief. In
batches: a big table is not rewritten row by row."""

import re

from django.db import migrations

CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _decided(language: str, question: str) -> str:
    # A frozen copy of briefs.language: a migration must not change when that module does.
    if language.lower().startswith("zh") or (not language and CJK_RE.search(question)):
        return "zh-hans"
    return "en"


def languages_decide(apps, schema_editor):
    Brief = apps.get_model("briefs", "Brief")
    rows = Brief.objects.exclude(language__in=("en", "zh-hans")).values_list(
        "pk", "language", "question"
    )
    decided: dict[str, list[int]] = {"en": [], "zh-hans": []}
    for pk, was, question in rows.iterator():
        decided[_decided(was, question)].append(pk)
    for language, pks in decided.items():
        for start in range(0, len(pks), 1000):
            Brief.objects.filter(pk__in=pks[start : start + 1000]).update(language=language)


class Migration(migrations.Migration):
    dependencies = [("briefs", "0008_brief_agreements")]

    operations = [migrations.RunPython(languages_decide, migrations.RunPython.noop)]
