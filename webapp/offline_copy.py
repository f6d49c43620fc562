"""The offline copy of an index: what a browser needs to search it with no network.

A judge's phone keeps this file (`offline.json`) through the service worker, which then
answers /api/search and the JSON twins of the rule, card, plane, term and document pages itself
when the network is gone (webapp/static/offline-search/). It holds the latest rules edition
present in the index and every record of the documents (what the offline search searches),
and the records a bare rule number the documents quote opens online when today's rules lack
it, with everything that needs Python worked out here, at build time, so the browser runs no
Chinese segmenter or converter and no stemmer:

* each (field, token) of the search index with its term frequencies, the index's document
  frequency and the records' quantised lengths, from which the browser works out BM25F's
  scores as the server does (so an offline score is the online one), and which tokens the
  server leaves out as common;
* English word stems (the browser cuts a Chinese query by longest match against the Chinese
  tokens of the segmented fields; the recall field's character pairs need no words), and the
  Traditional/Simplified character pairs of the records' and glossary's characters;
* the glossary's forms, expansions and defining rules, the exact names, titles and keyword
  headings the ranking boosts, each record's edition group and rule order, which
  records cite each rule, and where the lineage takes a rule of an older edition in today's
  rules (the Shadowmoor FAQ's 502.79 is 702.79), as its search result and its page say it;
* the records' texts in the script they were written in and, for Chinese, in the other one
  (where the converter differs from converting character by character);
* the book's chapter titles and the Chinese glossary's readings, so the table of contents and
  the glossary open offline too;
* what a question is read and ranked again with (`_questions`): the question forms and
  players' words of the data files, the constants and weights, and per record what
  `QuestionRanking.rerank` and `Placement.subrule_group_at` read;
* beside the copy, in a file of their own that the page keeps after it (`meanings`), the
  words' meaning vectors a question's candidates are also ranked by.

It is made for a phone on a slow link (docs/benchmarks.md): one string per token's postings,
no field the browser can work out (addresses, groups' keys), nothing twice.
"""
from __future__ import annotations

import base64
import gzip
import json
import re
from dataclasses import fields
from pathlib import Path

import brotli  # type: ignore[import-untyped]
import numpy as np

from indexer.documents import scryfall
from indexer.documents.chinese import HAN_RUN, to_hans, to_hant
from indexer.documents.glossary import form_key
from indexer.documents.obsolete_terms import OBSOLETE_MARK
from indexer.documents.records import (
    KINDS,
    LANGS,
    RULES_FILE_PREFIX,
    TITLE_LANGS,
    Record,
    from_rules_file,
    rules_file_source,
)
from indexer.documents.references import (
    REFERENCE_PATTERN,
    RULE_LIST_GAP_PATTERN,
    RULE_NUMBER_QUERY_PATTERN,
    rule_sort_key,
)
from indexer.documents.script_ranges import HAN, LATIN, LATIN_WORD
from indexer.documents.textclean import CONVERSION_ERRORS
from indexer.knowledge import answered as answered_rules, questions, statements
from indexer.knowledge.display import SCRIPTS, chinese_of, display, display_title, record_title
from indexer.knowledge.expansion import (
    MAX_EXPANSIONS,
    QUESTION_WORDS,
    SUBJECT_WORDS,
    TERM_WORDS,
    VARIANT_SHARE,
    QueryExpander,
    is_primary_form,
)
from indexer.knowledge.library import FEW_FOUND, Library
from indexer.knowledge.meanings import WordVectors
from indexer.knowledge.ranking.bonuses import CONCEPT_WORDS, QUERY_WORD
from indexer.knowledge.ranking.question import QUESTION_CANDIDATES
from indexer.knowledge.spelling import CUTOFF, VOCABULARY_WORD, Spelling
from indexer.knowledge.stages import NAMES
from indexer.search import query
from indexer.search.analysis import english_stem
from indexer.search.clauses import MAX_QUERY_TOKENS
from indexer.search.query import MAX_LIMIT, MAX_QUERY_CHARS, MAX_QUERY_WORDS
from indexer.search.schema import FIELD_WEIGHTS, RECALL_FIELD

