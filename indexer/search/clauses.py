"""A query as the engine evaluates it: its texts' tokens for each field (analysed with the
build's analyzers, remembered per text) and its clauses (weighted terms any one of which may
match, common terms that only add, phrases' tokens that must occur), remembered per query."""
from __future__ import annotations

import sys
from typing import NamedTuple, Protocol

from indexer.documents.bounded_cache import approximate_bytes, bounded_cache
from indexer.documents.chinese import HAN_RUN

from .analysis import Segmenter, attach_segmenter, query_texts, same_outside_chinese
from .engine import EngineQuery
from .schema import FIELD_WEIGHTS

# Longest run of query tokens turned into terms: a pasted paragraph still answers quickly.
MAX_QUERY_TOKENS = 48
# A query token in more than this share of the records is dropped when rarer ones remain.
COMMON_SHARE = 0.05
# What a remembered (field, token) term is charged besides its token's characters (at most 4
# bytes each): the key's tuple, the field's name, a string's header and the weight.
TERM_BYTES = 56 + 60 + 76 + 24


class Clauses(NamedTuple):
    """A query as the engine evaluates it (see `QueryClauses._make_clauses`)."""
    terms: dict[tuple[str, str], float]  # (field, token) -> weight: any one matches
    common: dict[tuple[str, str], float]  # too common to match, added to what terms match
    #                                       outside the recall field
    must: list[tuple[str, ...]]  # each phrase's tokens, all required in the body


def _clauses_bytes(args: tuple, clauses: Clauses) -> int:
    """What a query's remembered clauses are charged: at least what `entry_bytes` charges,
    from their dicts' sizes, number of terms and tokens' lengths, without its walk of every
    term's key and weight, which cost half as much as making the clauses."""
    terms, common, must = clauses
    tokens = sum(TERM_BYTES + 4 * len(tok) for part in (terms, common) for _, tok in part)
    return (approximate_bytes(args) + sys.getsizeof(clauses) + sys.getsizeof(terms) + sys.getsizeof(common) + tokens
            + approximate_bytes(must))


class Frequencies(Protocol):
    """How many records hold a token in a field (the build's scored postings)."""

    def frequencies(self, keys) -> dict[tuple[str, str], int]: ...

    def frequency(self, field: str, token: str) -> int: ...


