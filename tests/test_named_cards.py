"""The cards a question names: recognised from the card data by their names as real players
write them (tests/fixtures/question_cards/names.tsv, from tests/questions_real.tsv), listed
apart from the results, and never searched as rules words."""
from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import questions_split
from corpus_support import QUESTION_CARDS
from judged import load, rank

from indexer.knowledge.library import Library
from indexer.knowledge.named_cards import CardNames
from indexer.knowledge.stages import Stages
from indexer.search.folding import fold_key
from indexer.search.query import parse_query
from webapp import create_app

REAL = QUESTION_CARDS.parents[1] / "questions_real.tsv"
ROOT = Path(__file__).parents[1]


def _written() -> dict[str, str]:
    """Each way a question writes a card (names.tsv), to the card's English name."""
    rows = (line.rstrip("\n").split("\t") for line in (QUESTION_CARDS / "names.tsv").read_text(encoding="utf-8")
            .splitlines(keepends=True) if not line.startswith("#"))
    return {written: card for card, written in rows}


def test_the_cards_a_real_question_names_by_their_names_are_recognised_and_nothing_else(question_cards_library):
    """Every card a question writes by one of its names (any case, a plural) is recognised
    there, at least as written like a name (capitalised, several words or quoted): nine in
    ten; and no card the question does not name is."""
    names = CardNames(question_cards_library.catalogue)
    written, questions = _written(), [question for _, question, _ in load(REAL)]
    whole = {w: c for w, c in written.items() if fold_key(w).rstrip("s") in
             {fold_key(f).rstrip("s") for f in (c, *c.split(" // "))} and w[0].isupper()}
    expected = found = extra = 0
    for question in questions:
        got = {card.record.names["en"] for card in names.found(question)}
        want = {card for w, card in whole.items() if w in question}
        expected, found = expected + len(want), found + len(want & got)
        extra += len(got - {card for w, card in written.items() if w in question})
    assert expected > 150 and found / expected >= 0.9
    assert extra == 0


def test_a_question_s_cards_are_listed_apart_and_their_names_are_not_searched(question_cards_library):
    q = "Can Coax from the Blind Eternities find a Chameleon Colossus in my sideboard?"
    answer = question_cards_library.search(q, limit=10)
    assert [c["name"] for c in answer["cards"]] == ["Coax from the Blind Eternities", "Chameleon Colossus"]
    assert all(r["kind"] != "card" for r in answer["results"])
    parsed, _, _ = question_cards_library._ranker.named_cards(parse_query(q))
    assert "Chameleon" not in parsed.text and "Coax" not in parsed.text and "sideboard" in parsed.text
    # Its keywords and type line stand for it (Changeling, a Shapeshifter).
    assert "Changeling" in parsed.context and "Shapeshifter" in parsed.context


def test_a_card_s_name_alone_is_still_a_look_up_of_the_card(question_cards_library):
    answer = question_cards_library.search("chameleon colossus", limit=5)
    assert answer["results"][0]["id"] == answer["cards"][0]["id"] == "scryfall:card:chameleon-colossus"


def test_one_lower_case_word_or_a_capital_at_a_sentence_s_start_is_no_card(question_cards_library):
    """Clone and Counterspell are cards; "clone" in a sentence, or a sentence that starts with
    the word, is the game's word."""
    names = CardNames(question_cards_library.catalogue)
    assert names.found("can I clone a token copy and counter it?") == []
    assert [c.record.names["en"] for c in names.found("What if I cast Counterspell on it?")] == ["Counterspell"]
    assert [c.record.names["en"] for c in names.found("I cast \"clone\" on it")] == ["Clone"]
    assert names.found("Clone copies it, right?") == []


@pytest.mark.parametrize("q", ["對手的<刑期>能結附在我的鵬洛客上嗎?", "對手的【刑期】能結附在我的鵬洛客上嗎?"])
def test_a_chinese_name_of_two_characters_between_a_name_s_marks_is_the_card(question_cards_library, q):
    """Two characters are a common word as often as a name, unless marked: <刑期> is Prison
    Term, as Chinese forums write cards; the angle brackets of a comparison are no marks."""
    names = CardNames(question_cards_library.catalogue)
    assert [c.record.names["en"] for c in names.found(q)] == ["Prison Term"]
    assert names.found("對手的刑期能結附在我的鵬洛客上嗎?") == []
    assert names.found("a creature with power <2 and toughness> 3") == []


def test_without_the_stage_the_names_are_searched_as_words(question_cards_library):
    """The `named_cards` stage, off: no card is listed and the name is the query's words."""
    library = Library(question_cards_library.folder, stages=Stages().without("named_cards"))
    try:
        q = "Can Coax from the Blind Eternities find a Chameleon Colossus in my sideboard?"
        answer = library.search(q, limit=10)
        assert answer["cards"] == []
        parsed, named, _ = library._ranker.named_cards(parse_query(q))
        assert named == [] and "Chameleon" in parsed.text
    finally:
        library.close()


