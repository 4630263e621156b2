"""`manage.py qcluster`: django-q's own command, with the cluster's pages kept shared.

Every process of a cluster (the guard, the monitor, the pusher, each worker) is a ``fork`` of
this one, and shares its memory until a page is written. CPython's cycle collector writes the
header of every object it scans, so the first full collection in each child would copy nearly the
whole inherited heap: ~30 MB per process that only pushes or monitors. ``gc.freeze()`` moves what
exists now (Django, the apps, the settings) out of the collector's sight, so those pages stay
shared; what a process allocates afterwards is collected as usual. (Overrides django-q's command:
``rsshub_agent`` is listed before ``django_q`` in ``INSTALLED_APPS`` for that.)
"""

import gc

from django_q.management.commands.qcluster import Command as DjangoQCommand


class Command(DjangoQCommand):
    def handle(self, *args, **options):
        gc.collect()  # what is garbage now need not stay frozen
        gc.freeze()
        return super().handle(*args, **options)
