"""What every template sees: the reader's script, interface labels, and the filters that
tag languages and link rule numbers in text."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from flask import Flask, render_template, request
from jinja2 import pass_context
from markupsafe import Markup, escape

from indexer.documents.records import KINDS
from indexer.knowledge.display import in_script

from .labels import LABELS, SCRIPT_LABELS, interface_zh, label
from .linkify import LibraryResolver, link_plain_text
from .present import LANG_TAGS, SCRIPT_RANGES, keyword_spans, text_language
from .respond import library, reader_script, same_view_url
from .urls import record_url


def install(app: Flask) -> None:
    @app.context_processor
    def page_context():
        script = reader_script()

        def script_url(value: str) -> str:
            """This page in the other script, its query (the search box's text) converted too."""
            args = request.args.to_dict()
            if args.get("q"):
                args["q"] = in_script(args["q"], value)
            return same_view_url({**args, "script": value})

        return {"script": script, "label": lambda key: label(key, script), "script_url": script_url,
                # The character ranges search.js tells a text's language by, as `text_language` does.
                "script_ranges": SCRIPT_RANGES,
                "page_lang": LANG_TAGS["zh_hans" if script == "hans" else "zh_hant"],
                "js_labels": {key: [interface_zh(LABELS[key][0], script), LABELS[key][1]]
                              for key in (*KINDS, *SCRIPT_LABELS)}}

    app.add_template_global(remembered)

    @app.template_filter("text_lang")
    def text_lang(text: str | None) -> str:
        """The lang tag of a short mixed text (a title, a snippet) as shown to this reader."""
        return LANG_TAGS[text_language(text or "", reader_script())]

    @app.template_filter("zh")
    @pass_context  # a context filter: Jinja must not fold it into a constant when compiling
    def zh(context, text: str) -> str:
        """Traditional Chinese of the interface (a page title) in the reader's script."""
        return interface_zh(text, context["script"])

    @app.template_filter("in_script")
    @pass_context
    def in_reader_script(context, text: str) -> str:
        """A text as the reader's script writes it (the query in the search box after a switch)."""
        return in_script(text, context["script"])

    @app.template_filter("lang_tag")
    def lang_tag(lang: str | None) -> str:
        return LANG_TAGS.get(lang or "", "")

    @app.template_filter("title_spans")
    def title_spans(items: list[dict]) -> Markup:
        """A title in each language it is given in (`book.titles`), each a span with its
        lang: a filter, not a macro, as the contents and the glossary show thousands."""
        return Markup(" ".join(f'<span lang="{LANG_TAGS.get(t["lang"], "")}">{escape(t["text"])}</span>'
                               for t in items))

    app.add_template_filter(mana_symbols)

    @app.template_filter("linked")
    def linked(text: str, edition: str | None = None, terms: bool = False) -> Markup:
        """Plain text as HTML with its rule references linked (to `edition` where it has them)
        and, with `terms`, the game's keywords linked to their term pages."""
        resolver = LibraryResolver(library(), edition=edition)
        if not terms:
            return Markup(link_plain_text(text, resolver))
        out, pos = [], 0
        for start, stop, term in keyword_spans(library(), text):
            out += [link_plain_text(text[pos:start], resolver),
                    Markup('<a class="term" href="{}">{}</a>').format(record_url(term), text[start:stop])]
            pos = stop
        out.append(link_plain_text(text[pos:], resolver))
        return Markup("".join(out))


# A mana or other card symbol as card texts write it ({2}{U}, {T}, {W/P}, {藍/黑}), in HTML
# already escaped (so no markup character is inside).
SYMBOL = re.compile(r"\{([^{}\s<>&\"']{1,15})\}")


def mana_symbols(html: Markup) -> Markup:
    """Escaped card text with each symbol drawn as one (`.symbol`), the braces kept for
    copying and for screen readers."""
    return Markup(SYMBOL.sub(r'<span class="symbol">{\1}</span>', str(html)))


def compile_all(app: Flask) -> None:
    """Every template compiled now (Jinja compiles one when first rendered: 7 to 15 ms of a
    request's CPU): in gunicorn's master, before the workers fork and share them."""
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)


# What the parts a build renders (`webapp.book_parts`) are made with: when one of these differs
# from the build's, its parts are not used (each is rendered when first asked, as one the build
# has not) until the next build.
_HERE = Path(__file__).resolve().parent
_INDEXER = _HERE.parent / "indexer"
PART_SOURCES = (
    *(_HERE / "templates" / name for name in ("_rules_under.html", "_contents_chapters.html", "_glossary_lists.html",
                                              "_macros.html")),
    *(_HERE / name for name in ("book_parts.py", "templating.py", "labels.py", "present.py", "book.py", "linkify.py",
                                "urls.py")),
    *(_INDEXER / name for name in ("knowledge/display.py", "knowledge/book.py", "documents/chinese.py",
                                   "documents/references.py")),
)




def _fingerprint(paths: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


# The code's fingerprint, read when the code is (a build that ran while a file changed never
# names its parts by the changed file's).
PARTS_FINGERPRINT = _fingerprint(PART_SOURCES)


def part_key(template: str, args: tuple) -> str:
    """What a rendered part is kept under: its template and what it was made from."""
    return " ".join([template, *map(str, args)])


def remembered(template: str, make, *args) -> Markup:
    """`template` rendered with `data=make(library, *args)`: a book's contents, a whole section,
    a glossary are thousands of links and texts to render, the same for every reader of one
    script. The build renders them (`webapp.book_parts`), and a page reads its part from the
    build's files (`Library.parts`); one the build has not is rendered here, and it and its
    data are remembered for the build (`Library.page`). `args` must name all the part
    depends on (the script among them)."""
    lib = library()
    built = lib.parts.get(part_key(template, args), PARTS_FINGERPRINT)
    if built is not None:
        return Markup(built)
    return lib.page(_rendered, template, make, *args)


def _rendered(lib, template: str, make, *args) -> Markup:
    return Markup(render_template(template, data=lib.page(make, *args)))
