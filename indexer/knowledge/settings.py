"""The service's settings, typed, read from the environment in one place.

The web app, the command line and the benchmarks make one `Settings` (`Settings.from_env()`)
and hand its parts down: the index root to the build and the live library, the ranking
weights and cache sizes to each opened build, the switch-check interval to the live library.

| variable | setting |
|---|---|
| `INDEX_ROOT` | the folder of index builds (default var/index) |
| `PUBLIC_URL` | the address readers reach the service at (default http://localhost) |
| `KB_CHECK_SECONDS` | how often a server looks for a new build (default 1) |
| `KB_MAX_BODY_BYTES` | the largest request body the app reads (default 102400) |
| `KB_REQUEST_SECONDS` | how long nginx waits on a client without progress (default 20) |
| `KB_WEIGHT_<NAME>` | a ranking weight of `Weights` (`KB_WEIGHT_TITLE=0.5`) |
| `KB_STAGES_OFF` | ranking stages switched off, by name (`KB_STAGES_OFF=meanings,siblings`: `stages.STAGES`) |
| `KB_CACHE_<NAME>` | a cache's bytes of `CacheSizes` (`KB_CACHE_ANSWERS=1048576`) |
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from indexer.documents import chinese, references
from indexer.search import analysis
from indexer.search.build import DEFAULT_INDEX_ROOT
from indexer.search.whoosh_engine import CACHE_BYTES

from .stages import Stages
from .weights import Weights

_Number = TypeVar("_Number", int, float)


class SettingsError(ValueError):
    """A setting from the environment that cannot be used; the message names the variable."""


@dataclass(frozen=True)
class CacheSizes:
    """How many bytes each cache may hold (`indexer.documents.bounded_cache`): an opened build's, and
    the process's own, shared by every build (`size_process_caches`)."""

    results: int = 8 * 2**20      # a result's record fields, per record and script
    texts: int = 8 * 2**20        # a record's text blocks and their marking forms, per record
    answers: int = 32 * 2**20     # whole search answers, per query, limit and script (about 500)
    queries: int = 4 * 2**20      # glossary expansions and defining rules, per query text (each)
    corrections: int = 2 * 2**20  # did-you-mean, per word
    pages: int = 16 * 2**20       # the book's pages (contents, sections, glossary), per edition and script
    engine: int = CACHE_BYTES     # the engine's query tokens and clauses (each)
    stems: int = analysis.STEMS_BYTES     # the process's: English words' stems
    rule_numbers: int = references.RULE_NUMBERS_BYTES  # the process's: rule numbers' sort keys
    simplified: int = chinese.SIMPLIFIED_BYTES  # the process's: short texts in Simplified
    traditional: int = chinese.TRADITIONAL_BYTES  # the process's: short texts in Traditional


@dataclass(frozen=True)
class Settings:
    index_root: Path = DEFAULT_INDEX_ROOT
    weights: Weights = field(default_factory=Weights)
    stages: Stages = field(default_factory=Stages)
    caches: CacheSizes = field(default_factory=CacheSizes)
    check_seconds: float | None = None  # None: the live library's own (LiveLibrary.CHECK_SECONDS)
    public_url: str = "http://localhost"
    max_body_bytes: int = 100 * 1024
    request_seconds: float = 20.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Settings from the environment, defaults for what it does not set."""
        return cls(
            index_root=Path(environ.get("INDEX_ROOT") or DEFAULT_INDEX_ROOT),
            weights=_overridden(Weights(), "KB_WEIGHT_", environ),
            stages=_stages_off(environ.get("KB_STAGES_OFF", "")),
            caches=_overridden(CacheSizes(), "KB_CACHE_", environ),
            check_seconds=(_number("KB_CHECK_SECONDS", environ["KB_CHECK_SECONDS"], float)
                           if environ.get("KB_CHECK_SECONDS") else None),
            public_url=(environ.get("PUBLIC_URL") or cls.public_url).rstrip("/"),
            max_body_bytes=_number("KB_MAX_BODY_BYTES", environ.get("KB_MAX_BODY_BYTES", cls.max_body_bytes), int),
            request_seconds=_number("KB_REQUEST_SECONDS", environ.get("KB_REQUEST_SECONDS", cls.request_seconds),
                                    float),
        )


def _overridden(value, prefix: str, environ: Mapping[str, str]):
    """A copy of a dataclass of numbers with each field `prefix + NAME` sets replaced."""
    changes = {}
    for f in dataclasses.fields(value):
        name = prefix + f.name.upper()
        if name in environ and isinstance(getattr(value, f.name), (int, float)):
            changes[f.name] = _number(name, environ[name], type(getattr(value, f.name)))
    return dataclasses.replace(value, **changes)


def _stages_off(text: str) -> Stages:
    try:
        return Stages(frozenset(name.strip() for name in text.split(",") if name.strip()))
    except ValueError as exc:
        raise SettingsError(f"KB_STAGES_OFF={text!r}: {exc}") from None


def _number(name: str, text: str | float, kind: type[_Number]) -> _Number:
    try:
        number = kind(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r}: not a {'whole ' if kind is int else ''}number") from None
    if number < 0 or number != number:
        raise SettingsError(f"{name}={text!r}: must be 0 or more")
    return number


def size_process_caches(caches: CacheSizes) -> None:
    """Give the process's own caches, shared by every build, their budgets (emptying them)."""
    analysis.english_stem.resize(caches.stems)
    references.rule_sort_key.resize(caches.rule_numbers)
    chinese._short_hans.resize(caches.simplified)
    chinese._short_hant.resize(caches.traditional)