from .compression import zstd
from .present import NEIGHBOUR_CHARS, changes_url, today_view
from .urls import record_url

FILE = "offline.json"
# The copy as each coding a browser accepts makes it, written once by the build: brotli at
# its best quality takes seconds of CPU, far more than a request may spend (webapp.views.offline
# serves these files as they are).
ENCODED = {"br": FILE + ".br", "gzip": FILE + ".gz", "zstd": FILE + ".zst"}
FORMAT = 2
# The words' meaning vectors (`meanings`), a file of their own: the page keeps them after the
# copy, so a phone's first visit is not slowed by them (docs/benchmarks.md).
MEANINGS_FILE = "offline-meanings.json"
MEANINGS_ENCODED = {"br": MEANINGS_FILE + ".br", "gzip": MEANINGS_FILE + ".gz", "zstd": MEANINGS_FILE + ".zst"}
_LATIN_WORD = re.compile(LATIN_WORD)
_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_TEXT_FIELDS = ("text", "title", "names")
_GROUP_FIELDS = ("rulings", "examples", "abilities")


# Sources whose records the copy does not hold (every card of Scryfall's data: tens of
# thousands, beyond a phone's budget): their pages say offline that they open online.
ONLINE_ONLY = (scryfall.SOURCE,)


def kept(record, edition: str | None) -> bool:
    """Whether a record is searched in the offline copy: the documents' records and the
    current edition."""
    return record.source not in ONLINE_ONLY and (not from_rules_file(record) or record.edition == edition)


def _resolved_elsewhere(library, records: list) -> list:
    """The records a bare rule number the documents quote opens online when today's rules
    lack it (the newest edition holding it: 702.30c is 2016's, not the Worldwake FAQ's of
    2010), missing from the searched records: the copy opens them by number, with what they
    are today, and searches them by number only, as the server's search finds them then."""
    catalogue, edition = library.catalogue, library.catalogue.current_edition
    have = {r.id for r in records}
    numbers = {r.number for r in records if r.number and not from_rules_file(r)}
    numbers |= {ref.number for r in records if not from_rules_file(r) for ref in r.references}
    out = []
    for number in sorted(numbers, key=rule_sort_key):
        found = catalogue.rule_records(number)
        if found and found[0].edition != edition:
            out += [r for r in found if r.id not in have]
            have.update(r.id for r in found)
    return out


