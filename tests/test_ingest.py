"""The ingestion pipeline and its command line, on the real documents and on hostile copies."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_support import copy_corpus, corpus_copy

from indexer.documents.corpus import CorpusError, load_sources
from indexer.documents.ingest import DEFAULT_CORPUS, ingest, read_records, write_records
from indexer.documents.records import RULES_FILE_PREFIX

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {  # records per document and kind, as read from the documents
    "shadowmoor-faq": {"card": 107, "rule": 16, "section": 12},
    "worldwake-faq": {"card": 6, "rule": 8, "section": 5},
    "keyword-digest": {"rule": 11, "section": 12},
    "planechase-guide": {"planar_card": 40, "rule": 35, "section": 9},
    "planechase-article-bg": {"section": 19},
}


def run_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "indexer", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def bundled(ingested):
    """The bundled corpus ingested once: the documents and every rules edition."""
    return ingested


def test_bundled_corpus_record_counts_per_document_and_kind(bundled):
    assert bundled.errors == []
    counts = {}
    for record in bundled.records:
        counts.setdefault(record.source, {}).setdefault(record.kind, 0)
        counts[record.source][record.kind] += 1
    glossary = counts.pop("glossary")
    editions = {source: counts.pop(source) for source in list(counts) if source.startswith(RULES_FILE_PREFIX)}
    assert counts == EXPECTED
    # (The glossary's cards that have a card record are that record's names, no terms.)
    assert set(glossary) == {"term"} and glossary["term"] >= 150
    assert sorted(editions) == ["cr-2008-05-01", "cr-2009-07-11", "cr-2010-02-01", "cr-2016-09-30",
                                "cr-2022-11-18", "cr-2026-01-16", "cr-2026-04-17"]
    assert editions["cr-2026-04-17"]["rule"] > 3000 and editions["cr-2008-05-01"]["rule"] > 1000


def test_shipped_rules_carry_their_provenance(bundled):
    today = bundled.sources["cr-2026-04-17"]
    assert today["languages"] == ["en", "zh_hans"]
    assert "Wizards of the Coast" in today["publisher"] and "volunteer" in today["notes"].lower()
    assert bundled.sources["cr-2008-05-01"]["publisher"] == "Wizards of the Coast"


@pytest.mark.slow  # ingests the whole knowledge base again
def test_rules_files_given_again_are_read_once(tmp_path, bundled):
    """`serve ../shared/cr` names the corpus's own rules files again: the same bytes under
    another name are skipped, so no edition is read twice (which would be an error)."""
    copy = tmp_path / "renamed.txt"
    copy.write_bytes((DEFAULT_CORPUS / "rules" / "MagicCompRules-2009-07-11.txt").read_bytes())
    again = ingest([DEFAULT_CORPUS, DEFAULT_CORPUS, copy])
    assert again.errors == []
    assert len(again.records) == len(bundled.records)
    assert any("renamed.txt" in s.path and "read once" in s.detail for s in again.summaries)


def test_a_declared_edition_must_be_the_files_own(tmp_path):
    folder = copy_corpus(("cr-2009-07-11",), tmp_path / "corpus")
    meta = folder / "sources.toml"
    meta.write_text(meta.read_text(encoding="utf-8").replace('edition = "2009-07-11"', 'edition = "2010-02-01"'),
                    encoding="utf-8")
    result = ingest([folder])
    assert len(result.errors) == 1
    assert "declared edition 2010-02-01 in sources.toml, but the file is the edition of 2009-07-11" in result.errors[0]


@pytest.mark.slow  # ingests the whole knowledge base again
def test_records_are_stable_and_round_trip(tmp_path, bundled):
    first, second = bundled, ingest([DEFAULT_CORPUS])
    assert [r.to_dict() for r in first.records] == [r.to_dict() for r in second.records]
    write_records(first, tmp_path)
    records, sources = read_records(tmp_path)
    assert records == first.records
    assert sources["shadowmoor-faq"]["edition"] == "2008-05-01"
    assert sources["planechase-guide"]["urls"][0] == "http://magic.wizards.com/zh-hant/content/planechase-anthology-information"


def test_chinese_titled_rules_get_their_english_keyword(bundled):
    records = {r.id: r for r in bundled.records}
    assert records["shadowmoor-faq:rule:502.79"].keyword == "persist"
    assert records["shadowmoor-faq:rule:502.79a"].keyword == "persist"
    assert records["worldwake-faq:rule:702.30"].keyword == "kicker"  # 增幅, through the glossary
    assert records["keyword-digest:rule:702.82b"].keyword == "cascade"
    # A title that is its section's (901 Planechase, 500 General) is no keyword: the rules of a
    # section are not one rule whose number moves between editions.
    assert records["planechase-guide:rule:901.9"].keyword is None
    assert records["cr-2026-04-17:rule:500.1"].keyword is None and records["cr-2026-04-17:rule:500"].keyword is None
    assert records["cr-2026-04-17:rule:500.1"].title["en"] == "General"


def test_cards_a_document_names_only_in_chinese_get_the_glossarys_english_name(bundled):
    records = {r.id: r for r in bundled.records}
    assert records["worldwake-faq:card:咆哮獸群"].names == {"zh_hant": "咆哮獸群", "en": "Gnarlid Pack"}
    # A card the glossary does not know keeps its Chinese name alone (and its id in any case).
    assert records["worldwake-faq:card:黑土獅"].names == {"zh_hant": "黑土獅"}
    # An obsolete rules term links the last rule that had it.
    assert [(ref.number, ref.edition) for ref in records["cr-2026-04-17:term:mana-burn-obsolete"].references
            if ref.where == "attrs"] == [("300.3", "2008-05-01")]


def test_every_reference_is_a_rule_number_and_ranges_are_kept(bundled):
    from indexer.documents.references import is_rule_number

    records = bundled.records
    refs = [ref for r in records for ref in r.references]
    assert refs and all(is_rule_number(ref.number) and (ref.end is None or is_rule_number(ref.end)) for ref in refs)
    kicker = next(r for r in records if r.id == "worldwake-faq:rule:702.30a")
    assert [(ref.number, ref.end) for ref in kicker.references] == [("601.2b", None), ("601.2f", "601.2h")]


@pytest.mark.slow  # the whole knowledge base, in a subprocess
@pytest.mark.server
def test_cli_prints_a_summary_per_document(tmp_path, bundled):
    proc = run_cli("ingest", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "[shadowmoor-faq] 107 card, 16 rule, 12 section" in proc.stdout
    assert "[planechase-guide] 40 planar_card, 35 rule, 9 section" in proc.stdout
    lines = (tmp_path / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert "[cr-2026-04-17]" in proc.stdout and "edition 2026-04-17, zh_hans, utf-8" in proc.stdout
    assert len(lines) == len(bundled.records)
    assert all(json.loads(line)["id"] for line in lines)


def test_a_file_without_an_entry_and_an_entry_without_a_file_are_named(tmp_path):
    folder = corpus_copy(tmp_path)
    (folder / "stray.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"stray\.txt: has no entry in sources\.toml"):
        load_sources(folder)
    (folder / "stray.txt").unlink()
    (folder / "worldwake-faq-zh-hant.txt").unlink()
    with pytest.raises(CorpusError,
                       match=r"worldwake-faq-zh-hant.txt: described in sources.toml \(id 'worldwake-faq'\)"):
        load_sources(folder)


BIG5 = "規則702.30a 增幅屬於靜止式異能\n".encode("big5")
GB18030 = "规则702.30a 增幅属于静止式异能\n".encode("gb18030")


@pytest.mark.parametrize("name, data, message", [
    ("big5.txt", b"***x***\n" + BIG5, r"big5.txt:2: not valid UTF-8 at byte offset 8: invalid start byte"),
    ("gb.txt", b"***x***\n" + GB18030, r"gb.txt:2: not valid UTF-8 at byte offset 8: invalid start byte"),
    ("empty.txt", b"", r"empty.txt: empty document"),
    ("binary.txt", b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)),
     r"binary.txt: binary data \(NUL byte at offset 6\), not a text document"),
])
def test_bad_documents_fail_by_name_and_the_others_still_ingest(tmp_path, name, data, message):
    folder = corpus_copy(tmp_path, extra=[(name, data, "set-faq")])
    result = ingest([folder])
    assert len(result.errors) == 1 and re.search(message + "$", result.errors[0]), result.errors
    assert {r.source for r in result.records} == {"worldwake-faq", "keyword-digest", "glossary"}


def test_a_document_may_not_take_the_source_id_of_a_rules_files_records(tmp_path):
    """Records whose source begins as a rules file's do are read as the rules (today's, or
    superseded): a document so named is refused, and the others still ingest."""
    folder = corpus_copy(tmp_path, extra=[(f"{RULES_FILE_PREFIX}notes.txt", "某系列常見問題集\n".encode(), "set-faq")])
    result = ingest([folder])
    assert len(result.errors) == 1, result.errors
    assert re.search(r"cr-notes\.txt: source id 'cr-notes': an id beginning 'cr-' names a rules file's records",
                     result.errors[0])
    assert {r.source for r in result.records} == {"worldwake-faq", "keyword-digest", "glossary"}


def test_a_truncated_document_ingests_what_it_has(tmp_path):
    data = (DEFAULT_CORPUS / "keyword-digest-2009.txt").read_bytes()
    half = data[: len(data) // 2]
    half = half[: len(half.decode("utf-8", "ignore").encode("utf-8"))]  # end on a whole character
    folder = corpus_copy(tmp_path, keep=("worldwake-faq",), extra=[("cut.txt", half, "ptt-keyword-digest")])
    result = ingest([folder])
    assert result.errors == []
    rules = sorted(r.number for r in result.records if r.source == "cut" and r.kind == "rule")
    assert rules[0] == "702.79" and "702.82b" not in rules


def test_a_document_cut_inside_a_character_is_an_error_at_that_offset(tmp_path):
    data = (DEFAULT_CORPUS / "keyword-digest-2009.txt").read_bytes()
    cut = data[:1000]
    assert cut.decode("utf-8", "ignore").encode("utf-8") != cut  # byte 1001 is inside a character
    folder = corpus_copy(tmp_path, keep=("worldwake-faq",), extra=[("cut.txt", cut, "ptt-keyword-digest")])
    result = ingest([folder])
    assert len(result.errors) == 1
    assert re.search(r"cut.txt:\d+: not valid UTF-8 at byte offset 99\d: unexpected end of data$", result.errors[0])
    assert {r.source for r in result.records} == {"worldwake-faq", "glossary"}


@pytest.mark.server
def test_a_ten_megabyte_single_line_ingests_or_fails_cleanly(tmp_path):
    line = ("蜂矛兵/ Wasp Lancer {藍/黑} 生物～仙靈 3/2 飛行 * 混血法術力符號只會出現在費用中 ----- "
            "***新關鍵字異能：協力(Conspire)*** 502.78. 協力 502.78a 協力這個 ") * 80000
    data = line.encode("utf-8")[:10_000_000]
    data = data[: len(data.decode("utf-8", "ignore").encode("utf-8"))]
    folder = corpus_copy(tmp_path, keep=(), extra=[("a.txt", data, "ptt-faq-export"), ("b.txt", data, "article")])
    proc = run_cli("ingest", folder, "--out", tmp_path / "out", timeout=240)
    assert proc.returncode == 1  # the FAQ parser refuses it, by name; the article parser reads it
    assert "a.txt:1: no FAQ title (…常見問題集) after the first separator" in proc.stderr
    assert "[b] 1 section" in proc.stdout


@pytest.mark.server
def test_failed_ingestion_exits_non_zero_and_leaves_no_partial_file(tmp_path):
    folder = corpus_copy(tmp_path, extra=[("empty.txt", b"", "article")])
    out = tmp_path / "out"
    proc = run_cli("ingest", folder, "--out", out)
    assert proc.returncode == 1
    assert "empty.txt: empty document" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["records.jsonl", "sources.json"]  # no temporary files
    sources = {json.loads(line)["source"] for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()}
    assert sources == {"worldwake-faq", "keyword-digest", "glossary"}


def test_unknown_paths_and_files_of_no_family_are_errors(tmp_path):
    (tmp_path / "notes.txt").write_text("just some notes", encoding="utf-8")
    result = ingest([tmp_path / "missing", tmp_path / "notes.txt"])
    assert any("missing: no such file or folder" in e for e in result.errors)
    assert any("notes.txt: not a Comprehensive Rules file" in e for e in result.errors)


def test_displayed_text_is_clean_in_every_record(bundled):
    """No English word mixes scripts, no Chinese sentence is broken by a line break, no invisible
    or control character and no full-width rule number is left, in any text of any record."""
    from indexer.documents.textclean import mixed_script_words

    # a sentence goes on after a comma, and punctuation never starts a line: a break there is a wrap
    broken = re.compile(r"[，、；「（]\n|\n[，。、；」）]")
    invisible = re.compile("[\u200b-\u200f\u2060\ufeff\x00-\x08\x0b-\x1f]")
    fullwidth_number = re.compile(r"[０-９]{3}[．.][０-９]")
    for record in bundled.records:
        for lang in record.languages():
            for text in record.texts(lang):
                if lang == "en":
                    assert mixed_script_words(text) == [], record.id
                assert not broken.search(text), (record.id, broken.search(text).group())
                assert not invisible.search(text), record.id
                assert not fullwidth_number.search(text), record.id
