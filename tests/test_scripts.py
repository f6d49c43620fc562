"""scripts/serve: its arguments, its PORT handling and what it does when a build fails.

Argument handling is checked through --dry-run (it prints the commands it would run); the
behaviour around a failed build is checked by really starting it on a free loopback port.
"""
from __future__ import annotations

import json
import os
import runpy
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from browser_support import ROOT, start_server, stop_server, wait_until_healthy

from harness.server import SERVE

# How often the worker count is read, half a second apart, before it must be two.
WORKER_CHECKS = 20
RUN = "/tmp/kb-serve-XXXXXX"
APP = (f"python -m gunicorn --config {ROOT}/deploy/gunicorn.conf.py --bind unix:{RUN}/app.sock "
       f"--bind unix:{RUN}/health.sock webapp.wsgi:app")


def dry_run(*args: str, cwd: Path = ROOT, port_env: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "INDEX_ROOT", "PUBLIC_URL")}
    if port_env is not None:
        env["PORT"] = port_env
    return subprocess.run([str(SERVE), "--dry-run", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def plan(result: subprocess.CompletedProcess) -> dict[str, str]:
    assert result.returncode == 0, result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines())


def test_defaults_listen_on_loopback_8000_haproxy_and_nginx_in_front_of_two_preloaded_workers():
    steps = plan(dry_run())
    assert steps == {
        "index root": str(ROOT / "var" / "index"),
        "public url": "http://127.0.0.1:8000",
        "build": f"python -m indexer build --index-root {ROOT / 'var' / 'index'} corpus/",
        "serve": "python -m deploy.serve --bind 127.0.0.1:8000",
        "app": APP,
        "proxy": f"nginx -p {RUN}/nginx -c {RUN}/nginx/nginx.conf (deploy/nginx.conf, on unix:{RUN}/nginx.sock)",
        "edge": f"haproxy -W -db -f {RUN}/haproxy/haproxy.cfg (deploy/haproxy.cfg, on 127.0.0.1:8000)",
        "url": "http://127.0.0.1:8000/",
    }
    settings = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    assert {k: settings[k] for k in ("workers", "worker_class", "preload_app", "control_socket_disable")} == \
        {"workers": 2, "worker_class": "webapp.serving.Worker", "preload_app": True, "control_socket_disable": True}


def test_port_from_environment_and_option_overrides_it():
    assert plan(dry_run(port_env="9123"))["url"] == "http://127.0.0.1:9123/"
    steps = plan(dry_run("--port", "9200", port_env="9123"))
    assert steps["serve"] == "python -m deploy.serve --bind 127.0.0.1:9200"
    assert steps["edge"].endswith("(deploy/haproxy.cfg, on 127.0.0.1:9200)")
    assert plan(dry_run("--port=9201", "--host=0.0.0.0"))["url"] == "http://0.0.0.0:9201/"


def test_ipv6_host_is_bracketed():
    assert plan(dry_run("--host", "::1", "--port", "8080"))["serve"] == "python -m deploy.serve --bind [::1]:8080"


def test_extra_paths_resolve_from_the_callers_folder(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "MagicCompRules.txt").write_text("x", encoding="utf-8")
    steps = plan(dry_run("rules", "rules/MagicCompRules.txt", cwd=tmp_path))
    assert steps["build"].endswith(f" corpus/ {tmp_path / 'rules'} {tmp_path / 'rules' / 'MagicCompRules.txt'}")


@pytest.mark.parametrize("args, message", [
    (("--port", "http"), "serve: port must be a number from 1 to 65535, got 'http'"),
    (("--port", "70000"), "serve: port must be a number from 1 to 65535, got '70000'"),
    (("--port",), "serve: --port needs a value"),
    (("--workers", "4"), "serve: unknown option --workers (see --help)"),
    (("no-such-rules.txt",), "serve: no such file or folder: no-such-rules.txt"),
])
def test_bad_arguments_exit_2_with_a_message(args, message):
    result = dry_run(*args)
    assert (result.returncode, result.stderr.strip(), result.stdout) == (2, message, "")


def test_bad_port_in_environment_is_refused():
    result = dry_run(port_env="eighty")
    assert (result.returncode, result.stderr.strip()) == (
        2, "serve: port must be a number from 1 to 65535, got 'eighty'")


def test_running_server_has_two_workers(live_server):
    """Two workers, given the moment gunicorn's master takes between forking them (up to a
    tenth of a second, longer on a busy machine): the first may answer the health check the
    server was waited for before the second exists."""
    master = gunicorn_master(live_server)
    counts = []
    for _ in range(WORKER_CHECKS):
        counts.append(sum(_parent_pid(stat) == master for stat in Path("/proc").glob("[0-9]*/stat")))
        if counts[-1] == 2:
            break
        time.sleep(0.5)
    assert counts[-1] == 2, counts


def gunicorn_master(server) -> int:
    """The pid of gunicorn's master: the child of serve's process (deploy/serve.py) that runs
    gunicorn (the others are nginx's master and HAProxy)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        if _parent_pid(stat) == server.process.pid:
            try:
                if b"gunicorn" in (stat.parent / "cmdline").read_bytes():
                    return int(stat.parent.name)
            except OSError:
                continue
    raise AssertionError("serve runs no gunicorn")


def _parent_pid(stat: Path) -> int | None:
    try:
        # "pid (comm) state ppid ...": comm may contain spaces, so split after its ')'.
        return int(stat.read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_failed_build_keeps_serving_the_previous_index(live_server, tmp_path):
    previous = (live_server.index_root / "CURRENT").read_text(encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a rules file\n", encoding="utf-8")
    server = start_server(live_server.index_root, tmp_path / "serve.log", str(notes))
    try:
        health = wait_until_healthy(server)
    finally:
        stop_server(server)
    assert health["index"] == previous.strip()
    output = server.output()
    assert f"{notes}: not a Comprehensive Rules file" in output
    assert f"serve: the index was not rebuilt (see above); serving the previous index " \
           f"{live_server.index_root / previous.strip()}" in output
    assert (live_server.index_root / "CURRENT").read_text(encoding="utf-8") == previous


@pytest.mark.server
def test_failed_build_without_any_index_is_an_error(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a rules file\n", encoding="utf-8")
    server = start_server(tmp_path / "index", tmp_path / "serve.log", str(notes))
    assert server.process.wait(timeout=300) == 1
    output = server.output()
    assert f"serve: no index to serve: the build failed (see above) and {tmp_path / 'index'} holds no earlier index" \
        in output
    assert not (tmp_path / "index" / "CURRENT").exists()


@pytest.mark.server
def test_first_query_after_ready_is_answered_from_the_index_the_master_opened(kb_index, tmp_path):
    """serve opens the index in gunicorn's master before the workers fork: the very first
    request, a search, is answered by a worker from the library the master opened, and no
    worker opens the build again."""
    shutil.copytree(kb_index, tmp_path / "index")
    server = start_server(tmp_path / "index", tmp_path / "serve.log")
    try:
        first = json.loads(server.wait_for("/api/search?q=persist"))  # nothing asked before it
        health = [json.loads(server.get("/healthz")[1]) for _ in range(12)]
        master = gunicorn_master(server)
    finally:
        stop_server(server)
    assert first["results"] and first["results"][0]["rule"] == "702.79"
    assert {h["opened_in"] for h in health} == {master}
    assert master not in {h["pid"] for h in health}
    assert "no index opened before the workers start" not in server.output()