def build(library, name: str) -> dict:
    """The offline copy of an opened `Library`; `name` is its build's name,
    by which a browser tells that its copy is out of date."""
    catalogue = library.catalogue
    # Every record the copy reads words from: older editions' too, not what it leaves online.
    all_records = [r for r in library.records.values() if r.source not in ONLINE_ONLY]
    edition = catalogue.current_edition
    searched = [r for r in all_records if kept(r, edition)]
    records = searched + _resolved_elsewhere(library, searched)
    position = {r.id: i for i, r in enumerate(records)}
    searched_ids = {r.id for r in searched}
    order = sorted(range(len(records)), key=lambda i: (rule_sort_key(records[i].number or ""), records[i].id))
    rank = {i: n for n, i in enumerate(order)}
    postings, common, scoring = _postings(library, {r.id: i for i, r in enumerate(searched)})

    out_records: list[dict] = []
    texts: list[str] = []
    groups: dict[str, int] = {}
    old = {"old": _led_by_an_older_rule(catalogue, catalogue.placement.group_at),
           "old_question": _led_by_an_older_rule(catalogue, catalogue.placement.subrule_group_at)}
    for r in records:
        group = groups.setdefault(json.dumps(catalogue.placement.group_key(r), ensure_ascii=False), len(groups))
        item = _record(library, r, group, rank[position[r.id]], position)
        item.update({name: 1 for name, at in old.items() if r.id in searched_ids and at[catalogue.positions[r.id]]})
        out_records.append(item)
        texts.extend(t for lang in r.languages() for t in r.texts(lang))
        texts.extend(r.aliases)

    glossary_texts = [form for entry in library.glossary.entries for form in entry.forms()]
    chars = _characters(texts + glossary_texts)
    return {
        "format": FORMAT,
        "index": name,
        "edition": edition,
        "editions": sorted({r.edition for r in records if r.edition}, reverse=True),
        # A document's own edition label and the rules edition it quotes (2016-01: 2016-09-30).
        "edition_labels": catalogue.edition_labels,
        # The searched records come first; the rest open by number only.
        "searched": len(searched),
        "records": out_records,
        # Each record's address, per kind, with its fields in braces (`urls.record_url`).
        "urls": _url_patterns(records),
        "sources": {sid: s.get("title", sid) for sid, s in library.sources.items()},
        # What the copy leaves to the site: a page of these opens when the network is back.
        "online_only": [sid for sid in ONLINE_ONLY if sid in library.sources],
        **_constants(library),
        "scoring": scoring,
        "postings": postings,
        "common": common,
        # Every record's words, older editions' too: a question's word only they hold
        # (Mindslaver) is counted by its stem (`questions.elsewhere`).
        "stems": _stems([t for r in all_records for lang in r.languages() for t in r.texts(lang)] + glossary_texts),
        "to_hans": _pairs(chars, to_hans),
        "to_hant": _pairs(chars, to_hant),
        "glossary": _glossary(library, QueryExpander(library.glossary, catalogue, library.weights,
                                                     library.caches.queries), position),
        "vocabulary": sorted(Spelling(library.engine, all_records, library.glossary,
                                      library.caches.corrections).vocabulary),
        "vocabulary_word": VOCABULARY_WORD.pattern,
        "names": _keyed(catalogue.names, position),
        # Obsolete glossary terms by their name without the mark (`RuleLookups.obsolete`).
        "obsolete": _keyed(catalogue.obsolete, position),
        "titles": _keyed(catalogue.titles, position),
        "heads": _keyed(catalogue.keyword_heads, position),
        "referencing": _referencing(library, records, position),
        "questions": _questions(library, records, position),
        # What the book's pages need beside the records: the part headings of today's rules
        # and their Chinese glossary's readings (`indexer.knowledge.book`).
        "book": _book(library, edition),
    }


def _led_by_an_older_rule(catalogue, group_at: np.ndarray) -> np.ndarray:
    """Per record, whether an older edition's rule as new as it or newer is in its group: its
    result online is then led by that rule (`grouping`), and left out while today's rules
    match (`Library.search`), where the copy, which lacks that rule, would show it (the
    Shadowmoor FAQ's quotation of 2008's 212.3f, for "summoning sickness")."""
    superseded = np.flatnonzero(catalogue.placement.superseded_at)
    newest = np.full(int(group_at.max(initial=0)) + 1, -1, np.int64)
    np.maximum.at(newest, group_at[superseded], catalogue.placement.newness_at[superseded])
    return newest[group_at] >= catalogue.placement.newness_at


