"""Each glossary entry is one result: the rules' glossary entry of a term (in every edition)
and the project glossary's entry for the same term (corpus/glossary.tsv, its forms in every
script) are one, led by today's rules.

Over the whole knowledge base and every judged query of both sets.
"""
from __future__ import annotations

import judged

from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.search.folding import fold_key


def _term_name(library, result: dict) -> str:
    return fold_key(OBSOLETE_MARK.sub("", library.records[result["id"]].names.get("en", "")))


def test_no_result_list_holds_one_glossary_entry_twice(kb_library):
    twice = []
    for path in judged.SETS.values():
        for _, query, _ in judged.load(path):
            names = [_term_name(kb_library, r) for r in kb_library.search(query, limit=50)["results"]
                     if r["kind"] == "term"]
            if len(names) != len(set(names)):
                twice.append(query)
    assert twice == []


def test_the_two_glossaries_entry_is_one_result(kb_library):
    results = kb_library.search("persist", limit=50)["results"]
    terms = [r for r in results if r["kind"] == "term" and _term_name(kb_library, r) == "persist"]
    assert [r["id"] for r in terms] == ["cr-2026-04-17:term:persist"]
    assert {"source": "glossary", "edition": None} in [
        {"source": o["source"], "edition": o["edition"]} for o in terms[0]["other_editions"]]
    # The project glossary's entry alone, where no rules edition has the term, is itself.
    assert kb_library.search("kind:term landfall")["results"][0]["id"] == "glossary:term:landfall"
