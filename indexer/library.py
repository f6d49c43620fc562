"""The library: everything the web layer and the command line ask of the knowledge base.

It opens one built index (records, sources and the engine), answers searches (query
understanding, glossary expansion, exact-name and keyword boosts, edition collapsing,
snippets in the reader's script) and looks up rules, cards, terms and sources. The web layer
holds no search logic; it renders what this returns.
"""
from __future__ import annotations

import bisect
import difflib
import gc
import html
import itertools
import re
import time
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from . import analysis, editions, folding
from .backend import EngineQuery, IndexUnavailable
from .build import DEFAULT_INDEX_ROOT, ENGINE, current_folder
from .chinese import HAN_RUN, to_hans, to_hant
from .folding import fold_key
from .glossary import Glossary
from .ingest import GLOSSARY, read_records
from .query import ParsedQuery, QueryError, parse_query
from .records import Record
from .references import rule_sort_key

MAX_LIMIT = 50
SCRIPTS = ("hant", "hans")
# How much of the engine's (normalised) score each kind keeps: a rule ranks above a passage
# that quotes it, and a glossary entry (a page of translations) below both.
KIND_WEIGHT = {"rule": 1.0, "card": 1.0, "planar_card": 1.0, "section": 0.85, "term": 0.15}
# Added to the score for an exact answer to the query.
BONUS_NAME = 3.0          # the query is a card's or plane's name
BONUS_KEYWORD = 2.5       # the query is the keyword this rule defines (its heading)
BONUS_LITERAL = 0.3       # the query occurs as written (script and case folded) in the text
BONUS_TITLE = 0.9         # the query is in a heading (scaled by how much of the heading it is)
EXPANSION_WEIGHT = 0.5    # other forms of a glossary term, relative to the literal query
CANDIDATES = 200
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]+")


def display(text: str, lang: str, script: str | None) -> str:
    """Chinese text in the script the reader asked for; anything else as written."""
    if script == "hans" and lang == "zh_hant":
        return to_hans(text)
    if script == "hant" and lang == "zh_hans":
        return to_hant(text)
    return text


def names_in_all_scripts(names: dict[str, str]) -> dict[str, str]:
    """A name dict with both Chinese scripts filled in from whichever the source wrote."""
    out = dict(names)
    if out.get("zh_hant") and not out.get("zh_hans"):
        out["zh_hans"] = to_hans(out["zh_hant"])
    if out.get("zh_hans") and not out.get("zh_hant"):
        out["zh_hant"] = to_hant(out["zh_hans"])
    return out


def record_url(record: Record) -> str:
    if record.kind == "rule":
        return f"/rules/{record.number}?edition={record.edition}" if record.edition else f"/rules/{record.number}"
    if record.kind == "card":
        return f"/cards/{record.id}"
    if record.kind == "planar_card":
        return f"/planes/{record.id}"
    if record.kind == "term":
        return f"/terms/{record.id}"
    return f"/sources/{record.source}#{record.id}"


def record_title(record: Record) -> str:
    """One display title: the distinct titles (or names) of the record's languages."""
    values = record.title or record.names
    seen = []
    for lang in ("zh_hant", "zh_hans", "en", "bg"):
        value = values.get(lang)
        if value and value not in seen:
            seen.append(value)
    title = " / ".join(seen)
    if record.kind == "rule":
        return f"{record.number} {title}".strip()
    return title or record.id


def chinese_of(record: Record) -> str:
    """The Chinese script a record's Chinese text is written in (`zh_hant` unless only
    Simplified is given)."""
    written = [record.title, record.names, record.text]
    hans_only = any(p.get("zh_hans") for p in written) and not any(p.get("zh_hant") for p in written)
    return "zh_hans" if hans_only else "zh_hant"


def display_title(record: Record, script: str | None) -> str:
    """`record_title` in the reader's script."""
    return display(record_title(record), chinese_of(record), script)


