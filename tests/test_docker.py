"""The container setup: docker/compose.yaml, docker/Dockerfile and docker/entrypoint.sh.

Static checks only (no Docker engine, no database): the compose file is parsed with PyYAML. When a
compose client is installed, one more test asks it to validate the file offline.
"""

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "compose.yaml"
DOCKERFILE = DOCKER / "Dockerfile"
ENTRYPOINT = DOCKER / "entrypoint.sh"
ENV_EXAMPLE = ROOT / ".env.example"

SERVICES = {"postgres", "redis", "rsshub", "web", "worker"}
APP_SERVICES = ("web", "worker")
APP_ENV = ("DATABASE_URL", "REDIS_URL", "RSSHUB_URL", "SECRET_KEY")
# Variables that only the compose file reads; they are not settings of the application.
COMPOSE_ONLY_VARS = {"POSTGRES_PASSWORD", "PROXY_PORT"}


@pytest.fixture(scope="module")
def compose() -> dict:
    assert COMPOSE.is_file(), f"{COMPOSE.relative_to(ROOT)} is missing"
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict), "compose.yaml does not parse to a mapping"
    return data


def _service(compose: dict, name: str) -> dict:
    service = compose["services"].get(name)
    assert isinstance(service, dict), f"service {name!r} is missing from compose.yaml"
    return service


def _command(service: dict) -> list[str]:
    command = service.get("command")
    if isinstance(command, str):
        return command.split()
    return [str(part) for part in command or []]


def _environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the "KEY=value" list form
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {str(key): str(value) for key, value in env.items()}


