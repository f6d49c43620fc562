"""Building the index beside the records, and switching to it atomically.

An index lives in its own folder under the index root (records.jsonl, sources.json, the
lineage of the rules across editions, the user dictionary it was segmented with, the
glossary it was built with, the engine's files, meta.json: see `opened_build`). `CURRENT`
names the folder in use and is replaced in one rename, so a reader sees the old index or the
new one, never a mixture; a build that fails (a broken document) never touches `CURRENT`.
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import inspect
import json
import multiprocessing
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from indexer.documents.corpus import METADATA, CorpusError, load_sources
from indexer.documents.glossary import Glossary
from indexer.documents.ingest import GLOSSARY, IngestResult, folder_files, ingest, read_records, write_records
from indexer.documents.records import Record

from . import analysis, folding, highlighting, lineage
from .engine import IndexUnavailable
from .opened_build import ENGINE, GLOSSARY_FILE, USER_WORDS_FILE, IndexBuild, verify, write_manifest

ROOT = Path(__file__).resolve().parents[2]
# The packages whose code and data decide what an index holds (their Python, and tables such
# as the rules files' recorded restorations): changing any of them means a rebuild.
INDEXING_CODE = ("indexer/documents", "indexer/search")
INDEXING_FILES = ("*.py", "*.tsv")
# A later stage of a build (the offline copy, the book's parts) opens it through the knowledge
# library and writes with the web app's code: the ranking's weights and tables, the players'
# words, the word table, the templates, the addresses. What it writes must change with any of
# them, or a copy made by older code would part from what the server reads live.
EXTRAS_CODE = ("indexer", "webapp")
EXTRAS_FILES = ("*.py", "*.tsv", "*.npz", "*.html")
DEFAULT_INDEX_ROOT = ROOT / "var" / "index"
CURRENT = "CURRENT"
LOCK = ".build.lock"
KEEP_BUILDS = 3


class BuildError(Exception):
    """The build did not happen; the previous index (if any) is still the one in use."""


@dataclass
class BuildOutcome:
    folder: Path
    corpus_hash: str
    built: bool          # False when the index already matched the corpus
    seconds: float = 0.0
    result: IngestResult | None = None


def input_files(paths: list[Path]) -> list[Path]:
    """The files a build reads, found without parsing anything: for the change check."""
    files = [GLOSSARY]
    for path in paths:
        if path.is_dir() and (path / METADATA).exists():
            files.append(path / METADATA)
            try:
                files.extend(source.path for source in load_sources(path))
            except CorpusError:
                files.extend(p for p in path.iterdir() if p.is_file())
        elif path.is_dir():
            rules, cards = folder_files(path)
            files.extend(rules + cards)
        elif path.exists():
            files.append(path)
    return files


def corpus_hash(paths: list[Path]) -> str:
    """Hash of every input file and of the indexing code: either changing means a rebuild.
    A file whose bytes were already given under another name counts once, as ingestion
    reads it once (`serve ../shared/cr` over the corpus's own copies keeps its index)."""
    digest = hashlib.sha256()
    first: dict[bytes, Path] = {}
    for path in input_files(paths):
        data = path.read_bytes()
        first.setdefault(hashlib.sha256(data).digest(), path.resolve())
    for content, path in sorted(first.items(), key=lambda item: str(item[1])):
        digest.update(str(path).encode() + b"\0" + content)
    for code in _code_files(INDEXING_CODE, INDEXING_FILES):
        digest.update(code.read_bytes())
    return digest.hexdigest()


def _code_files(packages: tuple[str, ...], patterns: tuple[str, ...]) -> list[Path]:
    """The files of these folders of the checkout that match these patterns, in one order."""
    return sorted({path for package in packages for pattern in patterns for path in (ROOT / package).rglob(pattern)})


_BUILD_NAME = re.compile(r"\d{8}T\d{6}-[0-9a-f]{12}")


def current_folder(root: Path) -> Path | None:
    """The build folder `CURRENT` names, or None when there is none: no file, or anything in
    it that is not a build name (a damaged pointer is repaired by the next build)."""
    try:
        name = (root / CURRENT).read_bytes().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return root / name if _BUILD_NAME.fullmatch(name) else None


def current_meta(root: Path) -> dict:
    folder = current_folder(root)
    try:
        return json.loads((folder / "meta.json").read_text(encoding="utf-8")) if folder else {}
    except (OSError, ValueError):
        return {}


def user_words(records: list[Record]) -> set[str]:
    """Words jieba must keep whole: glossary forms, rule titles, card and plane names."""
    words = set(Glossary.load(GLOSSARY).all_forms())
    for record in records:
        if record.kind in ("card", "planar_card", "term") or (record.kind == "rule" and record.keyword):
            words.update(record.names.values())
            words.update(record.aliases)
            words.update(record.title.values())
    return {w for w in words if w and len(w) <= 12}


# A build of at least this many records has a second process write the part of the index the
# engine writes apart (or else the side files) and run all its extras but the first, while this
# one writes the rest and runs the first extra. A smaller build does them in turn (a process
# started costs more than it saves).
PARALLEL_RECORDS = 10_000

# A further file a build writes into its folder before the switch, made by a later stage of
# the pipeline from the opened folder and the build's name (the offline copy,
# `webapp.offline_copy.write`); what it returns is kept in meta.json under its key.
Extra = Callable[[Path, str], dict]


def inputs_hash(paths: list[Path], extras: Mapping[str, Extra] = MappingProxyType({})) -> str:
    """`corpus_hash`, and with extras the code and data they read too (`EXTRAS_CODE`, and each
    one's own module): what a later stage writes changes with them as well. A build whose
    meta.json holds this hash is of these inputs."""
    digest = corpus_hash(paths)
    if not extras:
        return digest
    sources = {Path(inspect.getsourcefile(extra) or "") for extra in extras.values()}
    code = sorted(sources.union(_code_files(EXTRAS_CODE, EXTRAS_FILES)))
    return hashlib.sha256(digest.encode() + b"".join(path.read_bytes() for path in code)).hexdigest()


def build(paths: list[Path], root: Path = DEFAULT_INDEX_ROOT, force: bool = False,
          progress: bool = False, extras: Mapping[str, Extra] = MappingProxyType({})) -> BuildOutcome:
    """Builds unless the index CURRENT names is of these inputs and whole. Builds into one
    root take turns (a lock file held for the whole build): a second one started meanwhile
    finds the first one's index up to date, and two never race for one folder name."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(paths, root, force, progress, extras)


def _build(paths: list[Path], root: Path, force: bool, progress: bool, extras: Mapping[str, Extra]) -> BuildOutcome:
    started = time.perf_counter()
    remove_dead_builds(root)
    digest = inputs_hash(paths, extras)
    folder = current_folder(root)
    if not force and folder and current_meta(root).get("corpus_hash") == digest and _usable(folder):
        return BuildOutcome(folder, digest, built=False)
    result = ingest(paths, progress=progress)
    if result.errors:
        raise BuildError("index not rebuilt; the index in use is unchanged:\n  " + "\n  ".join(result.errors))
    outcome = build_records(result, digest, root, extras, progress)
    outcome.seconds = time.perf_counter() - started
    return outcome


def build_records(result: IngestResult, digest: str, root: Path = DEFAULT_INDEX_ROOT,
                  extras: Mapping[str, Extra] = MappingProxyType({}), progress: bool = False) -> BuildOutcome:
    """Index ingested records into a new folder of `root` and switch `CURRENT` to it; with
    `progress`, a progress bar of the records indexed (the long part of a first build)."""
    started = time.perf_counter()
    root.mkdir(parents=True, exist_ok=True)
    name = f"{time.strftime('%Y%m%dT%H%M%S')}-{digest[:12]}"
    while (root / name).exists():  # the same corpus built twice within a second
        time.sleep(1)
        name = f"{time.strftime('%Y%m%dT%H%M%S')}-{digest[:12]}"
    tmp = root / f".tmp-{name}-{os.getpid()}"
    try:
        write_records(result, tmp)
        shutil.copyfile(GLOSSARY, tmp / GLOSSARY_FILE)
        words = analysis.write_user_dictionary(tmp / USER_WORDS_FILE, user_words(result.records))
        segmenter = analysis.segmenter_for(frozenset(words))
        with _second_process(len(result.records)) as second:
            # The second process writes the part of the index the engine writes apart (the
            # card data's), while this one writes the rest and then the side files; with no
            # such part, it writes the side files while this one writes the index.
            apart = second if second and ENGINE.writes_apart(result.records) else None
            side = second.submit(_side_files, tmp) if second and not apart else None
            here = functools.partial(_write_side_files, result.records, tmp) if side is None else None
            ENGINE.build(result.records, tmp, segmenter, apart, meanwhile=here, progress=progress)
            if side is not None:
                side.result()
            meta = {"corpus_hash": digest, "records": len(result.records), "built": time.time(),
                    "inputs": [str(p) for p in result.inputs]}
            (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
            write_manifest(tmp)
            if extras:  # each opens the build as it stands, then joins its manifest
                meta.update(_run_extras(extras, tmp, name, second))
                (tmp / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
                write_manifest(tmp)
        final = root / name
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    switch_to(root, name)
    _prune(root, keep={name})
    return BuildOutcome(final, digest, built=True, seconds=time.perf_counter() - started, result=result)


@contextlib.contextmanager
def _second_process(records: int) -> Iterator[ProcessPoolExecutor | None]:
    """A second process for a large build (at least PARALLEL_RECORDS records), None for a
    small one: started fresh (spawned, not forked: the caller may run threads)."""
    if records < PARALLEL_RECORDS:
        yield None
        return
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            yield pool
        except BaseException:  # a failed build does not wait for work handed off to it
            pool.shutdown(cancel_futures=True)
            raise


def _write_side_files(records: list[Record], folder: Path) -> None:
    """What a build holds beside its index: the records' folded texts, marking forms and lineage."""
    folding.write(records, folder)
    highlighting.write(records, folder)
    lineage.write(lineage.align(records), folder)


def _side_files(folder: Path) -> None:
    """`_write_side_files` from the records the build wrote (in the second process)."""
    _write_side_files(read_records(folder)[0], folder)


def _run_extras(extras: Mapping[str, Extra], folder: Path, name: str,
                second: ProcessPoolExecutor | None) -> list[tuple[str, dict]]:
    """Each extra's meta, in order: the first run here, the others at the same time in the
    second process when there is one (each opens the build for itself)."""
    items = list(extras.items())
    later = [(key, second.submit(extra, folder, name)) for key, extra in items[1:]] if second else []
    first = [(key, extra(folder, name)) for key, extra in (items[:1] if second else items)]
    return first + [(key, future.result()) for key, future in later]


def switch_to(root: Path, name: str) -> None:
    """Make the build folder `name` of `root` the index in use, in one rename, once every file
    of it has its size and checksum (a build damaged since it was written, or an artifact
    copied wrong, never becomes current: BuildError)."""
    try:
        verify(root / name)
    except IndexUnavailable as exc:
        raise BuildError(f"not switched to {name}: {exc}") from None
    pointer = root / f".{CURRENT}.{os.getpid()}"
    pointer.write_text(name + "\n", encoding="utf-8")
    os.replace(pointer, root / CURRENT)


def install_artifact(folder: Path, root: Path) -> str:
    """Copy a built index folder (an artifact: its name is its id) into another index root,
    whole or not at all, without switching to it; its name."""
    if not _BUILD_NAME.fullmatch(folder.name):
        raise BuildError(f"{folder} is not an index build (its name is not a build id)")
    root.mkdir(parents=True, exist_ok=True)
    if not (root / folder.name).is_dir():
        tmp = root / f".tmp-{folder.name}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(folder, tmp)
        os.rename(tmp, root / folder.name)
    return folder.name


def _usable(folder: Path) -> bool:
    """Whether an index folder opens and reads whole: if not, a build replaces it even when
    the corpus did not change."""
    try:
        IndexBuild(folder).close()
    except IndexUnavailable:
        return False
    return True


def build_folders(root: Path) -> list[Path]:
    """The finished build folders of `root`, newest first (their names start with the time)."""
    try:
        return sorted((p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")), reverse=True)
    except OSError:
        return []


def _prune(root: Path, keep: set[str]) -> None:
    """Remove all but the newest builds; older ones may still be open in a serving process
    for a moment, or be what it falls back to when the newest is damaged, so a few are kept."""
    for old in build_folders(root)[KEEP_BUILDS:]:
        if old.name not in keep:
            shutil.rmtree(old, ignore_errors=True)
    remove_dead_builds(root)


_TMP_NAME = re.compile(r"\.tmp-.*-([0-9]+)")


def remove_dead_builds(root: Path) -> list[Path]:
    """Remove the temporary folders of builds (and artifact copies) whose process is gone: a
    killed build leaves its folder, the size of an index. Each is named for the process that
    writes it (`.tmp-NAME-PID`); one whose process still runs, another build's in another
    process, is left alone. The folders removed."""
    removed = []
    for stale in root.glob(".tmp-*"):
        match = _TMP_NAME.fullmatch(stale.name)
        if match is None or not stale.is_dir() or _running(int(match.group(1))):
            continue
        shutil.rmtree(stale, ignore_errors=True)
        removed.append(stale)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid > 0  # another user's process, or no process at all
    return True