def shown_lang(lang: str, script: str | None) -> str:
    """The language a text of `lang` is shown in: Chinese takes the reader's script."""
    if lang in ("zh_hant", "zh_hans") and script in SCRIPTS:
        return f"zh_{script}"
    return lang


def plain_text(record: Record, script: str | None = None) -> str:
    """The record's clean plain text in all its languages (Chinese in `script` when asked)."""
    blocks = []
    for lang in record.languages():
        parts = [record.text.get(lang, "")]
        for group in (record.abilities, record.rulings, record.examples):
            parts.extend(item.get(lang, "") for item in group)
        block = "\n".join(p for p in parts if p)
        if block:
            blocks.append(display(block, lang, script))
    return "\n\n".join(blocks)


class Library:
    """One opened index. Cheap to query; open once per process (or per index switch)."""

    def __init__(self, folder: Path):
        self.folder = folder
        for name in ("records.jsonl", "sources.json", "userdict.txt", folding.FILE):
            if not (folder / name).exists():
                raise IndexUnavailable(f"{folder}: incomplete index ({name} missing)")
        try:
            words = analysis.read_user_dictionary(folder / "userdict.txt")
        except analysis.UserDictionaryError as exc:
            raise IndexUnavailable(f"{folder}: {exc}") from None
        try:
            records, self.sources = read_records(folder)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise IndexUnavailable(f"{folder}: records unreadable ({exc})") from None
        try:
            self._folded_texts = folding.FoldedTexts(folder / folding.FILE, len(records))
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"{folder}: folded texts unreadable ({exc})") from None
        self.engine = ENGINE.open(folder)
        # Only an index that opened changes how this process segments Chinese.
        analysis.set_user_words(words)
        self.glossary = Glossary.load(GLOSSARY)
        self.records = {r.id: r for r in records}
        self._positions = {r.id: i for i, r in enumerate(records)}
        self._by_number: dict[str, list[Record]] = defaultdict(list)
        # Subrules by (edition, parent number) and by (edition, parent number, source).
        self._children_of: dict[tuple, list[Record]] = defaultdict(list)
        self._referrers: dict[tuple, list[Record]] = defaultdict(list)
        self._range_referrers: dict[str | None, list[tuple]] = defaultdict(list)
        self._groups: dict[str, tuple] = {}
        # What depends only on this index and the arguments, remembered for this index: the
        # same records, query words and queries recur (answers are shared: read only).
        self._result_fields = lru_cache(maxsize=8192)(self._describe)
        self._corrections = lru_cache(maxsize=4096)(self._correction)
        self._snippets = lru_cache(maxsize=8192)(self._snippet)
        self._expansions = lru_cache(maxsize=4096)(self._expand)
        self._defining_rules = lru_cache(maxsize=4096)(self._find_defining_rules)
        self._names: dict[str, list[str]] = defaultdict(list)
        self._keyword_heads: dict[str, list[str]] = defaultdict(list)
        self._titles: dict[str, list[str]] = defaultdict(list)
        self._vocabulary: set[str] = set()
        self._words_by_trigram: dict[str, list[str]] = defaultdict(list)
        self._suggestions: list[tuple[str, str, str, str]] = []
        self._index_records(records)

    # --- set-up -------------------------------------------------------------------------

    def _index_records(self, records: list[Record]) -> None:
        keyed = {(r.source, r.number): r for r in records if r.kind == "rule"}
        for r in records:
            for ref in {(ref.number, ref.end) for ref in r.references if ref.where != "attrs"}:
                if ref[1]:
                    self._range_referrers[r.edition].append((rule_sort_key(ref[0]), rule_sort_key(ref[1]), r))
                else:
                    self._referrers[(r.edition, ref[0])].append(r)
            if r.kind == "rule":
                self._by_number[r.number].append(r)
                if r.parent:
                    self._children_of[(r.edition, r.parent)].append(r)
                    self._children_of[(r.edition, r.parent, r.source)].append(r)
                parent = keyed.get((r.source, r.parent))
                if r.keyword and not (parent and parent.keyword == r.keyword):
                    self._keyword_heads[r.keyword].append(r.id)
                    for title in r.title.values():
                        self._titles[fold_key(title)].append(r.id)
            elif r.kind == "section":
                for title in r.title.values():
                    self._titles[fold_key(title)].append(r.id)
            if r.kind in ("card", "planar_card", "term"):
                for name in [*r.names.values(), *r.aliases]:
                    if name:
                        self._names[fold_key(name)].append(r.id)
                        self._suggestions.append((fold_key(name), name, r.kind, record_url(r)))
            for value in [*r.names.values(), *r.title.values(), *r.aliases]:
                self._vocabulary.update(w.lower() for w in _LATIN_WORD.findall(value))
        for entry in self.glossary.entries:
            for form in entry.forms():
                self._vocabulary.update(w.lower() for w in _LATIN_WORD.findall(form))
        for word in self._vocabulary:
            for gram in _trigrams(word):
                self._words_by_trigram[gram].append(word)
        seen = set()
        for r in records:
            if r.kind == "rule" and r.keyword and r.id in self._keyword_heads.get(r.keyword, ()):
                for title in r.title.values():
                    if (fold_key(title), title) not in seen:
                        seen.add((fold_key(title), title))
                        self._suggestions.append((fold_key(title), title, "rule", f"/rules/{r.number}"))
        self._suggestions.sort(key=lambda s: (len(s[0]), s[0]))
        self._title_keys = list(self._titles)
        self._title_text = "\n".join(self._title_keys)
        self._title_starts = list(itertools.accumulate((len(k) + 1 for k in self._title_keys[:-1]), initial=0))
        for children in self._children_of.values():
            children.sort(key=lambda c: (rule_sort_key(c.number), c.source))

    def close(self) -> None:
        self.engine.close()
        self._folded_texts.close()

    # --- look-ups -----------------------------------------------------------------------

    def get(self, record_id: str) -> Record | None:
        return self.records.get(record_id)

    def by_name(self, name: str, kinds: tuple[str, ...] = ("card", "planar_card", "term")) -> Record | None:
        """The record a name names in any language, script or case: a card before a plane
        before a glossary term."""
        found = [self.records[i] for i in self._names.get(fold_key(name), [])]
        found = [r for r in found if r.kind in kinds]
        return min(found, key=lambda r: (kinds.index(r.kind), r.id)) if found else None

    def editions_of(self, number: str) -> list[str]:
        return sorted({r.edition for r in self._by_number.get(number, []) if r.edition}, reverse=True)

    def rule_records(self, number: str, edition: str | None = None) -> list[Record]:
        """Records of one rule number in one edition (the newest holding it when not given):
        the official rules file first, then documents that quote it."""
        found = self._by_number.get(number, [])
        if not found:
            return []
        edition = edition or self.editions_of(number)[0]
        same = [r for r in found if r.edition == edition]
        return sorted(same, key=lambda r: (not r.source.startswith("cr-"), r.source))

    def rule(self, number: str, edition: str | None = None) -> dict | None:
        """Everything a rule page shows, or None when no edition has the number."""
        records = self.rule_records(number, edition)
        if not records:
            return None
        primary = records[0]
        edition = primary.edition
        children: list[Record] = []
        for child in self._children(number, edition):  # the rules file's record first per number
            if not children or children[-1].number != child.number:
                children.append(child)
        parent = self.rule_records(primary.parent, edition)[:1] if primary.parent else []
        all_records = list(self.records.values())
        return {
            "number": number,
            "edition": edition,
            "record": primary,
            "quotes": records[1:],
            "merged_text": _merge_texts(records),
            "parent": parent[0] if parent else None,
            "children": children,
            "editions": editions.editions_of(all_records, number),
            "keyword_numbers": editions.keyword_numbers(all_records, primary.keyword) if primary.keyword else {},
            "history": editions.rule_history(all_records, number, edition),
        }

    def _children(self, number: str, edition: str | None, source: str | None = None) -> list[Record]:
        """Subrules of a rule in one edition (and one source when given), in rule order."""
        return self._children_of.get((edition, number) if source is None else (edition, number, source), [])

    def _folded(self, record_id: str) -> str:
        """All of a record's texts in the form queries are compared in (`folding`)."""
        return self._folded_texts[self._positions[record_id]]

    def records_of_source(self, source_id: str) -> list[Record]:
        return sorted((r for r in self.records.values() if r.source == source_id), key=lambda r: (r.offset, r.id))

    def mentions(self, record: Record, limit: int = 50) -> list[Record]:
        """Records whose text uses one of the record's names or titles (a term's occurrences)."""
        query = EngineQuery(terms=[(form, 1.0) for form in [*record.names.values(), *record.aliases][:6]])
        return [self.records[i] for i, _ in self.engine.search(query, limit) if i in self.records and i != record.id]

    def referencing(self, number: str, edition: str | None) -> list[Record]:
        """Records of one edition with a reference to this rule number or a range that covers
        it: a reference means the rule of its own document's edition."""
        key = rule_sort_key(number)
        found = {r.id: r for r in self._referrers.get((edition, number), [])}
        for start, end, r in self._range_referrers.get(edition, []):
            if start <= key <= end:
                found.setdefault(r.id, r)
        return sorted(found.values(), key=lambda r: (r.source, r.offset, r.id))

    # --- search -------------------------------------------------------------------------

    def search(self, q: str, limit: int = 10, script: str | None = None) -> dict:
        """The API's search answer. Raises QueryError for a query that cannot run."""
        started = time.perf_counter()
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}")
        if script not in (None, *SCRIPTS):
            raise QueryError("script must be 'hant' or 'hans'")
        parsed = parse_query(q)
        answer = {"query": q, "total": 0, "took_ms": 0.0, "did_you_mean": None, "rule_jump": None, "results": []}
        if parsed.empty:
            answer["took_ms"] = round((time.perf_counter() - started) * 1000, 2)
            return answer
        engine_query = self._engine_query(parsed)
        ranked = self._rule_jump(parsed, answer) if parsed.rule_number else []
        if not ranked:
            ranked = self._ranked(parsed, engine_query)
            suggestion = self._did_you_mean(parsed)
            if suggestion:
                answer["did_you_mean"] = suggestion
                if not ranked:
                    engine_query = self._engine_query(parse_query(suggestion))
                    ranked = self._ranked(parse_query(suggestion), engine_query)
        groups = self._collapse(ranked)
        answer["total"] = len(groups)
        answer["results"] = [self._result(group, engine_query, script) for group in groups[:limit]]
        answer["took_ms"] = round((time.perf_counter() - started) * 1000, 2)
        return answer

    def _engine_query(self, parsed: ParsedQuery) -> EngineQuery:
        text = parsed.terms_text()
        terms = [(text, 1.0)] if text else []
        literal = fold_key(text)
        for form, weight in self._expansions(text):
            if fold_key(form) != literal:
                terms.append((form, weight))
        return EngineQuery(terms=terms, phrases=parsed.phrases, filters=parsed.filters)

    def _expand(self, text: str) -> tuple[tuple[str, float], ...]:
        """Other forms of every glossary term the query contains (whole query, word n-grams,
        Chinese runs), so English finds Chinese-only text and back. A query written in a
        variant form (a fan or foreign word) expands at half the weight, so text written with
        that very word stays first."""
        found: dict[str, float] = {}
        words = text.split()
        spans = [" ".join(words[i:j]) for i in range(len(words)) for j in range(min(len(words), i + 4), i, -1)]
        spans += HAN_RUN.findall(text)
        for span in dict.fromkeys(spans):
            entry = self.glossary.lookup(span)
            if entry is None:
                continue
            weight = EXPANSION_WEIGHT if self._is_primary_form(entry, span) else EXPANSION_WEIGHT / 2
            for form in self.glossary.expand(span):
                found[form] = max(found.get(form, 0.0), weight)
        return tuple(found.items())[:24]

    @staticmethod
    def _is_primary_form(entry, form: str) -> bool:
        return fold_key(form) in {fold_key(f) for f in (entry.name, entry.zh_hant, entry.zh_hans)}

    def _query_keywords(self, text: str) -> set[str]:
        """English keyword identities the whole query names (persist, 留存, 干枯 → wither)."""
        keys = set()
        english = self.glossary.english_for(text)
        if english:
            keys.add(english.lower())
        if text.lower() in self._keyword_heads:
            keys.add(text.lower())
        return keys

    def _find_defining_rules(self, text: str) -> tuple[tuple[str, float], ...]:
        """Rules the glossary names as defining the queried term, with a weight: the rule of
        that number in the edition the glossary gives, and in other editions only where its
        text uses the term (numbers move between editions: 702.79 is devour in 2009 and persist
        in 2026). A query that is only a variant form (a fan or foreign word) weighs less, so
        text written with that very word can still come first."""
        entry = self.glossary.lookup(text)
        if entry is None:
            return ()
        weight = 1.0 if self._is_primary_form(entry, text) else 0.15
        forms = [fold_key(f) for f in entry.forms()]
        return tuple((record.id, weight) for ref in entry.rules for record in self._by_number.get(ref.number, [])
                     if record.edition == ref.edition or any(f and f in self._folded(record.id) for f in forms))

    def _ranked(self, parsed: ParsedQuery, engine_query: EngineQuery) -> list[tuple[Record, float]]:
        scores: dict[str, float] = {}
        for record_id, score in self.engine.search(engine_query, CANDIDATES):
            record = self.records.get(record_id)
            if record:
                scores[record_id] = score * KIND_WEIGHT[record.kind]
        top = max(scores.values(), default=1.0)
        scores = {record_id: score / top for record_id, score in scores.items()}
        text = parsed.terms_text()
        key = fold_key(text)
        if key and not parsed.phrases:
            bonuses: dict[str, float] = defaultdict(float)
            for record_id in self._names.get(key, []):
                if self.records[record_id].kind != "term":
                    bonuses[record_id] = max(bonuses[record_id], BONUS_NAME)
            for record_id, weight in self._defining_rules(text):
                bonuses[record_id] = max(bonuses[record_id], BONUS_KEYWORD * weight)
            heads = [head_id for keyword in self._query_keywords(text) for head_id in self._keyword_heads.get(keyword, [])]
            for head_id in heads:
                bonuses[head_id] = max(bonuses[head_id], BONUS_KEYWORD)
            for record_id in self._titles.get(key, []):
                bonuses[record_id] = max(bonuses[record_id], BONUS_KEYWORD)
            for title_key in self._titles_containing(key) if len(key) >= 2 else []:
                if title_key != key:
                    for record_id in self._titles[title_key]:
                        bonuses[record_id] = max(bonuses[record_id], BONUS_TITLE * len(key) / len(title_key))
            if len(key) >= 2:
                for record_id in scores:
                    if key in self._folded(record_id):
                        bonuses[record_id] += BONUS_LITERAL * KIND_WEIGHT[self.records[record_id].kind]
            for record_id, bonus in bonuses.items():
                record = self.records[record_id]
                if self._passes(record, parsed.filters):
                    scores[record_id] = scores.get(record_id, 0.0) + bonus
            # A keyword's heading rule is followed by its subrules, in rule order.
            for head_id in heads:
                if head_id in scores:
                    head = self.records[head_id]
                    for i, child in enumerate(self._children(head.number, head.edition, head.source), 1):
                        if self._passes(child, parsed.filters):
                            scores[child.id] = scores[head_id] - 0.001 * i
        ranked = [(self.records[i], s) for i, s in scores.items()]
        if parsed.phrases:
            # Phrases match in the folded text: script, case, width, spacing and punctuation
            # do not matter (a phrase that crossed a line wrap in the source still matches).
            needles = [fold_key(p) for p in parsed.phrases]
            ranked = [(r, s) for r, s in ranked if all(n in self._folded(r.id) for n in needles)]
        ranked.sort(key=lambda rs: (-rs[1], rule_sort_key(rs[0].number or ""), rs[0].id))
        return ranked

    def _titles_containing(self, key: str) -> list[str]:
        """The folded titles that contain `key`, found by searching all of them at once
        (one string, a title per line: a key has no line breaks, so a match is inside one)."""
        found = []
        at = self._title_text.find(key)
        while at >= 0:
            n = bisect.bisect_right(self._title_starts, at) - 1
            found.append(self._title_keys[n])
            at = self._title_text.find(key, self._title_starts[n] + len(self._title_keys[n]) + 1)
        return found

    @staticmethod
    def _passes(record: Record, filters: dict[str, str]) -> bool:
        for name, value in filters.items():
            if name == "lang":
                if value not in record.languages():
                    return False
            elif str(getattr(record, name) or "").lower() != value:
                return False
        return True

    def _rule_jump(self, parsed: ParsedQuery, answer: dict) -> list[tuple[Record, float]]:
        """A rule number: that rule first, then its subrules, then what quotes it."""
        number = parsed.rule_number
        edition = parsed.filters.get("edition")
        records = [r for r in self.rule_records(number, edition) if self._passes(r, parsed.filters)]
        if not records:
            return []
        head = records[0]
        answer["rule_jump"] = {"number": number, "edition": head.edition, "id": head.id,
                               "title": record_title(head), "url": record_url(head)}
        ranked = [(r, 10.0) for r in records]
        ranked += [(c, 5.0) for c in self._children(number, head.edition) if self._passes(c, parsed.filters)]
        seen = {r.id for r, _ in ranked}
        for r in self.referencing(number, head.edition):
            if r.id not in seen and self._passes(r, parsed.filters):
                ranked.append((r, 1.0))
        return ranked

    def _collapse(self, ranked: list[tuple[Record, float]]) -> list[list[Record]]:
        """The same rule in several editions is one result: the newest edition, then the others."""
        groups: dict[tuple, list[Record]] = {}
        order = []
        for record, _ in ranked:
            key = self._groups.get(record.id)
            if key is None:
                key = self._groups[record.id] = _edition_group(record)
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(record)
        out = []
        for key in order:
            members = groups[key]
            if len(members) > 1:
                best = max(members, key=lambda r: (r.edition or "", r.source.startswith("cr-")))
                members = [best] + [m for m in members if m is not best]
            out.append(members)
        return out

    def _result(self, group: list[Record], engine_query: EngineQuery, script: str | None) -> dict:
        record = group[0]
        snippet, snippet_lang = self.snippet(record, engine_query, script)
        fields = self._result_fields(record.id, script)
        return {
            **{key: fields[key] for key in ("id", "kind", "rule", "edition", "title", "names", "text")},
            "snippet": snippet,
            "snippet_lang": snippet_lang,
            "source": fields["source"],
            "url": record_url(record),
            "other_editions": [
                {"id": r.id, "edition": r.edition, "rule": r.number, "source": r.source, "url": record_url(r)}
                for r in group[1:]
            ],
        }

    def _describe(self, record_id: str, script: str | None) -> dict:
        """The fields of a result that depend on the record and the script only (remembered:
        the same records answer many queries)."""
        record = self.records[record_id]
        source = self.sources.get(record.source, {})
        return {
            "id": record.id,
            "kind": record.kind,
            "rule": record.number,
            "edition": record.edition,
            "title": display_title(record, script),
            "names": names_in_all_scripts(record.names if record.kind != "rule" else record.title),
            "text": plain_text(record, script),
            "source": {"id": record.source, "title": source.get("title", record.source)},
        }

    def snippet(self, record: Record, engine_query: EngineQuery, script: str | None) -> tuple[str, str]:
        """Escaped HTML with the matched words marked, and the language it is shown in, from
        the language that matched, highlighted in the reader's script (the conversion keeps
        every offset). Only a window around the first place a query word occurs is marked,
        so a card with many rulings costs no more than a short rule. Remembered per record,
        script and query: the same records answer a repeated query."""
        return self._snippets(record.id, script, tuple(engine_query.terms), tuple(engine_query.phrases))

    def _snippet(self, record_id: str, script: str | None, terms: tuple, phrases: tuple) -> tuple[str, str]:
        record = self.records[record_id]
        engine_query = EngineQuery(terms=list(terms), phrases=list(phrases))
        prefer_zh = bool(terms and HAN_RUN.search(terms[0][0]))
        needles = _needles([t for t, _ in terms] + list(phrases))
        langs = sorted(record.languages(), key=lambda l: (l.startswith("zh") != prefer_zh, l))
        for lang in langs:
            parts = [record.text.get(lang, "")]
            for group in (record.abilities, record.rulings, record.examples):
                parts.extend(item.get(lang, "") for item in group)
            text = _window(display("\n".join(p for p in parts if p), lang, script), needles)
            marked = self.engine.highlight(text, engine_query)
            if marked:
                return marked, shown_lang(lang, script)
        lang = langs[0] if langs else "en"
        first = plain_text(record, script)
        return html.escape(first[:200] + ("…" if len(first) > 200 else "")), shown_lang(lang, script)

    def _did_you_mean(self, parsed: ParsedQuery) -> str | None:
        """A corrected query when a Latin word of it is in no record but close to a known one."""
        text = parsed.text
        changed = False
        for word in set(_LATIN_WORD.findall(text)):
            close = self._corrections(word.lower())
            if close:
                fixed = close.capitalize() if word[0].isupper() else close
                text = re.sub(rf"\b{re.escape(word)}\b", fixed, text)
                changed = True
        return text if changed else None

    def _correction(self, word: str) -> str | None:
        """The known word closest to a lower-case word that no record holds, or None."""
        if word in self._vocabulary or all(known for _, known in self.engine.known_words(word)):
            return None
        # Only known words sharing a trigram with it can be close enough: comparing with
        # them alone keeps a correction fast however large the vocabulary grows.
        candidates = {known for gram in _trigrams(word) for known in self._words_by_trigram.get(gram, ())}
        close = difflib.get_close_matches(word, candidates, n=1, cutoff=0.75)
        return close[0] if close else None

    # --- suggestions --------------------------------------------------------------------

    def suggest(self, q: str, limit: int = 10, script: str | None = None) -> list[dict]:
        """Names, titles and rule numbers that start with what was typed (any script), Chinese
        shown in the reader's script when one is asked for."""
        if len(q) > 100 or not 1 <= limit <= MAX_LIMIT:
            raise QueryError("suggest takes at most 100 characters and a limit of 1 to 50")
        key = fold_key(q)
        if not key:
            return []
        out, seen = [], set()
        number_prefix = q.strip().lower()
        if re.fullmatch(r"\d{1,3}(\.\d*[a-z]?)?", number_prefix):
            numbers = sorted((n for n in self._by_number if n.startswith(number_prefix)), key=rule_sort_key)
            for n in numbers[:limit]:
                head = self.rule_records(n)[0]
                out.append({"text": display_title(head, script), "kind": "rule", "url": record_url(head)})
            return out
        for folded, shown, kind, url in self._suggestions:
            shown = display(shown, "zh_hans" if script == "hant" else "zh_hant", script)
            if folded.startswith(key) and (shown, url) not in seen:
                seen.add((shown, url))
                out.append({"text": shown, "kind": kind, "url": url})
                if len(out) >= limit:
                    break
        return out