class QueryClauses:
    def __init__(self, analyzers: dict, segmenter: Segmenter, postings: Frequencies, doc_count: int,
                 cache_bytes: int):
        # This build's own copy of the schema's analyzers, segmenting with its words.
        self._analyzers = analyzers
        for analyzer in self._analyzers.values():
            attach_segmenter(analyzer, segmenter)
        self._postings, self._doc_count = postings, doc_count
        # Fields with one analyzer (names, title, body) share its tokens: analysed once; a
        # text without Chinese has the same tokens in the recall field too.
        self._token_field = {name: next(other for other in FIELD_WEIGHTS if self._analyzers[other] == analyzer)
                             for name, analyzer in self._analyzers.items()}
        self._han_free_field = {
            name: next(other for other in FIELD_WEIGHTS if same_outside_chinese(self._analyzers[other], analyzer))
            for name, analyzer in self._analyzers.items()}
        self._token_cache = bounded_cache(cache_bytes)(self._analyse_fields)
        self._field_at = {name: n for n, name in enumerate(FIELD_WEIGHTS)}
        self._clause_cache = bounded_cache(cache_bytes, _clauses_bytes)(self._make_clauses)

    def tokens(self, field: str, text: str) -> tuple[str, ...]:
        """The query tokens of `text` for one field."""
        return self._token_cache(text)[self._field_at[field]]

    def _analyse_fields(self, text: str) -> tuple[tuple[str, ...], ...]:
        """The query tokens of `text` for each field, in FIELD_WEIGHTS' order: remembered per
        text (glossary expansions and popular queries repeat), all fields at once, as a query
        asks for them all. Fields of one analyzer share its tokens, analysed once."""
        fields = self._token_field if HAN_RUN.search(text) else self._han_free_field
        analysed: dict[str, tuple[str, ...]] = {}
        for name in dict.fromkeys(fields.values()):
            analysed[name] = self._analyse_query(name, text)
        return tuple(analysed[fields[name]] for name in FIELD_WEIGHTS)

    def _analyse_query(self, field: str, text: str) -> tuple[str, ...]:
        tokens: dict[str, None] = {}
        for token in query_texts(self._analyzers[field], text):
            tokens[token] = None
            if len(tokens) >= MAX_QUERY_TOKENS:
                break
        return tuple(tokens)

    def clauses(self, query: EngineQuery) -> Clauses:
        """`_make_clauses`, remembered per query's terms and phrases (a shared answer: read only)."""
        return self._clause_cache(tuple(query.terms), tuple(query.phrases))

    def _make_clauses(self, terms: tuple, phrases: tuple) -> Clauses:
        """The query as weighted (field, token) terms, any one of which may match, the common
        terms that only add to the scores of what those match, and the token lists of its
        phrases, every token of which must occur in the body.

        One term per field and token, at the best weight any form of the query gives it. A
        token found in more than COMMON_SHARE of the records would bring in a large share of
        them, so while rarer tokens remain it finds nothing itself but still counts for the
        documents the rarer ones found: of the texts about damage, the one that also says
        "end" and "turn" answers "what happens to damage at the end of the turn" (a query
        whose own words are all common keeps them as terms, however rare its glossary
        expansions' words: `combat damage`). Not to those only the recall field's
        bigrams found: 法术 of 法术力灼烧 (mana burn) is in every Chinese text about mana, and
        "mana" would then rank all of them among the texts about mana burn. A phrase keeps
        its rare tokens (or its rarest): the documents holding them include all that hold
        the phrase, and the library checks the phrase itself.

        A token no record has matches nothing and is left out once chosen, so that a query
        of made-up words is not looked up again when scored (one of them stays when all are:
        the query then matches nothing, rather than being only its phrases)."""
        boosts: dict[tuple[str, str], float] = {}
        literal = max((weight for _, weight in terms), default=0.0)
        own: set[str] = set()  # the tokens of the query's own text (its best weight)
        for text, weight in terms:
            for (field, field_weight), tokens in zip(FIELD_WEIGHTS.items(), self._token_cache(text), strict=True):
                boost = weight * field_weight
                if weight == literal:
                    own.update(tokens)
                for tok in tokens:
                    key = (field, tok)
                    if key not in boosts or boosts[key] < boost:  # the best weight any form gives
                        boosts[key] = boost
        most = COMMON_SHARE * self._doc_count
        frequency = self._postings.frequencies(boosts)
        # Common in any field is common in all: "ability" of "landfall ability" is rare among
        # titles, yet matching it there would rank every heading about abilities first.
        too_common = {tok for (_, tok), count in frequency.items() if count > most}
        if own and own <= too_common:
            # The query's own words, all common, stay terms even when a translation is rare:
            # "stack" set aside for 堆叠 would find only the texts that have Chinese, never an
            # English-only edition's rules about the stack.
            too_common -= own
        chosen = {key: boost for key, boost in boosts.items() if key[1] not in too_common} or boosts
        common = {key: boost for key, boost in boosts.items() if key not in chosen}
        found = {key: boost for key, boost in chosen.items() if frequency[key]}
        if chosen and not found:
            key = next(iter(chosen))
            found = {key: chosen[key]}
        must = []
        for phrase in phrases:
            tokens = self.tokens("body", phrase)
            if tokens:
                counts = {tok: self._postings.frequency("body", tok) for tok in tokens}
                must.append(tuple(tok for tok in tokens if counts[tok] <= most)
                            or (min(tokens, key=counts.__getitem__),))
        return Clauses(found, common, must)
