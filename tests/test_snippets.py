"""Where a snippet's window is placed in a long text: before the first place any query
word occurs, whichever word it is and in whatever order the words are looked for."""
from __future__ import annotations

import random

from indexer.knowledge.snippets import LEAD, WINDOW, needles, window_start


def test_a_long_latin_word_is_looked_for_by_its_first_five_letters_once():
    assert needles(["Kicker kicked", "增幅", "tap"]) == ["kicke", "增幅", "tap"]


def test_the_window_starts_before_the_first_needle_whatever_the_needles_order():
    rng = random.Random(7)
    words = ["tap", "kicke", "增幅", "mana", "attacking", "x"]
    for _ in range(300):
        form = "".join(rng.choice([*words, "." * rng.randrange(1, 60)]) for _ in range(40))
        chosen = rng.sample(words, rng.randrange(1, len(words)))
        found = [form.find(w) for w in chosen if w in form]
        expected = 0 if len(form) <= WINDOW or not found else max(0, min(found) - LEAD)
        assert window_start(form, chosen) == expected
        assert window_start(form, chosen[::-1]) == expected


def test_a_longer_needle_starting_before_a_shorter_one_found_first_places_the_window():
    form = "." * 400 + "attacking" + "." * 400
    assert window_start(form, ["king", "attacking"]) == 400 - LEAD
