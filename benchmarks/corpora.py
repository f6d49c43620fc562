"""The corpora the benchmarks index: the bundled corpus, the corpus with the real
Comprehensive Rules files, and synthetic corpora made by replicating the corpus's records.

Every index is built by `indexer.search.build.build_records`, the code the service's build runs
after ingestion, so a figure here is the figure of the real build (writing records, user
dictionary, engine files, switching `CURRENT`), also for records that did not come from
documents (the synthetic corpora, or records ingested once and indexed by several engines).
"""
from __future__ import annotations

import random
import re
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

from indexer.documents import comprules
from indexer.documents.corpus import METADATA
from indexer.documents.ingest import DEFAULT_CORPUS, GLOSSARY_SOURCE, IngestResult, ingest
from indexer.search import build as build_module
from indexer.search.build import BuildOutcome

from .measure import stopwatch

# Share of the letters of a synthetic copy replaced by another letter of the same record, so
# copies are new text (new names, new word counts) in the corpus's own scripts and letters.
PERTURB_SHARE = 0.08
_LETTER = re.compile(r"[^\W\d_]")


class IngestFailed(Exception):
    """A corpus the benchmarks need did not ingest cleanly; the message lists the errors."""


def ingest_paths(paths: list[Path]) -> tuple[IngestResult, float]:
    """Records of `paths` and the seconds ingestion took."""
    with stopwatch() as elapsed:
        result = ingest(paths)
    if result.errors:
        raise IngestFailed("; ".join(result.errors))
    return result, elapsed[0]


def documents_only(corpus: Path, folder: Path) -> Path:
    """`folder`, made a copy of the corpus folder `corpus` without its rules files: its
    documents and their entries of sources.toml (its header too), the rules editions' entries
    left out. corpus/ ships every rules edition; this is the documents on their own."""
    head, *entries = (corpus / METADATA).read_text(encoding="utf-8").split("[[source]]")
    kept = [entry for entry in entries
            if tomllib.loads("[[source]]" + entry)["source"][0]["family"] != comprules.FAMILY]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / METADATA).write_text("[[source]]".join([head, *kept]), encoding="utf-8")
    for entry in kept:
        name = tomllib.loads("[[source]]" + entry)["source"][0]["file"]
        shutil.copy2(corpus / name, folder / name)
    return folder


def build_records(result: IngestResult, root: Path) -> BuildOutcome:
    """Index already-ingested records into `root` with the service's own build code."""
    return build_module.build_records(result, build_module.corpus_hash([DEFAULT_CORPUS]), root)


def _perturb(text: str, rng: random.Random, letters: list[str]) -> str:
    """`text` with a share of its letters replaced; length, digits, spacing and punctuation
    kept, so rule numbers and reference offsets still hold."""
    if not text or not letters:
        return text
    chars = list(text)
    for i, ch in enumerate(chars):
        if _LETTER.match(ch) and rng.random() < PERTURB_SHARE:
            chars[i] = rng.choice(letters)
    return "".join(chars)


def _perturbed_record(record, copy: int, rng: random.Random):
    source = f"{record.source}~{copy}"
    letters = _LETTER.findall(" ".join(t for lang in record.languages() for t in record.texts(lang)))
    change = lambda d: {lang: _perturb(v, rng, letters) for lang, v in d.items()}  # noqa: E731
    prefix = record.source + ":"
    new_id = source + ":" + record.id[len(prefix):] if record.id.startswith(prefix) else f"{source}:{record.id}"
    return replace(
        record, id=new_id, source=source,
        text=change(record.text), title=change(record.title), names=change(record.names),
        aliases=[_perturb(a, rng, letters) for a in record.aliases],
        rulings=[change(r) for r in record.rulings], examples=[change(e) for e in record.examples],
        abilities=[change(a) for a in record.abilities],
    )


def synthetic(seed: IngestResult, factor: int, rng_seed: int = 7) -> IngestResult:
    """`factor` times the documents of `seed`: the originals and factor-1 perturbed copies of
    every document record, each copy a new source with new ids (`planechase-guide~3:card:…`).
    The glossary stays one: it is the project's, not a document's."""
    rng = random.Random(rng_seed)
    documents = [r for r in seed.records if r.source != GLOSSARY_SOURCE]
    out = IngestResult(records=list(seed.records), sources=dict(seed.sources), inputs=list(seed.inputs))
    for copy in range(1, factor):
        for record in documents:
            out.records.append(_perturbed_record(record, copy, rng))
        for source_id, source in seed.sources.items():
            if source_id != GLOSSARY_SOURCE:
                out.sources[f"{source_id}~{copy}"] = {**source, "id": f"{source_id}~{copy}"}
    return out
