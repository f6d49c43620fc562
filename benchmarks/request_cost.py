"""Request cost: the server CPU each address of the site costs, over the whole knowledge base.

Every kind of address the site answers is asked, as a browser asks it (Accept-Encoding of
Chromium), through the WSGI app in this process, with `time.process_time()` around the call and
the reading of its body, the garbage collector kept as a worker keeps it (what is open frozen,
the older generations collected between requests: webapp/collection.py): every page type and
its JSON twin, every page of every source, every rule of today's edition and the sections of
the older ones, cards, planes, terms, searches (the judged queries and hostile ones: the
longest query, many distinct words), suggestions, rule batches, the offline copy, static files,
error pages, and the linker's largest posts. Each address is asked once, as a crawler or a
hostile client asks addresses no cache holds; the ten most expensive, their cost when asked
again, and the worst of each kind are printed, with every address over the budget of LIMIT_MS;
then the ten asked again of the real app under gunicorn (one worker, as scripts/serve runs it),
each first and then again, with its worker's CPU around each request.

    python -m benchmarks.request_cost INDEX_ROOT    # an index built with its offline copy
    ./scripts/bench cost                             # builds the whole knowledge base first
"""
from __future__ import annotations

import gc
import http.client
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import orjson
from werkzeug.datastructures import Headers
from werkzeug.test import EnvironBuilder

from harness.server import Server, free_port
from indexer.documents import scryfall
from indexer.knowledge.library import Library
from indexer.search.query import MAX_LIMIT, MAX_QUERY_CHARS
from webapp import collection, create_app, templating, warming
from webapp.views.offline import ENGINE

from .measure import WARM_UP_QUERY, build_folder, judged_queries, percentile, table

LIMIT_MS = 50.0
# Of a source's pages and of Scryfall's cards, at most this many are asked (a seeded sample).
SAMPLE = 500
BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd", "Accept-Language": "zh-TW,zh;q=0.9,en;q=0.8"}
# The largest body the app reads (KB_MAX_BODY_BYTES' default), less room for the JSON around it.
POST_BYTES = 100 * 1024 - 200
STATIC = ("style.css", "search.js", "offline.js", "offline.css", *ENGINE, "copy.js", "embed.js",
          "icons/icon-192.png", "icons/icon.svg")
SITE = ("/", "/forum", "/forum-sample", "/embed.js", "/sw.js", "/manifest.webmanifest", "/offline", "/opensearch.xml",
        "/healthz", "/api/offline", "/api/offline/data", "/rules", "/glossary")
ERRORS = ("/rules/999.9", "/no/such/page", "/rules//702.30a", "/cards/no-such-card", "/api/search?q=kind:nothing")


@dataclass
class Ask:
    kind: str
    path: str
    method: str = "GET"
    json: dict | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def environ(self) -> dict:
        path, _, query = self.path.partition("?")
        return EnvironBuilder(path=path, query_string=query, method=self.method, json=self.json,
                              headers=Headers({**BROWSER, **self.headers})).get_environ()


@dataclass
class Cost:
    ask: Ask
    status: str
    sent: int
    seconds: float


def measure(app, ask: Ask) -> Cost:
    """The CPU of one request: the WSGI call and the reading of its whole body."""
    environ, status = ask.environ(), []

    def start_response(line, headers, exc_info=None):
        status.append(line.split()[0])
        return lambda data: None

    started = time.process_time()
    body = app(environ, start_response)
    try:
        sent = sum(len(chunk) for chunk in body)
    finally:
        if hasattr(body, "close"):
            body.close()
    return Cost(ask, status[0] if status else "?", sent, time.process_time() - started)


def posts(library: Library | None, size: int = POST_BYTES) -> dict[str, str]:
    """The linker's largest posts: distinct numbers and names nothing has, distinct numbers
    that each have a rule (of `library`), one number said again and again, and markup of
    the shortest pieces (each a step of the linker: `<b>a`, `<p>a`, Markdown's code spans)."""
    def fill(pieces: Iterator[str]) -> str:
        out, length = [], 0
        for piece in pieces:
            if length + len(piece.encode()) > size:
                break
            out.append(piece)
            length += len(piece.encode())
        return "".join(out)

    numbers = sorted({r.number for r in library.records.values() if r.kind == "rule" and r.number}) if library else []
    out = {"unknown": fill(f"see {800 + n // 900}.{n % 900 + 1}z and [[no card {n}]]. " for n in range(10**6)),
           "repeated": fill("規則702.30a " for _ in range(10**6)),
           **{f"markup {piece}": fill(piece for _ in range(10**6)) for piece in ("<b>a", "<p>a", "`a` ")}}
    if numbers:
        out["known"] = fill(f"rule {numbers[n % len(numbers)]}; " for n in range(10**6))
    return out


def distinct_unknowns(size: int) -> str:
    """A post of `size` bytes whose every number and [[name]] differs and names nothing."""
    return posts(None, size)["unknown"]


