"""Every served rule of every edition reads as its rules file has it.

The files are read here on their own: their bytes in the codec each was published in, the
lines after the Contents (which end with the first Credits heading) up to the Glossary, a
rule's lines up to the next rule or section heading, an example's "Example:" left out. Whitespace
aside, a rule's served text and examples are those lines, with two documented differences
(corpus/rules/README.md): the 2009 and 2010 files' italic marks (_Magic_) are left out, and
where the 2008 file's export turned a character into '?' the service shows it restored: a
curly quote, apostrophe, dash or trademark sign, by a form of the text or a recorded
restoration (indexer/documents/restorations.tsv). No '?' stands for a lost character: the
only ones the 2008 edition keeps are its web addresses' queries.
"""
from __future__ import annotations

import re
import unicodedata

import pytest
from corpus_support import CR

from indexer.documents.comprules import read_rules_files
from indexer.documents.rules_punctuation import load_restorations

# file -> (edition, language, Python codec)
FILES = {
    "MagicCompRules-2008-05-01.txt": ("2008-05-01", "en", "ascii"),
    "MagicCompRules-2009-07-11.txt": ("2009-07-11", "en", "ascii"),
    "MagicCompRules-2010-02-01.txt": ("2010-02-01", "en", "cp1252"),
    "MagicCompRules-2016-09-30.txt": ("2016-09-30", "en", "utf-16"),
    "MagicCompRules-2022-11-18.txt": ("2022-11-18", "en", "utf-16"),
    "MagicCompRules-2026-01-16.txt": ("2026-01-16", "en", "utf-8-sig"),
    "bilingual-2026-04-17-en.txt": ("2026-04-17", "en", "utf-8"),
    "bilingual-2026-04-17-zh-hans.txt": ("2026-04-17", "zh_hans", "utf-8"),
}
ITALIC_MARKED = {"2009-07-11", "2010-02-01"}
LOST = "2008-05-01"
# What a lost character was: quotes, apostrophes, dashes, trademark signs.
RESTORED = set("‘’“”—–™®")
_RULE = re.compile(r"(\d{3})\. ?(\d+)([a-z]?)\.?\s*(.*)")
_SECTION = re.compile(r"(\d{3})\.\s+(\S.*)")
_EXAMPLE = re.compile(r"(?:Example|例如)\s*[:：，,]\s*")


def file_rules(name: str) -> dict[str, str]:
    """Rule or section number -> its text and examples as the file writes them, one string."""
    _, _, codec = FILES[name]
    lines = (CR / name).read_bytes().decode(codec).lstrip("\ufeff").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() in ("Credits", "版权信息"))
    end = max(i for i, line in enumerate(lines) if line.strip() in ("Glossary", "词汇表"))
    rules: dict[str, list[str]] = {}
    number = None
    for raw in lines[start + 1:end]:
        line = raw.strip()
        if not line:
            continue
        if m := _RULE.fullmatch(line):
            number = f"{m.group(1)}.{m.group(2)}{m.group(3)}"
            rules[number] = [m.group(4)]
        elif m := _SECTION.fullmatch(line):
            number = m.group(1)
            rules[number] = [m.group(2)]
        elif re.fullmatch(r"\d\.\s+\S.*", line):
            number = None  # a part's heading (1. Game Concepts)
        elif number:
            rules[number].append(_EXAMPLE.sub("", line, count=1) if _EXAMPLE.match(line) else line)
    return {n: " ".join(parts) for n, parts in rules.items()}


def plain(text: str) -> str:
    """Whitespace as single spaces, in Unicode's composed form, without invisible characters."""
    text = unicodedata.normalize("NFC", re.sub("[\u00ad\u200b-\u200f\u2060\ufeff]", "", text))
    return " ".join(text.split())


@pytest.fixture(scope="module")
def served(kb_library):
    """(edition, number) -> the rules file's record of that rule as the service serves it."""
    return {(r.edition, r.number): r for r in kb_library.records.values()
            if r.kind == "rule" and r.source == f"cr-{r.edition}"}


def served_text(record, lang: str) -> str:
    return plain(" ".join([record.text.get(lang, ""), *(e.get(lang, "") for e in record.examples)]))


@pytest.mark.parametrize("name", FILES)
def test_every_rule_is_its_files_text(served, name):
    edition, lang, _ = FILES[name]
    rules = file_rules(name)
    held = {n for (e, n) in served if e == edition}
    assert held == set(rules)
    different = []
    for number, written in rules.items():
        expected = plain(written.replace("_", "") if edition in ITALIC_MARKED else written)
        shown = served_text(served[(edition, number)], lang)
        # The same text but where the file has '?' for a lost character.
        if edition == LOST and len(shown) == len(expected) and all(
                a == b or (a == "?" and b in RESTORED) for a, b in zip(expected, shown, strict=True)):
            continue
        if shown != expected:
            different.append(f"{number}: {shown[:160]!r}\n   file: {expected[:160]!r}")
    assert not different, f"{len(different)} rules differ:\n" + "\n".join(different[:10])


def test_no_question_mark_stands_for_a_lost_character(kb_library):
    left = []
    for record in kb_library.records.values():
        if record.edition == LOST and record.source == f"cr-{LOST}":
            for text in [*record.texts("en"), *record.names.values(), *record.title.values()]:
                left += [(record.id, text[max(0, m.start() - 20):m.end() + 20])
                         for m in re.finditer(r"\?(?!x=)", text)]
    assert left == []
    # Each restoration recorded was made, and the 2008 file has 46 characters restored so.
    assert sum(c == "?" for r in load_restorations() for c in r.written) == 46
    restored = {r.id: r for r in read_rules_files([CR / "MagicCompRules-2008-05-01.txt"]).records}
    assert restored["cr-2008-05-01:rule:606.9b"].examples[0]["en"].count("(13 – ") == 2
    assert "rules 418.5b–418.5g" in restored["cr-2008-05-01:rule:418.5a"].text["en"]
    assert "DCI™ Floor Rules" in restored["cr-2008-05-01:rule:100.5"].text["en"]
    assert "the “intervening ‘if’ clause” rule" in restored["cr-2008-05-01:rule:404.3"].text["en"]
    assert restored["cr-2008-05-01:term:infinity-rule-informal"].text["en"].endswith(
        "See rule 421, “Handling ‘Infinite’ Loops.”")


def test_italic_marks_are_left_out_as_documented(served):
    assert served[("2009-07-11", "107.8")].text["en"].startswith(
        "A tombstone icon appears to the left of the name of many OdysseyTM block cards")
    assert served[("2009-07-11", "108.1")].text["en"].startswith("Use the Oracle(TM) card reference")
    assert served[("2010-02-01", "100.1")].text["en"].startswith("These Magic rules apply")
