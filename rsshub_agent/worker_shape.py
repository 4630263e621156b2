"""How many django-q workers one machine holds by default, and when a worker is replaced.

Runs wait on I/O, so a worker per CPU keeps the CPUs busy (more may help on a big host: set
``Q_WORKERS``). Memory is the other bound: on a small machine a worker per CPU may not fit beside
RSSHub, Daphne and the cluster's own processes. What each costs is measured by
``bench/footprint.py`` (PSS after briefs, README "Benchmarks"); the figures below round it up.

The machine's memory is the lesser of ``MemTotal`` (``/proc/meminfo``) and the cgroup's limit
(``/sys/fs/cgroup/memory.max``), so a container sized below its host is sized as itself. Total,
not available memory: the shape must not change with what happens to run at start-up.
"""

import os
from pathlib import Path

# The fixed part of the default stack (RSSHub, Daphne, the cluster's main, guard, monitor and
# pusher, the supervisor) and the operating system's own share, MB.
BASE_MB = 450
# One worker after briefs, its feed parser included, MB.
WORKER_MB = 160
MEMINFO = Path("/proc/meminfo")
CGROUP_MEMORY_MAX = Path("/sys/fs/cgroup/memory.max")


def machine_memory_mb(meminfo: Path = MEMINFO, cgroup_max: Path = CGROUP_MEMORY_MAX) -> int | None:
    """The machine's memory in MB, or None when neither file tells it (not Linux)."""
    sizes = []
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemTotal:"):
                sizes.append(int(line.split()[1]) // 1024)  # kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = cgroup_max.read_text().strip()
        if limit.isdigit():  # "max" when unlimited
            sizes.append(int(limit) // 2**20)
    except OSError:
        pass
    return min(sizes) if sizes else None


def machine_cpus() -> int:
    """CPUs this process may run on (an affinity mask or a cpuset narrows ``os.cpu_count``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def workers_fitting(*, cpus: int, memory_mb: int | None) -> int:
    """A worker per CPU, no more than the memory holds beside the fixed part; at least one."""
    if memory_mb is None:
        return max(1, cpus)
    return max(1, min(cpus, (memory_mb - BASE_MB) // WORKER_MB))
