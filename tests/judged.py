"""Scoring search answers against judged queries (tests/judged_queries.tsv).

The target grammar is the one of the development set the service is judged by: `rule:N` (N or
a subrule), `rule=N`, `name:X` / `name=X`, `text:X`, `kind:K`, `&` joining conditions and `|`
separating alternatives. MRR@10 and hit@5 are computed overall and per category.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

QUERIES = Path(__file__).with_name("judged_queries.tsv")
MAX_TEXT = 4000


def load(path: Path = QUERIES) -> list[tuple[str, str, list[str]]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path}:{n}: want 3 tab-separated fields, got {len(parts)}")
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
        return any(want.casefold() in v.casefold() for v in names + [title])
    if field == "text":
        text = result.get("text") or ""
        return (len(text) <= MAX_TEXT and want in text) or want in title
    if field == "kind":
        return result.get("kind") == want
    raise ValueError(f"bad target {atom!r}")


def matches(result: dict, target: str) -> bool:
    return all(_atom(result, atom) for atom in target.split("&"))


def rank(results: list[dict], targets: list[str], k: int = 10) -> int | None:
    for i, result in enumerate(results[:k], 1):
        if any(matches(result, t) for t in targets):
            return i
    return None


def score(search, rows=None, k: int = 10) -> dict:
    """Run every judged query through `search(q, k) -> results` and summarise."""
    per_cat, hits5, misses = defaultdict(list), defaultdict(list), []
    for cat, query, targets in rows or load():
        r = rank(search(query, k), targets, k)
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
