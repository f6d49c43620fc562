"""The ranking's stages, in the order a query meets them, each with the evidence it adds.

A query is read (is it a question, which of its words count), its rule numbers jump to their
rules, the engine gives candidates, bonuses add the evidence of an exact answer, a question's
candidates are ranked again by how much of it they hold, and the results are grouped. Each
stage here can be switched off by name (`KB_STAGES_OFF=meanings,siblings`, or a `Stages` given
to a `Library`) to see what it decides; the numbers a stage adds are `Weights`. `explain`
(`Library.search(..., explain=True)`) says, per result, what each scoring stage added.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    name: str
    part: str
    evidence: str


STAGES: tuple[Stage, ...] = (
    # Reading the query.
    Stage("quotations", "reading", "a question's quotations (a card's words it quotes) are its words, not phrases "
                                   "every result must hold"),
    Stage("named_cards", "reading", "a question's cards are read as cards: not their names as rules words, but their "
                                    "keywords, type line and text"),
    Stage("function_words", "reading", "a Chinese query's forms that ask nothing (是, 什么) are cut from what it "
                                       "searches"),
    Stage("asks", "reading", "a query with a question form, or of several of the game's words, is read as a question"),
    Stage("terse", "reading", "a few of the game's words and no question form are a question"),
    Stage("short_english", "reading", "an English question of three concepts is read as a question, not ranked again "
                                      "by its coarse share"),
    Stage("thesaurus", "reading", "players' words stand with the rules' wording for them (data/thesaurus.tsv)"),
    Stage("word_forms", "reading", "an English question's words are read in the forms the rules write them"),
    Stage("todays_holders", "reading", "a Chinese question's forms weigh by how many of today's rules hold them"),
    Stage("dictionary_words", "reading", "a word jieba made up of characters it does not join is read as the "
                                         "dictionary's words in it"),
    # Rule numbers.
    Stage("jump", "jump", "a rule number (or several, or a range) lists its rules, their subrules and what quotes "
                          "them"),
    Stage("named_rules", "jump", "the rules a query names among its words come before what its words find"),
    # Candidates.
    Stage("candidates", "candidates", "the engine's BM25F score, weighed by the record's kind, as a share of the best"),
    Stage("term_texts", "candidates", "a term of several words brings in the texts holding its other forms"),
    Stage("todays_twins", "candidates", "an older edition's match brings in today's same rule at its lowered score"),
    # The evidence of an exact answer: the first four give the best of theirs, the next three
    # add to it, and a definition's bonus is the best of it and what they gave.
    Stage("name", "bonuses", "the query is a card's or plane's name"),
    Stage("obsolete", "bonuses", "the query names an obsolete term: its glossary entry answers"),
    Stage("keyword", "bonuses", "the query is the keyword or heading this rule defines"),
    Stage("title", "bonuses", "the query is part of a heading, by how much of it"),
    Stage("literal", "bonuses", "the query occurs as written in the text"),
    Stage("concept", "bonuses", "the question names a term today's glossary defines by this rule"),
    Stage("coverage", "bonuses", "a question's words occur together in the text, by the share of them"),
    Stage("definition", "bonuses", "a term of today's glossary typed alone: the rules its entry cites"),
    Stage("keyword_subrules", "bonuses", "a keyword's heading rule is followed by its subrules in order"),
    Stage("superseded", "bonuses", "an older edition's record keeps a share of its score unless an edition is asked"),
    Stage("phrases", "bonuses", "a quoted phrase keeps only the records holding it"),
    # A question's candidates ranked again.
    Stage("todays_candidates", "question", "today's rules a search of them alone finds come in as candidates"),
    Stage("glossary_map", "question", "a glossary entry the question finds sends part of its score to the rules it "
                                      "cites"),
    Stage("answered", "question", "a question worded like one asked before: the rules that answered that one "
                                  "(data/answered.tsv)"),
    Stage("meanings", "question", "the question's nearness in meaning to the rule, as a whole text"),
    Stage("word_matches", "question", "each of the question's words' nearest word in the rule"),
    Stage("share", "question", "the share of the question's concepts the record holds, squared"),
    Stage("statements", "question", "an English question's words in the rule's own statement (BM25)"),
    Stage("question_heading", "question", "a rule that is only its heading answers no question: it keeps part of its "
                                          "score"),
    Stage("siblings", "question", "a subrule's place among its siblings: the first say what a rule is"),
    # The results.
    Stage("subrules", "grouping", "a question's results are subrules, each its own result, not their titled rule"),
)
NAMES = tuple(stage.name for stage in STAGES)


@dataclass(frozen=True)
class Stages:
    """Which stages run: every one but those switched `off`."""

    off: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = sorted(self.off - set(NAMES))
        if unknown:
            raise ValueError(f"no stage named {', '.join(unknown)}; the stages are: {', '.join(NAMES)}")

    def on(self, name: str) -> bool:
        return name not in self.off

    def without(self, *names: str) -> Stages:
        return Stages(self.off | set(names))
