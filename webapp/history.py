"""A rule's history as a judge reads it: editions whose text is the same fold into one entry
("same text 2016-09-30 → 2026-04-17"), typography is not a change, and a change marks only
the words that changed.

What the history holds (which rule of each edition is this rule) is worked out elsewhere
(`indexer.knowledge.editions`, or whatever gives `Library.rule`'s `history`); this module only
shows it: it takes versions in edition order, each with `edition`, `number` and `text`
(per language). A rule's subrules are looked up in the same lineage (`subrule_lineages`), so
that the rule's page shows what changed under it (a keyword's heading, 702.79 Persist, keeps
one text while its 702.79a is reworded).

Typography: the rules files of different years write the same sentence with straight or curly
quotes, 「」 or “”, hyphens or dashes, full-width or ASCII punctuation, one space or two; a
translation's editions do the same. None of that changes what a rule says, so texts are
compared in a folded form (`typographic_key`) and a diff shows the newer text's characters
wherever the folded forms agree.
"""
from __future__ import annotations

import bisect
import difflib
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from typing import Protocol

from indexer.documents.records import LANGS
from indexer.documents.script_ranges import HAN
from indexer.knowledge.catalogue import Catalogue
from indexer.knowledge.display import display, shown_lang
from indexer.knowledge.editions import tokens

# Quote marks, dashes and spaces of every style, each as one plain form. (Full-width forms
# and compatibility characters are folded by NFKC first.)
_TYPOGRAPHY = str.maketrans({
    **dict.fromkeys("‘’‚‛′`´", "'"),
    **dict.fromkeys("“”„‟″「」『』〝〞", '"'),
    **dict.fromkeys("‐‑‒–—―−─ー", "-"),
    **dict.fromkeys("\u00a0\u2002\u2003\u2009\u200a\u202f\u3000\t\n\r", " "),
    "、": ",", "。": ".", "・": "·",
})
_SPACES = re.compile(r" +")
# The most work (tokens of one text times the other's) one diff of a list of changes may take,
# and one comparison of a rule's history matches in one go (difflib's matcher takes time in
# that product: the list of creature types, 205.3m, took its rule page 130 ms of CPU).
DIFF_WORK = 60_000
# The subrules' steps a rule's page compares word by word, newest first (each costs about a
# millisecond); older ones link to their list of changes.
COMPARED_STEPS = 8
# Space between a Chinese character and anything else carries no meaning in Chinese text.
_CJK_SPACE = re.compile(rf"(?<=[{HAN}]) | (?=[{HAN}])")


class Version(Protocol):
    @property
    def edition(self) -> str: ...

    @property
    def number(self) -> str: ...

    @property
    def text(self) -> dict[str, str]: ...


def typographic_key(text: str) -> str:
    """A text with its typography folded: what two editions are compared by."""
    folded = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    folded = folded.replace("--", "-").replace("...", "…")
    return _CJK_SPACE.sub("", _SPACES.sub(" ", folded)).strip()


def same_text(a: dict[str, str], b: dict[str, str]) -> bool:
    """Whether two versions say the same in every language both give: a translation that
    one edition adds (2026-04-17's Chinese) is not a change of the rule's text."""
    shared = [lang for lang in a if a[lang] and b.get(lang)]
    return bool(shared) and all(typographic_key(a[lang]) == typographic_key(b[lang]) for lang in shared)


def _token_key(token: str) -> str:
    if token.isascii() and token.isalnum():  # a word has no typography (most tokens: no need to fold)
        return token
    return " " if token.isspace() else typographic_key(token)


def bounded_changes(old: str, new: str) -> list[tuple[str, str]] | None:
    """`word_changes`, or None when the texts are too long to compare within a request's
    share of CPU (the tokens' product over DIFF_WORK: whole rules rewritten, such as 2008's
    409.1b against today's, 434 by 586 tokens, 19 ms alone), where a list of many changes
    shows both texts instead."""
    if len(tokens(old)) * len(tokens(new)) > DIFF_WORK:
        return None
    return word_changes(old, new)


