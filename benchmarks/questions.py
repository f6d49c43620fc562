"""The judged questions (tests/questions.tsv, sentences, and tests/questions_terse.tsv, a few
words of the game's terms) scored in process, per category (language), as the scorer
(../shared/eval/score.py, whose matching this imports) scores them through `./scripts/serve`:
MRR@10 and hit@5 of the tuning parts, and of the sealed parts and the questions held out since
(tests/questions_held_out.tsv, tests/questions_terse_held_out.tsv, tests/questions_held_out_2.tsv
to tests/questions_held_out_5.tsv, the last four written from today's rules text alone) one figure
per category only, never query by query (they are how a change that only fits the tuning parts
shows).

    python -m benchmarks.questions INDEX_ROOT [--weight NAME=VALUE ...] [--off STAGE ...] [--show]

INDEX_ROOT holds a build's CURRENT. `--weight share=0.5` scores the ranking with a lever's weight
changed (a `Weights` field, as KB_WEIGHT_<NAME> sets it for the service), `--off meanings`
without a stage (`stages.STAGES`, as KB_STAGES_OFF does); `--show` lists the tuning questions
(sentences and terse) whose answer is not first, with the results above it.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from indexer.knowledge.library import Library
from indexer.knowledge.stages import Stages
from indexer.knowledge.weights import Weights

from .measure import build_folder

ROOT = Path(__file__).resolve().parent.parent
TUNING = ROOT / "tests" / "questions_tuning.tsv"
SEALED = ROOT / "tests" / "questions_sealed.tsv"
TERSE_TUNING = ROOT / "tests" / "questions_terse_tuning.tsv"
TERSE_SEALED = ROOT / "tests" / "questions_terse_sealed.tsv"
HELD_OUT = ROOT / "tests" / "questions_held_out.tsv"
TERSE_HELD_OUT = ROOT / "tests" / "questions_terse_held_out.tsv"
HELD_OUT_2 = ROOT / "tests" / "questions_held_out_2.tsv"
HELD_OUT_3 = ROOT / "tests" / "questions_held_out_3.tsv"
HELD_OUT_4 = ROOT / "tests" / "questions_held_out_4.tsv"
HELD_OUT_5 = ROOT / "tests" / "questions_held_out_5.tsv"
# Real players' questions, asked in public (tests/questions_real.tsv, with where each was asked).
REAL_TUNING = ROOT / "tests" / "questions_real_tuning.tsv"
REAL_SEALED = ROOT / "tests" / "questions_real_sealed.tsv"
SCORER = ROOT.parent / "shared" / "eval" / "score.py"
# Each part as printed, in order: the sealed and held-out ones one figure per category only.
PARTS = (("tuning", TUNING), ("sealed", SEALED), ("terse tuning", TERSE_TUNING), ("terse sealed", TERSE_SEALED),
         ("held-out", HELD_OUT), ("terse held", TERSE_HELD_OUT), ("held-out-2", HELD_OUT_2),
         ("held-out-3", HELD_OUT_3), ("held-out-4", HELD_OUT_4), ("held-out-5", HELD_OUT_5),
         ("real tuning", REAL_TUNING), ("real sealed", REAL_SEALED))


def scorer() -> ModuleType:
    """The scorer's module, for its query loading and matching (standard library only)."""
    spec = importlib.util.spec_from_file_location("score", SCORER)
    assert spec is not None and spec.loader is not None  # a .py file's, read by a source loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_questions(path: Path) -> list[tuple[str, str, list[str]]]:
    """(category, question, targets) of a judged file, as the scorer reads them; a real
    question's fourth field, where it was asked, is left out."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) not in (3, 4):
            raise SystemExit(f"{path}:{n}: want 3 or 4 tab-separated fields, got {len(parts)}")
        rows.append((parts[0], parts[1], parts[2].split("|")))
    return rows


def evaluate(library: Library, path: Path, score, show: bool = False) -> dict[str, tuple[float, float, int]]:
    """(MRR@10, hit@5, n) per category (language) of a queries file."""
    return figures(path, score, lambda queries: [library.search(q, 10)["results"] for q in queries], show)


def figures(path: Path, score, search: Callable[[list[str]], list[list[dict]]],
            show: bool = False) -> dict[str, tuple[float, float, int]]:
    """(MRR@10, hit@5, n) per category of a queries file, each query's first ten results given
    by `search` (all the file's queries at once, in order)."""
    rows = load_questions(path)
    rr: dict[str, list[float]] = {}
    hits: dict[str, list[float]] = {}
    for (category, query, targets), results in zip(rows, search([q for _, q, _ in rows]), strict=True):
        rank = next((i for i, r in enumerate(results, 1) if any(score.matches(r, t) for t in targets)), None)
        rr.setdefault(category, []).append(1 / rank if rank else 0.0)
        hits.setdefault(category, []).append(1.0 if rank and rank <= 5 else 0.0)
        if show and rank != 1:
            print(f"{category:8} {rank or '-':>2}  {query}")
            for r in results[:3]:
                print(f"             {r.get('rule') or r['kind']:10} {(r.get('snippet') or '')[:70]!r}")
    return {c: (statistics.mean(rr[c]), statistics.mean(hits[c]), len(rr[c])) for c in sorted(rr)}


def changed_weights(pairs: list[str]) -> Weights:
    """`Weights` with the `NAME=VALUE` pairs of `--weight` options set, each of its field's type."""
    defaults = Weights()
    return dataclasses.replace(defaults, **{name: type(getattr(defaults, name))(float(value))
                                            for name, value in (pair.split("=", 1) for pair in pairs)})


def line(name: str, figures: dict[str, tuple[float, float, int]]) -> str:
    return f"{name:12}" + "".join(f"  {c} {m:.3f}/{h:.3f} (n={n})" for c, (m, h, n) in figures.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index_root", type=Path)
    parser.add_argument("--weight", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--off", action="append", default=[], metavar="STAGE")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    library = Library(build_folder(args.index_root), weights=changed_weights(args.weight),
                      stages=Stages(frozenset(args.off)))
    score = scorer()
    try:
        for name, path in PARTS:
            print(line(name, evaluate(library, path, score, args.show and path in (TUNING, TERSE_TUNING))))
    finally:
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
