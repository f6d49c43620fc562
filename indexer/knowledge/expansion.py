"""What a query means beyond its words: the other forms of the glossary terms it holds,
the keywords it names and the rules that define them.

English finds Chinese-only text and back because every glossary term in the query adds its
other forms to the engine query; a keyword's defining rules get the ranking's keyword bonus.
"""
from __future__ import annotations

from indexer.documents.bounded_cache import bounded_cache
from indexer.documents.chinese import HAN_RUN
from indexer.documents.glossary import Entry, Glossary
from indexer.search.engine import EngineQuery
from indexer.search.folding import fold_key
from indexer.search.query import ParsedQuery

from .catalogue import Catalogue
from .weights import Weights

MAX_EXPANSIONS = 24
# The most words a glossary term is looked up by in a query (`Two-Headed Giant team`: 4).
TERM_WORDS = 4
# A term written in a variant form (a fan or foreign word) expands at this share of the weight,
# so text written with that very word stays first.
VARIANT_SHARE = 0.5
# The fewest words an English query has to be read as a question whose question words are left
# out of the engine's query (`question_subject`).
SUBJECT_WORDS = 3


def is_primary_form(entry: Entry, form: str) -> bool:
    """Whether `form` is the entry's English name or Chinese form (not a variant)."""
    return fold_key(form) in {fold_key(f) for f in (entry.name, entry.zh_hant, entry.zh_hans)}


# Words that carry no subject in a question ("how many lands can I play each turn"): left out
# of the engine's query and of the coverage bonus.
QUESTION_WORDS = frozenset(
    "a an and are at can could do does each for happen happens how i if in is it many much my of on or "
    "the to what when where which who whom why will with work works you your".split())


def question_subject(text: str) -> str:
    """An English question's words that name its subject ("how many lands can I play each
    turn": lands play turn), for the engine: the question words only add noise to its scores.
    Other text is kept whole."""
    words = text.split()
    subject = [w for w in words if w.lower() not in QUESTION_WORDS]
    return " ".join(subject) if len(words) >= SUBJECT_WORDS and subject and text.isascii() else text


class QueryExpander:
    def __init__(self, glossary: Glossary, catalogue: Catalogue, weights: Weights, cache_bytes: int):
        self.glossary = glossary
        self.catalogue = catalogue
        self.weights = weights
        # Remembered per query text for this build (answers are shared: read only).
        self.expand = bounded_cache(cache_bytes)(self._expand)
        self.defining_rules = bounded_cache(cache_bytes)(self._defining_rules)

    def engine_query(self, parsed: ParsedQuery) -> EngineQuery:
        """The query the engine runs: the literal text, then every expansion."""
        text = parsed.terms_text()
        terms = [(question_subject(text), 1.0)] if text else []
        literal = fold_key(text)
        for form, weight in self.expand(text):
            if fold_key(form) != literal:
                terms.append((form, weight))
        if parsed.context:
            terms.append((parsed.context, self.weights.card_context))
        return EngineQuery(terms=terms, phrases=parsed.phrases, filters=parsed.filters)

    def _expand(self, text: str) -> tuple[tuple[str, float], ...]:
        """Other forms of every glossary term the query contains (whole query, word n-grams,
        Chinese runs); a variant form at `VARIANT_SHARE` of the weight."""
        found: dict[str, float] = {}
        words = text.split()
        # Longest first, and a word inside a term found whole adds nothing of its own: `mana
        # burn` expands to 法術力灼傷, not also to every form of `mana`, whose matches would
        # crowd the texts that name mana burn out of the candidates.
        spans = sorted(((i, j) for i in range(len(words)) for j in range(i + 1, min(len(words), i + TERM_WORDS) + 1)),
                       key=lambda span: (span[0] - span[1], span[0]))
        covered: set[int] = set()
        terms: dict[str, Entry] = {}
        for i, j in spans:
            if covered.issuperset(range(i, j)):
                continue
            span = " ".join(words[i:j])
            entry = self.glossary.lookup(span)
            if entry is not None:
                covered.update(range(i, j))
                terms.setdefault(span, entry)
        for span in HAN_RUN.findall(text):
            entry = self.glossary.lookup(span)
            if entry is not None:
                terms.setdefault(span, entry)
        for span, entry in terms.items():
            weight = self.weights.expansion if is_primary_form(entry, span) else self.weights.expansion * VARIANT_SHARE
            for form in self.glossary.expand(span):
                found[form] = max(found.get(form, 0.0), weight)
        return tuple(found.items())[:MAX_EXPANSIONS]

    def term_forms(self, text: str) -> list[str]:
        """The other forms of the glossary term the whole query names by its own name in
        several words (`mana burn` -> 魔法力灼傷, 法术力灼烧, 法術力灼傷); else none. An old or
        foreign form (`in play` for the battlefield) asks for itself, not for the term."""
        if len(text.split()) < 2:
            return []
        entry = self.glossary.lookup(text)
        return self.glossary.expand(text) if entry and is_primary_form(entry, text) else []

    def keywords(self, text: str) -> set[str]:
        """English keyword identities the whole query names (persist, 留存, 干枯 → wither)."""
        keys = set()
        english = self.glossary.english_for(text)
        if english:
            keys.add(english.lower())
        if text.lower() in self.catalogue.keyword_heads:
            keys.add(text.lower())
        return keys

    def _defining_rules(self, text: str) -> tuple[tuple[str, float], ...]:
        """Rules the glossary names as defining the queried term, with a weight: the rule of
        that number in the edition the glossary gives, and in other editions only where its
        text uses the term (numbers move between editions: 702.79 is devour in 2009 and persist
        in 2026). A query that is only a variant form (a fan or foreign word) weighs less, so
        text written with that very word can still come first."""
        entry = self.glossary.lookup(text)
        if entry is None:
            return ()
        weight = 1.0 if is_primary_form(entry, text) else self.weights.variant_definition
        forms = [fold_key(f).encode() for f in entry.forms()]
        holding, positions = self.catalogue.holding, self.catalogue.positions
        return tuple((record.id, weight)
                     for ref in entry.rules for record in self.catalogue.by_number.get(ref.number, [])
                     if record.edition == ref.edition or any(f and holding([positions[record.id]], f) for f in forms))
