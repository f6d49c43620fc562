"""HAProxy's configuration as deploy/edge.py writes it: its own answers are whole HTTP answers in
the app's error shape, its buffer holds the largest request nginx takes, and HAProxy accepts
the file. What HAProxy does with stalled clients is tests/test_stalled_connections.py's."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from deploy.edge import ERROR_STATUSES, NGINX_HEAD_BYTES, Haproxy, haproxy_binary, write_error_answers
from deploy.proxy import CONFIG as NGINX_CONFIG

MAX_BODY = 102400


def test_haproxys_own_answers_are_whole_answers_in_the_apps_error_shape(tmp_path):
    lines = write_error_answers(tmp_path)
    assert [len(lines[form]) for form in ("html", "json")] == [len(ERROR_STATUSES)] * 2
    for form, entries in lines.items():
        for line in entries:
            _, status, path = line.split()
            head, _, body = Path(path).read_bytes().partition(b"\r\n\r\n")
            status_line, *fields = head.decode("latin-1").split("\r\n")
            headers = {name.lower(): value for name, value in (field.split(": ", 1) for field in fields)}
            assert status_line.startswith(f"HTTP/1.1 {status} ")
            assert int(headers["content-length"]) == len(body)
            assert headers["connection"] == "close"
            if form == "json":
                assert headers["content-type"] == "application/json"
                assert json.loads(body)["error"]["status"] == int(status)
            else:
                assert headers["content-type"].startswith("text/html")
                assert b'<article class="error">' in body and status.encode() in body


def test_the_buffer_holds_the_largest_head_and_body_nginx_takes(tmp_path):
    buffers = re.search(r"large_client_header_buffers (\d+) (\d+)k;", NGINX_CONFIG.read_text(encoding="utf-8"))
    assert buffers and int(buffers[1]) * int(buffers[2]) * 1024 == NGINX_HEAD_BYTES
    if haproxy_binary() is None:
        pytest.skip("haproxy is not installed")
    edge = Haproxy(tmp_path, "127.0.0.1:8000", "unix@/run/nginx.sock", 20, MAX_BODY)
    text = edge.write_config(write_error_answers(tmp_path)).read_text(encoding="utf-8")
    assert int(re.search(r"tune\.bufsize (\d+)", text)[1]) > NGINX_HEAD_BYTES + MAX_BODY
    assert "timeout http-request 20s" in text and text.count("\n    option http-buffer-request\n") == 2


@pytest.mark.server  # runs haproxy
def test_haproxy_accepts_the_configuration(tmp_path):
    if haproxy_binary() is None:
        pytest.skip("haproxy is not installed")
    edge = Haproxy(tmp_path, "127.0.0.1:8000", "unix@/run/nginx.sock", 20, MAX_BODY)
    path = edge.write_config(write_error_answers(tmp_path))
    checked = subprocess.run([edge.binary, "-c", "-f", str(path)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ALERT" not in checked.stdout + checked.stderr