def _dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuation lines joined and comments dropped."""
    joined: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    if pending:
        joined.append(pending)
    pairs = []
    for line in joined:
        keyword, _, rest = line.partition(" ")
        pairs.append((keyword.upper(), rest.strip()))
    return pairs


def test_compose_has_the_five_services(compose):
    services = set(compose.get("services") or {})
    missing = SERVICES - services
    assert not missing, f"compose.yaml lacks services {sorted(missing)}"
    assert "version" not in compose, "compose.yaml has an obsolete top-level `version:` key"


def test_rsshub_uses_the_chromium_bundled_image(compose):
    image = _service(compose, "rsshub").get("image")
    assert image == "diygod/rsshub:chromium-bundled", (
        f"rsshub should run diygod/rsshub:chromium-bundled, got {image!r}"
    )


def test_web_runs_daphne_on_the_asgi_application(compose):
    command = _command(_service(compose, "web"))
    assert command and command[0] == "daphne", f"web's command does not run daphne: {command}"
    assert "rsshub_agent.asgi:application" in command, (
        f"web's daphne does not serve rsshub_agent.asgi:application: {command}"
    )


def test_worker_runs_qcluster(compose):
    command = _command(_service(compose, "worker"))
    assert "qcluster" in command, f"worker's command does not run qcluster: {command}"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_get_the_core_environment(compose, name):
    env = _environment(_service(compose, name))
    missing = [var for var in APP_ENV if not env.get(var)]
    assert not missing, f"{name} gets no value for {missing}"
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), (
        f"{name}'s SECRET_KEY must be required from the host (${{SECRET_KEY:?...}}), "
        f"got {env['SECRET_KEY']!r}"
    )


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_build_from_the_dockerfile(compose, name):
    build = _service(compose, name).get("build")
    assert isinstance(build, dict), f"{name} has no build section with context and dockerfile"
    context = (COMPOSE.parent / build.get("context", ".")).resolve()
    assert context == ROOT, f"{name} builds from context {context}, not the repository root"
    dockerfile = context / build.get("dockerfile", "Dockerfile")
    assert dockerfile == DOCKERFILE, f"{name} builds from {dockerfile}, not docker/Dockerfile"
    assert dockerfile.is_file(), f"{name}'s Dockerfile {dockerfile} does not exist"


def test_dockerfile_installs_requirements():
    assert DOCKERFILE.is_file(), "docker/Dockerfile is missing"
    instructions = _dockerfile_instructions()
    copies = [args for keyword, args in instructions if keyword == "COPY"]
    runs = [args for keyword, args in instructions if keyword == "RUN"]
    assert any("requirements.txt" in args for args in copies), (
        "the Dockerfile has no COPY line bringing in requirements.txt"
    )
    assert any(re.search(r"pip install\b.*-r\s+\S*requirements\.txt\b", args) for args in runs), (
        "the Dockerfile has no RUN line doing `pip install -r requirements.txt`"
    )
    users = [args for keyword, args in instructions if keyword == "USER"]
    assert users and users[-1] not in {"root", "0"}, (
        f"the image must run as a non-root user, USER lines: {users}"
    )


def test_compose_variables_are_documented(compose):
    """Every ${VAR} the compose file reads is in .env.example, or is compose-only."""
    text = COMPOSE.read_text().replace("$$", "")  # "$$" is a literal dollar for the container
    referenced = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text))
    assert referenced, "compose.yaml references no host variable at all (parsing broke?)"
    assert ENV_EXAMPLE.is_file(), ".env.example is missing: nothing documents the variables"
    documented = set(
        re.findall(r"^[ \t]*#?[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=", ENV_EXAMPLE.read_text(), re.M)
    )
    undocumented = referenced - documented - COMPOSE_ONLY_VARS
    assert not undocumented, (
        f"compose.yaml reads {sorted(undocumented)}, which .env.example does not document"
    )


def test_entrypoint_is_executable():
    assert ENTRYPOINT.is_file(), "docker/entrypoint.sh is missing"
    listed = subprocess.run(
        ["git", "ls-files", "--stage", "--", str(ENTRYPOINT.relative_to(ROOT))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode == 0 and listed.stdout.strip():
        mode = listed.stdout.split()[0]
        assert mode == "100755", (
            f"git records docker/entrypoint.sh with mode {mode}; it needs 100755 "
            "(git update-index --chmod=+x docker/entrypoint.sh)"
        )
    mode = ENTRYPOINT.stat().st_mode
    assert mode & stat.S_IXUSR, "docker/entrypoint.sh lacks the executable bit (chmod +x)"


def test_entrypoint_parses_with_bash():
    result = subprocess.run(
        ["bash", "-n", str(ENTRYPOINT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"bash -n docker/entrypoint.sh failed: {result.stderr}"


def _compose_cli() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(
            ["docker", "compose", "version"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_compose_client_accepts_the_file():
    cli = _compose_cli()
    assert cli is not None, "no compose client: scripts/system-deps installs docker-compose"
    env = {**os.environ, "SECRET_KEY": "compose-config-check"}
    result = subprocess.run(
        [*cli, "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 0, f"`{' '.join(cli)} config` rejects compose.yaml: {result.stderr}"


# --- the scale profile ----------------------------------------------------------------------------

CADDYFILE = DOCKER / "Caddyfile"
SCALE_WEBS, SCALE_WORKERS = ("web-1", "web-2"), ("worker-1", "worker-2", "worker-3")
SCALE_SERVICES = {"proxy", "rsshub-2", *SCALE_WEBS, *SCALE_WORKERS}


def test_the_scale_profile_has_two_webs_a_proxy_three_workers_and_two_rsshubs(compose):
    profiled = {n for n, s in compose["services"].items() if "scale" in (s.get("profiles") or [])}
    assert profiled == SCALE_SERVICES
    for name in SERVICES:  # the single-machine services stay out of no profile
        assert not _service(compose, name).get("profiles"), name
    assert _service(compose, "rsshub-2")["image"] == _service(compose, "rsshub")["image"]


@pytest.mark.parametrize("name", [*SCALE_WEBS, *SCALE_WORKERS])
def test_scaled_app_services_queue_on_redis_and_read_both_rsshubs(compose, name):
    env = _environment(_service(compose, name))
    assert env.get("Q_BROKER") == "redis", f"{name} must enqueue and take tasks on Redis"
    assert env.get("REDIS_URL", "").startswith("redis://redis:"), name
    urls = env.get("RSSHUB_URLS", "").split(",")
    assert urls == ["http://rsshub:1200", "http://rsshub-2:1200"], name
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), name


def test_scaled_webs_serve_daphne_and_one_migrates(compose):
    for name in SCALE_WEBS:
        command = _command(_service(compose, name))
        assert command[0] == "daphne" and "rsshub_agent.asgi:application" in command, name
        assert "ports" not in _service(compose, name), f"{name} is reached through the proxy"
    migrating = [n for n in SCALE_WEBS if _environment(_service(compose, n)).get("RUN_MIGRATIONS")]
    assert migrating == ["web-1"]
    for name in ("web-2", *SCALE_WORKERS):
        assert _environment(_service(compose, name)).get("WAIT_FOR_MIGRATIONS") == "1", name


@pytest.mark.parametrize("name", SCALE_WORKERS)
def test_scaled_workers_run_qcluster(compose, name):
    assert "qcluster" in _command(_service(compose, name))


def test_the_proxy_sends_to_both_webs_with_websockets(compose):
    proxy = _service(compose, "proxy")
    assert proxy["image"].startswith("caddy:")
    assert "./Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert CADDYFILE.is_file(), "docker/Caddyfile is missing"
    directives = [
        line.split("#")[0].split()
        for line in CADDYFILE.read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    upstreams = next(d[1:] for d in directives if d[0] == "reverse_proxy")
    assert upstreams[:2] == ["web-1:8000", "web-2:8000"]
    # Caddy upgrades websockets by itself; a directive that strips Connection/Upgrade breaks it.
    assert not any(d[0] == "header_up" and d[1].lstrip("-") in ("Connection", "Upgrade")
                   for d in directives)  # fmt: skip
    assert {n: c["condition"] for n, c in proxy["depends_on"].items()} == {
        "web-1": "service_started",
        "web-2": "service_started",
    }


def test_compose_client_accepts_the_scale_profile():
    cli = _compose_cli()
    assert cli is not None, "no compose client: scripts/system-deps installs docker-compose"
    env = {**os.environ, "SECRET_KEY": "compose-config-check"}
    result = subprocess.run(
        [*cli, "-f", str(COMPOSE), "--profile", "scale", "config"],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert result.returncode == 0, f"`{' '.join(cli)} --profile scale config`: {result.stderr}"
    services = set(yaml.safe_load(result.stdout)["services"])
    assert services >= SERVICES | SCALE_SERVICES
