"""The glossary file and its API, checked against the corpus documents and the references."""
from __future__ import annotations

import collections
import re
from pathlib import Path

import opencc
import pytest

from indexer.documents import comprules
from indexer.documents.chinese import HAN_RUN, to_hans
from indexer.documents.corpus import load_sources
from indexer.documents.glossary import COLUMNS, Glossary, GlossaryError, RuleRef, form_key

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "corpus"
SHARED = ROOT.parent / "shared"
TERMINOLOGY = SHARED / "reference" / "terminology.tsv"
CR = CORPUS / "rules"

ALL_SOURCES = load_sources(CORPUS)
SOURCES = [s for s in ALL_SOURCES if s.family != comprules.FAMILY]  # the documents
DOCS = {s.id: s.path.read_text(encoding="utf-8") for s in SOURCES}
DOCS.update({s.id: comprules.decode(s.path.read_bytes(), s.path)[0]
             for s in ALL_SOURCES if s.family == comprules.FAMILY})
DOCS_HANS = {sid: to_hans(text) for sid, text in DOCS.items()}


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return Glossary.load(CORPUS / "glossary.tsv", [s.id for s in ALL_SOURCES])


def test_every_line_is_valid_and_the_kinds_are_counted(glossary):
    kinds = collections.Counter(e.kind for e in glossary.entries)
    assert len(glossary.entries) == 268
    assert kinds["card"] == 111
    assert kinds["plane"] == 26 and kinds["phenomenon"] == 8
    assert kinds["keyword"] == 24
    assert kinds["world"] == 12 and kinds["set"] == 3
    assert glossary.entries[0].english == "persist" and glossary.entries[0].line == 25


def test_required_terms_with_their_forms(glossary):
    def forms(form):
        entry = glossary.lookup(form)
        assert entry is not None, form
        return entry.english, {form_key(f) for f in entry.forms()}

    required = {
        "persist": ["留存"], "wither": ["乾枯", "干枯", "枯萎"], "conspire": ["協力", "协力"],
        "devour": ["吞噬"], "exalted": ["頌威"], "unearth": ["破墳"], "cascade": ["傾曳", "倾曳"],
        "kicker": ["增幅"], "multikicker": ["多重增幅"], "hybrid mana": ["混血"],
        "untap symbol": ["重置符號"], "planeswalker": ["鵬洛客", "旅法師"], "exile": ["放逐", "移出對戰"],
        "battlefield": ["戰場", "場上"], "plane": ["時空", "地域"], "phenomenon": ["異象", "奇跡"],
        "planeswalk": ["時空換境", "時空旅行", "時空行走"], "chaos symbol": ["混沌", "混亂"],
        "planar die": ["時空骰", "時空骰子"], "planar deck": ["時空套牌", "時空牌"],
        "mana": ["法術力", "魔法力", "法术力"], "lifelink": ["系命", "繫命"], "rebound": ["彈回", "返照"],
        "landfall": ["地落"], "Planechase": ["競逐時空", "時空競逐"],
    }
    for english, zh_forms in required.items():
        for zh in zh_forms:
            found, all_forms = forms(zh)
            assert found == english, zh
            assert form_key(english.split(" (")[0]) in all_forms


