"""The library: the one object the web layer and the command line ask about one index build.

It opens the build (`indexer.search.opened_build`: records, sources, the engine with the
build's segmenter, the folded texts and marking forms, the build's glossary) and wires the
service's parts to it, each holding its own bounded caches, so everything about a build
lives and dies with its library. `search` is the flow of a query through them: parse,
rule-number jump or engine candidates ranked with bonuses, did-you-mean, edition groups,
result fields and snippets. The web layer holds no search logic; it renders what this
returns.
"""
from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
from rapidfuzz.distance import OSA

from indexer.documents.bounded_cache import approximate_bytes, bounded_cache
from indexer.documents.records import Record
from indexer.search.engine import EngineQuery
from indexer.search.folding import fold_key
from indexer.search.opened_build import IndexBuild
from indexer.search.query import MAX_LIMIT, ParsedQuery, QueryError, UnknownEdition, parse_query

from .answered import AnsweredQuestion, answered_questions
from .book import Book
from .built_parts import BuiltParts
from .catalogue import Catalogue
from .display import SCRIPTS, display_title, record_title
from .expansion import QueryExpander
from .explain import Trace
from .grouping import EditionGrouping
from .holders import TodaysHolders
from .lookups import NAMED_KINDS
from .questions import QuestionReader, vocabulary
from .ranking import Ranker
from .results import Results
from .rules import rule_page, rule_today, subrule_rulings
from .settings import CacheSizes
from .snippets import Snippets
from .spelling import Spelling
from .stages import Stages
from .suggestions import Suggestions
from .weights import Weights

__all__ = ["MAX_LIMIT", "SCRIPTS", "Library"]

# How many of a record's names and aliases are searched for its mentions.
MENTION_FORMS = 6


# A query that finds fewer records than this may be offered a spelling (did you mean), when
# the spelling finds one among its first this many that the query did not: a query finding
# more, or a question, is never rewritten.
FEW_FOUND = 10
# A name's slips of typing: one edit a word, and one more for each this many letters.
SLIP_LETTERS = 8

# The most results a search may skip (`offset`): more than any query's total.
MAX_OFFSET = 25_000
# An edition as `?edition=` names it: a date or its start, or a document's own label.
EDITION_ARG = re.compile(r"[0-9][0-9-]{0,19}")


# What an answer is charged for each result beside its text and snippet: more than the rest
# of a result (titles, names, source, subrules, other editions) holds in the largest of
# generated queries' answers (docs/decisions/0014-cold-round-4-snippets-ranking-arrays-answer-memo.md).
RESULT_BYTES = 8192
ANSWER_BYTES = 1024


def answer_bytes(args: tuple, answer: dict) -> int:
    """A bound of what a remembered answer holds, counted without walking all of it (the
    walk cost a first-asked query more than its ranking's bonuses): its results' texts and
    snippets, and a fixed share for the rest."""
    return ANSWER_BYTES + sys.getsizeof(args[0]) + sum(
        sys.getsizeof(r["text"]) + sys.getsizeof(r["snippet"]) + RESULT_BYTES for r in answer["results"])


# What a remembered page holds in memory, per byte of it as JSON: a page is thousands of small
# dicts and strings four levels deep, whose objects take 4.5 (a section's rules) to 10.8 (a
# table of contents) times their JSON's bytes.
PAGE_BYTES_PER_JSON_BYTE = 12


def page_bytes(args: tuple, page: Any) -> int:
    """A bound of what a remembered page holds, from its JSON's length (one pass in C: walking
    every level of a glossary took its first request 13 ms); a rendered part is its text."""
    if isinstance(page, str):
        return approximate_bytes(page)
    return PAGE_BYTES_PER_JSON_BYTE * len(orjson.dumps(page, default=str))