def _record(library, r, group: int, order: int, position: dict[str, int]) -> dict:
    """One record as the copy holds it: its fields, texts in both scripts, and for an older
    edition's rule where the lineage takes it today."""
    item = {"id": r.id, "kind": r.kind, "source": r.source, "edition": r.edition, "number": r.number,
            "parent": r.parent, "keyword": r.keyword, "langs": r.languages(),
            "heading": _heading(r), "group": group, "order": order}
    for field in _TEXT_FIELDS:
        if getattr(r, field):
            item[field] = _both_scripts(getattr(r, field))
    for field in _GROUP_FIELDS:
        if getattr(r, field):
            item[field] = [_both_scripts(part) for part in getattr(r, field)]
    if r.aliases:
        item["aliases"] = r.aliases
    if r.kind in ("card", "planar_card") and r.attrs:
        chinese = chinese_of(r)
        item["attrs"] = {key: _in_scripts(value, chinese) for key, value in r.attrs.items() if isinstance(value, str)}
    if r.kind == "rule" and r.edition != library.catalogue.current_edition:
        # A rule of an older edition: where the lineage takes it today, as its search
        # result and its page say it.
        item["today"] = today_view(library, r)
        item["page_today"] = _page_today(library.rule_today(r), position)
    return {k: v for k, v in item.items() if v is not None}


def _constants(library) -> dict:
    """The constants of the server's ranking and query understanding, so the browser's copy of
    that logic (webapp/static/offline-search/) uses the same values."""
    weights = library.weights
    return {
        "fields": FIELD_WEIGHTS,
        "recall_field": RECALL_FIELD,
        # What tells a rules file's records from a document's, and the character ranges of
        # the writing systems a query is cut by, as the server has them.
        "rules_file_prefix": RULES_FILE_PREFIX,
        # The languages a record's texts are given in, in the order pages show them.
        "langs": list(LANGS),
        # ... and the order a one-line title names them in.
        "title_langs": list(TITLE_LANGS),
        "script_ranges": {"han": HAN, "latin": LATIN},
        # How the book's pages name a numbered paragraph in a previous or next link.
        "pages": {"neighbour_chars": NEIGHBOUR_CHARS},
        # Which ranking stages run (`stages.STAGES`), as the server's library runs them.
        "stages": {name: library.stages.on(name) for name in NAMES},
        "ranking": {"kinds": dict(weights.kind), "name": weights.name, "keyword": weights.keyword,
                    "literal": weights.literal, "obsolete": weights.obsolete, "title": weights.title,
                    "expansion": weights.expansion, "candidates": weights.candidates,
                    "max_expansions": MAX_EXPANSIONS, "max_limit": MAX_LIMIT, "max_query_tokens": MAX_QUERY_TOKENS,
                    "max_query_chars": MAX_QUERY_CHARS, "max_query_words": MAX_QUERY_WORDS,
                    "term_words": TERM_WORDS, "variant_share": VARIANT_SHARE, "subject_words": SUBJECT_WORDS,
                    "spelling_cutoff": CUTOFF / 100, "few_found": FEW_FOUND},
        "query": {"rule": _js(RULE_NUMBER_QUERY_PATTERN), "range": _js(REFERENCE_PATTERN),
                  "obsolete_mark": _js(OBSOLETE_MARK), "list_gap": _js(RULE_LIST_GAP_PATTERN),
                  "filter": _js(query.FILTER_PATTERN), "phrase": _js(query.PHRASE_PATTERN),
                  "syntax": _js(query.SYNTAX_PATTERN), "function_words": sorted(query.FUNCTION_WORDS),
                  "kinds": KINDS, "kind_aliases": query.KIND_ALIASES,
                  "repairs": [[_js(pattern), plain] for pattern, plain in CONVERSION_ERRORS]},
    }