SNIPPET_WINDOW = 300


def _trigrams(word: str) -> set[str]:
    """The three-letter pieces of a word marked at both ends (^persist$: ^pe, per, …, st$)."""
    marked = f"^{word}$"
    return {marked[i:i + 3] for i in range(len(marked) - 2)}


def _needles(texts: list[str]) -> list[str]:
    """Strings to look for when placing a snippet: each query word (Simplified, lower case) and,
    for long Latin words, their first five letters, which survive stemming (kicker, kicked)."""
    out = []
    for text in texts:
        for word in to_hans(text).lower().split():
            out.append(word)
            if len(word) > 5 and word.isascii():
                out.append(word[:5])
    return out


def _window(text: str, needles: list[str]) -> str:
    """The part of a long text around the first occurrence of a needle (its start if none)."""
    if len(text) <= SNIPPET_WINDOW:
        return text
    folded = to_hans(text).lower()
    if len(folded) != len(text):  # a rare letter whose lower case is longer: search as written
        folded = text
    found = [pos for pos in (folded.find(n) for n in needles) if pos >= 0]
    start = max(0, min(found) - 100) if found else 0
    return text[start:start + SNIPPET_WINDOW]


def _edition_group(record: Record) -> tuple:
    if record.kind == "rule" and record.keyword:
        suffix = re.sub(r"^\d+(\.\d+)?", "", record.number or "")
        depth = (record.number or "").count(".")
        return ("rule", record.keyword, depth, suffix)
    if record.kind == "rule":
        return ("rule-number", record.number)
    if record.kind == "term" and record.source.startswith("cr-"):
        return ("cr-term", fold_key(record.names.get("en", record.id)))
    return ("record", record.id)


