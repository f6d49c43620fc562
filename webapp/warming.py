"""What a worker asks itself before its first request (gunicorn's `post_worker_init`, through
`webapp.wsgi.warm_worker`), so that the first reader's request does not pay for it:

- the memory pages a request first writes after the fork, copied then from the master's
  (2,000 and more, 9 ms of system time), and the first calls of the pages' code: a search page
  (fifty results, two words misspelt: its spelling and snippets' code and tables too), a rule
  page and a tool of `/mcp`, whose transport each worker starts for itself;
- the memory a long question's arrays take: with every card its postings are several MB, and
  memory a process touches for the first time costs it more than the arithmetic on it (about
  900 page faults, 10 to 20 ms, of a first 500-character question). glibc gives arrays of
  more than 128 KB pages of their own and takes them back when they are freed, so each
  first array of a new size costs its pages again; in a worker they come from the C heap,
  touched here once and kept (`keep_heap`) (docs/benchmarks.md, "Every card").
"""
from __future__ import annotations

import contextlib
import ctypes
from urllib.parse import quote, urlsplit

import numpy as np
from flask import Flask

# The C heap a worker touches before its first request and keeps for its requests' arrays, and
# glibc's mallopt parameters: arrays up to twice that from the heap, freed memory kept up to
# four times that (a worker's resident memory after a long question is about that anyway).
HEAP_KEPT = 8 * 2**20
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3

# A long question in everyday words of the game, in English and in Simplified Chinese, each
# searched whole (within the words a query searches).
LONG_QUESTIONS = (
    "My opponent attacks with two creatures, one with flying and first strike, the other with trample "
    "and deathtouch. I block with a creature that has persist, then cast an instant that gives it "
    "protection from red until end of turn. Who deals combat damage first, does the blocked creature "
    "still assign damage to the player, what happens to the counters when it returns from the graveyard "
    "to the battlefield, and can I sacrifice it in response to a triggered ability on the stack?",
    "我的对手用一个具有飞行和先攻的生物攻击，我用一个具有留存异能的生物阻挡，然后施放一个瞬间让它获得反红保护。"
    "谁先造成战斗伤害？被阻挡的生物还会对牌手造成伤害吗？它回到战场时身上的指示物会怎样？",
)


def keep_heap() -> None:
    """Arrays of up to 2 × HEAP_KEPT are taken from the C heap, whose free memory is kept up to
    4 × HEAP_KEPT, and HEAP_KEPT of it is touched now (glibc; elsewhere nothing)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        if libc.mallopt(M_MMAP_THRESHOLD, 2 * HEAP_KEPT) and libc.mallopt(M_TRIM_THRESHOLD, 4 * HEAP_KEPT):
            np.ones(HEAP_KEPT // 8)  # touched, then freed to the heap, which keeps it


def warm(app: Flask) -> None:
    """Asks `app` what a worker asks itself, then keeps its heap (`keep_heap`); an error is logged,
    never raised (with no index yet, the answers are in the error shape and the worker
    serves anyway)."""
    client = app.test_client()
    coded = {"Accept-Encoding": "gzip, br, zstd"}
    tool_call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "get_rule", "arguments": {"number": "702.79"}}}
    asks: list[tuple[str, dict, dict | None]] = [
        ("/?q=persist+留存+flyng+counterr&limit=50", coded, None), ("/rules/702.79", coded, None),
        *((f"/?q={quote(question)}&limit=50", coded, None) for question in LONG_QUESTIONS),
        ("/mcp", {**coded, "Accept": "application/json, text/event-stream",
                  "Host": urlsplit(app.config["PUBLIC_URL"]).netloc}, tool_call)]
    for address, headers, body in asks:
        try:
            client.open(address, method="POST" if body else "GET", headers=headers, json=body)
        except Exception:  # a warm-up never keeps a worker from serving
            app.logger.exception("warming up the worker with %s", address)
    keep_heap()  # last: above what the asks left in the heap