def _questions(library, records: list, position: dict[str, int]) -> dict:
    """What the browser reads a question with, as the server does (`questions.QuestionReader`,
    `QuestionRanking.rerank`, `Placement.subrule_group_at`): the question forms and players' words as
    the data files give them (read here, so an edit of them reaches the copy at the next
    build), the reading's and ranking's constants and weights, and per record its numbered
    paragraph's group (a subrule's siblings), which rules are only their heading and which
    list keyword abilities (with the abilities they list), the rules today's glossary entries
    cite and the rules its two-word terms name. The words' meaning vectors are a file of
    their own (`meanings`)."""
    catalogue, weights = library.catalogue, library.weights
    vocabulary = questions.vocabulary()
    paragraphs: dict[int, int] = {}
    return {
        "forms": {form: list(asks) for form, asks in vocabulary.asks.items()},
        "means": {word: list(means) for word, means in vocabulary.means.items()},
        # The pattern the English forms and players' words are found by (`Vocabulary.spans`).
        "latin": _js(vocabulary.latin),
        "min_concepts": questions.MIN_CONCEPTS, "min_english_concepts": questions.MIN_ENGLISH_CONCEPTS,
        "min_terse_concepts": questions.MIN_TERSE_CONCEPTS, "min_latin_needle": questions.MIN_LATIN_NEEDLE,
        "candidates": QUESTION_CANDIDATES, "documents": library.engine.doc_count(),
        # An English question's statement scores' constants (`statements.Statements`).
        "statements": {"k1": statements.K1, "b": statements.B,
                       "mean_length": library.statements.mean_length if library.statements is not None else 1.0},
        # The questions the copy's rules answered before (`answered.Answered`).
        "answered": _answered(library, position),
        # Every number of `Weights` (a new one reaches the copy with no change here).
        "weights": {f.name: getattr(weights, f.name) for f in fields(weights)
                    if isinstance(getattr(weights, f.name), int | float)},
        "question_words": sorted(QUESTION_WORDS), "query_word": _js(QUERY_WORD), "concept_words": CONCEPT_WORDS,
        # Each record's numbered paragraph (117.3 with 117.3a-d) as a number.
        "paragraphs": [paragraphs.setdefault(int(catalogue.placement.paragraph_group_at[catalogue.positions[r.id]]),
                                             len(paragraphs)) for r in records],
        "headings": [at for at, r in enumerate(records) if catalogue.placement.heading_at[catalogue.positions[r.id]]],
        # The rules that list keyword abilities, and the abilities' names, read as a question's
        # concepts by the copy itself (`ConceptTables.listing_at`, `QuestionRanking._share`).
        "lists": [at for at, r in enumerate(records) if catalogue.concepts.listing_at[catalogue.positions[r.id]]],
        "listed_keywords": catalogue.concepts.listed_keywords,
        "cited": {str(position[catalogue.by_position[at].id]): [position[catalogue.by_position[c].id] for c in cited
                                                                if catalogue.by_position[c].id in position]
                  for at, cited in catalogue.concepts.cited_at.items() if catalogue.by_position[at].id in position},
        "concepts": _keyed(catalogue.concepts.cited, position),
        # What a query that is such a term asks for: its cited rules, a heading's subrules
        # that use the term in its place (`ConceptTables.definitions`).
        "definitions": _keyed(catalogue.concepts.definitions, position),
        # How many records hold each token of the search field that no record of the copy
        # holds (older editions' words): a question's concepts are counted as the server
        # counts them, by the whole index (`WhooshBackend.word_frequencies`).
        "elsewhere": _elsewhere(library, position),
        # Headings and names a whole query may be (a look-up, never a question), beyond the
        # copy's own `titles` and `names`: older editions' and obsolete terms'.
        "looked_up": sorted((set(catalogue.titles) | set(catalogue.names) | set(catalogue.obsolete))
                            - set(_keyed(catalogue.titles, position)) - set(_keyed(catalogue.names, position))),
    }


def _answered(library, position: dict[str, int]) -> dict:
    """The questions the copy's rules answered before (`answered.Answered`): each question folded, once, and
    per rule its position in the copy, its questions' numbers and their length in UTF-8 bytes."""
    kept: dict[int, int] = {}
    rules = []
    answered = library.answered
    if answered is not None:
        by_position = library.catalogue.by_position
        for at, numbers, length in zip(answered.positions.tolist(), answered.questions_of, answered.lengths.tolist(),
                                       strict=True):
            record_id = by_position[at].id
            if record_id in position:
                rules.append([position[record_id], [kept.setdefault(n, len(kept)) for n in numbers], int(length)])
    texts = answered.questions if answered is not None else []
    mean = float(answered.lengths.mean()) if answered is not None and len(answered.lengths) else 1.0
    return {"k1": answered_rules.K1, "b": answered_rules.B, "mean_length": mean,
            "questions": [texts[n] for n in kept], "rules": rules}


