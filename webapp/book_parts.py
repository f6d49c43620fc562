"""A section's or rule's contents (every rule and subrule under it, with its text and examples:
`_rules_under.html`), rendered by the build for every rules edition in both scripts.

Rendering section 702 with its 759 rules and subrules, their texts converted to the reader's
script and their rule references linked, cost its page's first request 110 ms of CPU (the
whole section is one page: the book reads in one scroll), more than a request may take. The
build renders each once (`write`, a stage of the build like the offline copy), and a page
reads its part from the build's files (`indexer.knowledge.built_parts`). A part the build has
not (a rule only a document quotes) or whose code changed since the build is rendered when
first asked and remembered for the build, as before.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from flask import Flask, render_template
from markupsafe import Markup

from indexer.documents.records import rules_file_source
from indexer.knowledge.book import level
from indexer.knowledge.built_parts import write_parts
from indexer.knowledge.display import SCRIPTS
from indexer.knowledge.library import Library

from .present import rules_under
from .respond import AnswerRequest, current_request
from .templating import install, remembered

TEMPLATE = "_rules_under.html"
_HERE = Path(__file__).resolve().parent
_INDEXER = _HERE.parent / "indexer"
# What a part is made with: when one of these differs from the build's, its parts are not
# used (rendered per request, as a part the build has not) until the next build.
SOURCES = (_HERE / "templates" / TEMPLATE, _HERE / "templates" / "_macros.html", _HERE / "book_parts.py",
           _HERE / "present.py", _HERE / "templating.py", _HERE / "linkify.py", _HERE / "book.py", _HERE / "urls.py",
           _INDEXER / "knowledge" / "display.py", _INDEXER / "knowledge" / "book.py",
           _INDEXER / "documents" / "chinese.py", _INDEXER / "documents" / "references.py")


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """The code's fingerprint: a digest of SOURCES (the process's code, the same for every build)."""
    digest = hashlib.sha256()
    for path in SOURCES:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _key(number: str, edition: str, script: str | None) -> str:
    return f"{edition} {number} {script}"


def rendered_contents(library: Library, number: str, edition: str, script: str | None) -> Markup:
    """The rendered contents of a section or rule of `edition`: the build's part, else
    rendered now (and remembered for the build)."""
    built = library.parts.get(_key(number, edition, script), fingerprint())
    if built is not None:
        return Markup(built)
    return remembered(TEMPLATE, rules_under, number, edition, script)


def write(folder: Path, name: str) -> dict:
    """Renders the contents of every section and rule with rules under it, of every edition
    with a rules file, in both scripts, into the build in `folder` (build `name`)."""
    library = Library(folder)
    try:
        # The app's templates and filters, on this build's library (not the one CURRENT names).
        app = Flask("webapp")
        app.request_class = AnswerRequest
        install(app)
        parts: dict[str, str] = {}
        with app.test_request_context("/"):
            current_request().library = library
            for edition in library.book.editions:
                for record in library.catalogue.records_of_source(rules_file_source(edition)):
                    number = record.number
                    if record.kind != "rule" or not number or level(number) == 2:
                        continue
                    for script in SCRIPTS:
                        key = _key(number, edition, script)
                        data = [] if key in parts else rules_under(library, number, edition, script)
                        if data:
                            parts[key] = render_template(TEMPLATE, data=data)
        return {"index": name, **write_parts(folder, fingerprint(), parts)}
    finally:
        library.close()
