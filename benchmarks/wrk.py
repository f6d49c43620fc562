"""wrk, the benchmarks' HTTP client: a C event loop that leaves the two cores to the servers
it measures, where client threads in Python took about as much CPU as the servers (the cold
part's ceiling with no search at all was 1,100-1,320 requests/s with them).

`ask_once` asks every path of a list exactly once over loopback with benchmarks/ask_once.lua
(how it shares the paths, times each request and stops is said there) and returns each
request's latency, the run's length and the paths that got no 2xx answer.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from harness.server import HOST

ASK_ONCE = Path(__file__).with_name("ask_once.lua")
CONNECTIONS = 8
SIGNAL_EVERY = 0.5  # seconds between SIGINTs until wrk exits


class WrkMissing(Exception):
    """wrk is not installed (Debian: apt-get install wrk)."""


def wrk_binary() -> str:
    wrk = shutil.which("wrk")
    if wrk is None:
        raise WrkMissing("wrk is not installed; as root: apt-get install wrk (scripts/bench does so when it can)")
    return wrk


def ask_once(port: int, paths: list[str], connections: int = CONNECTIONS, cap_seconds: float | None = None) -> dict:
    """GET every path of `paths` once from 127.0.0.1:`port` over `connections` connections
    (one wrk thread each), each request on the connection the last answer left (a new one
    where the server closes it).

    Returns `latencies` (seconds, one per answer), `seconds` (from the first request sent to
    the last answer received), `asked` (requests sent), `statuses` (a Counter of the answers'
    statuses), `cpu_seconds` (wrk's own, user and system) and `failures` (paths without a 2xx
    answer: error statuses, requests the server dropped, paths never asked). A run that has not
    ended after `cap_seconds` (by default a minute and a tenth of a second a path) is stopped,
    and what it did not ask counts as failed.
    """
    if not paths:
        return {"latencies": [], "seconds": 0.0, "asked": 0, "statuses": Counter(), "cpu_seconds": 0.0, "failures": 0}
    wrk = wrk_binary()
    threads = min(connections, len(paths))
    cap = cap_seconds if cap_seconds is not None else 60 + len(paths) / 10
    with tempfile.TemporaryDirectory(prefix="ask-once-") as tmp, socket.socket() as sink:
        sink.bind((HOST, 0))
        sink.listen(threads)
        paths_file = Path(tmp) / "paths.txt"
        paths_file.write_text("\n".join(paths) + "\n", encoding="utf-8")
        argv = [wrk, f"-t{threads}", f"-c{threads}", f"-d{int(cap) + 1}s", "--timeout", "10s", "-s", str(ASK_ONCE),
                f"http://{HOST}:{port}", "--", str(paths_file), str(threads), str(sink.getsockname()[1])]
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert process.stdout and process.stderr  # both are pipes (PIPE above)
        output, error_output = process.stdout, process.stderr
        lines: list[str] = []
        all_done = threading.Event()

        def read() -> None:
            done = 0
            for line in output:
                lines.append(line)
                done += line.startswith("ASK-ONCE-DONE ")
                if done == threads:
                    all_done.set()
            all_done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        all_done.wait(cap)
        # wrk's main thread sleeps for -d; SIGINT wakes it to collect the threads and run done().
        # wait4 rather than Popen.wait, for the CPU time wrk itself used.
        usage = None
        while usage is None:
            os.kill(process.pid, signal.SIGINT)
            until = time.monotonic() + SIGNAL_EVERY
            while usage is None and time.monotonic() < until:
                pid, status, rusage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    process.returncode, usage = os.waitstatus_to_exitcode(status), rusage
                else:
                    time.sleep(0.01)
        reader.join()
        errors = error_output.read()
    report = next((row for row in lines if row.startswith("ASK-ONCE [")), None)
    if process.returncode != 0 or report is None:
        raise RuntimeError(f"wrk exited with {process.returncode} and no figures:\n{errors[-2000:]}")
    figures = json.loads(report[len("ASK-ONCE "):])
    statuses: Counter = Counter()
    for thread in figures:
        statuses.update({int(status): n for status, n in thread["statuses"].items()})
    answered = [thread for thread in figures if thread["latencies_us"]]
    seconds = (max(t["last_us"] for t in answered) - min(t["first_us"] for t in answered)) / 1e6 if answered else 0.0
    return {"latencies": [us / 1e6 for thread in figures for us in thread["latencies_us"]], "seconds": seconds,
            "asked": sum(thread["asked"] for thread in figures), "statuses": statuses,
            "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "failures": len(paths) - sum(n for status, n in statuses.items() if 200 <= status < 300)}