def _elsewhere(library, position: dict[str, int]) -> dict[str, int]:
    """Each token of the search field no record of the copy holds, with how many records of
    the whole index hold it."""
    return library.engine.unheld("body", _documents(library, position))


def _documents(library, position: dict[str, int]) -> np.ndarray:
    """The copy's records as a mask of the index's document numbers (a record's position)."""
    within = np.zeros(len(library.catalogue.by_position), bool)
    within[[library.catalogue.positions[record_id] for record_id in position]] = True
    return within


def _postings(library, position: dict[str, int]) -> tuple[dict, dict, dict]:
    """Per field: each token's postings, the tokens a search leaves out as common, and what
    the scores are made of. A token's postings are its document frequency in the whole index
    (its idf), then the searched records holding it as gaps from the one before, a gap
    written negative when the term frequency, which follows it, is not 1: the browser works
    out BM25F's scores from them as the server does (`WhooshBackend.term_frequencies`), and
    a frequency is a digit where a score was six. Each token's numbers are one string
    (`_vlq`), decoded only when a query asks for the token."""
    postings: dict[str, dict[str, str]] = {}
    common: dict[str, list[str]] = {}
    scoring: dict[str, dict] = {}
    within = _documents(library, position)
    for field in FIELD_WEIGHTS:
        postings[field], common[field] = {}, []
        stats, terms = library.engine.term_frequencies(field, within)
        lengths = [0] * len(position)
        for record_id, at in position.items():
            lengths[at] = stats["lengths"][record_id]
        scoring[field] = {"b": stats["b"], "k1": stats["k1"], "documents": stats["documents"],
                          "average": stats["average"], "lengths": lengths}
        for token, is_common, frequency, found in terms:
            kept_tfs = sorted((position[i], tf) for i, tf in found if i in position)
            if not kept_tfs:
                continue
            flat, last = [frequency], -1  # from -1: no gap is 0, whose sign could not mark a frequency
            for doc, tf in kept_tfs:
                flat += [doc - last] if tf == 1 else [last - doc, tf]
                last = doc
            postings[field][token] = _vlq(flat)
            if is_common:
                common[field].append(token)
    return postings, common, scoring


def _vlq(numbers: list[int]) -> str:
    """Numbers as base64 digits of five bits, low digits first, a sixth bit set on each digit
    but a number's last, the sign in the lowest bit (the VLQ of source maps): a posting is
    mostly one character, which compresses to a third of the JSON numbers' size."""
    out = []
    for n in numbers:
        value = (-n << 1) | 1 if n < 0 else n << 1
        while True:
            digit, value = value & 31, value >> 5
            out.append(_BASE64[digit | 32 if value else digit])
            if not value:
                break
    return "".join(out)


def _url_patterns(records) -> dict[str, str]:
    """`urls.record_url` of each kind, with `{id}`, `{source}`, `{number}` and `{edition}` in
    place of a record's own; a kind's records without an edition under the kind's name and a
    "-" (a rule of no edition has no edition in its address)."""
    out = {}
    for r in records:
        key = r.kind if r.edition else r.kind + "-"
        if key not in out:
            out[key] = record_url(Record(id="{id}", kind=r.kind, source="{source}", number="{number}",
                                         edition="{edition}" if r.edition else None, line=0, offset=0))
    return out


def _heading(r) -> dict:
    """The record's title and, where another script shows it otherwise, that script's form."""
    title = record_title(r)
    return {"": title, **{s: _patch(title, display_title(r, s), s) for s in SCRIPTS if display_title(r, s) != title}}


