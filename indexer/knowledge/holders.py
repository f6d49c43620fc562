"""How many of today's rules hold a Chinese written form: the rarity of a Chinese question's
word as the question's share reads it.

A question's share (`QuestionRanker.coverage`) counts a concept held when a candidate's
folded text holds its form as written, anywhere: 算 is held by every rule saying 结算, 分 by
每一部分. The index counts words as the segmenter cut them, and it never makes 算 of 结算, so
by the index 算 is a rare word (9.25, among the heaviest of a question) and the rules holding
结算 took most of 跳離算離開戰場嗎's share. Counted the way the share holds it, over the rules
a question is answered from (today's), a form weighs what holding it says.

The count is exact (a form's characters' postings narrow today's rules to those holding
each character, whose texts are then searched for the form) and remembered per form within
a budget of bytes.
"""
from __future__ import annotations

import numpy as np

from indexer.documents.bounded_cache import bounded_cache
from indexer.documents.chinese import HAN_RUN

from .catalogue import Catalogue


class TodaysHolders:
    """The count of today's rules with Chinese text whose folded texts hold a form."""

    def __init__(self, catalogue: Catalogue, cache_bytes: int):
        self._catalogue = catalogue
        postings: dict[str, list[int]] = {}
        rules = [at for at, r in enumerate(catalogue.by_position)
                 if r.kind == "rule" and catalogue.of_todays_rules(r) and HAN_RUN.search(r.text.get("zh_hans", ""))]
        for at in rules:
            for run in HAN_RUN.findall("".join(set(catalogue.folded_text(at)))):
                for char in run:
                    postings.setdefault(char, []).append(at)
        self._postings = {char: np.array(ats, np.int64) for char, ats in postings.items()}
        self.total = len(rules)
        self.count = bounded_cache(cache_bytes)(self._count)

    def _count(self, form: bytes) -> int:
        """How many of today's rules hold `form` (folded UTF-8, Chinese) as written."""
        text = form.decode("utf-8", errors="replace")
        chars = set(text)
        lists = sorted((self._postings.get(c, np.zeros(0, np.int64)) for c in chars), key=len)
        found = lists[0]
        for more in lists[1:]:
            if not len(found):
                break
            found = np.intersect1d(found, more, assume_unique=True)
        if len(text) == 1:
            return len(found)
        return len(self._catalogue.holding(found.tolist(), form))
