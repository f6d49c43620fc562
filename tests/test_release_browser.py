"""A release reaches a returning browser: its new service worker runs the new offline search
and its page the new scripts and the new index's offline copy, never the release before's.

One release is served and installed by Chromium; then the next (a changed offline search
and search.js, a new index build) is served at the same address and the page is opened again.
Both releases are the app in this process, served by Werkzeug's threaded server on one
loopback port, so that the static folder can change between them as a deployment changes it
(`scripts/serve` serves the repository's own files).
"""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from browser_support import ACTION_TIMEOUT_MS
from corpus_support import SMALL_CORPUS, copy_corpus
from playwright.sync_api import expect
from werkzeug.serving import make_server

from indexer.search.build import build, current_folder
from webapp import create_app, offline_copy

pytestmark = [pytest.mark.browser, pytest.mark.server]
expect.set_options(timeout=ACTION_TIMEOUT_MS)
STATIC = Path(__file__).resolve().parents[1] / "webapp" / "static"


def release(static: Path, marker: str) -> None:
    """A release's static files: the repository's, with its offline search and search box marked."""
    shutil.copytree(STATIC, static)
    for name, global_name in (("offline-search/index.js", "self.OFFLINE_SEARCH_RELEASE"),
                              ("search.js", "window.SEARCH_RELEASE")):
        with open(static / name, "a", encoding="utf-8") as fh:
            fh.write(f"\n{global_name} = {marker!r};\n")


@pytest.fixture
def site(tmp_path):
    corpus = copy_corpus(SMALL_CORPUS, tmp_path / "corpus")
    root = tmp_path / "index"
    build([corpus], root=root, extras={"offline": offline_copy.write})
    release(tmp_path / "static-1", "one")
    app = create_app({"INDEX_ROOT": root})
    app.static_folder = str(tmp_path / "static-1")
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def next_release():
        release(tmp_path / "static-2", "two")
        build([corpus], root=root, force=True, extras={"offline": offline_copy.write})
        app.static_folder = str(tmp_path / "static-2")
        return current_folder(root).name

    yield {"url": f"http://127.0.0.1:{server.server_port}", "first": current_folder(root).name, "next": next_release}
    server.shutdown()


def worker_release(worker) -> str | None:
    """The release mark of the offline search a worker runs, once it has run its script."""
    return worker.evaluate("""() => new Promise(resolve => {
        const check = () => self.OfflineIndex ? resolve(self.OFFLINE_SEARCH_RELEASE || null) : setTimeout(check, 50);
        check();
    })""")


def test_a_returning_browser_runs_the_new_release_s_code_and_copy(browser, site):
    context = browser.new_context()
    try:
        page = context.new_page()
        with context.expect_event("serviceworker") as first_worker:
            page.goto(site["url"] + "/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        expect(page.locator("#offline-status .offline-copy")).to_have_attribute("data-index", site["first"])
        assert worker_release(first_worker.value) == "one"
        page.reload()
        assert page.evaluate("() => window.SEARCH_RELEASE") == "one"

        second = site["next"]()
        with context.expect_event("serviceworker") as next_worker:
            page.reload()  # the browser finds the new worker, which takes over at once
        assert worker_release(next_worker.value) == "two"
        page.wait_for_function("""() => navigator.serviceWorker.getRegistration()
            .then(r => r.active && !r.installing && !r.waiting && r.active.state === 'activated')""")
        expect(page.locator("#offline-status .offline-copy")).to_have_attribute("data-index", second)
        page.reload()  # now under the new worker: its precache gives the page's scripts
        assert page.evaluate("() => window.SEARCH_RELEASE") == "two"
        expect(page.locator("#offline-status .offline-copy")).to_have_attribute("data-index", second)
        # Offline, the new worker answers from the new copy with the new code.
        context.set_offline(True)
        answer = page.evaluate("() => fetch('/api/search?q=persist').then(r => r.json())")
        assert answer.get("offline") and answer["results"]
    finally:
        context.close()
