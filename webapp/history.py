"""A rule's history as a judge reads it: editions whose text is the same fold into one entry
("same text 2016-09-30 → 2026-04-17"), typography is not a change, and a change marks only
the words that changed.

What the history holds (which rule of each edition is this rule) is worked out elsewhere
(`indexer.knowledge.editions`, or whatever gives `Library.rule`'s `history`); this module only
shows it: it takes versions in edition order, each with `edition`, `number` and `text`
(per language).

Typography: the rules files of different years write the same sentence with straight or curly
quotes, 「」 or “”, hyphens or dashes, full-width or ASCII punctuation, one space or two; a
translation's editions do the same. None of that changes what a rule says, so texts are
compared in a folded form (`typographic_key`) and a diff shows the newer text's characters
wherever the folded forms agree.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from typing import Protocol

from indexer.documents.records import LANGS
from indexer.documents.script_ranges import HAN
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
# The most work (tokens of one text times the other's) one diff of a list of changes may take.
DIFF_WORK = 60_000
# Space between a Chinese character and anything else carries no meaning in Chinese text.
_CJK_SPACE = re.compile(rf"(?<=[{HAN}]) | (?=[{HAN}])")


class Version(Protocol):
    edition: str
    number: str

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
    opcodes = difflib.SequenceMatcher(None, [_token_key(t) for t in a], [_token_key(t) for t in b],
                                      autojunk=False).get_opcodes()
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


def folded_history(versions: Sequence[Version], shown_edition: str | None, script: str | None,
                   url, step_url=None) -> list[dict]:
    """The versions in runs of the same text, oldest first: each run's editions and numbers,
    its text (as its newest edition has it) and, from the second run on, the words that
    changed from the run before. `url(number, edition)` addresses a version. With
    `step_url(old edition, new edition, number)`, each run also lists its `steps`: every
    version of it that has one before, with how it came from that one (its `relation`, as
    the lineage has it: same, changed, renumbered, split, merged) and the address of that
    step's list of changes."""
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
                           "changes_url": step_url(before[id(v)].edition, v.edition, v.number)}
                          for v in run if id(v) in before]} if step_url else {}),
        })
    return out


def _changes(old: Version, new: Version, script: str | None) -> list[dict]:
    """Per language both versions give, the words that changed (none for typography)."""
    out = []
    for lang in LANGS:
        before, after = old.text.get(lang), new.text.get(lang)
        if before and after and typographic_key(before) != typographic_key(after):
            out.append({"from": old.edition, "lang": shown_lang(lang, script),
                        "pieces": [[op, display(piece, lang, script)] for op, piece in word_changes(before, after)]})
    return out
