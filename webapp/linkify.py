"""Rule references and [[card names]] in forum text, turned into links.

Forum posts come as HTML, Markdown or BBCode. In each, a rule reference (702.30a, 規則901.9,
rule 702.30, CR 702.82b, 601.2f至h: the grammar of `indexer.documents.references`) becomes a link to its
rule page, and `[[name]]` (a card, plane or term in any language or script) a link to its
page. Text that already means something else is left alone: URLs, code (fenced, inline,
indented; [code]; <code>/<pre>) and existing links. A number that no edition has stays text
and is reported, as does a name nothing is called.

HTML input is never trusted: it is re-serialised from a parse, keeping only a short list of
harmless elements (links keep only an http(s), mailto or relative href) and escaping every
other tag as text, so that a writer sees what they wrote. What comes out is then sanitised
by nh3 (the Ammonia sanitiser, html5ever's parser) with the same list of elements, attribute
and schemes, so the guarantee that the output carries no script or event attribute rests on
a maintained sanitiser rather than on this module's reading of HTML.
"""
from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol
from urllib.parse import quote, urlsplit

import nh3

from indexer.documents.references import find_written_references
from indexer.knowledge.library import Library

from .urls import record_url

FORMATS = ("html", "markdown", "bbcode")
# Kinds a [[name]] may link to, the first that has the name winning.
NAME_KINDS = ("card", "planar_card", "term")

# A [[name]] (the embed script reads the same: `NAME_PATTERN`).
NAME_PATTERN = r"\[\[(?P<card>[^\[\]\n]{1,100})\]\]"
_NAME = f"(?P<name>{NAME_PATTERN})"
# Generous on purpose: anything URL-like is protected (the embed script uses it too). It
# stops at spaces, quotes, brackets and Chinese text (a URL is often followed directly by a
# Chinese sentence).
URL_PATTERN = r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\"'\[\]\u3000-\u9fff\uff00-\uffef]+"
_URL = f"(?P<url>{URL_PATTERN})"
# Every pattern here runs over whatever a forum post holds, so each must take time linear in
# the text: repeats are possessive (`*+`, `++`) where a later part could otherwise take back
# what they matched, and a construct that can fail (a link never closed) stops at the next
# character that would start another one (`[`, `<`), so failed attempts never rescan the
# same text. Inline code (backtick runs) is paired outside the pattern: see `_BacktickRuns`.
_MARKDOWN_PROTECTED = "|".join([
    r"(?ms:^[ \t]{0,3}(?P<fence>`{3,}+|~{3,}+)[^\n]*+\n.*?(?:^[ \t]{0,3}(?P=fence)[ \t]*+$|\Z))",  # fenced code
    r"(?m:(?:\A|(?<=\n\n))(?:(?: {4}|\t)[^\n]*+(?:\n|\Z))+)",                                # indented code
    r"!?\[(?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+\]\([^)\[\]\n]*+\)",                              # [text](url)
    r"!?\[[^\[\]\n]*+\]\[[^\[\]\n]*+\]",                                                       # [text][ref]
    r"(?m:^[ ]{0,3}\[[^\[\]\n]++\]:[^\n]*+$)",                                                  # [ref]: url
    r"<(?:https?|ftp|mailto):[^<>\s]*+>",                                                       # <http://...>
    r"(?is:<(?P<htmltag>a|code|pre)\b[^<>]*+>(?:[^<]++|<(?!/?(?P=htmltag)\b))*+</(?P=htmltag)\s*+>)",  # raw <a>, <code>
    r"<[A-Za-z/!][^<>\n]*+>",                                                                   # other raw tags
])
_BBCODE_PROTECTED = "|".join([
    r"(?is:\[(?P<block>code|url|img|email|noparse|pre)(?:=[^\[\]\n]*+)?\].*?(?:\[/(?P=block)\]|\Z))",
    r"\[/?[A-Za-z*][A-Za-z0-9*]*+(?:=[^\[\]\n]*+)?\]",                                           # other tags
])


def _starting(first: str, pattern: str) -> re.Pattern:
    """`pattern`, which can only start at a character of the class `first`, checked first:
    the regular expression engine otherwise tries every alternative at every character, and
    a 100 KB post of none took a scan of 14 ms (3 ms so)."""
    return re.compile(f"(?=[{first}])(?:{pattern})")


