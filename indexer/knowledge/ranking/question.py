"""A question's candidates ranked again by how much of it each holds: today's rules a search
of them alone finds, the rules the glossary entries it finds cite, its nearness in meaning,
the share of its concepts held, an English question's words in a rule's own statement, a
heading alone answering nothing, a subrule's place among its siblings (stages asks to
siblings)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexer.documents.chinese import HAN_RUN
from indexer.documents.records import rules_file_source
from indexer.search.analysis import Segmenter
from indexer.search.engine import EngineQuery, SearchBackend
from indexer.search.query import ParsedQuery

from ..answered import Answered, AnsweredQuestion
from ..catalogue import Catalogue
from ..explain import Trace
from ..meanings import Meanings, WordVectors
from ..questions import Concept, QuestionRanker, QuestionReader
from ..siblings import Siblings
from ..stages import Stages
from ..statements import Statements
from ..weights import Weights
from .scoring import from_least_to_best, passes, record, share_of_best, with_added

# How many of the best candidates a question's words are looked for in.
QUESTION_CANDIDATES = 60


class QuestionRanking:
    def __init__(self, engine: SearchBackend, catalogue: Catalogue, weights: Weights, stages: Stages,
                 questions: QuestionReader, segmenter: Segmenter, answered: Sequence[AnsweredQuestion]):
        self.engine, self.catalogue = engine, catalogue
        self.weights, self.stages = weights, stages
        self.questions = questions
        self._answers = QuestionRanker(catalogue.holding)
        self._meanings = (Meanings.of_todays_rules(catalogue, WordVectors(), segmenter)
                          if stages.on("meanings") or stages.on("word_matches") else None)
        self._siblings = Siblings(catalogue, catalogue.placement.paragraph_group_at) if stages.on("siblings") else None
        # The forms of the keyword abilities a list rule names, as a question's concepts have
        # them (`_share`).
        self._listed_forms = {form for name in catalogue.concepts.listed_keywords
                              for concept in questions.read(name)[:1] for form in concept.forms}
        # Today's rules' English statements as an English question's words are scored in
        # them (`statements`; None when that stage is off); the offline copy ships their mean length.
        self.statements = Statements(catalogue) if stages.on("statements") else None
        # The questions today's rules answered (`answered`; None when that stage is off).
        self.answered = Answered(catalogue, answered, questions.read) if stages.on("answered") else None

    def rerank(self, parsed: ParsedQuery, engine_query: EngineQuery, docs: np.ndarray,
                scores: np.ndarray, trace: Trace | None) -> tuple[np.ndarray, np.ndarray]:
        """A question's best candidates again, by how much of the question each holds
        (`questions`): the share of its concepts' weight, squared, so that holding all of it
        counts for much more than holding half (not for an English question of three
        concepts, whose share is too coarse: `QuestionReader.short`); for an English question, how well each
        rule's own statement holds its words (`statements`, BM25 over the statement alone,
        as a share of the best candidate's); a heading alone answers no question. Its
        candidates' scores are rescaled first, the best to 1 (recorded as `asks`)."""
        weights, on = self.weights, self.stages.on
        text = parsed.terms_text()
        if not len(docs):
            return docs, scores
        concepts = self.questions.read(text)
        scores = scores / (scores.max() or 1.0)
        record(trace, "asks", docs, scores)
        if on("todays_candidates") and "edition" not in parsed.filters and "source" not in parsed.filters:
            docs, scores = self._todays_rules(engine_query, self.questions.wordings(text), docs, scores)
            record(trace, "todays_candidates", docs, scores)
        if on("glossary_map"):
            docs, scores = self._cited_by_terms(docs, scores, parsed.filters)
            record(trace, "glossary_map", docs, scores)
        if (self.answered is not None and not {"edition", "source"} & parsed.filters.keys()
                and not self.questions.short(text)):
            docs, scores = self._answered_before(concepts, docs, scores, parsed.filters)
            record(trace, "answered", docs, scores)
        if self._meanings is not None:
            docs, scores = self._with_meanings(parsed.typed or text, docs, scores, trace)
        best = np.argsort(-scores, kind="stable")
        if "edition" not in parsed.filters:
            # Older editions' texts were folded into today's twins; they do not compete again.
            best = best[~self.catalogue.placement.superseded_at[docs[best]]]
        best = best[:QUESTION_CANDIDATES]
        if on("share") and not self.questions.short(text):
            scores[best] += weights.share * self._share(concepts, docs[best]) ** 2
            record(trace, "share", docs, scores)
        if self.statements is not None and not HAN_RUN.search(text):
            scores[best] += weights.statements * share_of_best(self.statements.scores(concepts, docs[best]))
            record(trace, "statements", docs, scores)
        if on("question_heading"):
            scores[best[self.catalogue.placement.heading_at[docs[best]]]] *= weights.question_heading
            record(trace, "question_heading", docs, scores)
        if self._siblings is not None:
            scores[best] = self._siblings.reorder(docs[best], scores[best], weights.siblings)
            record(trace, "siblings", docs, scores)
        return docs, scores

    def _share(self, concepts: tuple[Concept, ...], positions: np.ndarray) -> np.ndarray:
        """The share of the question each candidate holds (`QuestionRanker.coverage`), but a
        rule that lists keyword abilities (`ConceptTables.listing_at`: 122.1b, the keywords a
        keyword counter can be) holds the question's keyword abilities as items of its list
        only, each at `Weights.list_items` of its weight: two keywords typed together ask how
        they meet, which a list of fifteen does not say, and its other words (a keyword
        counter) still count in full."""
        share = self._answers.coverage(concepts, positions.tolist())
        listing = np.flatnonzero(self.catalogue.concepts.listing_at[positions])
        if not len(listing):
            return share
        items = tuple(c for c in concepts if self._listed_forms.intersection(c.forms))
        if not items:
            return share
        others = tuple(c for c in concepts if c not in items)
        lists = positions[listing].tolist()
        held = self._answers.held(others, lists) + self.weights.list_items * self._answers.held(items, lists)
        share[listing] = held / sum(c.weight for c in concepts)
        return share

    def _with_meanings(self, text: str, docs: np.ndarray, scores: np.ndarray,
                       trace: Trace | None) -> tuple[np.ndarray, np.ndarray]:
        """A question's candidates, each with its nearness in meaning to it added, as a whole
        text (`meanings`) and word by word (`word_matches`), each as a share of the nearest
        candidate's: the rule worded unlike the question comes up. (The nearest rules the
        engine did not find, brought in as candidates too, changed no question's first ten:
        docs/decisions/0037-word-meanings.md.)"""
        assert self._meanings is not None
        weights, on = self.weights, self.stages.on
        if on("meanings"):
            scores = scores + weights.meanings * share_of_best(self._meanings.cosines(text, docs))
            record(trace, "meanings", docs, scores)
        if on("word_matches"):
            # Read for the best candidates only, as the question's share is (`_rerank`).
            best = np.argsort(-scores, kind="stable")[:QUESTION_CANDIDATES]
            near = np.zeros(len(docs))
            near[best] = from_least_to_best(self._meanings.word_matches(text, docs[best]))
            scores = scores + weights.word_matches * near
            record(trace, "word_matches", docs, scores)
        return docs, scores

    def _todays_rules(self, engine_query: EngineQuery, wordings: list[str], docs: np.ndarray,
                      scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Today's rules the question's words find, from a search of today's rules alone: in
        a search of every edition, seven editions of each rule and the documents share the
        candidates, and today's answer may be the three hundredth. They come in at their own
        engine score's share of the best one's, under what the whole search gave them. The
        rules' wording of players' words (`QuestionReader.wordings`) is searched too, at the
        weight of a glossary term's other forms."""
        catalogue = self.catalogue
        if catalogue.current_edition is None:  # no rules file: no rules of today's
            return docs, scores
        terms = [*engine_query.terms, *((w, self.weights.expansion) for w in wordings)]
        query = EngineQuery(terms=terms, filters={**engine_query.filters,
                                                  "source": rules_file_source(catalogue.current_edition)})
        found, found_scores = self.engine.positions(query, self.weights.todays_candidates)
        if not len(found):
            return docs, scores
        total = np.zeros(len(catalogue.by_position))
        member = np.zeros(len(catalogue.by_position), bool)
        total[found] = found_scores / (found_scores.max() or 1.0) * self.weights.todays_share
        member[found] = True
        total[docs] = np.maximum(total[docs], scores)
        member[docs] = True
        docs = np.flatnonzero(member)
        return docs, total[docs]

    def _answered_before(self, concepts: tuple[Concept, ...], docs: np.ndarray, scores: np.ndarray,
                         filters: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
        """The question's BM25 in the questions each of today's rules answered (`Answered`), as a
        share of the best, added to the rules' scores; a rule the engine did not find comes in.
        Not for an English question of three concepts (`QuestionReader.short`), whose share
        of them is too coarse: any rule that answered a question holding all three would be
        the best."""
        assert self.answered is not None
        added = share_of_best(self.answered.scores(concepts)) * self.weights.answered
        held = added > 0
        positions, added = self.answered.positions[held], added[held]
        if filters:
            kept = [passes(self.catalogue.by_position[at], filters) for at in positions.tolist()]
            positions, added = positions[kept], added[kept]
        if not len(positions):
            return docs, scores
        return with_added(docs, scores, positions, added, len(self.catalogue.by_position))

    def _cited_by_terms(self, docs: np.ndarray, scores: np.ndarray,
                        filters: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
        """The rules' glossary as a map of a question's concepts: a glossary entry the
        question's words find (its name and definition) sends part of its score to the rules
        it cites ("Dies ... See rule 700.4"), which come in as candidates if they were not."""
        catalogue, share = self.catalogue, self.weights.glossary_map
        sent: dict[int, float] = {}
        for at, score in zip(docs.tolist(), scores.tolist(), strict=True):
            for cited in catalogue.concepts.cited_at.get(at, ()):
                sent[cited] = max(sent.get(cited, 0.0), share * score)
        if filters:
            sent = {at: v for at, v in sent.items() if passes(catalogue.by_position[at], filters)}
        if not sent:
            return docs, scores
        return with_added(docs, scores, np.fromiter(sent, np.int64, len(sent)),
                          np.fromiter(sent.values(), np.float64, len(sent)), len(catalogue.by_position))
