"""The book's parts rendered by the build: for every edition with a rules file, in both
scripts, its table of contents, its glossary's lists and the contents of every section and
rule with rules under it (each rule and subrule with its text and examples), as the pages
show them (`templating.remembered`).

Rendering section 702 with its 759 rules and subrules, their texts converted to the reader's
script and their rule references linked, cost its page's first request 110 ms of CPU, and
the glossary's first 45 ms under load: more than a request may take, and the book reads in
one scroll, so a section stays one page. The build renders each part once (`write`, a stage
of the build like the offline copy), and a page reads it from the build's files
(`indexer.knowledge.built_parts`). A part the build has not (a rule only a document quotes),
or made with code that changed since (`templating.PART_SOURCES`), is rendered when first
asked and remembered for the build.
"""
from __future__ import annotations

from pathlib import Path

from flask import Flask, render_template

from indexer.documents.records import rules_file_source
from indexer.knowledge.book import level
from indexer.knowledge.built_parts import write_parts
from indexer.knowledge.display import SCRIPTS
from indexer.knowledge.library import Library

from .book import contents_view, glossary_view
from .present import rules_under
from .respond import AnswerRequest, current_request
from .templating import PARTS_FINGERPRINT, install, part_key

SECTION = "_rules_under.html"
# The parts of an edition as a whole, each with what makes its data.
WHOLE_EDITION = (("_contents_chapters.html", contents_view), ("_glossary_lists.html", glossary_view))


def write(folder: Path, name: str) -> dict:
    """Renders the book's parts of every edition into the build in `folder` (build `name`)."""
    library = Library(folder)
    try:
        # The app's templates and filters, on this build's library (not the one CURRENT names).
        app = Flask("webapp")
        app.request_class = AnswerRequest
        install(app)
        parts: dict[str, str] = {}

        def add(template: str, data, *args) -> None:
            if data:
                parts[part_key(template, args)] = render_template(template, data=data)

        for script in SCRIPTS:  # (a part's labels are in the script of the request it is made in)
            with app.test_request_context("/", query_string={"script": script}):
                current_request().library = library
                for edition in library.book.editions:
                    for template, make in WHOLE_EDITION:
                        add(template, make(library, edition, script), edition, script)
                    numbers = dict.fromkeys(r.number or "" for r in library.catalogue.records_of_source(
                        rules_file_source(edition)) if r.kind == "rule")
                    for number in (n for n in numbers if n and level(n) < 2):
                        add(SECTION, rules_under(library, number, edition, script), number, edition, script)
        return {"index": name, **write_parts(folder, PARTS_FINGERPRINT, parts)}
    finally:
        library.close()