def linkify_sizes(app) -> str:
    """The linker over posts of distinct unknown numbers and names, by size (the reported
    12/25/50/100 KB posts), in each format: the CPU of the whole request."""
    rows = []
    for kb in (12, 25, 50, 100):
        text = distinct_unknowns(min(kb * 1024, POST_BYTES))
        cells = [measure(app, Ask("linkify", "/api/linkify", "POST", json={"text": text, "format": fmt}))
                 for fmt in ("markdown", "html", "bbcode")]
        rows.append([f"{kb} KB", text.count("see "), *(f"{c.seconds * 1000:.0f}" for c in cells)])
    return table(["post", "distinct unknown numbers (and as many names)", "markdown ms", "html ms", "bbcode ms"], rows)


def asks(app, library: Library) -> Iterator[Ask]:
    rng = random.Random(0)
    records = list(library.records.values())
    today = library.catalogue.current_edition
    for path in SITE:
        yield Ask("site", path)
    for coding in ("br", "gzip", "identity"):  # the offline copy as each client takes it
        yield Ask(f"offline copy, {coding}", "/api/offline/data", headers={"Accept-Encoding": coding})
    for name in STATIC:
        yield Ask("static", f"/static/{name}")
    for path in ERRORS:
        yield Ask("error", path)
    for source_id in library.sources:
        contents = app.test_client().get(f"/api/sources/{source_id}").get_json()
        yield Ask("source contents", f"/sources/{source_id}")
        yield Ask("source contents JSON", f"/api/sources/{source_id}")
        pages = range(1, contents.get("pages", 0) + 1)
        for page in sorted(rng.sample(pages, SAMPLE)) if len(pages) > SAMPLE else pages:
            yield Ask("source page", f"/sources/{source_id}?page={page}")
            yield Ask("source page JSON", f"/api/sources/{source_id}?page={page}")
    rules = [r for r in records if r.kind == "rule" and r.source.startswith("cr-")]
    for r in rules:
        if r.edition == today:
            yield Ask("rule page", f"/rules/{r.number}")
            if rng.random() < 0.2:
                yield Ask("rule JSON", f"/api/rules/{r.number}")
        elif r.parent is None:
            yield Ask("rule page, older edition", f"/rules/{r.number}?edition={r.edition}")
    # Every card of the documents; of Scryfall's tens of thousands, a seeded sample.
    scryfall_cards = [r for r in records if r.source == scryfall.SOURCE]
    sampled = {r.id for r in (rng.sample(scryfall_cards, SAMPLE) if len(scryfall_cards) > SAMPLE else scryfall_cards)}
    for r in records:
        if r.source == scryfall.SOURCE and r.id not in sampled:
            continue
        if r.kind in ("card", "planar_card"):
            base = "/cards/" if r.kind == "card" else "/planes/"
            yield Ask(r.kind.replace("_", " "), base + r.id)
            yield Ask(r.kind.replace("_", " ") + " JSON", "/api" + base + r.id)
        elif r.kind == "term" and (r.edition == today or not r.source.startswith("cr-")):
            yield Ask("term", f"/terms/{r.id}")
    for query in judged_queries():
        yield Ask("search page", f"/?q={query}")
        yield Ask("search JSON", f"/api/search?q={query}&limit={MAX_LIMIT}")
        yield Ask("suggest", f"/api/suggest?q={query[:3]}")
    words = sorted({w for r in rules[:3000] for w in r.text.get("en", "").split() if w.isalpha()})
    rng.shuffle(words)
    chinese = "".join(r.text["zh_hans"] for r in rules if r.edition == today and r.text.get("zh_hans"))
    for query in (" ".join(words)[:MAX_QUERY_CHARS],  # distinct words
                  ",".join(words)[:MAX_QUERY_CHARS],  # distinct words joined by commas: counted apart
                  chinese[:MAX_QUERY_CHARS],  # Chinese text
                  " ".join(w + "x" for w in words[:60])[:MAX_QUERY_CHARS],  # misspelt words
                  " ".join(r.number for r in rules[:200] if r.number)[:MAX_QUERY_CHARS]):  # rule numbers
        yield Ask("search, hostile", f"/?q={query}&limit={MAX_LIMIT}")
        yield Ask("search, hostile", f"/api/search?q={query}&limit={MAX_LIMIT}&script=hans")
    numbers = sorted({r.number for r in rules if r.edition == today and r.number})
    for n in range(0, 600, 60):
        yield Ask("rule batch", f"/api/rules?script=hans&numbers={','.join(numbers[n:n + 60])}")
    yield Ask("rule batch", "/api/rules?numbers=" + ",".join(f"{900 + n}.{n}z" for n in range(60)))
    for name, text in posts(library).items():
        for fmt in ("markdown", "html", "bbcode"):
            yield Ask(f"linkify POST ({name})", "/api/linkify", "POST", json={"text": text, "format": fmt})
        yield Ask(f"forum POST ({name})", "/forum", "POST", json={"text": text, "format": "markdown"})