def _page_today(today: dict, position: dict[str, int]) -> dict | None:
    """What a rule page of an older edition says it is today (`present._today`), the rule
    its own number names today by its position in the copy."""
    if not today:
        return None
    out: dict = {"edition": today["edition"]}
    if "same_rule" in today:
        out["same_rule"] = today["same_rule"]
    if today.get("also"):
        out["also"] = today["also"]
    if today.get("number_now") is not None and today["number_now"].id in position:
        out["number_now"] = position[today["number_now"].id]
    if today.get("ended"):
        ended = today["ended"]
        out["ended"] = {**ended, "url": f"/rules/{ended['last_number']}?edition={ended['last']}",
                        "changes_url": changes_url(ended["last"], ended["gone_in"], ended["last_number"])}
    return out


def _book(library, edition: str | None) -> dict:
    """The chapter titles of today's rules (both scripts) and their Chinese glossary's readings."""
    source = library.sources.get(rules_file_source(edition), {}) if edition else {}
    return {"chapters": {number: {"title": _both_scripts(title), "langs": list(title)}
                         for number, title in source.get("chapters", {}).items()},
            "readings": library.book.readings(edition) if edition else {}}


def _js(pattern: re.Pattern) -> str:
    """A pattern's source for JavaScript's RegExp (named groups are written without P)."""
    return pattern.pattern.replace("(?P<", "(?<")


def _both_scripts(texts: dict[str, str]) -> dict:
    """Texts per language, with a Chinese text also given in the other script (`zh_hant` for
    `zh_hans` and back) when the conversion changes it: as `_patch` of the text written."""
    out: dict = dict(texts)
    for lang, other, script in (("zh_hant", "zh_hans", "hans"), ("zh_hans", "zh_hant", "hant")):
        if texts.get(lang) and not texts.get(other):
            converted = display(texts[lang], lang, script)
            if converted != texts[lang]:
                out[other] = _patch(texts[lang], converted, script)
    return out


def _in_scripts(text: str, chinese: str) -> dict:
    """A text as written ("") and, where a script shows it otherwise, in that script (`_patch`)."""
    out: dict = {"": text}
    for script in SCRIPTS:
        shown = display(text, chinese, script)
        if shown != text:
            out[script] = _patch(text, shown, script)
    return out


def _patch(text: str, converted: str, script: str) -> str | list:
    """A text's conversion to `script` as the characters where it differs from converting
    each character alone (`to_hans`/`to_hant` pairs), [[at, character], ...] by code point: the
    converter reads words (乾枯 but 幹部), and shipping the whole converted text again
    doubled the Chinese of the copy. The converted text itself when the lengths differ."""
    convert = to_hans if script == "hans" else to_hant
    alone = "".join(c if HAN_RUN.fullmatch(ch) and len(c := convert(ch)) == 1 else ch for ch in text)
    if len(alone) != len(converted):
        return converted
    return [[at, b] for at, (a, b) in enumerate(zip(alone, converted, strict=True)) if a != b]


def _stems(texts: list[str]) -> dict[str, str]:
    """Lower-case English words of the texts whose index token is not the word itself."""
    words = {w.lower() for text in texts for w in _LATIN_WORD.findall(text)}
    return {w: s for w in sorted(words) if (s := english_stem(w)) != w}


def _characters(texts: list[str]) -> list[str]:
    """The Chinese characters of the texts in either script: a query may be typed in the
    script the records are not written in."""
    chars = {ch for text in texts for run in HAN_RUN.findall(text) for ch in run}
    return sorted(chars | {to_hant(ch) for ch in chars} | {to_hans(ch) for ch in chars})


def _pairs(chars: list[str], convert) -> str:
    """The characters that `convert` changes, as one string of pairs (from, to)."""
    out = []
    for ch in chars:
        converted = convert(ch)
        if converted != ch and len(converted) == 1:
            out.append(ch + converted)
    return "".join(out)


