"""Old words and game terms of several words find the texts that use them, in any language.

Over the whole knowledge base (the documents and every rules edition): a term no rule uses
any more ranks first for its name, and an English term of several words finds the Chinese-only
texts that write it (`mana burn`: the Shadowmoor cards that say 法術力灼傷), although every
text about mana matches its first word.
"""
from __future__ import annotations

from indexer.documents.obsolete_terms import OBSOLETE_MARK
from webapp.present import term_view


def _ids(library, query: str, limit: int = 10) -> list[str]:
    return [r["id"] for r in library.search(query, limit=limit)["results"]]


def test_a_term_of_several_words_expands_whole_not_word_by_word(corpus_library):
    forms = dict(corpus_library._expander.expand("mana burn"))
    assert "法術力灼傷" in forms and "法术力灼烧" in forms
    assert "法术力" not in forms and "魔法力" not in forms  # the forms of `mana` alone
    assert "魔法力" in dict(corpus_library._expander.expand("mana"))


def test_mana_burn_finds_the_chinese_only_cards_that_name_it(kb_library):
    ids = _ids(kb_library, "mana burn")
    assert ids[0] == "cr-2026-04-17:term:mana-burn-obsolete"
    cards = ["shadowmoor-faq:card:worldpurge", "shadowmoor-faq:card:valleymaker"]
    assert set(cards) <= set(ids[:5]), ids
    # Before every rule about mana: they are the texts about mana burn.
    assert max(ids.index(c) for c in cards) < ids.index("cr-2026-04-17:rule:106")
    assert _ids(kb_library, "mana burn kind:card")[0] == "shadowmoor-faq:card:worldpurge"
    # The Chinese form alone finds them too, first.
    assert set(_ids(kb_library, "法術力灼傷")[:2]) == set(cards)


def test_an_obsolete_term_links_the_last_rule_that_had_it():
    from corpus_support import CR

    from indexer.documents.comprules import read_rules_files


    records = read_rules_files([CR / "MagicCompRules-2008-05-01.txt", CR / "MagicCompRules-2009-07-11.txt"]).records
    terms = {r.id: r for r in records if r.kind == "term"}
    linked = [(ref.number, ref.edition) for ref in terms["cr-2009-07-11:term:mana-burn-obsolete"].references
              if ref.where == "attrs"]
    assert linked == [("300.3", "2008-05-01")]
    # Interrupt was obsolete in 2008 already: no rule of the editions held had it.
    assert not [ref for ref in terms["cr-2009-07-11:term:interrupt-obsolete"].references if ref.where == "attrs"]
    # Its own edition's entry, where mana burn was still a rule, names that rule in its text.
    assert [ref.number for ref in terms["cr-2008-05-01:term:mana-burn"].references] == ["300.3"]


def test_every_obsolete_term_of_todays_glossary_ranks_first_for_its_name(kb_library):
    today = kb_library.catalogue.current_edition
    obsolete = [r for r in kb_library.catalogue.records.values()
                if r.kind == "term" and r.edition == today and OBSOLETE_MARK.search(r.names.get("en", ""))]
    assert len(obsolete) >= 25
    for term in obsolete:
        for name in {term.names["en"], term.names.get("zh_hans") or term.names["en"]}:
            plain = OBSOLETE_MARK.sub("", name)
            first = kb_library.search(plain)["results"][0]
            assert first["kind"] == "term" and OBSOLETE_MARK.search(first["names"]["en"]), (plain, first["id"])


def test_the_obsolete_terms_page_links_the_last_rule_that_had_it(kb_library):
    term = kb_library.get("cr-2026-04-17:term:mana-burn-obsolete")
    rules = term_view(kb_library, term, None)["defining_rules"]
    assert [(r["number"], r["edition"]) for r in rules] == [("300.3", "2008-05-01")]
    assert "300.3" in rules[0]["url"] and "edition=2008" in rules[0]["url"]
    assert "mana burn" in kb_library.rule_records("300.3", "2008")[0].text["en"]
    # The project's glossary names it too.
    glossary = term_view(kb_library, kb_library.get("glossary:term:mana-burn"), None)["defining_rules"]
    assert [(r["number"], r["edition"]) for r in glossary] == [("300.3", "2008-05-01")]


def test_an_older_editions_entry_names_todays_entry_for_it(kb_library):
    """Mana Burn of 2008 is today's Mana Burn (Obsolete): one result, and its page says so."""
    old = kb_library.get("cr-2008-05-01:term:mana-burn")
    view = term_view(kb_library, old, None)
    assert view["current"] is False
    assert view["today_entry"]["url"] == "/terms/cr-2026-04-17:term:mana-burn-obsolete"
    first = kb_library.search("mana burn")["results"][0]
    assert first["id"] == "cr-2026-04-17:term:mana-burn-obsolete"
    assert "2008-05-01" in {e["edition"] for e in first["other_editions"]}
    assert term_view(kb_library, kb_library.get("cr-2026-04-17:term:persist"), None)["today_entry"] is None


def test_an_older_editions_entry_whose_text_went_into_a_rule_names_todays_rule(kb_library):
    """2008's glossary entry Tie became no entry: its text is the rule of ties, 608.5 in 2009."""
    view = term_view(kb_library, kb_library.get("cr-2008-05-01:term:tie"), None)
    now = kb_library.records[kb_library.catalogue.placement.today_of(kb_library.get("cr-2008-05-01:term:tie"))["id"]]
    assert now.kind == "rule" and "no default for ties" in now.text["en"]
    assert view["today_entry"]["url"] == f"/rules/{now.number}?edition=2026-04-17"


def test_an_obsolete_terms_rule_is_the_most_specific_or_the_entry_it_sends_to(kb_library):
    """2008's glossary said "In Play ... See rule 217, Zones": its rule is 217.5, In Play. An
    entry no edition held alive names the rules of the entry it sends the reader to ("See
    Exile."); one that names none (Interrupt) links none."""
    def linked(term_id):
        return [(r["number"], r["edition"])
                for r in term_view(kb_library, kb_library.get(term_id), None)["defining_rules"]]

    assert linked("cr-2026-04-17:term:in-play-obsolete") == [("217.5", "2008-05-01")]
    assert kb_library.rule_records("217.5", "2008")[0].text["en"] == "In Play"
    assert linked("cr-2026-04-17:term:remove-from-the-game-removed-removed-from-the-game-zone-obsolete") == [
        ("406", "2026-04-17")]
    assert linked("cr-2026-04-17:term:interrupt-obsolete") == []
    # Each of its names finds it first, then today's rules about exile.
    for name in ("remove from the game", "removed"):
        ids = _ids(kb_library, name)
        assert ids[0] == "cr-2026-04-17:term:remove-from-the-game-removed-removed-from-the-game-zone-obsolete"
    assert {"cr-2026-04-17:rule:701.13", "cr-2026-04-17:rule:406"} <= set(_ids(kb_library, "remove from the game")[:3])


def test_a_word_for_word_rendering_finds_the_keyword(kb_library):
    """死亡觸碰 is no form the game uses (deathtouch is 死觸): the glossary holds it as a wrong
    form, so it finds deathtouch's rule before the plane whose text says 死亡 (dies)."""
    for query in ("死亡觸碰", "死亡触碰"):
        assert _ids(kb_library, query)[0] == "cr-2026-04-17:rule:702.2"