def _merge_texts(records: list[Record]) -> dict[str, str]:
    """One rule's text in every language any of its records gives (the rules file's English
    beside a FAQ's Chinese)."""
    merged: dict[str, str] = {}
    for record in records:
        for lang, text in record.text.items():
            merged.setdefault(lang, text)
    return merged


class LiveLibrary:
    """The library of whichever index `CURRENT` names, reopened when a rebuild switches it.

    A request holds the Library it got for its whole duration, so a switch never mixes two
    indexes in one answer; the old one is freed once no request holds it.

    An opened library is long-lived: its records and tables are moved out of the cyclic
    garbage collector's reach (`gc.freeze`), because a full collection walks every tracked
    object, which at a hundred times the corpus's records was a pause of 0.1 s in the middle
    of some request. At a switch they are handed back and collected once, so the old
    library's memory is freed (it holds reference cycles: its caches hold its methods)."""

    CHECK_SECONDS = 1.0

    def __init__(self, root: Path = DEFAULT_INDEX_ROOT):
        self.root = root
        self._library: Library | None = None
        self._folder: Path | None = None
        self._checked = 0.0

    def get(self) -> Library:
        now = time.monotonic()
        if self._library is None or now - self._checked >= self.CHECK_SECONDS:
            self._checked = now
            folder = current_folder(self.root)
            if folder is None:
                if self._library is None:
                    raise IndexUnavailable(f"{self.root}: no index built yet (run: python -m indexer build)")
            elif folder != self._folder:
                try:
                    library = Library(folder)
                except IndexUnavailable:
                    if self._library is None:
                        raise
                else:
                    switched = self._library is not None
                    self._library, self._folder = library, folder
                    if switched:
                        gc.unfreeze()
                        gc.collect()
                    gc.freeze()
        return self._library