# Where a name ([[), an address (http, ftp, www) or each format's markup can start: fences
# and indented code with a space, tab, ` or ~, Markdown links with ! or [, raw HTML with <.
PLAIN = _starting(r"\[hfw", f"{_NAME}|{_URL}")
PATTERNS = {
    "markdown": _starting(r"\[hfw`~ \t!<",
                          f"(?P<protected>{_MARKDOWN_PROTECTED})|(?P<ticks>(?<!`)`++)|{_NAME}|{_URL}"),
    "bbcode": _starting(r"\[hfw", f"(?P<protected>{_BBCODE_PROTECTED})|{_NAME}|{_URL}"),
}
_BACKTICKS = re.compile(r"`++")


class _BacktickRuns:
    """Where each run of backticks in a text closes its inline code span: at the next run of
    the same length (CommonMark's rule), found by bisection in the runs of each length, so
    a text of many unmatched runs costs one pass instead of one pass per run."""

    def __init__(self, text: str):
        self._starts: dict[int, list[int]] = {}
        for m in _BACKTICKS.finditer(text):
            self._starts.setdefault(m.end() - m.start(), []).append(m.start())

    def closing_end(self, start: int, length: int) -> int | None:
        """The end of the run closing the span the run at `start` opens, or None."""
        starts = self._starts.get(length, [])
        i = bisect_right(starts, start)
        return starts[i] + length if i < len(starts) else None


# HTML input: elements kept as markup; all others are escaped and shown as text.
ALLOWED = {"a", "abbr", "b", "blockquote", "br", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5",
           "h6", "hr", "i", "ins", "kbd", "li", "ol", "p", "pre", "q", "s", "samp", "small", "span",
           "strong", "sub", "sup", "u", "ul"}
VOID = {"br", "hr"}
NO_LINKS_INSIDE = {"a", "code", "pre", "kbd", "samp"}
# Escaped elements whose text is code or a form value, never prose: not linked either.
RAW_TEXT = {"script", "style", "textarea", "title", "xmp", "noscript"}
# Elements open at once, at most: a deeper one is shown as text. The HTML sanitiser (nh3's
# html5ever) looks through the open elements for each new one, so a post of n nested <pre>
# took it time in n squared; no post needs more than a few levels.
MAX_OPEN = 32
SAFE_SCHEMES = {"", "http", "https", "mailto"}


class Resolver(Protocol):
    def rule_url(self, number: str) -> str | None:
        """The rule page of `number`, or None when no edition has it."""

    def name_target(self, name: str) -> tuple[str, str, str] | None:
        """(kind, record id, url) of what `name` names, or None."""


# References and [[names]] looked at in one post, at most: each costs a look-up and a link,
# and the body limit alone let a post of distinct numbers take several times a request's
# CPU budget. A post with more is linked up to here, the rest left as written (`truncated`).
MAX_REFERENCES = 1000
# Pieces of markup read in one post, at most (HTML tags, comments; Markdown's and BBCode's code,
# links and tags): each is a step of Python however short, and a 100 KB post of `<b>a` is
# 25,000 of them. A post with more is read up to here, the rest left as written.
MAX_MARKUP = 2000
# What a text needs to hold for anything in it to be linked: a digit (a rule number), `[[` (a
# name) or an address (protected).
_MAY_LINK = re.compile(r"\d|\[\[|://|www\.", re.IGNORECASE)


@dataclass
class Linked:
    text: str
    links: list[dict] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)
    truncated: bool = False

    def to_dict(self) -> dict:
        return {"text": self.text, "links": self.links, "unknown": self.unknown, "unknown_names": self.unknown_names,
                "truncated": self.truncated}


