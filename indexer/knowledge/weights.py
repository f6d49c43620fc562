"""The ranking's weights, in one typed place: numbers only.

A search score is the engine's BM25F score times the record kind's weight, normalised to the
best candidate, plus bonuses for exact answers. A `Library` takes a `Weights`
(`dataclasses.replace(Weights(), title=0.5)`); what switches a stage off is `stages.Stages`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


def _kind_weights() -> Mapping[str, float]:
    return MappingProxyType({"rule": 1.0, "card": 1.0, "planar_card": 1.0, "section": 0.85, "term": 0.15})


@dataclass(frozen=True)
class Weights:
    # How much of the engine's score each kind keeps: a rule ranks above a passage that
    # quotes it, and a glossary entry (a page of translations) below both.
    kind: Mapping[str, float] = field(default_factory=_kind_weights)
    # Added to the score for an exact answer to the query.
    name: float = 3.0          # the query is a card's or plane's name
    keyword: float = 2.5       # the query is the keyword this rule defines (its heading)
    literal: float = 0.3       # the query occurs as written (script and case folded) in the text
    title: float = 0.9         # the query is in a heading (scaled by how much of the heading it is)
    obsolete: float = 3.0      # the query names an obsolete term: its glossary entry is the answer
    coverage: float = 0.6      # a question's words all occur in the text (scaled by the share that do)
    concept: float = 1.0       # the question names a term today's glossary defines by this rule
    # A question's candidates again by the share of its concepts each holds, squared
    # (`questions`); and what a rule that is only its heading keeps of its score for a question.
    # These and the next two levers' weights are learned on the tuning questions
    # (benchmarks/question_weights.py), the sealed ones agreeing (docs/decisions/0025-question-weights-learned.md).
    share: float = 1.0
    question_heading: float = 0.5
    # What a keyword ability a question names counts for in its share held by a rule that only
    # lists it among ten or more (`ConceptTables.listing_at`, 122.1b): 0, nothing; 1, as in any
    # rule holding it (`QuestionRanking._share`).
    list_items: float = 0.0
    # What a question form's asked-for words (how many: a number) weigh against the question's
    # own words; 0 reads the forms as any other words (`questions`, data/question_forms.tsv).
    question_forms: float = 0.5
    # A query that is a term of today's glossary by its English or Chinese name, typed alone (X,
    # opponent, 特徵) or with question forms only (傳奇規則是什麼, 依存關係是什麼意思), asks what
    # the term is: the rules its entry cites (`ConceptTables.definitions`) get this bonus, as a
    # keyword's defining rules get `keyword`.
    definition: float = 2.5
    # For a question, the best of today's rules from a search of them alone, and what share of
    # the best one's score they come in at (`QuestionRanking._todays_rules`).
    todays_candidates: int = 75
    todays_share: float = 1.0
    # A question's share of a glossary entry's score its cited rules get (the rules' glossary as
    # a map of concepts).
    glossary_map: float = 0.25
    # What a question's BM25 in the questions a rule answered before (`answered`), as a share of the
    # best rule's, adds to the rule's score.
    answered: float = 0.6
    # A question's nearness in meaning to today's rules (`meanings`: its words' vectors against
    # each rule's): what a candidate's cosine, as a share of the nearest candidate's, adds.
    meanings: float = 0.5
    # The same, word by word: each of the question's words' nearest word in the rule (`meanings`,
    # `Meanings.word_matches`), as a share of the best candidate's.
    word_matches: float = 0.5
    # Among a question's candidates of one result (a paragraph's or a keyword's subrules), what
    # a subrule's place among its siblings (0 first, towards 1 last) takes from its score when
    # the group's members are ordered again: a rule's first subrules say what it is, the later
    # ones its variants and exceptions (`siblings`).
    siblings: float = 0.3
    # An English question's concepts counted in each candidate's own statement, the rule's
    # English text without its examples, heading or translation (`statements`: BM25 with its
    # own saturation and a light length normalisation), as a share of the best candidate's;
    # it parts the candidates that hold the same share of the question, which the engine's
    # score of all a record holds ordered before.
    statements: float = 0.3
    # What a rule or glossary entry of an edition older than today's keeps of its score,
    # unless the query names an edition.
    superseded: float = 0.3
    # Other forms of a glossary term, relative to the literal query (half for a variant form).
    expansion: float = 0.5
    # What the keywords, type line and Oracle text of the cards a question names weigh against
    # its own words: chosen on the real questions' tuning part in folds, with their cards
    # (benchmarks.answered_folds --weight card_context=...; hit@5 flat from 0.6 to 1.0).
    card_context: float = 0.7
    # The keyword bonus's share for a defining rule when the query is only a variant form.
    variant_definition: float = 0.15
    # How many of the engine's best documents the bonuses are applied to.
    candidates: int = 200
