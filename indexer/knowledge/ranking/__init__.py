"""Ranking, in the stages `stages.STAGES` names and in their order, one module a part.

A query is read here (is it a question, what does the engine search, what is marked); a rule
number jumps to its rules (`jumps`); otherwise the engine's candidates, scored by kind, with
today's rules brought in by their older editions' matches (`candidates`), get the bonuses of
an exact answer, a keyword's heading followed by its subrules (`bonuses`); an older edition
keeps part of its score unless the query names an edition; a question's candidates are ranked
again by how much of it each holds (`question`). Each stage records its scores for `explain`
and is switched off by name; `scoring` is what the parts share.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from indexer.search.analysis import Segmenter
from indexer.search.engine import EngineQuery, SearchBackend
from indexer.search.folding import fold_key
from indexer.search.query import ParsedQuery, parse_query

from ..answered import AnsweredQuestion
from ..catalogue import Catalogue
from ..expansion import QueryExpander
from ..explain import Trace
from ..named_cards import CardNames, NamedCard
from ..questions import QuestionReader
from ..stages import Stages
from ..weights import Weights
from .bonuses import Bonuses
from .candidates import Candidates
from .jumps import RuleJumps
from .question import QuestionRanking
from .scoring import Ranked, record

# The fewest pieces (words, Han characters) of its own a query needs, beside the cards it
# names, for their names to be taken out of what it searches.
MIN_OWN_PIECES = 2


class Ranker:
    """The stages in the order a query meets them (`stages.STAGES`): its reading here, then the
    parts that rank it: `jumps` (rule numbers), `candidates`, `bonuses`, `question`."""

    def __init__(self, engine: SearchBackend, catalogue: Catalogue, expander: QueryExpander, weights: Weights,
                 stages: Stages, questions: QuestionReader, segmenter: Segmenter, answered: Sequence[AnsweredQuestion]):
        self.catalogue, self.expander = catalogue, expander
        self.weights, self.stages = weights, stages
        self.questions = questions
        self.cards = CardNames(catalogue)
        # How much of the engine's score each record keeps for its kind, by position.
        kind_weight = np.array([weights.kind[r.kind] for r in catalogue.by_position], np.float64)
        self.jumps = RuleJumps(catalogue, stages)
        self.candidates = Candidates(engine, catalogue, weights, stages, kind_weight)
        self.bonuses = Bonuses(catalogue, expander, weights, stages, kind_weight)
        self.question = QuestionRanking(engine, catalogue, weights, stages, questions, segmenter, answered)
        # The ranking's statements of today's rules and answered questions (None when its stage is off).
        self.statements, self.answered = self.question.statements, self.question.answered

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
        docs, scores = self.candidates.found(engine_query, forms if on("term_texts") else [], limit, trace)
        if "edition" not in parsed.filters and on("todays_twins"):
            docs, scores = self.candidates.with_todays_twins(docs, scores, parsed.filters)
            record(trace, "todays_twins", docs, scores)
        key = fold_key(text)
        # A glossary heading typed as written, with its quotation marks (Intervening “If”
        # Clause), names the term: its quoted word is still held, and the term's bonuses apply.
        whole = fold_key(parsed.raw) if parsed.phrases and not parsed.filters else ""
        named = whole in self.catalogue.concepts.definitions
        if named:
            key = whole
        if key and (named or not parsed.phrases):
            docs, scores = self.bonuses.added(docs, scores, text, key, forms, parsed.filters, trace)
        if "edition" not in parsed.filters and on("superseded"):
            scores[self.catalogue.placement.superseded_at[docs]] *= self.weights.superseded
            record(trace, "superseded", docs, scores)
        if parsed.phrases and on("phrases"):
            docs, scores = self.candidates.holding_phrases(docs, scores, parsed.phrases)
        if asked:
            docs, scores = self.question.rerank(parsed, engine_query, docs, scores, trace)
        # Best first, equal scores in rule order (`Placement.rule_order_at`).
        return docs[np.lexsort((self.catalogue.placement.rule_order_at[docs], -scores))]

    def marking_query(self, parsed: ParsedQuery, engine_query: EngineQuery, asked: bool) -> EngineQuery:
        """What a result's snippet marks: for a question, its own words and the rules'
        wording of its players' words, not its question forms; else the engine's query."""
        if not asked:
            return engine_query
        text = parsed.terms_text()
        subject = self.questions.subject(text)
        terms = [(subject, 1.0), *((w, self.weights.expansion) for w in self.questions.wordings(text))]
        return EngineQuery(terms=terms if subject else engine_query.terms, phrases=engine_query.phrases)

    def quotations(self, parsed: ParsedQuery) -> ParsedQuery:
        """A query whose words outside its quotations are a question of their own (`asks`)
        read again with its quotations as words where they stand (the `quotations` stage): a
        player quoting a card ("choose a color", 「你操控的生物」) asks about the rules, which
        never hold the card's words as written. A quoted phrase alone, or with a word or two,
        still keeps only the records holding it."""
        if not self.stages.on("quotations") or not parsed.phrases or not parsed.text or not self.stages.on("asks"):
            return parsed
        # A question with a question form or of several concepts, not a few terse words: a
        # heading typed with its quotation marks (Intervening “If” Clause) is looked up.
        text = parsed.text
        if self._looked_up(text) or not self.questions.asks(text, terse=False):
            return parsed
        return dataclasses.replace(parse_query(parsed.raw, as_phrases=False), filters=parsed.filters)

    def named_cards(self, parsed: ParsedQuery) -> tuple[ParsedQuery, list[NamedCard], list[str]]:
        """The cards a query names (the `named_cards` stage), and the query as read with them:
        their names out of what it searches, their keywords, type line and text its context, when
        words of its own remain (a card's name alone, or with one word, looks the card up),
        and the names no card holds (`CardNames.proper_names`) out of it too. Those names are
        given as well, with a whole query written as a name (Lightning Bolt without card data),
        but not a heading or term of the rules: the answer says the data lacks them."""
        if not self.stages.on("named_cards") or not parsed.text or parsed.rule_number or parsed.rule_list:
            return parsed, [], []
        if self._named_whole(parsed.text):
            return parsed, self.cards.found(parsed.text), []  # looked up as typed
        named = self.cards.found(parsed.text)
        without_cards = CardNames.without(parsed.text, [(card.start, card.end) for card in named])
        spans = self.cards.proper_names(without_cards)
        unknown = ([without_cards] if not named and CardNames.named_whole(without_cards)
                   else [without_cards[start:end] for start, end in spans])
        if not named and not spans:
            return parsed, named, unknown
        rest = CardNames.without(without_cards, spans)
        if CardNames.pieces(rest) < MIN_OWN_PIECES:
            return parsed, named, unknown
        return dataclasses.replace(parsed, text=rest, context=CardNames.context(named)), named, unknown

    def content(self, parsed: ParsedQuery) -> ParsedQuery:
        """The query as its reading, bonuses, glossary terms and marks take it: a Chinese
        query's free text without its question forms that ask nothing (`QuestionReader.content`,
        if the `function_words` stage runs), the text as typed kept in `typed`. 傳奇規則是什麼 is then
        the look-up of 傳奇規則 (its glossary entry and the rule that defines it), and 是 or
        什么 is never a word a question holds or a snippet marks. A heading, a name or a
        glossary term is looked up as typed (a card's name may hold 的)."""
        if not self.stages.on("function_words") or parsed.rule_number or not parsed.text:
            return parsed
        if self._named_whole(parsed.text):
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
        lost held-out questions (docs/decisions/0046-chinese-question-forms-cut.md)."""
        if parsed.typed and asked:
            return dataclasses.replace(parsed, text=parsed.typed, typed="")
        return parsed

    def asks(self, parsed: ParsedQuery) -> bool:
        """Whether a query is read as a question (`QuestionReader.asks`): not a phrase search,
        a heading or a name. Its ranking (`ranked`), what the engine searches (`searched`),
        its grouping by subrule (the `subrules` stage) and its marks (`marking_query`) follow
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
        if not text or self._named_whole(text):
            return False
        return not self.questions.plain(text)

    def _named_whole(self, text: str) -> bool:
        """Whether a query is a heading, a name or a glossary term as typed: it is looked up so,
        never read for its cards, its question forms or what it asks about."""
        return self._looked_up(text) or self.expander.glossary.lookup(text) is not None

    def _looked_up(self, text: str) -> bool:
        """Whether a query is a heading or a name (an obsolete term's too): looked up, not asked about."""
        key, catalogue = fold_key(text), self.catalogue
        return key in catalogue.titles or key in catalogue.names or key in catalogue.obsolete
