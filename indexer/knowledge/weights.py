"""The ranking's weights, in one typed place.

A search score is the engine's BM25F score times the record kind's weight, normalised to the
best candidate, plus bonuses for exact answers. A `Library` takes a `Weights`; a test builds
one with a bonus set to 0 (`dataclasses.replace(Weights(), title=0)`) to see what it decides.
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
    # (benchmarks/question_weights.py), the sealed ones agreeing (docs/benchmarks.md).
    question: float = 1.0
    question_heading: float = 0.5
    # What a keyword ability a question names counts for in its share held by a rule that only
    # lists it among ten or more (`Catalogue.listing_at`, 122.1b): 0, nothing; 1, as in any
    # rule holding it (`Ranker._share`).
    list_items: float = 0.0
    # What a question form's asked-for words (how many: a number) weigh against the question's
    # own words; 0 reads the forms as any other words (`questions`, data/question_forms.tsv).
    question_forms: float = 0.5
    # A Chinese query's question forms that ask nothing (是, 什么, 吗, 的, 上) are cut out of the
    # text every search path reads (the engine, the glossary's terms, the bonuses, the snippets'
    # marks), so that 傳奇規則是什麼 is searched as 傳奇規則 (`QuestionReader.content`); 0: they
    # stay in it (the question's concepts leave them out either way).
    function_words: float = 1.0
    # A query that is a term of today's glossary by its English or Chinese name, typed alone (X,
    # opponent, 特徵) or with question forms only (傳奇規則是什麼, 依存關係是什麼意思), asks what
    # the term is: the rules its entry cites (`Catalogue.definitions`) get this bonus, as a
    # keyword's defining rules get `keyword`; 0: none.
    definition: float = 2.5
    # A Chinese question's Chinese forms weigh by how many of today's rules hold them as
    # written (`TodaysHolders`), as its share holds them, not by the index's count of the
    # segmenter's words (算: rare as a word, in every 结算); 0: by the index's count.
    todays_holders: float = 1.0
    # A Chinese question's word jieba's HMM made up of characters its dictionary does not
    # join (再放, 会输: a question form glued to a word) read as the dictionary's words in it
    # (`QuestionReader._own_words`); 0: as it was cut.
    dictionary_words: float = 1.0
    # Players' words stand with the rules' wording for the same thing (data/thesaurus.tsv); 0: not.
    thesaurus: float = 1.0
    # An English question's words as the forms the rules write them in: each of its own words
    # read once by the analyzer, not a stem's stem (concede: conced, not conc, which no rule
    # holds) (`QuestionReader._word`); 0: read again.
    word_forms: float = 1.0
    # For a question, the best of today's rules from a search of them alone, and what share of
    # the best one's score they come in at (`Ranker._todays_rules`).
    todays_candidates: int = 75
    todays_share: float = 1.0
    # A question's share of a glossary entry's score its cited rules get (the rules' glossary as
    # a map of concepts); 0: none.
    glossary_map: float = 0.25
    # A question's nearness in meaning to today's rules (`meanings`: its words' vectors against
    # each rule's): what a candidate's cosine, as a share of the nearest candidate's, adds; 0:
    # nothing, and no vectors are made.
    meanings: float = 0.5
    # The same, word by word: each of the question's words' nearest word in the rule (`meanings`,
    # `Meanings.word_matches`), as a share of the best candidate's; 0: not read.
    word_matches: float = 0.5
    # A question's results by subrule (903.9a, with its other editions), each its own result,
    # as a question's answer is one subrule and a better-ranked sibling hid it; 0: by titled
    # rule (117 Timing and Priority with all its paragraphs), as a look-up's are.
    subrules: float = 1.0
    # A terse query, two or more of the game's words and no question form (trample deathtouch
    # damage, 踐踏 死觸 傷害), read as a question (`QuestionReader.asks`); 0: a query of fewer
    # words than a question's is a look-up.
    terse: float = 1.0
    # Among a question's candidates of one result (a paragraph's or a keyword's subrules), what
    # a subrule's place among its siblings (0 first, towards 1 last) takes from its score when
    # the group's members are ordered again: a rule's first subrules say what it is, the later
    # ones its variants and exceptions (`siblings`); 0: the scores alone order them, and no
    # places are worked out.
    siblings: float = 0.3
    # An English question's concepts counted in each candidate's own statement, the rule's
    # English text without its examples, heading or translation (`statements`: BM25 with its
    # own saturation and a light length normalisation), as a share of the best candidate's;
    # it parts the candidates that hold the same share of the question, which the engine's
    # score of all a record holds ordered before. 0: not read, and no statements are kept.
    statements: float = 0.3
    # An English query of three concepts with a question form (who, when, can a) read as a
    # question, its candidates not ranked again by its coarse share of three concepts
    # (`QuestionReader.short`); 0: a look-up, as an English query needs four concepts.
    short_english: float = 1.0
    # What a rule or glossary entry of an edition older than today's keeps of its score,
    # unless the query names an edition.
    superseded: float = 0.3
    # Other forms of a glossary term, relative to the literal query (half for a variant form).
    expansion: float = 0.5
    # The keyword bonus's share for a defining rule when the query is only a variant form.
    variant_definition: float = 0.15
    # How many of the engine's best documents the bonuses are applied to.
    candidates: int = 200
