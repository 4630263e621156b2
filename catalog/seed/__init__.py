"""The offline seed: gzip of RSSHub's /api/namespace (build 1.0.0-master.f99e982, 3,905 routes)."""

from pathlib import Path

SEED_PATH = Path(__file__).resolve().parent / "namespace.json.gz"