def _scheduled_ms(pids: list[int]) -> float:
    """The CPU the processes' threads have run, in ms, from the scheduler's nanoseconds (the
    10 ms ticks of /proc/<pid>/stat are too coarse for one request)."""
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e6


def _settled(pids: list[int], seconds: float = 60.0) -> None:
    """Waits until the processes run no more (their CPU the same over 0.2 s), at most `seconds`."""
    deadline, last = time.monotonic() + seconds, -1.0
    while time.monotonic() < deadline:
        now = _scheduled_ms(pids)
        if now - last < 0.5:
            return
        last = now
        time.sleep(0.2)


def through_gunicorn(index_root: Path, asked: list[Ask]) -> str:
    """Each address asked of the real app as scripts/serve runs it (deploy/gunicorn.conf.py,
    one worker, preloaded and warmed up), first and then again, over loopback: its worker's
    CPU around each request."""
    rows = []
    with Server.production(index_root, free_port(), workers=1) as server:
        server.wait_for("/healthz")
        workers = server.worker_pids()
        _settled(workers)  # the worker's own warm-up (post_worker_init) done
        for ask in asked:
            cells = []
            for _ in range(2):
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
                body = orjson.dumps(ask.json) if ask.json is not None else None
                headers = {**BROWSER, **ask.headers, **({"Content-Type": "application/json"} if body else {})}
                before = _scheduled_ms(workers)
                connection.request(ask.method, quote(ask.path, safe="/?=&:,.%+"), body=body, headers=headers)
                answer = connection.getresponse()
                sent = len(answer.read())
                connection.close()
                time.sleep(0.05)  # the worker done with the connection
                cells.append((answer.status, sent, _scheduled_ms(workers) - before))
            rows.append([f"`{_short(ask)}`", ask.kind, cells[0][0], f"{cells[0][1]:,}", f"{cells[0][2]:.1f}",
                         f"{cells[1][2]:.1f}"])
    return table(["address", "kind", "status", "bytes received", "CPU ms", "asked again, ms"], rows)


def report(index_root: Path) -> str:
    app = create_app({"INDEX_ROOT": index_root})
    library = Library(build_folder(index_root))
    try:
        # What webapp.wsgi does in gunicorn's master before the workers fork: the index opened,
        # jieba and OpenCC loaded, a first query asked, the templates compiled.
        for warm in ("/healthz", f"/?q={WARM_UP_QUERY}", "/rules/100.1"):
            measure(app, Ask("warm-up", warm))
        templating.compile_all(app)
        # And what a worker does (webapp.serving.Worker): it asks itself a few pages
        # (webapp.warming), keeps what is open from the garbage collector and collects its
        # older generations between requests.
        warming.warm(app)
        gc.collect()
        gc.freeze()
        collection.collect_older_between_requests()
        costs = []
        for ask in list(asks(app, library)):
            costs.append(measure(app, ask))
            collection.between_requests()
    finally:
        library.close()
    costs.sort(key=lambda c: -c.seconds)
    top = costs[:10]
    again = [measure(app, c.ask).seconds for c in top]
    rows = [[i + 1, f"`{_short(c.ask)}`", c.ask.kind, c.status, f"{c.sent:,}", f"{c.seconds * 1000:.0f}",
             f"{a * 1000:.0f}"] for i, (c, a) in enumerate(zip(top, again, strict=True))]
    out = [f"{len(costs):,} requests, each asked once; {sum(c.seconds * 1000 > LIMIT_MS for c in costs)} over "
           f"{LIMIT_MS:.0f} ms of CPU ({sum(c.seconds * 1000 > LIMIT_MS for c in costs if c.ask.method == 'GET')} "
           f"of them GETs).\n",
           table(["", "address", "kind", "status", "bytes sent", "CPU ms", "asked again, ms"], rows), ""]
    kinds: dict[str, list[Cost]] = {}
    for c in costs:
        kinds.setdefault(c.ask.kind, []).append(c)
    rows = [[kind, len(group), f"{percentile([c.seconds for c in group], 50) * 1000:.1f}",
             f"{group[0].seconds * 1000:.1f}", sum(c.seconds * 1000 > LIMIT_MS for c in group),
             f"`{_short(group[0].ask)}`"]
            for kind, group in sorted(kinds.items(), key=lambda kv: -kv[1][0].seconds)]
    out.append(table(["kind", "asked", "p50 ms", "max ms", f"over {LIMIT_MS:.0f} ms", "most expensive"], rows))
    out += ["", "The linker by post size (POST /api/linkify, distinct numbers and names nothing has):", "",
            linkify_sizes(app)]
    out += ["", "The ten through gunicorn (one worker, as scripts/serve runs it; its CPU per request):", "",
            through_gunicorn(index_root, [c.ask for c in top])]
    return "\n".join(out)


def _short(ask: Ask, width: int = 70) -> str:
    text = f"{ask.method} {ask.path}" if ask.method != "GET" else ask.path
    return text if len(text) <= width else text[:width - 1] + "…"


if __name__ == "__main__":
    print(report(Path(sys.argv[1])))
