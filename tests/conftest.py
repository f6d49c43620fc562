"""Fixtures for the web app (flaskr style) and for every test that searches the corpus.

`tiny_index` is the Worldwake FAQ alone, for tests that damage and rebuild an index.
`app`, `client` and `runner` serve a SMALL index: three documents of corpus/ (the Worldwake
FAQ, the Shadowmoor FAQ and the Planechase guide) with their entries of sources.toml, copied
into a folder of their own and built. `cr_client` serves the same three plus
two real editions of the Comprehensive Rules from corpus/rules/: 2010-02-01 (the Worldwake
FAQ's edition, so a rule has its English beside the FAQ's Chinese) and 2009-07-11 (the one
before, so a rule has a history and a diff). `corpus_library` opens an index of the five
bundled documents (corpus/ without its rules editions). `kb_index` and `kb_library` are the
whole knowledge base, the documents and every edition of the rules as `./scripts/serve`
builds it: the longest build, for every test that needs it (they are marked `slow`).
`rules_read`, `rules_lineage` and `ingested` are corpus/rules/ read and aligned and corpus/
ingested, for the tests of reading them.

Each of these is made once and kept between runs in pytest's cache folder, under a hash of
what it is made of (`kept.py`): a run after the first reads them instead of building them
again. No test touches var/index.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from corpus_support import CR, DOCUMENTS, QUESTION_CARDS, SCRYFALL, SMALL_CORPUS, corpus_source
from hypothesis import settings
from kept import kept_index, kept_value

from indexer.documents.comprules import RulesResult, read_rules_files
from indexer.documents.ingest import DEFAULT_CORPUS, IngestResult, ingest
from indexer.documents.parsers import parser_for
from indexer.documents.records import Record
from indexer.knowledge.library import Library
from indexer.search.build import current_folder
from indexer.search.lineage import Edge, align
from webapp import book_parts, create_app, offline_copy

# The browser tests' fixtures (the real server, Chromium and its pages).
pytest_plugins = ["browser_support"]

# The tiers (./scripts/test --fast leaves out all three): a test is marked by what the fixtures
# it uses need, and a module starting programs of its own marks itself.
MARKS_OF_FIXTURES = {"browser": "browser", "live_server": "server", "kb_index": "slow",
                     "kb_question_cards_library": "slow"}
# The fast tier's property tests: a tenth of the examples each asks for in the default profile.
settings.register_profile("fast", max_examples=10)
CR_FILES = (CR / "MagicCompRules-2009-07-11.txt", CR / "MagicCompRules-2010-02-01.txt")


def pytest_collection_modifyitems(items):
    """Every test using Chromium is `browser`, the real server `server`, the whole knowledge
    base `slow` (its build alone takes minutes on two cores)."""
    for item in items:
        for fixture, mark in MARKS_OF_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(mark)


@pytest.fixture(scope="module")
def source(request):
    """The bundled document a parser test module names in its DOCUMENT."""
    return corpus_source(request.module.DOCUMENT)


@pytest.fixture(scope="module")
def text(source):
    return source.path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def parsed(source, text):
    return parser_for(source.family)(source, text)


@pytest.fixture(scope="module")
def rec(parsed):
    """The parsed records by id."""
    return {r.id: r for r in parsed.records}


@pytest.fixture(scope="session")
def kept(request, tmp_path_factory) -> Path:
    """Where what the tests make from corpus/ is kept between runs (`kept.py`): pytest's cache,
    or without it a temporary folder of this run."""
    cache = getattr(request.config, "cache", None)
    return cache.mkdir("kept") if cache is not None else tmp_path_factory.mktemp("kept")


# The rules read and aligned and corpus/ ingested are a module's each, read from where they are
# kept: held for the whole session, they would double the work of every full garbage
# collection after them (a switch of index makes one).
@pytest.fixture(scope="module")
def rules_read(kept) -> RulesResult:
    """Every rules file of corpus/rules/ read (seconds on two cores) for the modules that check
    the reading, the editions and the lineage."""
    return kept_value(kept, "rules-read", lambda: read_rules_files([CR]))


@pytest.fixture(scope="module")
def rules_records(rules_read) -> list[Record]:
    """Those files' records, read without an error."""
    assert rules_read.errors == []
    return rules_read.records


@pytest.fixture(scope="module")
def rules_lineage(kept, rules_read) -> list[Edge]:
    """The lineage of those records across editions: the longest step after reading them."""
    return kept_value(kept, "rules-lineage", lambda: align(rules_read.records))


@pytest.fixture(scope="module")
def ingested(kept) -> IngestResult:
    """corpus/ as shipped ingested: the documents, every rules edition and the glossary."""
    return kept_value(kept, "ingested", lambda: ingest([DEFAULT_CORPUS]))


