"""The forum linker takes time linear in the post, whatever the post holds.

Each example repeats a piece of hostile markup (the pieces that made the old patterns take
cubic or quadratic time: runs of backticks, `[a=`, `<a>`, `<a b=`, links never closed, and
any mix hypothesis makes of them and of ordinary text) to a small and a sixteen times larger
body, and compares the two times. Linear work grows sixteen times, quadratic work 256 times;
the test allows 64, so a loaded machine does not make it flaky. Times are the process's CPU
time, the best of three runs, with the garbage collector off.
"""
from __future__ import annotations

import gc
import time

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from webapp import linkify as linkify_module
from webapp.linkify import FORMATS, MAX_OPEN, LibraryResolver, linkify

SMALL_BYTES = 4_000
GROWTH = 16
ALLOWED_RATIO = 4 * GROWTH

PIECES = [
    "`", "``", "```\n", "~~~", "[", "]", "[a=", "[url=", "[code]", "[/code]", "[b]", "[[", "]]", "[a](",
    "![a](", "](", ")", "[a][", "[a]:", "<", ">", "<a>", "<a b=", "<a href=", "</a>", "<code>", "<pre>",
    "<http:", "<!--", "<!", "<?", "<![", '"', "'", "=", "&", "&#", "&amp", "    ", "\n", "\n\n", "\t", " ",
    "www.", "http://", "702.30a", "規則", "rule ", "cr", "至", "-", "a", "留存",
]
piece = st.sampled_from(PIECES)


@pytest.fixture(autouse=True)
def no_reference_cap(monkeypatch):
    """The linker's own time, over every reference and piece of markup of the post: without
    the caps on the references and the markup one post is read for (MAX_REFERENCES and
    MAX_MARKUP, tests/test_linkify.py), which would stop the larger posts early."""
    monkeypatch.setattr(linkify_module, "MAX_REFERENCES", 10**9)
    monkeypatch.setattr(linkify_module, "MAX_MARKUP", 10**9)
unit = st.lists(piece, min_size=1, max_size=5).map("".join)


class _Resolver:
    """Every number and name is known, so every reference found costs a link."""

    def rule_url(self, number):
        return f"/rules/{number}"

    def name_target(self, name):
        return "card", name, f"/cards/{name}"


def cpu_time(text: str, fmt: str, resolver) -> float:
    best = float("inf")
    gc.disable()
    try:
        for _ in range(3):
            start = time.process_time()
            linkify(text, fmt, resolver)
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def growth_ratio(piece_text: str, fmt: str, resolver) -> float:
    small = piece_text * max(1, SMALL_BYTES // len(piece_text.encode()))
    # A floor of a millisecond: below it a timer tick is most of the figure.
    return cpu_time(small * GROWTH, fmt, resolver) / max(cpu_time(small, fmt, resolver), 1e-3)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(piece_text=unit)
@example(piece_text="`")
@example(piece_text="[a=")
@example(piece_text="<a>")
@example(piece_text="<a b=")
@example(piece_text="![a](")
@example(piece_text="<http:")
@example(piece_text="<a ='")
@example(piece_text="<a \">")
@example(piece_text="<a><pre>[a]:")
def test_linking_time_grows_linearly_with_the_post(fmt, piece_text):
    ratio = growth_ratio(piece_text, fmt, _Resolver())
    assert ratio < ALLOWED_RATIO, f"{fmt} {piece_text!r}: {GROWTH}x the text took {ratio:.0f}x the time"


def test_the_real_library_links_a_hostile_post_in_linear_time(library):
    """The same through the real index's resolver, on the mix of the reported attacks."""
    post = "`` [a= <a> <a b= 702.30a [[留存]] "
    for fmt in FORMATS:
        assert growth_ratio(post, fmt, LibraryResolver(library)) < ALLOWED_RATIO


def distinct_unknowns(size: int) -> str:
    """A post of `size` bytes whose every rule number and [[name]] differs from the others and
    names nothing: each is looked up and reported once."""
    parts, n, length = [], 0, 0
    while length < size:
        n += 1
        part = f"see {800 + n // 900}.{n % 900 + 1}z and [[no card {n}]]. "
        parts.append(part)
        length += len(part)
    return "".join(parts)


@pytest.mark.parametrize("fmt", FORMATS)
def test_distinct_unknown_numbers_and_names_cost_time_linear_in_the_post(library, fmt):
    """Thousands of numbers and names nothing has, each reported once (the reported ones were
    a list searched for each new one: 12/25/50/100 KB took 0.11/0.41/1.5/6.8 s). The post
    grows 32 times, to 128 KB: the list took some 120 times as long, linear work takes 32."""
    growth = 2 * GROWTH
    small, large = distinct_unknowns(SMALL_BYTES), distinct_unknowns(SMALL_BYTES * growth)
    resolver = LibraryResolver(library)
    out = linkify(large, fmt, resolver)
    assert len(out.unknown) == len(set(out.unknown)) == large.count("see ")
    assert len(out.unknown_names) == len(set(out.unknown_names)) == large.count("[[")
    ratio = cpu_time(large, fmt, resolver) / max(cpu_time(small, fmt, resolver), 1e-3)
    assert ratio < 2.5 * growth, f"{growth}x the post took {ratio:.0f}x the time"


def test_elements_nested_deeper_than_the_limit_are_shown_as_text():
    """Past MAX_OPEN open elements a tag is text (nh3 then has no deep nesting to look
    through), and every element opened is closed."""
    out = linkify("<pre>" * (MAX_OPEN + 5) + "x" + "</pre>" * (MAX_OPEN + 5), "html", _Resolver()).text
    assert out.count("<pre>") == out.count("</pre>") == MAX_OPEN
    assert out.count("&lt;pre&gt;") == out.count("&lt;/pre&gt;") == 5


@pytest.mark.parametrize("text", ["hi <![ 702.30a", "<!", "<?", "<!--", "</", "<a \"", "<a href='x", "&#x110000;",
                                  "<textarea>702.30a", "<b/><br/><a href=x/>702.30a</a>"])
def test_markup_never_closed_is_shown_as_text(text):
    """Nothing of the input is markup in the output except the elements it may keep."""
    out = linkify(text, "html", _Resolver())
    assert out.text.count("<") == sum(out.text.count(tag) for tag in ("<a>", "<a href=", "</a>", "<b>", "</b>", "<br>"))