def _glossary(library, expander: QueryExpander, position: dict[str, int]) -> dict:
    """Per glossary form (its `form_key`): the entry's forms, its English term, whether the
    form is a primary one, and the rules that define it (record positions and weights)."""
    entries, keys = [], {}
    for n, entry in enumerate(library.glossary.entries):
        entries.append({"forms": entry.forms(), "english": entry.name})
        for form in entry.forms():
            key = form_key(form)
            if key in keys or library.glossary.lookup(form) is not entry:
                continue
            keys[key] = {"entry": n, "primary": is_primary_form(entry, form),
                         "rules": [[position[i], w] for i, w in expander.defining_rules(form) if i in position]}
    return {"entries": entries, "keys": keys}


def _keyed(table: dict[str, list[str]], position: dict[str, int]) -> dict[str, list[int]]:
    out = {}
    for key, ids in table.items():
        kept_ids = [position[i] for i in ids if i in position]
        if kept_ids:
            out[key] = kept_ids
    return out


def _referencing(library, records, position: dict[str, int]) -> dict[str, list[int]]:
    """Per "edition number" of every rule in the copy, the records that cite it."""
    out = {}
    for r in records:
        if r.kind == "rule":
            key = f"{r.edition} {r.number}"
            if key not in out:
                cited = [position[c.id] for c in library.referencing(r.number, r.edition) if c.id in position]
                if cited:
                    out[key] = cited
    return out


def meanings(name: str, table: WordVectors) -> dict:
    """The word meaning table as the offline search reads it (offline-search/meanings.js `useMeanings`):
    each word's vector in the table's first `NEAR_DIMENSIONS` principal directions (what the
    server's word-by-word reading compares, `WordVectors.near`) as 8-bit integers, which the
    phone makes unit length again, and each word's weight. The server's whole-text nearness
    reads all 384 dimensions; here both levers read these 96 (a quarter of the bytes: 384
    would be 3.8 MB, more than the whole copy), which scored every part within a question or
    two of the server's (docs/decisions/0067-offline-meaning-vectors.md)."""
    near = table.near
    ints = np.round(near / (np.abs(near).max(axis=1, keepdims=True) + 1e-9) * 127).astype(np.int8)
    return {"format": 1, "index": name, "dimensions": int(near.shape[1]), "words": table.words,
            "weights": [float(f"{w:.4g}") for w in table.weights.tolist()],
            "vectors": base64.b64encode(ints.tobytes()).decode("ascii")}


def _write_encoded(folder: Path, plain: str, encoded_names: dict[str, str], data: dict) -> dict[str, int]:
    """`data` as JSON in `folder`, as it is and in each coding a browser accepts; the sizes."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    encoded = {"br": brotli.compress(raw, quality=11), "gzip": gzip.compress(raw, compresslevel=9, mtime=0),
               "zstd": zstd.compress(raw, 19)}
    (folder / plain).write_bytes(raw)
    for coding, body in encoded.items():
        (folder / encoded_names[coding]).write_bytes(body)
    return {"bytes": len(raw), **{f"{coding}_bytes": len(body) for coding, body in encoded.items()}}


def write(folder: Path, name: str) -> dict:
    """Write the offline copy of the index being built in `folder` (build `name`) and its
    words' meaning vectors; returns what a page tells the reader before fetching them:
    build, edition, records, sizes."""
    library = Library(folder)
    try:
        data = build(library, name)
    finally:
        library.close()
    sizes = _write_encoded(folder, FILE, ENCODED, data)
    meaning_sizes = _write_encoded(folder, MEANINGS_FILE, MEANINGS_ENCODED, meanings(name, WordVectors()))
    return {"index": name, "edition": data["edition"], "editions": data["editions"],
            "records": len(data["records"]), **sizes,
            "meanings": {"bytes": meaning_sizes["bytes"], "gzip_bytes": meaning_sizes["gzip_bytes"]}}
