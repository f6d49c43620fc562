"""Test corpora made from the bundled documents: a subset of corpus/ copied with its
sources.toml entries, optionally with extra documents, and one document's Source.

`DOCUMENTS` are the bundled documents without the Comprehensive Rules editions: most tests
need the documents' own behaviour over a small, fast index; the whole knowledge base is built
once per session (conftest's `kb_index`)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from indexer.documents.comprules import FAMILY as RULES_FAMILY
from indexer.documents.corpus import METADATA, Source, load_sources
from indexer.documents.ingest import DEFAULT_CORPUS

CR = DEFAULT_CORPUS / "rules"
DOCUMENTS = tuple(s.id for s in load_sources(DEFAULT_CORPUS) if s.family != RULES_FAMILY)
# The small index of most tests: three documents of corpus/ (the fixtures of conftest.py).
SMALL_CORPUS = ("worldwake-faq", "shadowmoor-faq", "planechase-guide")
# Real cards in Scryfall's bulk formats: every layout, with rulings and Chinese printings
# (tests/fixtures/scryfall/README.md; where each was read: its sources.tsv).
SCRYFALL = Path(__file__).resolve().parent / "fixtures" / "scryfall"
# The cards the real players' questions name (tests/questions_real.tsv), in the same formats,
# with names.tsv: how the questions write each (tests/fixtures/question_cards/README.md).
QUESTION_CARDS = Path(__file__).resolve().parent / "fixtures" / "question_cards"
RULES_EDITIONS = tuple(s.id for s in load_sources(DEFAULT_CORPUS) if s.family == RULES_FAMILY)


def corpus_source(source_id: str) -> Source:
    """The bundled document with this source id."""
    return next(s for s in load_sources(DEFAULT_CORPUS) if s.id == source_id)


def corpus_copy(tmp_path: Path, keep=("worldwake-faq", "keyword-digest"), extra=()) -> Path:
    """`copy_corpus` of the Worldwake FAQ and the keyword digest (or `keep`) in tmp_path/corpus."""
    return copy_corpus(tuple(keep), tmp_path / "corpus", tuple(extra))


def copy_corpus(source_ids: tuple[str, ...], folder: Path, extra: tuple[tuple[str, bytes, str], ...] = ()) -> Path:
    """The named documents of corpus/ and their sources.toml entries (copied as written,
    comments and all) in `folder`, plus extra (file name, bytes, family) documents whose
    source id is the file name without its extension."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (DEFAULT_CORPUS / METADATA).read_text(encoding="utf-8")
    header, *entries = re.split(r"(?m)^(?=\[\[source\]\])", text)
    kept = [entry for entry in entries if re.search(r'(?m)^id = "([^"]+)"', entry).group(1) in source_ids]
    assert len(kept) == len(source_ids), f"not all of {source_ids} are in {METADATA}"
    for entry in kept:
        name = re.search(r'(?m)^file = "([^"]+)"', entry).group(1)
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DEFAULT_CORPUS / name, folder / name)
    for name, data, family in extra:
        (folder / name).write_bytes(data)
        kept.append(f'\n[[source]]\nid = "{name.split(".")[0]}"\nfile = "{name}"\ntitle = "{name}"\n'
                    f'family = "{family}"\nlanguages = ["zh_hant"]\n')
    (folder / METADATA).write_text(header + "".join(kept), encoding="utf-8")
    return folder
