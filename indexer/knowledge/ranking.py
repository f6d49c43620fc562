"""Ranking: the engine's candidates scored by kind, plus bonuses for exact answers.

The keyword a rule defines, a heading that is (or holds) the query, an obsolete term's name,
the query's literal text and a question's words found together each add a bonus from
`Weights`; a keyword's heading rule is followed by its subrules. Today's rules come first: an
older edition's candidate brings in today's same rule and keeps only part of its own score,
unless the query names an edition. A rule number skips all of that: the rule, its subrules,
then what cites it.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from indexer.documents.chinese import HAN_RUN
from indexer.documents.comprules import OBSOLETE_MARK
from indexer.documents.records import Record, rules_file_source
from indexer.documents.references import rule_sort_key
from indexer.search.analysis import Segmenter
from indexer.search.engine import EngineQuery, SearchBackend
from indexer.search.folding import fold_key
from indexer.search.query import ParsedQuery

from .catalogue import Catalogue
from .display import record_title
from .expansion import QUESTION_WORDS, QueryExpander
from .explain import Trace
from .meanings import Meanings, WordVectors
from .questions import Concept, QuestionRanker, QuestionReader
from .siblings import Siblings
from .stages import Stages
from .statements import Statements
from .weights import Weights

# Subrules after their keyword's heading rule, in rule order.
SUBRULE_STEP = 0.001

# Ranked records: their positions in the catalogue, best first.
Ranked = np.ndarray
# How many of the best candidates a question's words are looked for in.
QUESTION_CANDIDATES = 60
# The longest glossary term a question is searched for (Two-Headed Giant Variant is four words).
CONCEPT_WORDS = 4
QUERY_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")


def passes(record: Record, filters: dict[str, str]) -> bool:
    """Whether a record meets every filter of the query (`kind:`, `source:`, `edition:`, `lang:`;
    an edition as `Catalogue.edition_filter` resolved it: `edition:2008` is 2008-05-01)."""
    for name, value in filters.items():
        if name == "lang":
            if value not in record.languages():
                return False
        elif str(getattr(record, name) or "").lower() != value:
            return False
    return True


class Ranker:
    def __init__(self, engine: SearchBackend, catalogue: Catalogue, expander: QueryExpander, weights: Weights,
                 stages: Stages, questions: QuestionReader, segmenter: Segmenter):
        self.engine = engine
        self.catalogue = catalogue
        self.expander = expander
        self.weights, self.stages = weights, stages
        self.questions = questions
        self._answers = QuestionRanker(catalogue.holding)
        self._meanings = (Meanings.of_todays_rules(catalogue, WordVectors(), segmenter)
                          if stages.on("meanings") or stages.on("word_matches") else None)
        self._siblings = Siblings(catalogue, catalogue.paragraph_group_at) if stages.on("siblings") else None
        # The forms of the keyword abilities a list rule names, as a question's concepts have
        # them (`_share`).
        self._listed_forms = {form for name in catalogue.listed_keywords
                              for concept in questions.read(name)[:1] for form in concept.forms}
        # Today's rules' English statements as an English question's words are scored in
        # them (`statements`; None when that stage is off); the offline copy ships their mean length.
        self.statements = Statements(catalogue) if stages.on("statements") else None
        # How much of the engine's score each record keeps for its kind, by position.
        self._kind_weight = np.array([weights.kind[r.kind] for r in catalogue.by_position], np.float64)

    def ranked(self, parsed: ParsedQuery, engine_query: EngineQuery, asked: bool,
               trace: Trace | None = None) -> Ranked:
        """The candidates ranked, best first, as record positions: the engine's score by kind,
        today's twins of older editions' matches, the bonuses for exact answers with a
        keyword's subrules after it, the superseded share, the phrases' check, then the
        order, a question's candidates again by how much of it they hold (`_rerank`, when
        `asked`: `asks`). Each step reads and gives (positions, scores) arrays, and is a
        stage of `stages.STAGES` (its scores after it recorded in `trace`, when given)."""
        on = self.stages.on
        text = parsed.terms_text()
        forms = self.expander.term_forms(text)
        # An edition-limited search ranks every record of that edition that matches: an
        # edition is a few thousand records, and a judge reading an old edition asks for all
        # it says on the words, not for the best few hundred of them.
        limit = len(self.catalogue.by_position) if "edition" in parsed.filters else self.weights.candidates
        docs, scores = self._candidates(engine_query, forms if on("term_texts") else [], limit, trace)
        if "edition" not in parsed.filters and on("todays_twins"):
            docs, scores = self._with_todays_twins(docs, scores, parsed.filters)
            _record(trace, "todays_twins", docs, scores)
        key = fold_key(text)
        # A glossary heading typed as written, with its quotation marks (Intervening “If”
        # Clause), names the term: its quoted word is still held, and the term's bonuses apply.
        whole = fold_key(parsed.raw) if parsed.phrases and not parsed.filters else ""
        named = whole in self.catalogue.definitions
        if named:
            key = whole
        if key and (named or not parsed.phrases):
            docs, scores = self._with_bonuses(docs, scores, text, key, forms, parsed.filters, trace)
        if "edition" not in parsed.filters and on("superseded"):
            scores[self.catalogue.superseded_at[docs]] *= self.weights.superseded
            _record(trace, "superseded", docs, scores)
        if parsed.phrases and on("phrases"):
            docs, scores = self._holding_phrases(docs, scores, parsed.phrases)
        if asked:
            docs, scores = self._rerank(parsed, engine_query, docs, scores, trace)
        # Best first, equal scores in rule order (`Catalogue.rule_order_at`).
        return docs[np.lexsort((self.catalogue.rule_order_at[docs], -scores))]

    def _candidates(self, engine_query: EngineQuery, forms: list[str], limit: int,
                    trace: Trace | None) -> tuple[np.ndarray, np.ndarray]:
        """The engine's best `limit` records, each score weighted by the record's kind, with
        the texts of a several-word term's other forms (`_add_term_texts`), scaled so that
        the best is 1: the bonuses are fractions of that."""
        if not self.stages.on("candidates"):
            return np.zeros(0, np.int64), np.zeros(0)
        docs, scores = self.engine.positions(engine_query, limit)
        scores = scores * self._kind_weight[docs]
        if trace is not None and len(scores):  # (term texts come in level with the best: the same scale)
            trace.record("candidates", docs, scores / (scores.max() or 1.0))
        if forms:
            docs, scores = self._add_term_texts(docs, scores, forms, engine_query.filters, limit)
        if len(scores):
            scores = scores / (scores.max() or 1.0)
        if forms:
            _record(trace, "term_texts", docs, scores)
        return docs, scores

    def _with_todays_twins(self, docs: np.ndarray, scores: np.ndarray,
                           filters: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
        """Older editions repeat today's texts and can crowd today's record out of the
        candidates: an older edition's match brings in today's same rule, at the older one's
        lowered score, so that the result shows today's (for quoted words, where today's text
        still holds them). A twin two candidates share comes with the better one's."""
        catalogue = self.catalogue
        twins = catalogue.twin_at[docs]
        candidate = np.zeros(len(catalogue.by_position) + 1, bool)  # the last: no twin (-1)
        candidate[docs] = candidate[-1] = True
        missing = np.flatnonzero(~candidate[twins])
        if not len(missing):  # (every twin a candidate already: the documents alone have none)
            return docs, scores
        first: dict[int, int] = {}  # each twin once, with the first candidate of it
        for at, twin in zip(missing.tolist(), twins[missing].tolist(), strict=True):
            first.setdefault(twin, at)
        brought = np.fromiter(first.values(), np.int64, len(first))
        if filters:
            brought = np.array([i for i in brought.tolist()
                                if passes(catalogue.by_position[twins[i]], filters)], np.int64)
        brought_scores = scores[brought] * self.weights.superseded
        return np.concatenate([docs, twins[brought]]), np.concatenate([scores, brought_scores])

    def _with_bonuses(self, docs: np.ndarray, scores: np.ndarray, text: str, key: str, forms: list[str],
                      filters: dict[str, str], trace: Trace | None) -> tuple[np.ndarray, np.ndarray]:
        """The candidates with their bonuses (`_bonuses`) added, and the records a bonus
        alone brings in (a keyword's heading rule the engine ranked low), each keyword's
        heading followed by its subrules. A query that is a term of today's glossary, typed
        alone (X, opponent, 特徵) or with question forms cut (`content`: 傳奇規則是什麼), asks
        what that term is: the rules its entry cites answer it ("See rule 107.3"), a bare
        heading by its subrules that use the term (`Catalogue.definitions`)."""
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
            for record_id in catalogue.definitions.get(key, ()):
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
            _record(trace, "keyword_subrules", docs, total[docs])
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

    def _holding_phrases(self, docs: np.ndarray, scores: np.ndarray,
                         phrases: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The ranked records whose texts hold every phrase. Phrases match in the folded text:
        script, case, width, spacing and punctuation do not matter (a phrase that crossed a
        line wrap in the source still matches)."""
        kept = docs.tolist()
        for phrase in phrases:
            kept = self.catalogue.holding(kept, fold_key(phrase).encode())
        keep = np.zeros(len(self.catalogue.by_position), bool)
        keep[kept] = True
        return docs[keep[docs]], scores[keep[docs]]

    def _rerank(self, parsed: ParsedQuery, engine_query: EngineQuery, docs: np.ndarray,
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
        _record(trace, "asks", docs, scores)
        if on("todays_candidates") and "edition" not in parsed.filters and "source" not in parsed.filters:
            docs, scores = self._todays_rules(engine_query, self.questions.wordings(text), docs, scores)
            _record(trace, "todays_candidates", docs, scores)
        if on("glossary_map"):
            docs, scores = self._cited_by_terms(docs, scores, parsed.filters)
            _record(trace, "glossary_map", docs, scores)
        if self._meanings is not None:
            docs, scores = self._with_meanings(parsed.typed or text, docs, scores, trace)
        best = np.argsort(-scores, kind="stable")
        if "edition" not in parsed.filters:
            # Older editions' texts were folded into today's twins; they do not compete again.
            best = best[~self.catalogue.superseded_at[docs[best]]]
        best = best[:QUESTION_CANDIDATES]
        if on("share") and not self.questions.short(text):
            scores[best] += weights.share * self._share(concepts, docs[best]) ** 2
            _record(trace, "share", docs, scores)
        if self.statements is not None and not HAN_RUN.search(text):
            scores[best] += weights.statements * _share_of_best(self.statements.scores(concepts, docs[best]))
            _record(trace, "statements", docs, scores)
        if on("question_heading"):
            scores[best[self.catalogue.heading_at[docs[best]]]] *= weights.question_heading
            _record(trace, "question_heading", docs, scores)
        if self._siblings is not None:
            scores[best] = self._siblings.reorder(docs[best], scores[best], weights.siblings)
            _record(trace, "siblings", docs, scores)
        return docs, scores

    def _share(self, concepts: tuple[Concept, ...], positions: np.ndarray) -> np.ndarray:
        """The share of the question each candidate holds (`QuestionRanker.coverage`), but a
        rule that lists keyword abilities (`Catalogue.listing_at`: 122.1b, the keywords a
        keyword counter can be) holds the question's keyword abilities as items of its list
        only, each at `Weights.list_items` of its weight: two keywords typed together ask how
        they meet, which a list of fifteen does not say, and its other words (a keyword
        counter) still count in full."""
        share = self._answers.coverage(concepts, positions.tolist())
        listing = np.flatnonzero(self.catalogue.listing_at[positions])
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
        docs/benchmarks.md.)"""
        assert self._meanings is not None
        weights, on = self.weights, self.stages.on
        if on("meanings"):
            scores = scores + weights.meanings * _share_of_best(self._meanings.cosines(text, docs))
            _record(trace, "meanings", docs, scores)
        if on("word_matches"):
            # Read for the best candidates only, as the question's share is (`_rerank`).
            best = np.argsort(-scores, kind="stable")[:QUESTION_CANDIDATES]
            near = np.zeros(len(docs))
            near[best] = _from_least_to_best(self._meanings.word_matches(text, docs[best]))
            scores = scores + weights.word_matches * near
            _record(trace, "word_matches", docs, scores)
        return docs, scores

    def marking_query(self, parsed: ParsedQuery, engine_query: EngineQuery, asked: bool) -> EngineQuery:
        """What a result's snippet marks: for a question, its own words and the rules'
        wording of its players' words, not its question forms; else the engine's query."""
        if not asked:
            return engine_query
        text = parsed.terms_text()
        subject = self.questions.subject(text)
        terms = [(subject, 1.0), *((w, self.weights.expansion) for w in self.questions.wordings(text))]
        return EngineQuery(terms=terms if subject else engine_query.terms, phrases=engine_query.phrases)

    def content(self, parsed: ParsedQuery) -> ParsedQuery:
        """The query as its reading, bonuses, glossary terms and marks take it: a Chinese
        query's free text without its question forms that ask nothing (`QuestionReader.content`,
        if `Weights.function_words`), the text as typed kept in `typed`. 傳奇規則是什麼 is then
        the look-up of 傳奇規則 (its glossary entry and the rule that defines it), and 是 or
        什么 is never a word a question holds or a snippet marks. A heading, a name or a
        glossary term is looked up as typed (a card's name may hold 的)."""
        if not self.stages.on("function_words") or parsed.rule_number or not parsed.text:
            return parsed
        if self._looked_up(parsed.text) or self.expander.glossary.lookup(parsed.text) is not None:
            return parsed
        content = self.questions.content(parsed.text)
        if not content or content == parsed.text:
            return parsed
        return dataclasses.replace(parsed, text=content, typed=parsed.text)

    def searched(self, parsed: ParsedQuery, asked: bool) -> ParsedQuery:
        """What the engine searches for a query read by `content`: its content, but for a
        question (`asks`) the text as typed. There the forms' characters are mostly too common
        to find a record alone (the engine's common terms), and their character pairs with the
        question's words (止的, 的伤 of 被防止的伤害) favour the rules worded as it is; which of
        the candidates answers is then the question's share of its content (`_rerank`), so a
        record only 什么 found does not rise. The engine reading a question's content alone
        lost held-out questions (docs/benchmarks.md)."""
        if parsed.typed and asked:
            return dataclasses.replace(parsed, text=parsed.typed, typed="")
        return parsed

    def asks(self, parsed: ParsedQuery) -> bool:
        """Whether a query is read as a question (`QuestionReader.asks`): not a phrase search,
        a heading or a name. Its ranking (`ranked`), what the engine searches (`searched`),
        its grouping by subrule (`Weights.subrules`) and its marks (`marking_query`) follow
        it: the caller reads it once and hands it to each."""
        if not self.stages.on("asks") or parsed.phrases:
            return False
        text = parsed.terms_text()
        if self._looked_up(text):
            return False
        return self.questions.asks(text, terse=self.stages.on("terse"))

    def asks_about(self, parsed: ParsedQuery) -> bool:
        """Whether a query not read as a question (`asks`) still asks about what it names
        (what is ward, 留存是什么): it holds a question form and is not itself a heading, a
        name or a glossary term (remove from the game is an old term's name, not a question)."""
        text = parsed.typed or parsed.text
        if not text or self._looked_up(text) or self.expander.glossary.lookup(text) is not None:
            return False
        return not self.questions.plain(text)

    def _looked_up(self, text: str) -> bool:
        """Whether a query is a heading or a name (an obsolete term's too): looked up, not asked about."""
        key, catalogue = fold_key(text), self.catalogue
        return key in catalogue.titles or key in catalogue.names or key in catalogue.obsolete

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

    def _cited_by_terms(self, docs: np.ndarray, scores: np.ndarray,
                        filters: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
        """The rules' glossary as a map of a question's concepts: a glossary entry the
        question's words find (its name and definition) sends part of its score to the rules
        it cites ("Dies ... See rule 700.4"), which come in as candidates if they were not."""
        catalogue, share = self.catalogue, self.weights.glossary_map
        sent: dict[int, float] = {}
        for at, score in zip(docs.tolist(), scores.tolist(), strict=True):
            for cited in catalogue.cited_at.get(at, ()):
                sent[cited] = max(sent.get(cited, 0.0), share * score)
        if filters:
            sent = {at: v for at, v in sent.items() if passes(catalogue.by_position[at], filters)}
        if not sent:
            return docs, scores
        total = np.zeros(len(catalogue.by_position))
        member = np.zeros(len(catalogue.by_position), bool)
        total[docs], member[docs] = scores, True
        brought = np.fromiter(sent, np.int64, len(sent))
        total[brought] += np.fromiter(sent.values(), np.float64, len(sent))
        member[brought] = True
        docs = np.flatnonzero(member)
        return docs, total[docs]

    def _heads(self, text: str) -> list[str]:
        """The heading rules of the keywords the query names."""
        return [head_id for keyword in self.expander.keywords(text)
                for head_id in self.catalogue.keyword_heads.get(keyword, [])]

    def _add_term_texts(self, docs: np.ndarray, scores: np.ndarray, forms: list[str],
                        filters: dict[str, str], limit: int) -> tuple[np.ndarray, np.ndarray]:
        """Candidates for a query that is a term of several words (`mana burn`): the texts
        holding its other forms (法術力灼傷), from their own search, the best of them level
        with the best candidate. Among the query's words' many matches (every text about mana)
        they would not make the candidates, yet they are what the term finds in Chinese."""
        found, found_scores = self.engine.positions(EngineQuery(terms=[(f, 1.0) for f in forms], filters=filters),
                                                    limit)
        found_scores = found_scores * self._kind_weight[found]
        top = scores.max() if len(scores) else 1.0
        best = (found_scores.max() if len(found_scores) else 1.0) or 1.0
        scored = dict(zip(docs.tolist(), scores.tolist(), strict=True))
        for at, score in zip(found.tolist(), (top * found_scores / best).tolist(), strict=True):
            scored[at] = max(scored.get(at, 0.0), score)
        return np.fromiter(scored, np.int64, len(scored)), np.fromiter(scored.values(), np.float64, len(scored))

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
            held = [at for w in words for at in catalogue.holding(candidates, w.encode())]
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
                for record_id in self.catalogue.concepts.get(fold_key(" ".join(words)), ()):
                    found[record_id] = max(found.get(record_id, 0.0), share)
        return found

    def rule_jump(self, parsed: ParsedQuery) -> tuple[Ranked, dict | None]:
        """A rule number: that rule first (then the rest of a range: 702.30a-c), then its
        subrules, then what quotes it; with the answer's `rule_jump` (None when no edition has
        the number under the filters), which names a range's `end`. Rule numbers typed
        together (702.19b 702.2c): each rule and range in turn, then their subrules, then what
        quotes them, with no jump, as the reader asked for more than one rule's page."""
        named = [(parsed.rule_number, parsed.rule_end)] if parsed.rule_number else parsed.rule_list
        heads, ranked = self._rules_named(named, parsed.filters)
        if not heads:
            return np.zeros(0, np.int64), None
        for number, head in heads:
            ranked += [c for c in self.catalogue.children(number, head.edition) if passes(c, parsed.filters)]
        for number, head in heads:
            ranked += [r for r in self.catalogue.referencing(number, head.edition) if passes(r, parsed.filters)]
        return self._positions(ranked), self._jump(heads[0][1], parsed) if parsed.rule_number else None

    def named_first(self, parsed: ParsedQuery, ranked: Ranked) -> tuple[Ranked, frozenset[int]]:
        """The rules a query names among its words (what is 702.19b, 規則 613.4c 的意思) before
        what its words find, and their positions: a rule's text does not hold its own number,
        so the words alone find only the rules that quote it."""
        if not self.stages.on("named_rules"):
            return ranked, frozenset()
        named = self._positions(self._rules_named(parsed.named_rules, parsed.filters)[1])
        if not len(named):
            return ranked, frozenset()
        return np.concatenate([named, ranked[~np.isin(ranked, named)]]), frozenset(named.tolist())

    def _rules_named(self, named: list[tuple[str, str | None]],
                     filters: dict[str, str]) -> tuple[list[tuple[str, Record]], list[Record]]:
        """Each named rule's records under the filters, newest edition first, then the rest of
        its range: the numbers found, each with its first record, and the records in turn."""
        heads: list[tuple[str, Record]] = []
        ranked: list[Record] = []
        for number, end in named:
            records = [r for r in self.catalogue.rule_records(number, filters.get("edition")) if passes(r, filters)]
            if not records:
                continue
            head = records[0]
            heads.append((number, head))
            ranked += records
            if end:
                first, last = rule_sort_key(number), rule_sort_key(end)
                ranked += [r for r in self.catalogue.children(head.parent, head.edition)
                           if first < rule_sort_key(r.number) <= last and passes(r, filters)]
        return heads, ranked

    def _positions(self, records: list[Record]) -> Ranked:
        """Records as their catalogue positions, each once, in order."""
        return np.array(list(dict.fromkeys(self.catalogue.positions[r.id] for r in records)), np.int64)

    def _jump(self, head: Record, parsed: ParsedQuery) -> dict:
        """The answer's `rule_jump` to the rule a query names: the rule opened by Enter."""
        jump: dict[str, Any] = {"number": parsed.rule_number, "edition": head.edition, "id": head.id,
                                "title": record_title(head)}
        today = self.catalogue.today_of(head)
        if today:  # an older edition's number: what the lineage says it is today
            jump["today"] = today
        if parsed.rule_end:
            jump["end"] = parsed.rule_end
        return jump


def _record(trace: Trace | None, stage: str, docs: np.ndarray, scores: np.ndarray) -> None:
    if trace is not None:
        trace.record(stage, docs, scores)


def _share_of_best(values: np.ndarray) -> np.ndarray:
    """Each value as a share of the largest (negative ones as 0; all 0 when none is above 0)."""
    values = np.maximum(values, 0.0)
    top = values.max() if len(values) else 0.0
    return values / top if top > 0 else values


def _from_least_to_best(values: np.ndarray) -> np.ndarray:
    """Each value placed between the least and the largest of those above 0 (0 and 1; 0 for
    a value of 0). Word-by-word nearness crowds together, every rule sharing the question's
    common words, so as a share of the best it barely parts the candidates."""
    held = values > 0
    if not held.any():
        return np.zeros_like(values)
    least, top = values[held].min(), values[held].max()
    return np.where(held, values - least, 0.0) / (top - least or 1.0)
