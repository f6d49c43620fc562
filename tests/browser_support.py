"""Fixtures for the browser tests: the real server over a fresh index, and Debian's chromium.

The browser tests check what a reader actually gets, so they run the production stack:
`scripts/serve` over an index of the bundled corpus in a temporary folder (the session's
whole-knowledge-base build, `kb_index`, copied there: `serve` finds it up to date and starts
HAProxy, nginx and gunicorn without building it again) on a free loopback port, through `harness.server`, the
harness the benchmarks use too, and a real Chromium reads the pages. Playwright's Python
package drives Debian's /usr/bin/chromium; Playwright's own browser download is never used
(it needs the open Internet). Under CI=true a missing browser fails the tests instead of
skipping them, so CI can never pass without having run them.

tests/conftest.py loads this module as a plugin (`pytest_plugins`), so its fixtures are
defined once for the session; test modules import only its helpers.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.server import Server, ServerError, free_port
from webapp.views.offline import ENGINE

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
# As root in a sandbox: no setuid sandbox, no GPU, nothing that phones home. Playwright adds
# --headless itself too, and gives every launch a new empty --user-data-dir.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
IN_CI = os.environ.get("CI") == "true"
# Upper bound for a server to answer /healthz: covers a first-time environment set-up and
# an index build; reached only when something is broken.
STARTUP_LIMIT_SECONDS = 600
ACTION_TIMEOUT_MS = 20_000
# A phone's screen (CSS pixels), as the phone tests hold one.
PHONE = {"width": 360, "height": 740}


def unavailable(reason: str) -> None:
    """Skip a test that cannot run here, except in CI, where not running is a failure."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: these tests must run, not skip)", pytrace=False)
    pytest.skip(reason)


def start_server(index_root: Path, log: Path, *paths: str, port: int | None = None) -> Server:
    """Starts scripts/serve on a free loopback port over `index_root`, extra `paths` passed on."""
    return Server.serve_script(index_root, port or free_port(), *paths, log=log)


def wait_until_healthy(server: Server, limit: float = STARTUP_LIMIT_SECONDS) -> dict:
    """/healthz's answer once it is 200 (see `Server.wait_for`)."""
    return json.loads(server.wait_for("/healthz", limit))


def stop_server(server: Server) -> None:
    server.stop()


def start_checked_server(folder: Path) -> Server:
    """scripts/serve over a new index in `folder`, once it answers from that index."""
    server = start_server(folder / "index", folder / "serve.log")
    try:
        server.check_index(STARTUP_LIMIT_SECONDS)
    except (ServerError, OSError):
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def live_server(tmp_path_factory, kb_index) -> Server:
    """The service as `./scripts/serve` runs it, over an index of the bundled corpus in a
    temporary folder; shared by every test of the session. If it cannot start, pytest keeps
    that failure for the session: every test using it fails at once with it."""
    folder = tmp_path_factory.mktemp("live-server")
    shutil.copytree(kb_index, folder / "index")
    try:
        server = start_checked_server(folder)
    except (ServerError, OSError) as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    stop_server(server)


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, launched once per session through Playwright."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing (as root: apt-get install chromium; ./scripts/test does it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright Python package is not installed (./scripts/test installs it)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def phone_tab(browser, name: str, **options):
    """A tab on a 360 × 740 touch screen in Traditional Chinese (`options` change what the
    browser context is given); a JavaScript error fails the test, and what the screen last
    showed is kept as test-artifacts/<name>.png."""
    context = browser.new_context(**{"viewport": PHONE, "device_scale_factor": 2, "is_mobile": True,
                                     "has_touch": True, "locale": "zh-TW", **options})
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(f"{tab.url}: {error}"))
    yield tab
    screenshot(tab, name, full_page=False)
    context.close()
    assert errors == []


# How long a page waits for the service worker to control it before the test fails.
WORKER_SECONDS = 30
# How long a page waits before it is reloaded when the worker is active but not its controller.
UNCLAIMED_SECONDS = 5


def worker_state(tab, seconds: float) -> str:
    """'controlled' once the service worker controls the page, else after `seconds` the state of
    its registration (`evaluate` itself never times out). A promise the page resolves, not
    `wait_for_function`: its polling compiles a string, which the site's CSP refuses."""
    return tab.evaluate("""seconds => Promise.race([
        navigator.serviceWorker.ready.then(() => navigator.serviceWorker.controller ||
            new Promise(done => navigator.serviceWorker.addEventListener('controllerchange', done)))
            .then(() => 'controlled'),
        new Promise(done => setTimeout(done, seconds * 1000)).then(() =>
            navigator.serviceWorker.getRegistration().then(r => 'not controlled after ' + seconds + ' s: ' +
                (r ? ['installing', 'waiting', 'active'].map(k => k + '=' + (r[k] ? r[k].state : 'none')).join(' ')
                   : 'no registration')))])""", seconds)


def wait_for_worker(tab) -> None:
    """Waits until the service worker controls the page, failing after `WORKER_SECONDS`. A page
    whose navigation raced the worker's first activation can stay unclaimed though the worker is
    active (Chromium); as for a reader, its next load is controlled, so it is reloaded once."""
    state = worker_state(tab, UNCLAIMED_SECONDS)
    if state != "controlled" and state.endswith("active=activated"):
        tab.reload()
    if state != "controlled":
        state = worker_state(tab, WORKER_SECONDS)
    assert state == "controlled", state


def artifact_path(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / (re.sub(r"[^\w.-]+", "-", name).strip("-") + ".png")


def add_offline_search(page) -> None:
    """The offline search's parts added to a page, in the order the worker imports them."""
    for name in ENGINE:
        page.add_script_tag(url=f"/static/{name}")


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """Saves a screenshot (of the whole page, or of what the viewport shows) as
    test-artifacts/<name>.png."""
    path = artifact_path(name)
    page.screenshot(path=str(path), full_page=full_page)
    return path


@pytest.fixture
def page(browser, request):
    """A page in a fresh browser context (no cookies or storage from other tests).

    The page's last state is saved as test-artifacts/<test name>.png whether the test passed
    or not, and a JavaScript error on any page the test opened fails the test.
    """
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(ACTION_TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    yield page
    try:
        screenshot(page, request.node.name)
    finally:
        context.close()
    if errors:
        pytest.fail("JavaScript errors:\n" + "\n".join(errors), pytrace=False)