def test_without_the_stage_the_real_questions_rank_their_answers_lower(kb_question_cards_library):
    """The `named_cards` stage's worth, on the knowledge base with the questions' cards: the
    tuning part of the real players' questions ranks its answers lower without it (both
    without the answered questions, which are that part's own)."""
    def mrr(library: Library) -> float:
        found = [rank(library.search(q, limit=10)["results"], targets)
                 for _, q, targets in load(questions_split.REAL_TUNING)]
        return statistics.mean(1 / n if n else 0.0 for n in found)
    unanswered = Stages().without("answered")
    with_it = Library(kb_question_cards_library.folder, stages=unanswered)
    without = Library(kb_question_cards_library.folder, stages=unanswered.without("named_cards"))
    try:
        assert mrr(without) < mrr(with_it)
    finally:
        with_it.close()
        without.close()


def test_the_page_names_the_question_s_cards_with_their_links(question_cards_library):
    app = create_app({"TESTING": True, "INDEX_ROOT": question_cards_library.folder.parent})
    html = app.test_client().get("/?q=Can+Coax+from+the+Blind+Eternities+find+a+Chameleon+Colossus+in+my+deck").text
    assert 'class="cards-named"' in html
    assert '<a href="/cards/scryfall:card:chameleon-colossus" lang="en">Chameleon Colossus</a>' in html


def test_a_card_the_data_lacks_is_a_name_not_rules_words(question_cards_library):
    """A run of capitalised words inside a sentence, one of them no word of the rules, is a
    name (a card the data lacks, a format): not searched. Capitalised rules words are kept."""
    ranker = question_cards_library._ranker
    parsed, named, _ = ranker.named_cards(parse_query("Can Grafted Wargear give protection to Zorgath Quillmaw here?"))
    assert named == [] and parsed.text == "Can give protection to here"
    kept = "Does Deathtouch and Trample work with First Strike on a blocker?"
    assert ranker.named_cards(parse_query(kept))[0] == parse_query(kept)


@pytest.mark.parametrize("q, unknown", [
    ("Zorgath Quillmaw", ["Zorgath Quillmaw"]),  # the whole query written as a name no card holds
    ("Grafted Wargear", ["Grafted Wargear"]),  # not respelt as another card (Grafted Warsinger)
    ("Can Grafted Wargear give protection to Zorgath Quillmaw here?", ["Grafted Wargear", "Zorgath Quillmaw"]),
    ("Chameleon Colossus", []),  # a card the data holds
    ("Combat Damage Step", []),  # a heading of the rules
    ("First Strike", []),  # a glossary term
    ("702.19b", []),
])
def test_the_answer_names_what_reads_as_a_card_the_data_lacks(question_cards_library, q, unknown):
    assert question_cards_library.search(q, script="hant")["unknown_cards"] == unknown


@pytest.mark.parametrize("script, says", [("hant", "牌資料中沒有這張牌"), ("hans", "牌资料中没有这张牌")])
def test_the_page_says_a_card_is_not_in_the_data_and_how_to_add_it(question_cards_library, script, says):
    app = create_app({"TESTING": True, "INDEX_ROOT": question_cards_library.folder.parent})
    html = app.test_client().get(f"/?q=Zorgath+Quillmaw&script={script}").text
    assert f'<p class="unknown-cards"><span lang="zh-{script.title()}">{says}</span>' in html
    assert "mtgrules fetch cards" in html and "「Zorgath Quillmaw」" in html
    assert 'class="did-you-mean"' not in html


@pytest.mark.parametrize("q, spelt", [("Chameleon Colosus", None), ("Lightnin Bolt", None),
                                       ("Chamelon Colossus", "Chameleon Colossus")])
def test_a_misspelt_name_the_data_holds_is_not_called_unknown(question_cards_library, q, spelt):
    """Found by the names' own fuzzy match, or spelt right by the did-you-mean."""
    answer = question_cards_library.search(q, script="hant")
    assert answer["did_you_mean"] == spelt and answer["unknown_cards"] == []


def test_the_start_of_a_term_the_results_hold_is_not_respelt(question_cards_library):
    """prot is Protection being typed: the results hold it, no did-you-mean (rot)."""
    answer = question_cards_library.search("prot", script="hant")
    assert answer["did_you_mean"] is None
    assert answer["results"][0]["title"].endswith("Protection")
    assert question_cards_library.search("protectoin")["did_you_mean"] == "protection"


@pytest.mark.parametrize("q, whole", [
    ("A" + "a" * 60 + " then", False),
    (" ".join(["Fortificationsx"] * 40) + " then", False),
    ("Bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-Ccccccccccccccccccccccccc'ddddddddddddddd Eeeeeeeeeeeeeeeeeeeeee", True),
])
def test_a_long_capitalised_word_is_read_as_a_name_or_not_in_one_pass(q, whole):
    """Whether a whole query reads as a name, and the names in it, without trying every way to
    split a run of letters into words (2^n ways to fail: 60 letters would be centuries). In a
    process of its own, killed after a minute, as a search that never ends would not be."""
    code = ("from indexer.knowledge import named_cards as n; import sys; q = sys.argv[1];"
            "print(n.CardNames.named_whole(q), len(n._RUN.findall(q)))")
    out = subprocess.run([sys.executable, "-c", code, q], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=True)
    assert out.stdout.split()[0] == str(whole)