def word_changes(old: str, new: str) -> list[tuple[str, str]]:
    """How `new` differs from `old` as (op, text) pieces, op "equal", "delete" or "insert":
    words (a Chinese character each) compared by their typographic key, so a quote or dash
    restyled is no change and an equal piece shows the newer text. A run of spaces between
    two changes joins them: a judge sees one changed phrase, not every word marked apart."""
    a, b = tokens(old), tokens(new)
    opcodes = _opcodes([_token_key(t) for t in a], [_token_key(t) for t in b])
    pieces: list[tuple[str, str]] = []
    deleted: list[str] = []
    inserted: list[str] = []

    def flush() -> None:
        for op, words in (("delete", deleted), ("insert", inserted)):
            if words:
                pieces.append((op, "".join(words)))
                words.clear()

    for n, (op, i1, i2, j1, j2) in enumerate(opcodes):
        if op != "equal":
            deleted.extend(a[i1:i2])
            inserted.extend(b[j1:j2])
        elif deleted and inserted and n < len(opcodes) - 1 and all(t.isspace() for t in a[i1:i2]):
            deleted.extend(a[i1:i2])  # one replaced phrase, not two
            inserted.extend(b[j1:j2])
        else:
            flush()
            pieces.append(("equal", "".join(b[j1:j2])))
    flush()
    return pieces


def _opcodes(a: list[str], b: list[str]) -> Sequence[tuple[str, int, int, int, int]]:
    """difflib's opcodes from `a` to `b`, in bounded work. Texts within DIFF_WORK are matched
    by difflib as they stand. In longer ones the common start and end are equal as they
    stand, and what lies between is cut at the words each text has exactly once, in the
    same order in both (patience diff's anchors: a list such as 205.3m's creature types is
    all anchors); each piece between two anchors is matched by difflib when within
    DIFF_WORK, else shown replaced."""
    if len(a) * len(b) <= DIFF_WORK:
        return difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    start, end = 0, 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    blocks = [(0, 0, start), *_anchored(a, b, start, len(a) - end, start, len(b) - end),
              (len(a) - end, len(b) - end, end)]
    out: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, size in blocks:
        if i < ai or j < bj:
            out.append(("replace" if i < ai and j < bj else "delete" if i < ai else "insert", i, ai, j, bj))
        if size:
            if out and out[-1][0] == "equal":  # joined to the equal run before it
                out[-1] = ("equal", out[-1][1], ai + size, out[-1][3], bj + size)
            else:
                out.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return out


def _anchored(a: list[str], b: list[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int, int]]:
    """The equal blocks (i, j, size) of a[alo:ahi] and b[blo:bhi], in order: the words found
    once in each, the longest run of them in the same order in both, and between them
    difflib's blocks of each piece within DIFF_WORK."""
    once_a: dict[str, int] = {}
    for i in range(alo, ahi):
        once_a[a[i]] = -1 if a[i] in once_a else i
    once_b: dict[str, int] = {}
    for j in range(blo, bhi):
        once_b[b[j]] = -1 if b[j] in once_b else j
    pairs = sorted((i, once_b[w]) for w, i in once_a.items() if i >= 0 and once_b.get(w, -1) >= 0)
    # The longest increasing run of b's positions, in a's order (patience sorting).
    tails: list[int] = []
    back: list[int] = [-1] * len(pairs)
    ends: list[int] = []
    for n, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tails, j)
        back[n] = ends[at - 1] if at else -1
        if at == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[at], ends[at] = j, n
    anchors: list[tuple[int, int]] = []
    n = ends[-1] if ends else -1
    while n >= 0:
        anchors.append(pairs[n])
        n = back[n]
    blocks: list[tuple[int, int, int]] = []
    i, j = alo, blo
    for ai, bj in [*reversed(anchors), (ahi, bhi)]:
        if a[i:ai] == b[j:bj]:
            blocks.append((i, j, ai - i))
        elif 0 < (ai - i) * (bj - j) <= DIFF_WORK:
            matcher = difflib.SequenceMatcher(None, a[i:ai], b[j:bj], autojunk=False)
            blocks += [(i + x, j + y, size) for x, y, size in matcher.get_matching_blocks() if size]
        if ai < ahi:
            blocks.append((ai, bj, 1))
        i, j = ai + 1, bj + 1
    return blocks