class _Linker:
    """Links one text, collecting what it linked and what it could not."""

    def __init__(self, resolver: Resolver, render: Callable[[str, str], str], escape: Callable[[str], str]):
        self.resolver, self.render, self.escape = resolver, render, escape
        self.result = Linked("")
        # Each distinct number and name is resolved once, in a dict: a post repeating one
        # costs a look-up, and one that nothing has is reported when it is first met, with
        # no search of the list of those reported (a post may hold thousands: a list's
        # membership test made the linker quadratic in them).
        self._rules: dict[str, str | None] = {}
        self._names: dict[str, tuple[str, str, str] | None] = {}
        self._left = MAX_REFERENCES
        self._markup_left = MAX_MARKUP

    def spent(self, text: str, start: int = 0) -> bool:
        """Whether the post's references, or its markup, are all looked at: then `text` from
        `start` stays as written (and the result says so if that holds anything)."""
        if self._left > 0 and self._markup_left >= 0:
            return False
        self.result.truncated = self.result.truncated or (start < len(text) and not text[start:].isspace())
        return True

    def rule_url(self, number: str) -> str | None:
        if number not in self._rules:
            url = self._rules[number] = self.resolver.rule_url(number)
            if url is None:
                self.result.unknown.append(number)
        return self._rules[number]

    def name_target(self, name: str) -> tuple[str, str, str] | None:
        if name not in self._names:
            target = self._names[name] = self.resolver.name_target(name)
            if target is None:
                self.result.unknown_names.append(name)
        return self._names[name]

    def markup(self, text: str, start: int) -> bool:
        """Whether a piece of markup at `start` in `text` is read: not past MAX_MARKUP of them,
        when `text` from `start` stays as written."""
        self._markup_left -= 1
        if self._markup_left >= 0:
            return True
        self.spent(text, start)  # says the post was cut, if what is left holds anything
        return False

    def text(self, text: str, pattern: re.Pattern = PLAIN) -> str:
        if pattern is PLAIN and _MAY_LINK.search(text) is None:
            return self.escape(text)
        out, pos, scan = [], 0, 0
        runs = _BacktickRuns(text) if "ticks" in pattern.groupindex and "`" in text else None
        while not self.spent(text, pos) and (m := pattern.search(text, scan)) is not None:
            start, end = m.span()
            if m.group("card") is None and m.group("url") is None and not self.markup(text, pos):
                break
            if runs is not None and m.group("ticks") is not None:
                closing = runs.closing_end(start, end - start)
                if closing is None:  # no run of its length follows: the backticks are text
                    scan = m.end()
                    continue
                end = closing
            out.append(self.references(text[pos:start]))
            if m.group("card") is not None:
                out.append(self.name(m.group("card").strip(), m.group()))
            else:
                out.append(self.escape(text[start:end]))
            pos = scan = end
        out.append(self.references(text[pos:]))
        return "".join(out)

    def references(self, text: str) -> str:
        out, pos = [], 0
        if self.spent(text):
            return self.escape(text)
        for ref in find_written_references(text):
            if self.spent(text, pos):
                break
            self._left -= 1
            url = self.rule_url(ref.number)
            if url is None:
                continue
            label = text[ref.start:ref.stop]
            out += [self.escape(text[pos:ref.start]), self.render(label, url)]
            self.result.links.append({"text": label, "kind": "rule", "target": ref.number, "url": url})
            pos = ref.stop
        out.append(self.escape(text[pos:]))
        return "".join(out)

    def name(self, name: str, written: str) -> str:
        if self.spent(written):
            return self.escape(written)
        self._left -= 1
        target = self.name_target(name)
        if target is None:
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
        linker.result.text = nh3.clean("".join(sanitizer.out), tags=ALLOWED, attributes={"a": {"href"}},
                                       url_schemes=SAFE_SCHEMES - {""}, link_rel=None) + sanitizer.tail
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


# HTML is read by one left-to-right pass (as a browser's tokenizer does, never backing up):
# a tag runs to the first `>` outside quotes; a tag, comment or declaration never closed runs
# to the end of the text, as it does in a browser, so a failed match never leads to another
# scan of the same text. (html.parser's tolerant patterns rescan: quadratic in `<a b=` × n.)
_MARKUP = re.compile(r"<(?:[A-Za-z!?]|/[A-Za-z])")
_TAG = re.compile(r"""<(?P<end>/?)(?P<name>[A-Za-z][^\s/>]*+)(?P<attrs>(?:[^>"']++|"[^"]*+"|'[^']*+')*+)>""")
_ATTRIBUTE = re.compile(r"""(?P<name>[^\s/>"'=][^\s/>=]*+)(?:\s*+=\s*+(?P<value>"[^"]*+"|'[^']*+'|[^\s>]++))?""")
_MARKUP_END = {"<!--": "-->", "<!": ">", "<?": ">"}