class Library:
    """One opened index. Cheap to query; open once per process (or per index switch)."""

    def __init__(self, folder: Path, weights: Weights = Weights(), caches: CacheSizes = CacheSizes(),
                 stages: Stages = Stages(), answered: Sequence[AnsweredQuestion] | None = None):
        """Raises IndexUnavailable (only) when the build is missing, incomplete or damaged.
        `answered`: the questions answered before that the ranking reads (data/answered.tsv's when
        not given)."""
        self.build = IndexBuild(folder, caches.engine)
        self.folder, self.sources = folder, self.build.sources
        self.engine, self.glossary = self.build.engine, self.build.glossary
        records = self.build.records
        self.weights, self.caches, self.stages = weights, caches, stages
        labels = {s["edition"]: s["rules_edition"] for s in self.sources.values() if s.get("rules_edition")}
        self.catalogue = Catalogue(records, self.build.folded_texts, self.build.marking_lines, labels,
                                   self.build.lineage)
        self.records = self.catalogue.records
        self._expander = QueryExpander(self.glossary, self.catalogue, weights, caches.queries)
        questions = QuestionReader(vocabulary(), self.engine.word_frequencies, self.engine.doc_count(), caches.queries,
                                   asks=weights.question_forms, thesaurus=stages.on("thesaurus"),
                                   words=self.build.segmenter.words_of, word_forms=stages.on("word_forms"),
                                   short_english=stages.on("short_english"),
                                   holders=TodaysHolders(self.catalogue, caches.queries)
                                   if stages.on("todays_holders") else None,
                                   dictionary_words=self.build.segmenter.dictionary_words
                                   if stages.on("dictionary_words") else None)
        self._ranker = Ranker(self.engine, self.catalogue, self._expander, weights, stages, questions,
                              self.build.segmenter, answered_questions() if answered is None else answered)
        # The ranking's statements of today's rules and answered questions (None when the stage is off).
        self.statements, self.answered = self._ranker.statements, self._ranker.answered
        self._grouping = EditionGrouping(self.catalogue)
        # A question asks about one subrule, a look-up about a rule (the `subrules` stage).
        self._question_groups = self.catalogue.placement.subrule_group_at if stages.on("subrules") else None
        snippets = Snippets(self.engine, self.catalogue, caches.texts)
        self._results = Results(self.catalogue, self.sources, snippets, caches.results)
        self._spelling = Spelling(self.engine, records, self.glossary, caches.corrections)
        self._suggestions = Suggestions(self.catalogue)
        self.book = Book(self.catalogue, self.sources)
        # Parts of pages the build rendered (a section's whole text: webapp.book_parts).
        self.parts = BuiltParts(folder)
        # Pages made from the whole book (a table of contents, a section, the glossary), per
        # what they were made from: made once for a build, not for every reader.
        self._pages = bounded_cache(caches.pages, page_bytes)(self._page)
        # Whole answers, per query, limit and script: a repeated query costs a look-up.
        self._answers = bounded_cache(caches.answers, answer_bytes)(self._answer)
        # The glossary's terms by the rule (number, edition) that defines them, folded.
        self._terms_of_rule: dict[tuple, list[str]] = {}
        for entry in self.glossary.entries:
            for ref in entry.rules:
                key = (ref.number, self.catalogue.edition_named(ref.edition))
                self._terms_of_rule.setdefault(key, []).extend(fold_key(f) for f in entry.forms() if f)
        # The process that opened it: gunicorn's master when it opens before the workers fork.
        self.opened_in = os.getpid()

    def close(self) -> None:
        self.build.close()

    def after_fork(self) -> None:
        """In a process forked after this library opened: its own handles to the index files."""
        self.engine.reopen()

    # --- look-ups -----------------------------------------------------------------------

    def get(self, record_id: str) -> Record | None:
        return self.catalogue.get(record_id)

    def by_name(self, name: str, kinds: tuple[str, ...] = NAMED_KINDS) -> Record | None:
        return self.catalogue.by_name(name, kinds)

    def editions_of(self, number: str) -> list[str]:
        return self.catalogue.editions_of(number)

    def rule_records(self, number: str, edition: str | None = None) -> list[Record]:
        return self.catalogue.rule_records(number, edition)

    def rule(self, number: str, edition: str | None = None) -> dict | None:
        page = rule_page(self.catalogue, number, edition)
        if page is not None:
            # The terms the glossary says the rule defines, in any edition its lineage reaches
            # (the glossary names multikicker's 702.30c of 2010 and 702.33c of today, not 2016's 702.32c).
            terms = [t for v in page["history"] for t in self._terms_of_rule.get((v.number, v.edition), [])]
            # A subrule's page shows its rule's rulings that name what the subrule defines.
            page["named_rulings"] = (subrule_rulings(self.catalogue, terms, page["record"])
                                     if number[-1].isalpha() else [])
        return page

    def page(self, make: Callable[..., Any], *args) -> Any:
        """`make(self, *args)`, remembered for this build (bounded: `CacheSizes.pages`). Its
        answer is shared: never changed in place."""
        return self._pages(make, *args)

    def _page(self, make: Callable[..., Any], *args) -> Any:
        return make(self, *args)

    def rule_today(self, record: Record) -> dict:
        """What an older edition's rule is today (`rules.rule_today`)."""
        return rule_today(self.catalogue, record)

    def records_of_source(self, source_id: str) -> Sequence[Record]:
        return self.catalogue.records_of_source(source_id)

    def section_of(self, record: Record) -> Record | None:
        return self.catalogue.section_of(record)

    def referencing(self, number: str, edition: str | None) -> list[Record]:
        return self.catalogue.referencing(number, edition)

    def mentions(self, record: Record, limit: int = 50) -> list[Record]:
        """Records whose text uses one of the record's names or titles (a term's occurrences)."""
        query = EngineQuery(terms=[(form, 1.0) for form in [*record.names.values(), *record.aliases][:MENTION_FORMS]])
        return [self.records[i] for i, _ in self.engine.search(query, limit) if i in self.records and i != record.id]

    def suggest(self, q: str, limit: int = 10, script: str | None = None) -> list[dict]:
        return self._suggestions.suggest(q, limit, script)

    def closest(self, q: str, limit: int = 5, script: str | None = None) -> list[dict]:
        """Names and titles most like a query that found nothing (`Suggestions.closest`)."""
        return self._suggestions.closest(q, limit, script)

    def nearest_rules(self, number: str, script: str | None = None) -> list[dict]:
        """For a rule number today's rules do not have, the rules nearest to it there
        (`Book.nearest`), as suggestions."""
        edition = self.catalogue.current_edition
        if not edition or self.catalogue.rule_records(number, edition):
            return []
        return [{"text": display_title(r, script), "kind": "rule", "id": r.id}
                for r in self.book.nearest(number, edition)]

    # --- search -------------------------------------------------------------------------

    def engine_query(self, parsed: ParsedQuery) -> EngineQuery:
        """The query the engine runs for a parsed query (its text and glossary expansions)."""
        return self._expander.engine_query(parsed)

    def search(self, q: str, limit: int = 10, script: str | None = None, edition: str | None = None,
               offset: int = 0, explain: bool = False) -> dict:
        """The API's search answer, with the time this call took (`took_ms`): a copy of
        the remembered one when the same query was asked before. Its parts are shared with
        the memory: never changed in place. `edition` limits it as `edition:` in the query
        does (the query's own filter wins); `offset` skips that many results of `total`, so
        that every one of them can be reached `limit` at a time; `explain` gives each result
        what each ranking stage added to its score (`explain.Trace`), ranked the same. Raises
        QueryError for a query that cannot run."""
        started = time.perf_counter()
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
        if not 0 <= offset <= MAX_OFFSET:
            raise QueryError(f"offset must be between 0 and {MAX_OFFSET}")
        if script not in (None, *SCRIPTS):
            raise QueryError("script must be 'hant' or 'hans'")
        if edition is not None and not EDITION_ARG.fullmatch(edition):
            raise QueryError("edition must be a date or its start (2010, 2016-09, 2026-04-17) or a document's label")
        answer = dict(self._answers(q, limit, script, edition or None, offset, explain))
        answer["took_ms"] = round((time.perf_counter() - started) * 1000, 2)
        return answer

    def _answer(self, q: str, limit: int, script: str | None, edition: str | None = None, offset: int = 0,
                explain: bool = False) -> dict:
        parsed = parse_query(q)
        if edition and "edition" not in parsed.filters:
            parsed.filters["edition"] = edition.lower()
        if "edition" in parsed.filters:
            parsed.filters["edition"] = self.catalogue.edition_filter(parsed.filters["edition"])
            if parsed.filters["edition"] not in self.catalogue.all_editions:
                raise UnknownEdition(f"No edition {parsed.filters['edition'][:20]} is in the index; the editions are: "
                                     f"{', '.join(self.catalogue.all_editions) or 'none'}.")
        parsed = self._ranker.quotations(parsed)
        parsed, cards, unknown = self._ranker.named_cards(parsed)
        parsed = self._ranker.content(parsed)
        answer = {"query": q, "total": 0, "took_ms": 0.0, "did_you_mean": None, "rule_jump": None, "results": [],
                  "left_out": parsed.left_out,
                  "cards": list({c.record.id: {"id": c.record.id, "name": display_title(c.record, script)}
                                 for c in cards}.values()),
                  "unknown_cards": unknown}
        if parsed.empty:
            return answer
        numbered = False  # the rules the query names by number are found (its results are theirs)
        named: frozenset[int] = frozenset()  # the rules it names among its words (what is 702.19b)
        trace = Trace() if explain else None
        if (parsed.rule_number or parsed.rule_list) and self.stages.on("jump"):
            ranked, jump = self._ranker.jumps.rule_jump(parsed)
            numbered = len(ranked) > 0
            if trace is not None:
                trace.place("jump", ranked)
            # The jump's title in the reader's script, as every result's is.
            answer["rule_jump"] = jump and {**jump, "title": display_title(self.records[jump["id"]], script)}
        # Whether it is a question (a rule jump's results are the rule's), read once: what the
        # engine searches, the ranking, the grouping and the marks all follow it.
        asked = not numbered and self._ranker.asks(parsed)
        engine_query = self.engine_query(self._ranker.searched(parsed, asked))
        if not numbered:  # else the rules, their subrules and what quotes them
            ranked = self._ranker.ranked(parsed, engine_query, asked, trace)
            ranked, named = self._ranker.jumps.named_first(parsed, ranked)
            if trace is not None:
                trace.place("named_rules", np.array(sorted(named), np.int64))
            correction = (None if asked or len(ranked) >= FEW_FOUND
                          else self._correction(parsed, ranked, explain, bool(unknown)))
            if correction is not None:
                answer["did_you_mean"] = correction[0]
                unknown = []  # a misspelling of what the data holds, not a card it lacks
                if not len(ranked):
                    ranked, engine_query, trace = correction[1:]
        if "edition" in parsed.filters and not numbered:
            groups = self._grouping.apart(ranked)
        else:
            groups = self._grouping.collapse(ranked, self._question_groups if asked else None)
        if not numbered and "edition" not in parsed.filters and not parsed.phrases:
            # Today's rules by default: an older edition's rule that today's also has is
            # already folded into today's result, and one they do not have is left out, unless
            # nothing of today's matched at all (the words are an old rule's), or the query names
            # it (what was 502.79).
            superseded = self.catalogue.placement.superseded_at[[group[0] for group in groups]].tolist()
            groups = [group for group, old in zip(groups, superseded, strict=True)
                      if not old or group[0] in named] or groups
        answer["total"] = len(groups)
        by_position = self.catalogue.by_position
        answer["unknown_cards"] = self._lacked(unknown, groups)
        page = groups[offset:offset + limit]
        if page:  # (a page with no results marks nothing)
            marking = self._ranker.marking_query(parsed, engine_query, asked)
            plan = self._results.plan(marking)
            groups_shown = [[by_position[at] for at in group] for group in page]
            if (not asked and not numbered
                    and (self.catalogue.placement.definition_at[[group[0] for group in page]] >= 0).any()
                    and self._ranker.asks_about(parsed)):
                # A look-up asked as a question (what is ward): a keyword's heading answers
                # as the subrule defining it (`Results.answering`); whether it asks is read
                # only when a result of the page is such a heading.
                groups_shown = [self._results.answering(group) for group in groups_shown]
            results = [self._results.result(group, plan, script) for group in groups_shown]
            if trace is not None:
                order = {at: n for n, at in enumerate(ranked.tolist())}
                results = [{**result, "explain": self._explained(trace, order, group)}
                           for result, group in zip(results, page, strict=True)]
            answer["results"] = results
        return answer

    def _lacked(self, unknown: list[str], groups: list[list[int]]) -> list[str]:
        """The names no card holds, less those whose card the search found all the same: a
        name typed with a slip (Chameleon Colosus) finds its card by the names' fuzzy match."""
        if not unknown:
            return unknown
        found = [self.catalogue.by_position[group[0]] for group in groups[:FEW_FOUND]]
        names = [name for record in found if record.kind in NAMED_KINDS for name in record.names.values()]
        return [n for n in unknown if not any(self._misspelt(n, name) for name in names)]

    def _typed_start(self, text: str, ranked: np.ndarray) -> bool:
        """Whether every word of a query starts a word of its first results' titles."""
        words = text.lower().split()
        found = [self.catalogue.by_position[at] for at in ranked[:FEW_FOUND].tolist()]
        titles = {word for record in found for word in record_title(record).lower().split()}
        return bool(words) and all(any(title.startswith(word) for title in titles) for word in words)

    @staticmethod
    def _misspelt(typed: str, corrected: str) -> bool:
        """Whether two names differ only by slips of typing: word for word, one letter left out,
        added, changed or two swapped (optimal string alignment), one more per `SLIP_LETTERS`
        letters (Kitchn Fniks, Kitchen Finks), rather than naming two cards (Grafted Wargear,
        Grafted Warsinger: four edits in seven letters)."""
        typed_words, corrected_words = typed.lower().split(), corrected.lower().split()
        return len(typed_words) == len(corrected_words) and all(
            OSA.distance(a, b) <= max(1, len(a) // SLIP_LETTERS)
            for a, b in zip(typed_words, corrected_words, strict=True))

    def _correction(self, parsed: ParsedQuery, ranked: np.ndarray, explain: bool, name: bool) -> tuple | None:
        """The query corrected (`Spelling.did_you_mean`), with its ranking, engine query and
        trace, when it finds what the query did not: a record among its first `FEW_FOUND`
        that the query's own ranking lacks. Else None (no help that finds nothing new, and
        a `name` no card holds is not respelt as another card's, nor the start of a word its
        results' titles hold: prot is Protection being typed, not rot)."""
        if self._typed_start(parsed.text, ranked):
            return None
        suggestion = self._spelling.did_you_mean(parsed.text)
        if not suggestion or (name and not self._misspelt(parsed.text, suggestion)):
            return None
        corrected = parse_query(suggestion)
        engine_query = self.engine_query(corrected)
        trace = Trace() if explain else None
        found = self._ranker.ranked(corrected, engine_query, self._ranker.asks(corrected), trace)
        if not set(found[:FEW_FOUND].tolist()) - set(ranked.tolist()):
            return None
        return suggestion, found, engine_query, trace

    def _explained(self, trace: Trace, order: dict[int, int], group: list[int]) -> dict:
        """A result's explanation: that of its group's best-ranked record (`order`: each
        ranked record's place), which placed it."""
        first = min(group, key=lambda at: order.get(at, len(order)))
        return {"record": self.catalogue.by_position[first].id, **trace.explain(first)}
