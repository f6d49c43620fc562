"""Rule references and [[card names]] in forum text, turned into links.

Forum posts come as HTML, Markdown or BBCode. In each, a rule reference (702.30a, 規則901.9,
rule 702.30, CR 702.82b, 601.2f至h: the grammar of `indexer.references`) becomes a link to its
rule page, and `[[name]]` (a card, plane or term in any language or script) a link to its
page. Text that already means something else is left alone: URLs, code (fenced, inline,
indented; [code]; <code>/<pre>) and existing links. A number that no edition has stays text
and is reported, as does a name nothing is called.

HTML input is never trusted: it is re-serialised from a parse, keeping only a short list of
harmless elements (links keep only an http(s), mailto or relative href) and escaping every
other tag as text, so the output cannot carry a script or an event attribute.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Callable, Protocol
from urllib.parse import quote, urlsplit

from indexer.library import Library, record_url
from indexer.references import find_references

FORMATS = ("html", "markdown", "bbcode")
# Kinds a [[name]] may link to, the first that has the name winning.
NAME_KINDS = ("card", "planar_card", "term")

_NAME = r"(?P<name>\[\[(?P<card>[^\[\]\n]{1,100})\]\])"
# Generous on purpose: anything URL-like is protected (the embed script uses it too). It
# stops at spaces, quotes, brackets and Chinese text (a URL is often followed directly by a
# Chinese sentence).
URL_PATTERN = r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\"'\[\]\u3000-\u9fff\uff00-\uffef]+"
_URL = f"(?P<url>{URL_PATTERN})"
_MARKDOWN_PROTECTED = "|".join([
    r"(?ms:^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}(?P=fence)[ \t]*$|\Z))",  # fenced code
    r"(?m:(?:\A|(?<=\n\n))(?:(?: {4}|\t)[^\n]*(?:\n|\Z))+)",                                # indented code
    r"(?P<tick>`+)(?s:.+?)(?<!`)(?P=tick)(?!`)",                                              # inline code
    r"!?\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\([^)\n]*\)",                                         # [text](url)
    r"!?\[[^\[\]\n]*\]\[[^\[\]\n]*\]",                                                         # [text][ref]
    r"(?m:^[ ]{0,3}\[[^\[\]\n]+\]:[^\n]*$)",                                                   # [ref]: url
    r"<(?:https?|ftp|mailto):[^>\s]*>",                                                        # <http://...>
    r"(?is:<(?P<htmltag>a|code|pre)\b[^>]*>.*?</(?P=htmltag)\s*>)",                            # raw <a>, <code>
    r"<[A-Za-z/!][^>\n]*>",                                                                    # other raw tags
])
_BBCODE_PROTECTED = "|".join([
    r"(?is:\[(?P<block>code|url|img|email|noparse|pre)(?:=[^\]\n]*)?\].*?(?:\[/(?P=block)\]|\Z))",
    r"\[/?[A-Za-z*][A-Za-z0-9*]*(?:=[^\]\n]*)?\]",                                             # other tags
])
PLAIN = re.compile(f"{_NAME}|{_URL}")
PATTERNS = {
    "markdown": re.compile(f"(?P<protected>{_MARKDOWN_PROTECTED})|{_NAME}|{_URL}"),
    "bbcode": re.compile(f"(?P<protected>{_BBCODE_PROTECTED})|{_NAME}|{_URL}"),
}

# HTML input: elements kept as markup; all others are escaped and shown as text.
ALLOWED = {"a", "abbr", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5",
           "h6", "hr", "i", "ins", "kbd", "li", "ol", "p", "pre", "q", "s", "samp", "small", "span",
           "strong", "sub", "sup", "u", "ul"}
VOID = {"br", "hr"}
NO_LINKS_INSIDE = {"a", "code", "pre", "kbd", "samp"}
# Escaped elements whose text is code or a form value, never prose: not linked either.
RAW_TEXT = {"script", "style", "textarea", "title", "xmp", "noscript"}
SAFE_SCHEMES = {"", "http", "https", "mailto"}


class Resolver(Protocol):
    def rule_url(self, number: str) -> str | None:
        """The rule page of `number`, or None when no edition has it."""

    def name_target(self, name: str) -> tuple[str, str, str] | None:
        """(kind, record id, url) of what `name` names, or None."""


@dataclass
class Linked:
    text: str
    links: list[dict] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"text": self.text, "links": self.links, "unknown": self.unknown, "unknown_names": self.unknown_names}


class _Linker:
    """Links one text, collecting what it linked and what it could not."""

    def __init__(self, resolver: Resolver, render: Callable[[str, str], str], escape: Callable[[str], str]):
        self.resolver, self.render, self.escape = resolver, render, escape
        self.result = Linked("")

    def text(self, text: str, pattern: re.Pattern = PLAIN) -> str:
        out, pos = [], 0
        for m in pattern.finditer(text):
            out.append(self.references(text[pos:m.start()]))
            if m.group("card") is not None:
                out.append(self.name(m.group("card").strip(), m.group()))
            else:
                out.append(self.escape(m.group()))
            pos = m.end()
        out.append(self.references(text[pos:]))
        return "".join(out)

    def references(self, text: str) -> str:
        out, pos = [], 0
        for ref in find_references(text):
            url = self.resolver.rule_url(ref.number)
            if url is None:
                if ref.number not in self.result.unknown:
                    self.result.unknown.append(ref.number)
                continue
            label = text[ref.start:ref.stop]
            out += [self.escape(text[pos:ref.start]), self.render(label, url)]
            self.result.links.append({"text": label, "kind": "rule", "target": ref.number, "url": url})
            pos = ref.stop
        out.append(self.escape(text[pos:]))
        return "".join(out)

    def name(self, name: str, written: str) -> str:
        target = self.resolver.name_target(name)
        if target is None:
            if name not in self.result.unknown_names:
                self.result.unknown_names.append(name)
            return self.escape(written)
        kind, record_id, url = target
        self.result.links.append({"text": name, "kind": kind, "target": record_id, "url": url})
        return self.render(name, url)


def _html_link(label: str, url: str) -> str:
    return f'<a href="{html.escape(url)}">{html.escape(label)}</a>'


_MARKDOWN_SPECIAL = re.compile(r"([\\\[\]])")


def _markdown_link(label: str, url: str) -> str:
    return "[" + _MARKDOWN_SPECIAL.sub(r"\\\1", label) + f"]({url})"


def _bbcode_link(label: str, url: str) -> str:
    return f"[url={url}]{label}[/url]"


def _same(text: str) -> str:
    return text


def linkify(text: str, fmt: str, resolver: Resolver) -> Linked:
    """`text` in format `fmt` with every known rule reference and [[name]] linked."""
    if fmt == "html":
        linker = _Linker(resolver, _html_link, html.escape)
        sanitizer = _Sanitizer(linker)
        sanitizer.feed(text)
        sanitizer.close()
        linker.result.text = "".join(sanitizer.out)
    elif fmt in PATTERNS:
        linker = _Linker(resolver, _markdown_link if fmt == "markdown" else _bbcode_link, _same)
        linker.result.text = linker.text(text, PATTERNS[fmt])
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return linker.result


def link_plain_text(text: str, resolver: Resolver) -> str:
    """Plain text (a record's text) as escaped HTML with its rule references linked."""
    return _Linker(resolver, _html_link, html.escape).text(text)


def safe_href(href: str) -> str | None:
    """`href` without the spaces and control characters browsers ignore, if its scheme is
    harmless; None for javascript:, data: and the like."""
    cleaned = "".join(ch for ch in href if ch.isprintable() and not ch.isspace())
    try:
        scheme = urlsplit(cleaned).scheme.lower()
    except ValueError:
        return None
    return cleaned if scheme in SAFE_SCHEMES else None


class _Sanitizer(HTMLParser):
    """Re-serialises HTML: allowed elements as clean markup, everything else as text."""

    def __init__(self, linker: _Linker):
        super().__init__(convert_charrefs=True)
        self.linker = linker
        self.out: list[str] = []
        self.open: list[str] = []
        self.raw_text = 0

    def _start(self, tag: str, attrs: list[tuple[str, str | None]]) -> str:
        href = dict(attrs).get("href") if tag == "a" else None
        href = safe_href(href) if href else None
        return f'<{tag} href="{html.escape(href)}">' if href is not None else f"<{tag}>"

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED:
            self.out.append(html.escape(self.get_starttag_text() or f"<{tag}>"))
            if tag in RAW_TEXT:
                self.raw_text += 1
            return
        self.out.append(self._start(tag, attrs))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag in VOID:
            self.out.append(f"<{tag}>")
        elif tag in ALLOWED:
            self.out.append(self._start(tag, attrs) + f"</{tag}>")
        else:
            self.out.append(html.escape(self.get_starttag_text() or f"<{tag}/>"))

    def handle_endtag(self, tag):
        if tag in ALLOWED and tag in self.open:
            while self.open:
                closed = self.open.pop()
                self.out.append(f"</{closed}>")
                if closed == tag:
                    break
        elif tag not in VOID:
            self.out.append(html.escape(f"</{tag}>"))
            if tag in RAW_TEXT and self.raw_text:
                self.raw_text -= 1

    def handle_data(self, data):
        if self.raw_text or NO_LINKS_INSIDE.intersection(self.open):
            self.out.append(html.escape(data))
        else:
            self.out.append(self.linker.text(data))

    def handle_comment(self, data):
        self.out.append(html.escape(f"<!--{data}-->"))

    def handle_decl(self, decl):
        self.out.append(html.escape(f"<!{decl}>"))

    def handle_pi(self, data):
        self.out.append(html.escape(f"<?{data}>"))

    def unknown_decl(self, data):
        self.out.append(html.escape(f"<![{data}]>"))

    def close(self):
        super().close()
        while self.open:
            self.out.append(f"</{self.open.pop()}>")


# --- resolving against the library ----------------------------------------------------

def absolute(base: str, path: str) -> str:
    return base + quote(path, safe="/?=&#:~")


class LibraryResolver:
    """Resolves against one library. `base` makes URLs absolute (the forum linker).

    A rule number means the rule of one edition: text from a document of `edition` links
    only to that edition's rule (702.79 is devour in 2009 and persist in 2026); text of no
    edition (a forum post, a glossary entry) links to the newest edition that has it."""

    def __init__(self, library: Library, base: str = "", edition: str | None = None):
        self.library, self.base, self.edition = library, base.rstrip("/"), edition

    def rule_url(self, number: str) -> str | None:
        editions = self.library.editions_of(number)
        if self.edition is None:
            return absolute(self.base, f"/rules/{number}") if editions else None
        if self.edition in editions:
            return absolute(self.base, f"/rules/{number}?edition={self.edition}")
        return None

    def name_target(self, name: str) -> tuple[str, str, str] | None:
        record = self.library.by_name(name, NAME_KINDS)
        if record is None:
            return None
        return record.kind, record.id, absolute(self.base, record_url(record))
