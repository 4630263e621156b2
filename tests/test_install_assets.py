"""The install step shared by scripts/bootstrap, serve and the Docker image."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_install_assets_collects_static_files_and_compiles_translations(tmp_path):
    mo = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"
    mo.unlink(missing_ok=True)
    env = {**os.environ, "DATA_DIR": str(tmp_path), "SECRET_KEY": "", "DEBUG": "false"}
    (tmp_path / "secret_key").write_text("install-test-key\n")
    result = subprocess.run(
        [sys.executable, "manage.py", "install_assets"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "static" / "dashboard" / "dashboard.css").is_file(), "CSS not collected"
    assert (tmp_path / "static" / "dashboard" / "dashboard.js").is_file(), "JS not collected"
    assert (tmp_path / "static" / "admin" / "css" / "base.css").is_file(), "admin CSS missing"
    assert mo.is_file(), "the Chinese catalog was not compiled"


def test_bootstrap_and_the_image_run_the_same_install_step():
    bootstrap = (ROOT / "scripts" / "bootstrap").read_text()
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "manage.py install_assets" in bootstrap, "scripts/bootstrap skips the install step"
    assert "manage.py install_assets" in dockerfile, "the image skips the install step"
