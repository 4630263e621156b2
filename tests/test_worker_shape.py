"""The default worker shape (rsshub_agent/worker_shape.py): a worker per CPU, as many as the
machine's memory holds beside the fixed part of the stack."""

from pathlib import Path

import pytest

from rsshub_agent.worker_shape import BASE_MB, WORKER_MB, machine_memory_mb, workers_fitting

MEMINFO = "MemTotal:        {kb} kB\nMemFree:          123456 kB\nMemAvailable:   654321 kB\n"


def machine(tmp_path: Path, *, total_mb: int, cgroup: str | None) -> tuple[Path, Path]:
    meminfo, cgroup_max = tmp_path / "meminfo", tmp_path / "memory.max"
    meminfo.write_text(MEMINFO.format(kb=total_mb * 1024))
    if cgroup is not None:
        cgroup_max.write_text(cgroup + "\n")
    return meminfo, cgroup_max


@pytest.mark.parametrize(
    ("cpus", "memory_mb", "expected"),
    [
        (2, 1024, 2),  # the 1 GB machine of issue 37: both CPUs fit
        (8, 1024, (1024 - BASE_MB) // WORKER_MB),  # memory, not CPUs, bounds it
        (4, 512, 1),  # too small even for one: still one
        (2, 24 * 1024, 2),  # plenty of memory: a worker per CPU
        (3, None, 3),  # memory unknown: CPUs alone
    ],
)
def test_workers_fit_the_cpus_and_the_memory(cpus, memory_mb, expected):
    assert workers_fitting(cpus=cpus, memory_mb=memory_mb) == expected


def test_memory_is_memtotal_without_a_cgroup_limit(tmp_path):
    meminfo, cgroup_max = machine(tmp_path, total_mb=2048, cgroup="max")
    assert machine_memory_mb(meminfo, cgroup_max) == 2048


def test_a_cgroup_limit_below_the_host_is_the_machine(tmp_path):
    meminfo, cgroup_max = machine(tmp_path, total_mb=24 * 1024, cgroup=str(1024 * 2**20))
    assert machine_memory_mb(meminfo, cgroup_max) == 1024


def test_memory_is_unknown_when_neither_file_says(tmp_path):
    assert machine_memory_mb(tmp_path / "absent", tmp_path / "absent-too") is None


def test_a_garbled_meminfo_is_not_trusted(tmp_path):
    meminfo, cgroup_max = machine(tmp_path, total_mb=1, cgroup=None)
    meminfo.write_text("MemTotal: lots\n")
    assert machine_memory_mb(meminfo, cgroup_max) is None
