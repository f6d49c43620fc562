"""The corpus: documents in a folder, each described by one entry of `sources.toml`.

Loading checks that files and entries match one to one, so a dropped file that nobody
described (or a description whose file went missing) is an error that names it rather
than a silently smaller index, and that every entry holds what its fields mean: a `file`
is a file of the folder itself (never `../` or a link out of it), `languages` a list of
known language codes, every text a string. A wrong one is a CorpusError naming the entry.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .records import LANGS

METADATA = "sources.toml"
# Files in a corpus folder that are not documents.
NOT_DOCUMENTS = {METADATA, "glossary.tsv", "README.md"}


class CorpusError(Exception):
    """A problem with one document or the metadata; the message names the file (and line)."""

    def __init__(self, path: Path | str, message: str, line: int | None = None):
        self.path, self.line = str(path), line
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Source:
    id: str
    path: Path
    title: str
    family: str
    languages: tuple[str, ...]
    product: str = ""
    date: str | None = None
    edition: str | None = None
    urls: tuple[str, ...] = field(default_factory=tuple)
    publisher: str = ""
    notes: str = ""

    def to_dict(self) -> dict:
        return {
            "id": self.id, "file": self.path.name, "title": self.title, "family": self.family,
            "languages": list(self.languages), "product": self.product, "date": self.date,
            "edition": self.edition, "urls": list(self.urls), "publisher": self.publisher,
            "notes": self.notes,
        }


def _check_entry(meta_path: Path, n: int, entry: dict) -> None:
    for key in ("id", "file", "title", "family", "product", "date", "edition"):
        if key in entry and not isinstance(entry[key], str):
            raise CorpusError(meta_path, f"entry {n}: {key} must be a string, not {type(entry[key]).__name__}")
    for key in ("languages", "urls"):
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise CorpusError(meta_path, f"entry {n}: {key} must be a list of strings, like [\"en\"]")
    unknown = [lang for lang in entry["languages"] if lang not in LANGS]
    if unknown:
        raise CorpusError(meta_path, f"entry {n}: unknown language {unknown[0][:20]!r} (known: {', '.join(LANGS)})")
    # A file of the folder or of a subfolder (rules/), named plainly: no absolute path, no
    # `..`, no hidden part, no backslash.
    name = entry["file"]
    parts = Path(name).parts
    if Path(name).is_absolute() or not parts or any(part.startswith(".") for part in parts) or "\\" in name:
        raise CorpusError(meta_path, f"entry {n}: file {name[:80]!r} is not a file of the corpus folder")


def load_sources(folder: Path) -> list[Source]:
    """The documents of a corpus folder, in metadata order. Raises CorpusError on any mismatch."""
    meta_path = folder / METADATA
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CorpusError(meta_path, "missing: every corpus folder describes its documents here") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CorpusError(meta_path, f"not valid TOML: {exc}") from None
    sources, seen_ids, seen_files = [], set(), set()
    entries = meta.get("source", [])
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise CorpusError(meta_path, "[[source]] must be a list of tables")
    for n, entry in enumerate(entries, 1):
        missing = [k for k in ("id", "file", "title", "family", "languages") if not entry.get(k)]
        if missing:
            raise CorpusError(meta_path, f"entry {n} lacks {', '.join(missing)}")
        _check_entry(meta_path, n, entry)
        if entry["id"] in seen_ids:
            raise CorpusError(meta_path, f"entry {n}: duplicate source id {entry['id']!r}")
        path = folder / entry["file"]
        if any(p.is_symlink() for p in (path, *path.parents) if p != folder and p.is_relative_to(folder)) \
                or not path.resolve().is_relative_to(folder.resolve()):
            raise CorpusError(meta_path, f"entry {n}: file {entry['file'][:80]!r} is not a file of the corpus folder")
        if not path.is_file():
            raise CorpusError(path, f"described in {METADATA} (id {entry['id']!r}) but the file is missing")
        seen_ids.add(entry["id"])
        seen_files.add(entry["file"])
        sources.append(Source(
            id=entry["id"], path=path, title=entry["title"], family=entry["family"],
            languages=tuple(entry["languages"]), product=entry.get("product", ""),
            date=entry.get("date"), edition=entry.get("edition"), urls=tuple(entry.get("urls", ())),
            publisher=entry.get("publisher", ""), notes=entry.get("notes", ""),
        ))
    # The folder itself and every subfolder holding a described file (rules/) hold documents only.
    folders = {folder} | {(folder / name).parent for name in seen_files}
    for sub in sorted(folders):
        for path in sorted(sub.iterdir()):
            name = path.relative_to(folder).as_posix()
            if (path.is_file() and not path.name.startswith(".") and path.name not in NOT_DOCUMENTS
                    and name not in seen_files):
                raise CorpusError(path, f"has no entry in {METADATA}: describe it there or remove it")
    return sources
