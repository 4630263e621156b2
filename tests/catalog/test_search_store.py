"""The search index file in DATA_DIR (catalog/search_store.py): built once per catalog version,
mapped by every process, rebuilt when the catalog changes or the file cannot be trusted."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from catalog import search_store
from catalog.models import Platform, Route
from catalog.search_index import search_index_current, search_index_invalidate
from catalog.search_store import MAGIC, index_path
from catalog.selectors import catalog_search_version
from tests.databases import database_url

ROOT = Path(__file__).resolve().parents[2]

# Another process of the machine: sets up Django on the same database and DATA_DIR, takes the
# index, and prints whether it maps the file and a route it found.
READER = """
import django
django.setup()
from catalog.search_index import search_index_current
from catalog.search_store import index_path
index = search_index_current()
maps = open("/proc/self/maps").read()
print(str(index_path()) in maps, "/alpha/flash" in index.route_by_path)
"""


@pytest.fixture
def catalog(settings):
    settings.CATALOG_SEARCH_RECHECK_SECONDS = 0  # every call checks the catalog's version
    platform = Platform.objects.create(namespace="alpha", name="Alpha Wire")
    Route.objects.create(platform=platform, key="/flash", path="/alpha/flash", name="Flash")
    search_index_invalidate()
    index_path().unlink(missing_ok=True)
    yield platform
    search_index_invalidate()
    index_path().unlink(missing_ok=True)


def header_version(path: Path) -> bytes:
    return path.read_bytes()[:4096]


@pytest.mark.django_db
def test_the_index_is_written_once_and_mapped(catalog):
    index = search_index_current()
    path = index_path()
    assert path.read_bytes().startswith(MAGIC), "no index file in DATA_DIR"
    assert str(path) in Path("/proc/self/maps").read_text(), "the arrays are not mapped"
    assert not index.arrays.route_platform.flags.writeable, "a mapped array must be read-only"
    inode = path.stat().st_ino
    search_index_invalidate()
    assert "/alpha/flash" in search_index_current().route_by_path
    assert path.stat().st_ino == inode, "an intact file of the same version was rebuilt"


@pytest.mark.django_db
def test_a_catalog_change_rebuilds_the_file(catalog):
    search_index_current()
    path = index_path()
    before = path.stat().st_ino
    Route.objects.create(platform=catalog, key="/late", path="/alpha/late", name="Late edition")
    index = search_index_current()
    assert "/alpha/late" in index.route_by_path, "the new route is not searchable"
    assert path.stat().st_ino != before, "the file was not rewritten for the new catalog"
    assert repr(catalog_search_version()[0]).encode() in header_version(path)


@pytest.mark.django_db
def test_a_file_built_by_other_code_is_rebuilt(catalog, monkeypatch):
    search_index_current()
    path = index_path()
    before = path.stat().st_ino
    monkeypatch.setattr(search_store, "BUILD", "an-older-release")  # how names were read then
    search_index_invalidate()
    assert "/alpha/flash" in search_index_current().route_by_path
    assert path.stat().st_ino != before, "an index the older code wrote was read"
    assert b"an-older-release" in header_version(path)


@pytest.mark.django_db
@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_file_is_rebuilt_not_trusted(catalog, damage):
    search_index_current()
    path = index_path()
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data[-5] ^= 0xFF  # inside the arrays: only the checksum can tell
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"not an index at all\n" * 10)
    path.write_bytes(bytes(data))
    search_index_invalidate()
    index = search_index_current()
    assert "/alpha/flash" in index.route_by_path
    assert (path.read_bytes().startswith(MAGIC) and len(path.read_bytes()) > len(data)) or (
        damage == "flip" and path.read_bytes() != bytes(data)
    ), "the damaged file was kept"


@pytest.mark.django_db(transaction=True)
def test_two_processes_map_the_same_file(catalog):
    search_index_current()
    path = index_path()
    inode = path.stat().st_ino
    env = {**os.environ, "DATABASE_URL": database_url(), "PYTHONPATH": str(ROOT),
           "DJANGO_SETTINGS_MODULE": "rsshub_agent.settings"}  # fmt: skip
    command = [sys.executable, "-c", READER]
    readers = [
        subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    for reader in readers:
        assert reader.returncode == 0, reader.stderr[-2000:]
        assert reader.stdout.split() == ["True", "True"], "a reader did not map the file"
    assert path.stat().st_ino == inode, "a reader rebuilt an intact, current file"