@pytest.fixture(scope="session")
def small_index(kept) -> Path:
    """Index root of the three-document corpus."""
    return kept_index(kept, "small", SMALL_CORPUS)


@pytest.fixture(scope="session")
def tiny_index(kept) -> Path:
    """Index root of the Worldwake FAQ alone: for tests that damage an index and build it
    again (a second a build, where the three documents take four)."""
    return kept_index(kept, "tiny", ("worldwake-faq",))


@pytest.fixture(scope="session")
def cards_index(kept) -> Path:
    """Index root of the three-document corpus, two editions of the rules and the real cards
    of tests/fixtures/scryfall, as `build corpus CARD-FOLDER` makes it."""
    return kept_index(kept, "small-cards", SMALL_CORPUS, (*CR_FILES, SCRYFALL))


@pytest.fixture(scope="session")
def cards_library(cards_index):
    library = Library(current_folder(cards_index))
    yield library
    library.close()


@pytest.fixture(scope="session")
def question_cards_library(kept):
    """A library of the three-document corpus, two editions of the rules and the cards the real
    players' questions name (tests/fixtures/question_cards)."""
    root = kept_index(kept, "small-question-cards", SMALL_CORPUS, (*CR_FILES, QUESTION_CARDS))
    library = Library(current_folder(root))
    yield library
    library.close()


@pytest.fixture(scope="session")
def cr_index(kept) -> Path:
    """Index root of the three-document corpus and two editions of the rules."""
    return kept_index(kept, "small-cr", SMALL_CORPUS, CR_FILES)


@pytest.fixture(scope="session")
def offline_index(kept) -> Path:
    """Index root of the three-document corpus with its offline copy, as the command builds it."""
    return kept_index(kept, "small-offline", SMALL_CORPUS, extras={"offline": offline_copy.write})


@pytest.fixture(scope="session")
def offline_cr_index(kept) -> Path:
    """Index root of the three-document corpus and two editions of the rules, with its offline
    copy: the copy's ranking held to the server's in the fast tier (test_offline_node.py)."""
    return kept_index(kept, "small-cr-offline", SMALL_CORPUS, CR_FILES, extras={"offline": offline_copy.write})


@pytest.fixture(scope="session")
def corpus_index(kept) -> Path:
    """Index root of the bundled documents (without the rules editions)."""
    return kept_index(kept, "documents", DOCUMENTS)


@pytest.fixture(scope="session")
def kb_index(kept) -> Path:
    """Index root of the whole knowledge base: corpus/ as shipped, built as `./scripts/serve`
    builds it (with the offline copy)."""
    return kept_index(
        kept,
        "kb",
        paths=(DEFAULT_CORPUS,),
        extras={"offline": offline_copy.write, "book": book_parts.write},
    )


@pytest.fixture(scope="session")
def kb_question_cards_library(kept):
    """The whole knowledge base with the cards the real players' questions name, as
    `./scripts/serve tests/fixtures/question_cards` serves it (without its offline copy)."""
    root = kept_index(kept, "kb-question-cards", paths=(DEFAULT_CORPUS, QUESTION_CARDS))
    library = Library(current_folder(root))
    yield library
    library.close()


@pytest.fixture(scope="module")
def kb_app(kb_index):
    """The app over the whole knowledge base, one a module (its opened build is let go after)."""
    return create_app({"TESTING": True, "INDEX_ROOT": kb_index})


@pytest.fixture
def kb_client(kb_app):
    """A fresh client per test: no script cookie left over from another test."""
    return kb_app.test_client()


@pytest.fixture(scope="session")
def kb_library(kb_index) -> Library:
    library = Library(current_folder(kb_index))
    yield library
    library.close()


@pytest.fixture(scope="session")
def corpus_library(corpus_index) -> Library:
    library = Library(current_folder(corpus_index))
    yield library
    library.close()


@pytest.fixture(scope="session")
def app(small_index):
    return create_app({"TESTING": True, "INDEX_ROOT": small_index})


@pytest.fixture
def client(app):
    """A fresh client per test: no script cookie left over from another test."""
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture(scope="session")
def library(app):
    """The library the app serves (the small corpus)."""
    with app.app_context():
        return app.extensions["kb.library"].get()


@pytest.fixture(scope="session")
def cr_app(cr_index):
    return create_app({"TESTING": True, "INDEX_ROOT": cr_index})


@pytest.fixture
def cr_client(cr_app):
    return cr_app.test_client()


@pytest.fixture(scope="session")
def cr_library(cr_app):
    with cr_app.app_context():
        return cr_app.extensions["kb.library"].get()


@pytest.fixture
def no_index_app(tmp_path):
    """An app whose index root holds no index: every page needing the index is a 503."""
    return create_app({"TESTING": True, "INDEX_ROOT": tmp_path / "empty"})