def test_every_row_of_the_terminology_reference_is_in_the_glossary(glossary):
    if not TERMINOLOGY.exists():
        pytest.skip(f"{TERMINOLOGY} is not present")
    rows = [line.split("\t") for line in TERMINOLOGY.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")][1:]
    assert len(rows) == 67
    by_english = {e.english: e for e in glossary.entries}
    for english, zh_hant, zh_hans, *_ in rows:
        entry = by_english[english]
        assert (entry.zh_hant, entry.zh_hans) == (zh_hant, zh_hans), english
        assert "terminology" in entry.sources


def test_every_rows_simplified_form_agrees_with_its_traditional_form(glossary):
    """EN/繁/简 agree: the 简 of every row is the OpenCC conversion of its 繁, or a regional
    word documented for this very pair, by the terminology reference (魔法力 / 法术力) or by
    the Simplified Chinese rules the row cites (伊尼翠 / 依尼翠), and it is Simplified."""
    if not TERMINOLOGY.exists():
        pytest.skip(f"{TERMINOLOGY} is not present")
    rows = [line.split("\t") for line in TERMINOLOGY.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")][1:]
    reference = {english: (zh_hant, zh_hans) for english, zh_hant, zh_hans, *_ in rows}
    hans_rules = next(s.id for s in ALL_SOURCES if s.family == comprules.FAMILY and "zh_hans" in s.languages)
    t2s = opencc.OpenCC("t2s.json")
    regional = []
    for entry in glossary.entries:
        if not (entry.zh_hant and entry.zh_hans):
            continue
        assert to_hans(entry.zh_hans) == entry.zh_hans, (entry.english, entry.zh_hans)
        if entry.zh_hans in (t2s.convert(entry.zh_hant), to_hans(entry.zh_hant)):
            continue
        regional.append(entry.english)
        documented = reference.get(entry.english) == (entry.zh_hant, entry.zh_hans) or (
            hans_rules in entry.sources and entry.zh_hans in DOCS[hans_rules])
        assert documented, f"{entry.english}: {entry.zh_hant} / {entry.zh_hans} is neither converted nor documented"
    assert {"mana", "mana burn", "Magic", "sorcery", "Innistrad", "Dominaria", "Regatha"} <= set(regional)
    assert glossary.lookup("Reflecting Pool").zh_hant == "映景明湖"


def test_every_cited_document_writes_one_of_the_entry_forms(glossary):
    def occurs(form, sid):
        if HAN_RUN.search(form):
            return to_hans(form) in DOCS_HANS[sid]
        return re.search(rf"(?<![^\W\d_]){re.escape(form)}(?![^\W\d_])", DOCS[sid], re.IGNORECASE) is not None

    for entry in glossary.entries:
        for sid in entry.sources:
            if sid != "terminology":
                assert any(occurs(f, sid) for f in entry.forms()), (entry.english, sid)
    # and a document writing a form is cited: the source column is complete
    redcap = glossary.lookup("奪魂紅帽客")
    assert redcap.sources == ("shadowmoor-faq",)
    assert glossary.lookup("battlefield").sources == (
        "shadowmoor-faq", "keyword-digest", "worldwake-faq", "planechase-guide", "planechase-article-bg", "terminology")


def test_rule_numbers_of_a_corpus_edition_are_written_in_that_document(glossary):
    """A rule number of a document's edition is written in that document or in that edition's
    rules (mana burn's 300.3 of 2008 is the 2008 rules', not the Shadowmoor FAQ's)."""
    by_edition = {s.edition: [s.id] for s in SOURCES if s.edition}
    for s in ALL_SOURCES:
        if s.family == comprules.FAMILY and s.edition in by_edition:
            by_edition[s.edition].append(s.id)
    checked = 0
    for entry in glossary.entries:
        for rule in entry.rules:
            if rule.edition in by_edition:
                assert any(re.search(rf"(?<![\d.]){re.escape(rule.number)}(?![\da-z])", DOCS[sid])
                           for sid in by_edition[rule.edition]), (entry.english, rule)
                checked += 1
    assert checked == 25
    assert glossary.lookup("persist").rules == (RuleRef("502.79", "2008-05-01"), RuleRef("702.79", "2026-04-17"))


@pytest.mark.parametrize("edition, file", [
    ("2008-05-01", "MagicCompRules-2008-05-01.txt"),
    ("2010-02-01", "MagicCompRules-2010-02-01.txt"),
    ("2026-04-17", "bilingual-2026-04-17-en.txt"),
])
def test_rule_numbers_name_the_term_in_the_comprehensive_rules(glossary, edition, file):
    path = CR / file
    lines = path.read_text(encoding="ascii" if "Magic" in file else "utf-8", errors="replace").splitlines()
    starts = {}
    for line in lines:
        m = re.match(r"(\d{3}(?:\.\d+[a-z]?)?)\.? ", line)
        if m:
            starts.setdefault(m.group(1), line)
    checked = 0
    for entry in glossary.entries:
        english = [f.lower() for f in entry.forms() if f.isascii() and re.search("[a-z]", f, re.I)]
        english.append(entry.name.split()[0].lower())  # "408. Command" names the command zone
        for rule in entry.rules:
            if rule.edition == edition:
                line = starts[rule.number].lower()
                assert any(f in line for f in english), (entry.english, rule, line)
                checked += 1
    assert checked == {"2008-05-01": 7, "2010-02-01": 2, "2026-04-17": 43}[edition]


def test_expand_in_both_directions(glossary):
    assert glossary.expand("multikicker") == ["多重增幅"]
    assert "multikicker" in glossary.expand("多重增幅")
    exile = glossary.expand("移出對戰")
    assert exile[:2] == ["exile", "放逐"] and "移出對戰" not in exile
    assert "移出對戰" in glossary.expand("exile") and "移出對戰" in glossary.expand("放逐")
    # the other script of the literal form is not repeated: the analyzer folds scripts
    assert glossary.expand("干枯") == ["wither", "枯萎"]
    assert glossary.expand("Planechase") == ["競逐時空", "時空競逐"]
    assert glossary.expand("no such term") == []


def test_lookup_is_case_and_script_insensitive(glossary):
    assert glossary.lookup("WITHER") is glossary.lookup("乾枯") is glossary.lookup("干枯")
    assert glossary.lookup("  Two-Headed   Giant ").english == "Two-Headed Giant"
    # a primary form wins over another entry's variant; among equals the earlier line
    assert glossary.lookup("counter").english == "counter (marker)"
    assert glossary.lookup("反擊").english == "counter (a spell)"


def test_english_for_gives_the_keyword_identity(glossary):
    assert glossary.english_for("留存") == "persist"
    assert glossary.english_for("傾曳") == "cascade"
    assert glossary.english_for("多重增幅") == "multikicker"
    assert glossary.english_for("競逐時空") == "Planechase"
    assert glossary.english_for("指示物") == "counter"
    assert glossary.english_for("不存在") is None


def test_all_forms_feed_the_user_dictionary(glossary):
    forms = glossary.all_forms()
    assert len(forms) == len(set(forms)) == 649
    for word in ("多重增幅", "時空骰", "時空骰子", "奪魂紅帽客", "移出對戰", "persist", "{CHAOS}", "多明纳里亚",
                 "瑞格沙"):
        assert word in forms


def _write(tmp_path, *rows, header="english\tzh_hant\tzh_hans\tvariants\tkind\trules\tsource"):
    path = tmp_path / "glossary.tsv"
    path.write_text("# comment\n" + header + "\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


GOOD = "persist\t留存\t留存\t\tkeyword\t702.79@2026-04-17\tterminology"


@pytest.mark.parametrize("row, message", [
    ("persist\t留存\t留存\tkeyword", ":3: expected 7 tab-separated columns, found 4"),
    ("wither\t乾枯\t干枯\t\tability\t\tterminology", ":3: unknown kind 'ability'"),
    ("wither\t乾枯\twither\t\tkeyword\t\tterminology", ":3: zh_hans 'wither' has no Chinese character"),
    ("wither\t乾枯\t干枯\t\tkeyword\t702.80\tterminology", ":3: rule '702.80' is not 'number@edition'"),
    ("wither\t乾枯\t干枯\t\tkeyword\t702.80l@2026-04-17\tterminology", ":3: rule '702.80l@2026-04-17'"),
    ("wither\t乾枯\t干枯\t枯萎 (note (nested))\tkeyword\t\tterminology", ":3: variant '枯萎 (note (nested))'"),
    ("wither\t乾枯\t干枯\t\tkeyword\t\t", ":3: source is empty"),
    ("wither\t乾枯\t干枯\t\tkeyword\t\tnowhere", ":3: unknown source 'nowhere'"),
    ("Persist\t留存\t留存\t\tkeyword\t\tterminology", ":3: duplicate english 'Persist' (first on line 2)"),
])
def test_bad_lines_are_rejected_with_file_and_line(tmp_path, row, message):
    path = tmp_path / "glossary.tsv"
    path.write_text("\t".join(COLUMNS) + "\n" + GOOD + "\n" + row + "\n", encoding="utf-8")
    with pytest.raises(GlossaryError) as err:
        Glossary.load(path, ["shadowmoor-faq"])
    assert str(err.value).startswith(f"{path}{message}")


def test_a_wrong_header_and_a_missing_file_are_errors(tmp_path):
    path = _write(tmp_path, GOOD, header="english\tzh\tsource")
    with pytest.raises(GlossaryError, match=r"glossary.tsv:2: expected the header"):
        Glossary.load(path)
    with pytest.raises(GlossaryError, match="cannot read glossary"):
        Glossary.load(tmp_path / "missing.tsv")


def test_world_and_card_names_agree_with_the_rules_and_the_cards(glossary):
    """Simplified world names as the Simplified Chinese rules write them, beside the guide's
    Traditional ones; a card's name without the colour heading glued to it in its FAQ."""
    assert [glossary.lookup(w).zh_hans for w in ("Innistrad", "Dominaria", "Regatha")] == [
        "依尼翠", "多明纳里亚", "瑞格沙"]
    assert glossary.lookup("多明納尼亞").english == "Dominaria"
    pool = glossary.lookup("Reflecting Pool")
    assert (pool.zh_hant, pool.zh_hans) == ("映景明湖", "映景明湖")
    assert glossary.lookup("地映景明湖") is None