def folded_history(versions: Sequence[Version], shown_edition: str | None, script: str | None,
                   url, step_url=None) -> list[dict]:
    """The versions in runs of the same text, oldest first: each run's editions and numbers,
    its text (as its newest edition has it) and, from the second run on, the words that
    changed from the run before. `url(number, edition)` addresses a version. With
    `step_url(old edition, new edition, number)`, each run also lists its `steps`: every
    version of it that has one before, with how it came from that one (its `relation`, as
    the lineage has it: same, changed, renumbered, split, merged) and the address of that
    step's list of changes, and whether its words changed from that one (`reworded`: a step
    both renumbered and reworded says both)."""
    before = {id(v): versions[i - 1] for i, v in enumerate(versions) if i}
    runs: list[list[Version]] = []
    for version in versions:
        if runs and same_text(runs[-1][-1].text, version.text):
            runs[-1].append(version)
        else:
            runs.append([version])
    out = []
    for n, run in enumerate(runs):
        last = run[-1]
        out.append({
            "first": run[0].edition,
            "edition": last.edition,
            "editions": [v.edition for v in run],
            "number": last.number,
            "numbers": list(dict.fromkeys(v.number for v in run)),
            "url": url(last.number, last.edition),
            "current": any(v.edition == shown_edition for v in run),
            "text": [{"lang": shown_lang(lang, script), "text": display(last.text[lang], lang, script)}
                     for lang in LANGS if last.text.get(lang)],
            "changes": _changes(runs[n - 1][-1], last, script) if n else [],
            **({"steps": [{"edition": v.edition, "number": v.number, "relation": getattr(v, "relation", ""),
                           "reworded": not same_text(before[id(v)].text, v.text),
                           "changes_url": step_url(before[id(v)].edition, v.edition, v.number)}
                          for v in run if id(v) in before]} if step_url else {}),
        })
    return out


def subrule_lineages(catalogue: Catalogue, history: Sequence[Version]) -> list[Sequence[Version]]:
    """The lineage of every subrule a rule has in any edition of its `history`, each once:
    one the shown edition lacks (added later, or dropped) may have changed on the way too."""
    found: list[Sequence[Version]] = []
    seen: set[tuple[str, str]] = set()
    for version in history:
        for child in catalogue.children(version.number, version.edition):
            if child.number and (version.edition, child.number) not in seen:
                lineage = catalogue.editions.history(version.edition, child.number)
                seen.update((v.edition, v.number) for v in lineage)
                found.append(lineage)
    return found


def subrule_changes(lineages: Iterable[Sequence[Version]], script: str | None, url, step_url) -> list[dict]:
    """The subrules of a rule that changed their words, each given as its versions in edition
    order (as `folded_history` takes them), so that a rule's page shows what changed under
    it: per subrule its `numbers` and every step whose words changed, with both editions and
    numbers, `url(number, edition)` of the newer version, `step_url(old edition, new edition,
    number)` of its list of changes, and the words that changed per language. A page holds
    many, so they are `bounded_changes`, and only the newest `COMPARED_STEPS` of the changed
    steps are compared: a text too long to compare here, or of an older step, has pieces None (its
    list of changes shows both texts). A step two lineages share (two subrules merged into
    one) is listed once."""
    seen: set[tuple[str, str, str]] = set()
    changed: list[list[tuple[Version, Version, list[str]]]] = []
    for versions in lineages:
        changed.append([])
        for old, new in pairwise(versions):
            if (old.edition, old.number, new.number) not in seen:
                seen.add((old.edition, old.number, new.number))
                langs = _changed_langs(old, new)
                if langs:
                    changed[-1].append((old, new, langs))
    newest = sorted((step for steps in changed for step in steps), key=lambda step: step[1].edition, reverse=True)
    compared = {id(step[1]) for step in newest[:COMPARED_STEPS]}
    out = []
    for versions, steps_changed in zip(lineages, changed, strict=True):
        if steps_changed:
            out.append({"numbers": list(dict.fromkeys(v.number for v in versions)), "steps": [
                {"from": old.edition, "from_number": old.number, "edition": new.edition, "number": new.number,
                 "url": url(new.number, new.edition), "changes_url": step_url(old.edition, new.edition, new.number),
                 "changes": _changes(old, new, script, bounded_changes if id(new) in compared else _not_compared,
                                     langs)}
                for old, new, langs in steps_changed]})
    return out


def _not_compared(old: str, new: str) -> None:
    """An older step of a page's many (`COMPARED_STEPS`): its list of changes shows both texts."""
    return None


def _changed_langs(old: Version, new: Version) -> list[str]:
    """The languages both versions give whose words differ (typography is no change)."""
    return [lang for lang in LANGS if old.text.get(lang) and new.text.get(lang)
            and typographic_key(old.text[lang]) != typographic_key(new.text[lang])]


def _changes(old: Version, new: Version, script: str | None,
             diff: Callable[[str, str], list[tuple[str, str]] | None] = word_changes,
             langs: list[str] | None = None) -> list[dict]:
    """Per language whose words changed (`langs`, else `_changed_langs`), the words that
    changed as `diff` finds them: pieces None where it found the texts too long to compare."""
    out = []
    for lang in _changed_langs(old, new) if langs is None else langs:
        pieces = diff(old.text[lang], new.text[lang])
        out.append({"from": old.edition, "lang": shown_lang(lang, script),
                    "pieces": None if pieces is None else [[op, display(piece, lang, script)] for op, piece in pieces]})
    return out
