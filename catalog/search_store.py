"""The search index on disk: built once per catalog version by one process of the machine, mapped
by all of them.

Why. Each process used to build its own index from the database: ~11 s of CPU on a loaded
machine and ~75 MB of resident memory per worker, for the same data in every process. Now the
first process that needs a version builds it under a lock and writes it to ``DATA_DIR``; every
process (the builder too) maps the file's posting arrays read-only, so the kernel keeps one copy
of those pages for the machine, and unpickles the small rest (routes, idf, name phrases).

Which file. One per database (``search-index-<digest of the database's identity>.bin``), so a
test database and the service's, on one ``DATA_DIR``, never take each other's index.

When it is rebuilt: the file's text version (``catalog_search_version()[0]``) is not the
catalog's, which is the rule ``catalog.search_index`` applies to an index in memory, or it was
built by other code than this (``BUILD``: an upgrade that changes how names or terms are read
never reads an index the old code wrote); a staff click that leaves the text as it was is still
absorbed without a rebuild (``catalog.search_touch``). A file that is short, has another
format, or whose checksum does not match what it holds is not trusted: it is rebuilt, like a
stale one.

Format: ``MAGIC``, the header's length (8 bytes, little-endian), the header (JSON: text version
as ``repr``, the sections' offsets and sizes, the BLAKE2b digest of everything after the header),
then the pickled rest and the arrays, each at an 8-byte boundary. Unpickling is safe here only
because the checksum is checked first and ``DATA_DIR`` is the service's own: it holds the
database and the secret key, so whoever can write to it owns the service already.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import mmap
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection

from catalog.search_postings import ARRAY_TYPES, PostingArrays

MAGIC = b"RSA-SEARCH-INDEX-2\n"
# The code that decides what the index holds (its names, terms and fields): a file built by
# other code is stale like one of another catalog version, so an upgrade never reads the old.
BUILD_SOURCES = (
    *("search_index.py", "search_fields.py", "search_terms.py", "search_postings.py"),
    *("abbreviations.py", "segment.py"),
)
BUILD = hashlib.blake2b(
    b"".join((Path(__file__).parent / name).read_bytes() for name in BUILD_SOURCES),
    digest_size=8,
).hexdigest()
LENGTH_BYTES = 8
ALIGN = 8


class IndexFileRefused(Exception):
    """The file is not a whole, intact index of this format."""


def index_path() -> Path:
    """This database's index file in ``DATA_DIR``."""
    db = connection.settings_dict
    # Engine and name: enough to keep databases apart on one DATA_DIR (the version check guards
    # the rest), and the same however the URL spelt the host and port.
    identity = repr((db["ENGINE"], str(db["NAME"])))
    digest = hashlib.blake2b(identity.encode(), digest_size=6).hexdigest()
    return Path(settings.DATA_DIR) / f"search-index-{digest}.bin"


@contextlib.contextmanager
def build_lock(path: Path):
    """One builder per file on the machine; the others wait here, then read what it wrote."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _padded(n: int) -> int:
    return -n % ALIGN


def index_write(path: Path, text_version: tuple, rest: dict[str, Any], arrays: PostingArrays):
    """Write the index atomically (a readers' open file keeps the old inode until it is done)."""
    payload = pickle.dumps(
        {**rest, "route_terms": arrays.route_terms, "platform_terms": arrays.platform_terms},
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    chunks, sections, offset = [payload, b"\0" * _padded(len(payload))], {}, 0
    offset = len(payload) + _padded(len(payload))
    for name in ARRAY_TYPES:
        data = np.ascontiguousarray(arrays.arrays[name], dtype=ARRAY_TYPES[name]).tobytes()
        sections[name] = [offset, len(data)]
        chunks += [data, b"\0" * _padded(len(data))]
        offset += len(data) + _padded(len(data))
    body = b"".join(chunks)
    header = json.dumps({
        "version": _version(text_version), "rest": len(payload), "sections": sections,
        "length": len(body), "blake2b": hashlib.blake2b(body).hexdigest(),
    }).encode()  # fmt: skip
    start = len(MAGIC) + LENGTH_BYTES + len(header)
    header += b" " * _padded(start)  # the body, and so every array, starts 8-aligned
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, delete=False) as out:
        out.write(MAGIC + len(header).to_bytes(LENGTH_BYTES, "little") + header + body)
        out.flush()
        os.fsync(out.fileno())
    os.replace(out.name, path)


def _version(text_version: tuple) -> str:
    return repr((BUILD, text_version))


def _header(data: mmap.mmap) -> tuple[dict, int]:
    if data[: len(MAGIC)] != MAGIC:
        raise IndexFileRefused("not an index of this format")
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + LENGTH_BYTES], "little")
    start = len(MAGIC) + LENGTH_BYTES
    try:
        header = json.loads(data[start : start + size])
        return header, start + size
    except ValueError:
        raise IndexFileRefused("unreadable header") from None


def index_read(path: Path, text_version: tuple) -> tuple[dict[str, Any], PostingArrays] | None:
    """The index in ``path`` when it is intact and of ``text_version``; None when absent or of
    another version; ``IndexFileRefused`` when it is damaged."""
    try:
        with open(path, "rb") as file:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        raise IndexFileRefused(f"cannot map: {exc}") from None
    header, body = _header(data)
    if header.get("version") != _version(text_version):
        return None
    try:
        length, sections = int(header["length"]), header["sections"]
        intact = (
            len(data) == body + length
            and hashlib.blake2b(memoryview(data)[body:]).hexdigest() == header["blake2b"]
        )
    except (KeyError, TypeError, ValueError):
        intact = False
    if not intact:
        raise IndexFileRefused("truncated or altered")
    rest = pickle.loads(data[body : body + header["rest"]])  # noqa: S301 - checked above
    arrays = {
        name: np.frombuffer(data, dtype=dtype, count=sections[name][1] // np.dtype(dtype).itemsize,
                            offset=body + sections[name][0])
        for name, dtype in ARRAY_TYPES.items()
    }  # fmt: skip
    return rest, PostingArrays(arrays, rest.pop("route_terms"), rest.pop("platform_terms"))
