"""Divide each judged question file into a tuning part (two thirds) and a sealed part (one third):
tests/questions.tsv (sentences), tests/questions_terse.tsv (a few words of the game's terms) and
tests/questions_real.tsv (real players' questions, each with where it was asked).

The split is drawn once with a fixed seed within each category (language), so that both parts
hold about as many English, Traditional and Simplified questions as the whole and the same file
always splits the same way. The ranking is tuned on the tuning parts only; the sealed parts are
scored as one figure per category, which is how a change that fits the tuning questions (and
not questions in general) shows: its sealed figure falls behind its tuning one.

The tuning parts' questions are also the answered questions the ranking reads as more index
text of the rules answering them (indexer/knowledge/data/answered.tsv, `indexer.knowledge.answered`): the
sealed parts never are, so they still show what the ranking does with questions it has not seen.

    python tests/questions_split.py          # writes each file's two parts next to it, and answered.tsv
    python tests/questions_split.py --check  # exits 1 when a part differs from a fresh split
"""
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "questions.tsv"
TUNING = HERE / "questions_tuning.tsv"
SEALED = HERE / "questions_sealed.tsv"
TERSE = HERE / "questions_terse.tsv"
TERSE_TUNING = HERE / "questions_terse_tuning.tsv"
TERSE_SEALED = HERE / "questions_terse_sealed.tsv"
REAL = HERE / "questions_real.tsv"
REAL_TUNING = HERE / "questions_real_tuning.tsv"
REAL_SEALED = HERE / "questions_real_sealed.tsv"
# Each judged file and its (tuning, sealed) parts.
PARTS = {SOURCE: (TUNING, SEALED), TERSE: (TERSE_TUNING, TERSE_SEALED), REAL: (REAL_TUNING, REAL_SEALED)}
SEED = 20261201
ANSWERED = HERE.parent / "indexer" / "knowledge" / "data" / "answered.tsv"
ANSWERED_HEADER = """# Questions people asked and the rules answering each, read by hand from the rules text: the
# tuning parts of tests/questions.tsv, tests/questions_terse.tsv and tests/questions_real.tsv,
# written by tests/questions_split.py; do not edit by hand. A rule is `number` (today's) or
# `number@edition`; the source is where a real question was asked, or the project's file.
rules\tlanguage\tquestion\tsource
"""

HEADER = """# {part} of {source}, written by questions_split.py (seed {seed}); do not edit by hand.
# {what}
# Format: language<TAB>question<TAB>targets{asked} (../shared/eval/score.py's syntax{sourced}).
"""
WHAT = {
    "tuning": "The two thirds the ranking may be tuned on.",
    "sealed": "The third scored only as one figure per language (MRR@10 and hit@5), never read query by query.",
}


def question_lines(path=SOURCE):
    """The question lines of the file, in order (comments and blank lines left out)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def split(lines, seed=SEED):
    """(tuning, sealed): within each category, a third of its lines, drawn with the seed, are sealed."""
    by_category = defaultdict(list)
    for line in lines:
        by_category[line.split("\t", 1)[0]].append(line)
    rng = random.Random(seed)
    sealed = set()
    for category in sorted(by_category):
        group = by_category[category]
        sealed.update(rng.sample(group, round(len(group) / 3)))
    return [ln for ln in lines if ln not in sealed], [ln for ln in lines if ln in sealed]


def target_rules(targets):
    """The rules a question's targets name (`rule:` or `rule=` conditions), as `number` or
    `number@edition`, in order, once each."""
    found = []
    for alternative in targets.split("|"):
        conditions = dict(re.split("[:=]", c, maxsplit=1) for c in alternative.split("&") if re.search("[:=]", c))
        number = conditions.get("rule")
        if number:
            edition = conditions.get("edition", "")
            found.append(f"{number}@{edition}" if edition else number)
    return list(dict.fromkeys(found))


def answered_line(line, source):
    """A tuning question as answered.tsv holds it: its rules, language, text and source."""
    fields = line.split("\t")
    rules = target_rules(fields[2])
    where = fields[3] if len(fields) > 3 else f"tests/{source.name}"
    return "\t".join([" ".join(rules), fields[0], fields[1], where]) if rules else None


def rendered(seed=SEED):
    """The text of every part as a fresh split writes it, and of answered.tsv."""
    texts = {}
    answered = []
    # A question a held-out file asks too (a few words: commander tax) is not asked, so that
    # the held-out files still measure questions the ranking has not seen.
    held_out = {line.split("\t")[1] for path in sorted(HERE.glob("questions_*held_out*.tsv"))
                for line in question_lines(path)}
    for source, (tuning_path, sealed_path) in PARTS.items():
        tuning, sealed = split(question_lines(source), seed)
        fresh = (line for line in tuning if line.split("\t")[1] not in held_out)
        answered += [a for a in (answered_line(line, source) for line in fresh) if a]
        for path, part, lines in ((tuning_path, "tuning", tuning), (sealed_path, "sealed", sealed)):
            sourced = lines and lines[0].count("\t") == 3
            header = HEADER.format(part=f"{part.capitalize()} part", source=source.name, seed=seed, what=WHAT[part],
                                   asked="<TAB>source address" if sourced else "",
                                   sourced=", and where the question was asked" if sourced else "")
            texts[path] = header + "\n".join(lines) + "\n"
    texts[ANSWERED] = ANSWERED_HEADER + "\n".join(answered) + "\n"
    return texts


def main(argv):
    texts = rendered()
    if "--check" in argv:
        stale = [p.name for p, text in texts.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
        if stale:
            print("out of date: " + ", ".join(stale) + " (run python tests/questions_split.py)")
            return 1
        return 0
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
