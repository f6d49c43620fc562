"""Scoring search answers against judged queries (tests/judged_queries.tsv over the documents,
tests/judged_rules.tsv over the rules editions), and the ranks they are held to.

The target grammar is the one of the development set the service is judged by: `rule:N` (N or
a subrule), `rule=N`, `name:X` / `name=X`, `text:X`, `kind:K`, `edition:E` (the result's edition
starts with E), `&` joining conditions and `|` separating alternatives. MRR@10 and hit@5 are
computed overall and per category.

`judged_ranks.tsv` records the rank of every query of both sets on the whole knowledge base
(corpus/ as shipped), a regression harness as Pyserini's are: the suite fails when any query
ranks lower than recorded. After a change that improves ranks, record them again:

    python -m indexer build --index-root /tmp/kb && python tests/judged.py record /tmp/kb
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import questions_split

QUERIES = Path(__file__).with_name("judged_queries.tsv")
RULES = Path(__file__).with_name("judged_rules.tsv")
RANKS = Path(__file__).with_name("judged_ranks.tsv")
SETS = {"documents": QUERIES, "rules": RULES}
MAX_TEXT = 4000


def load(path: Path = QUERIES) -> list[tuple[str, str, list[str]]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) not in (3, 4):  # a fourth: where a real question was asked
            raise ValueError(f"{path}:{n}: want 3 or 4 tab-separated fields, got {len(parts)}")
        rows.append((parts[0], parts[1], parts[2].split("|")))
    return rows


def _rule_matches(rule: str | None, want: str, exact: bool) -> bool:
    rule = (rule or "").strip()
    if exact or not rule.startswith(want):
        return rule == want
    rest = rule[len(want):]
    return rest == "" or rest.isalpha() or (rest.startswith(".") and rest[1:].isdigit())


def _atom(result: dict, atom: str) -> bool:
    op_pos = min(p for p in (atom.find(":"), atom.find("="), len(atom)) if p != -1)
    field, op, want = atom[:op_pos], atom[op_pos:op_pos + 1], atom[op_pos + 1:]
    names = [v for v in (result.get("names") or {}).values() if isinstance(v, str)]
    title = result.get("title") or ""
    if field == "rule":
        return _rule_matches(result.get("rule"), want, op == "=")
    if field == "name":
        if op == "=":
            return any(v.strip() == want for v in names)
        return any(want.casefold() in v.casefold() for v in [*names, title])
    if field == "text":
        text = result.get("text") or ""
        return (len(text) <= MAX_TEXT and want in text) or want in title
    if field == "kind":
        return result.get("kind") == want
    if field == "edition":
        return (result.get("edition") or "").startswith(want)
    raise ValueError(f"bad target {atom!r}")


def matches(result: dict, target: str) -> bool:
    return all(_atom(result, atom) for atom in target.split("&"))


def rank(results: list[dict], targets: list[str], k: int = 10) -> int | None:
    for i, result in enumerate(results[:k], 1):
        if any(matches(result, t) for t in targets):
            return i
    return None


def ranks(search, rows, k: int = 10) -> dict[str, int | None]:
    """query -> the rank of its first right answer (None: not in the top k)."""
    return {query: rank(search(query, k), targets, k) for _, query, targets in rows}


def score(search, rows=None, k: int = 10, found: dict[str, int | None] | None = None) -> dict:
    """Run every judged query through `search(q, k) -> results` (or take the ranks `found`)
    and summarise."""
    per_cat, hits5, misses = defaultdict(list), defaultdict(list), []
    for cat, query, targets in rows or load():
        r = found[query] if found is not None else rank(search(query, k), targets, k)
        per_cat[cat].append(1.0 / r if r else 0.0)
        hits5[cat].append(1.0 if r and r <= 5 else 0.0)
        if not r or r > 1:
            misses.append(f"{cat}\t{query}\t{'rank ' + str(r) if r else 'MISS'}")
    everything = [v for vs in per_cat.values() for v in vs]
    return {
        "mrr": statistics.mean(everything),
        "hit5": statistics.mean(h for hs in hits5.values() for h in hs),
        "categories": {c: (statistics.mean(v), statistics.mean(hits5[c]), len(v)) for c, v in per_cat.items()},
        "not_first": misses,
    }


def answers(library) -> dict[tuple[str, str], list[dict]]:
    """(set, query) -> the top ten results of `library`, for every query of both sets."""
    return {(name, query): library.search(query, limit=10)["results"]
            for name, path in SETS.items() for _, query, _ in load(path)}


def found_ranks(found: dict[tuple[str, str], list[dict]]) -> dict[tuple[str, str], int | None]:
    """(set, query) -> the rank of its first target in `found` (`answers`)."""
    return {(name, query): rank(found[(name, query)], targets)
            for name, path in SETS.items() for _, query, targets in load(path)}


def drops(found: dict, recorded: dict) -> list[str]:
    """Queries ranking lower than recorded (a miss is lower than any rank)."""
    lower = []
    for key, was in recorded.items():
        now = found.get(key)
        if was is not None and (now is None or now > was):
            lower.append(f"{key[0]}\t{key[1]}\trecorded {was}, now {now or 'not in the top 10'}")
    return lower


def tuning_mrr(library, path: Path) -> dict[str, float]:
    """MRR@10 of a question file (language, question, targets) per language, as the scorer counts it."""
    per: dict[str, list[float]] = {}
    for language, question, targets, *_source in (line.split("\t") for line in
                                                  path.read_text(encoding="utf-8").splitlines()
                                                  if line and not line.startswith("#")):
        found = rank(library.search(question, limit=10)["results"], targets.split("|"))
        per.setdefault(language, []).append(1 / found if found else 0.0)
    return {language: statistics.mean(values) for language, values in per.items()}


def whole_tuning_mrr(library) -> dict[str, float]:
    """MRR@10 of the tuning parts per category: the questions' sentences, their terse ones and
    the real players' questions."""
    return {**tuning_mrr(library, questions_split.TUNING),
            **{f"terse_{language}": mrr for language, mrr in tuning_mrr(library, questions_split.TERSE_TUNING).items()},
            **{f"real_{language}": mrr for language, mrr in tuning_mrr(library, questions_split.REAL_TUNING).items()}}


def read_ranks(path: Path = RANKS) -> dict[tuple[str, str], int | None]:
    """(set, query) -> recorded rank (None: recorded as not in the top 10)."""
    recorded = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, query, value = line.split("\t")
            recorded[(name, query)] = None if value == "-" else int(value)
    return recorded


def record(index_root: Path, path: Path = RANKS) -> None:
    """Write the ranks of both sets on the index under `index_root`."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from indexer.knowledge.library import Library
    from indexer.search.build import current_folder

    folder = current_folder(index_root)
    if folder is None:
        raise SystemExit(f"no index build in {index_root}")
    library = Library(folder)
    lines = ["# Recorded ranks of the judged queries on the whole knowledge base (see judged.py).",
             "# set<TAB>query<TAB>rank ('-': not in the top 10). A query ranking lower fails the suite."]
    for name, rows_path in SETS.items():
        found = ranks(lambda q, k: library.search(q, limit=k)["results"], load(rows_path))
        lines += [f"{name}\t{query}\t{r or '-'}" for query, r in found.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "record":
        sys.exit("usage: python tests/judged.py record INDEX_ROOT")
    record(Path(sys.argv[2]))