def _attributes(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for m in _ATTRIBUTE.finditer(text):
        value = m.group("value") or ""
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        found.setdefault(m.group("name").lower(), html.unescape(value))
    return found


class _Sanitizer:
    """Re-serialises HTML in one pass: allowed elements as markup, everything else as text,
    and the text linked (nh3 then sanitises what it wrote)."""

    def __init__(self, linker: _Linker):
        self.linker = linker
        self.out: list[str] = []
        self.open: list[str] = []
        # How many of each element are open, so "inside a link or code?" costs the same at
        # any depth of nesting.
        self.depth: dict[str, int] = {}
        # The text after the markup read (`MAX_MARKUP`), escaped whole: it goes out after what
        # the sanitiser cleaned, as it holds no markup to clean.
        self.tail = ""

    def feed(self, text: str) -> None:
        pos = 0
        while (m := _MARKUP.search(text, pos)) is not None:
            start = m.start()
            self.data(text[pos:start])
            if not self.linker.markup(text, start):
                self.tail = html.escape(text[start:], quote=False)
                return
            tag = _TAG.match(text, start)
            if tag is not None:
                pos = self.tag(text, tag)
                continue
            # A tag, comment or declaration never closed takes the rest of the text.
            opener = "<!--" if text.startswith("<!--", start) else text[start:start + 2]
            closer = _MARKUP_END.get(opener)
            close = -1 if closer is None else text.find(closer, start + len(opener))
            pos = len(text) if closer is None or close < 0 else close + len(closer)
            self.out.append(html.escape(text[start:pos]))
        self.data(text[pos:])

    def tag(self, text: str, m: re.Match) -> int:
        """Writes the tag `m` matched (and a raw-text element's content); returns where to go on."""
        name, written = m.group("name").lower(), m.group()
        if m.group("end"):
            self.end(name, written)
            return m.end()
        attrs = m.group("attrs")
        if name not in ALLOWED or (name not in VOID and len(self.open) >= MAX_OPEN):
            self.out.append(html.escape(written))
            if name not in RAW_TEXT:
                return m.end()
            # Its content is code or a form value up to its end tag: shown, never linked.
            end = _raw_text_end(name).search(text, m.end())
            stop = len(text) if end is None else end.start()
            self.out.append(html.escape(html.unescape(text[m.end():stop])))
            return stop
        self.out.append(self.start(name, _attributes(attrs)))
        if name in VOID:
            return m.end()
        if attrs.rstrip().endswith("/"):
            self.out.append(f"</{name}>")
        else:
            self.open.append(name)
            self.depth[name] = self.depth.get(name, 0) + 1
        return m.end()

    @staticmethod
    def start(tag: str, attrs: dict[str, str]) -> str:
        href = attrs.get("href") if tag == "a" else None
        href = safe_href(href) if href else None
        return f'<{tag} href="{html.escape(href)}">' if href is not None else f"<{tag}>"

    def end(self, tag: str, written: str) -> None:
        if tag in ALLOWED and self.depth.get(tag):
            while self.open:
                closed = self.open.pop()
                self.depth[closed] -= 1
                self.out.append(f"</{closed}>")
                if closed == tag:
                    break
        elif tag not in VOID:
            self.out.append(html.escape(written))

    def data(self, data: str) -> None:
        if not data:
            return
        if "&" in data:
            data = html.unescape(data)
        if any(self.depth.get(tag) for tag in NO_LINKS_INSIDE):
            self.out.append(html.escape(data))
        else:
            self.out.append(self.linker.text(data))

    def close(self) -> None:
        while self.open:
            self.out.append(f"</{self.open.pop()}>")


@lru_cache(maxsize=len(RAW_TEXT))
def _raw_text_end(tag: str) -> re.Pattern:
    return re.compile(rf"</{tag}(?=[\s/>]|\Z)", re.IGNORECASE)


# --- resolving against the library ----------------------------------------------------

def absolute(base: str, path: str) -> str:
    return base + quote(path, safe="/?=&#:~")


class LibraryResolver:
    """Resolves against one library. `base` makes URLs absolute (the forum linker).

    A rule number means the rule of one edition: text from a document of `edition` links to
    that edition's rule (702.79 is devour in 2009 and persist in 2026), or, when the index
    lacks that edition's rule, to the closest edition that has it (the latest before, else
    the earliest after); text of no edition (a forum post, a glossary entry) links to the
    newest edition that has it."""

    def __init__(self, library: Library, base: str = "", edition: str | None = None):
        self.library, self.base = library, base.rstrip("/")
        self.edition = library.catalogue.edition_named(edition)

    def rule_url(self, number: str) -> str | None:
        editions = self.library.editions_of(number)
        if self.edition is None:
            return absolute(self.base, f"/rules/{number}") if editions else None
        if not editions:
            return None
        if self.edition in editions:
            return absolute(self.base, f"/rules/{number}?edition={self.edition}")
        earlier = [e for e in editions if e < self.edition]  # newest first
        return absolute(self.base, f"/rules/{number}?edition={earlier[0] if earlier else editions[-1]}")

    def name_target(self, name: str) -> tuple[str, str, str] | None:
        record = self.library.by_name(name, NAME_KINDS)
        if record is None:
            return None
        return record.kind, record.id, absolute(self.base, record_url(record))
