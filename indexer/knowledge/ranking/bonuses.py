"""The evidence of an exact answer: a card's name, an obsolete term, the keyword or heading a
rule defines, part of a heading, the query as written, a question's glossary terms and words,
a term of today's glossary typed alone; and a keyword's heading followed by its subrules
(stages name to keyword_subrules)."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.search.folding import fold_key

from ..catalogue import Catalogue
from ..expansion import QUESTION_WORDS, QueryExpander
from ..explain import Trace
from ..stages import Stages
from ..weights import Weights
from .scoring import passes, record

# Subrules after their keyword's heading rule, in rule order.
SUBRULE_STEP = 0.001
# The longest glossary term a question is searched for (Two-Headed Giant Variant is four words).
CONCEPT_WORDS = 4
QUERY_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")


class Bonuses:
    def __init__(self, catalogue: Catalogue, expander: QueryExpander, weights: Weights, stages: Stages,
                 kind_weight: np.ndarray):
        self.catalogue, self.expander = catalogue, expander
        self.weights, self.stages = weights, stages
        self._kind_weight = kind_weight

    def added(self, docs: np.ndarray, scores: np.ndarray, text: str, key: str, forms: list[str],
                      filters: dict[str, str], trace: Trace | None) -> tuple[np.ndarray, np.ndarray]:
        """The candidates with their bonuses (`_bonuses`) added, and the records a bonus
        alone brings in (a keyword's heading rule the engine ranked low), each keyword's
        heading followed by its subrules. A query that is a term of today's glossary, typed
        alone (X, opponent, 特徵) or with question forms cut (`content`: 傳奇規則是什麼), asks
        what that term is: the rules its entry cites answer it ("See rule 107.3"), a bare
        heading by its subrules that use the term (`ConceptTables.definitions`)."""
        catalogue = self.catalogue
        heads = self._heads(text)
        # The text bonuses read each candidate's text: those of an edition-limited search,
        # a whole edition's matches, go to its best `candidates` as a search's do.
        read = docs[:self.weights.candidates] if "edition" in filters else docs

        def recorded(stage: str, bonus: np.ndarray, given: np.ndarray) -> None:
            if trace is not None:  # every score as it would be were the bonuses to stop here
                total = np.zeros(len(catalogue.by_position))
                total[docs] = scores
                total[given] += bonus[given]
                member = given.copy()
                member[docs] = True
                trace.record(stage, np.flatnonzero(member), total[member])

        bonus, given = self._bonuses(text, key, heads, read.tolist(), forms, recorded)
        if self.stages.on("definition"):
            for record_id in catalogue.concepts.definitions.get(key, ()):
                at = catalogue.positions[record_id]
                bonus[at] = max(bonus[at], self.weights.definition)
                given[at] = True
            recorded("definition", bonus, given)
        if filters:
            for at in np.flatnonzero(given).tolist():
                given[at] = passes(catalogue.by_position[at], filters)
        total = np.zeros(len(catalogue.by_position))
        total[docs] = scores
        bonused = np.flatnonzero(given)
        total[bonused] += bonus[bonused]
        member = given
        member[docs] = True
        if self.stages.on("keyword_subrules"):
            self._subrules_after_heads(heads, total, member, filters)
        docs = np.flatnonzero(member)
        if self.stages.on("keyword_subrules"):
            record(trace, "keyword_subrules", docs, total[docs])
        return docs, total[docs]

    def _subrules_after_heads(self, heads: list[str], total: np.ndarray, member: np.ndarray,
                              filters: dict[str, str]) -> None:
        """A keyword's heading rule among the ranked records is followed by its subrules, in
        rule order, each a step below the one before (`SUBRULE_STEP`): a reader who asked
        for persist reads 702.79 and then 702.79a, b, c."""
        catalogue = self.catalogue
        for head_id in heads:
            head_at = catalogue.positions[head_id]
            if member[head_at]:
                head = catalogue.by_position[head_at]
                for i, child in enumerate(catalogue.children(head.number, head.edition, head.source), 1):
                    if passes(child, filters):
                        child_at = catalogue.positions[child.id]
                        total[child_at] = total[head_at] - SUBRULE_STEP * i
                        member[child_at] = True

    def _heads(self, text: str) -> list[str]:
        """The heading rules of the keywords the query names."""
        return [head_id for keyword in self.expander.keywords(text)
                for head_id in self.catalogue.keyword_heads.get(keyword, [])]

    def _bonuses(self, text: str, key: str, heads: list[str], candidates: list[int], forms: Sequence[str],
                 recorded: Callable[[str, np.ndarray, np.ndarray], None]) -> tuple[np.ndarray, np.ndarray]:
        """Each record's bonus for answering the query exactly, by position, and which
        records have one: the best of name, obsolete term, keyword and heading, plus the
        literal-text bonus for candidates holding the query as written (or, for a term of
        several words, one of its other forms) and the coverage bonus for those holding the
        words of a question. Arrays: the literal and coverage bonuses go to many candidates.
        `recorded(stage, bonus, given)` is told the bonuses as they stand after each stage."""
        weights, catalogue, on = self.weights, self.catalogue, self.stages.on
        bonus, given = np.zeros(len(catalogue.by_position)), np.zeros(len(catalogue.by_position), bool)

        def at_least(record_id: str, value: float) -> None:
            at = catalogue.positions[record_id]
            bonus[at] = max(bonus[at], value)
            given[at] = True

        if on("name"):
            for record_id in catalogue.names.get(key, []):
                if catalogue.records[record_id].kind != "term":
                    at_least(record_id, weights.name)
            recorded("name", bonus, given)
        if on("obsolete"):
            for record_id in catalogue.obsolete.get(fold_key(OBSOLETE_MARK.sub("", text)), []):
                at_least(record_id, weights.obsolete)
            recorded("obsolete", bonus, given)
        if on("keyword"):
            for record_id, weight in self.expander.defining_rules(text):
                at_least(record_id, weights.keyword * weight)
            for head_id in heads:
                at_least(head_id, weights.keyword)
            for record_id in catalogue.titles.get(key, []):
                at_least(record_id, weights.keyword)
            recorded("keyword", bonus, given)
        if on("title"):
            for title_key in catalogue.titles_containing(key) if len(key) >= 2 else []:
                if title_key != key:
                    for record_id in catalogue.titles[title_key]:
                        at_least(record_id, weights.title * len(key) / len(title_key))
            recorded("title", bonus, given)
        if len(key) >= 2 and on("literal"):
            holding: set[int] = set()
            for literal in [key, *(f for f in map(fold_key, forms) if len(f) >= 2)]:
                holding.update(catalogue.holding(candidates, literal.encode()))
            found = np.fromiter(holding, np.int64, len(holding))
            bonus[found] += weights.literal * self._kind_weight[found]
            given[found] = True
            recorded("literal", bonus, given)
        spoken = QUERY_WORD.findall(text.lower())
        words = [fold_key(w) for w in dict.fromkeys(spoken) if w not in QUESTION_WORDS]
        if len(words) >= 2 and on("concept"):
            for record_id, share in self._concepts(spoken, len(words)).items():
                at = catalogue.positions[record_id]
                bonus[at] += weights.concept * share
                given[at] = True
            recorded("concept", bonus, given)
        if len(words) >= 2 and on("coverage"):
            held = [at for found in catalogue.holding_each(candidates, [w.encode() for w in words]) for at in found]
            found, count = np.unique(np.array(held, np.int64), return_counts=True)
            shares = count / len(words)
            bonus[found] += weights.coverage * shares ** 2 * self._kind_weight[found]
            given[found] = True
            recorded("coverage", bonus, given)
        return bonus, given

    def _concepts(self, spoken: list[str], subject_words: int) -> dict[str, float]:
        """Rules today's glossary cites for the terms of two words or more a question names
        ("how does the legend rule work": Legend Rule, 704.5j), each with the share of the
        question's subject words the term's name takes. A one-word term (priority, creature)
        names too much to point at its rules: the heading bonuses find those."""
        found: dict[str, float] = {}
        for n in range(min(CONCEPT_WORDS, len(spoken)), 1, -1):
            for at in range(len(spoken) - n + 1):
                words = spoken[at:at + n]
                if all(w in QUESTION_WORDS for w in words):
                    continue
                share = min(1.0, sum(w not in QUESTION_WORDS for w in words) / subject_words)
                for record_id in self.catalogue.concepts.cited.get(fold_key(" ".join(words)), ()):
                    found[record_id] = max(found.get(record_id, 0.0), share)
        return found
