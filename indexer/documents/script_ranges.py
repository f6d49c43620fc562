"""The writing systems of the documents, as character ranges for a regular expression's
character class (`[{HAN}]`), written once.

The analyzer's tokens (`indexer.search.analysis`), the marking of a query's words
(`indexer.search.highlighting`), the cleaning of documents (`textclean`), a text's language on a
page (`webapp.present`) and the offline copy's search all read them from here: the build
writes them into the copy (`webapp.offline_copy`), and `webapp/static/offline-search/`
makes its patterns of them, so the browser cuts a query into the words the server does.
"""
from __future__ import annotations

# Han ideographs: CJK Unified Ideographs and Extension A, the compatibility block, and the
# supplementary planes' extensions. Punctuation and full-width forms are not Han.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# Latin letters: ASCII, Latin-1 (without × and ÷), Latin Extended-A and -B.
LATIN = "a-zA-Z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
# Cyrillic (the Bulgarian article) and Greek: letters of the documents that are neither.
CYRILLIC = "\u0400-\u04ff"
GREEK = "\u0370-\u03ff"
# A word of Latin letters as the analyzer reads one: an apostrophe inside keeps it one word
# (owner's), a hyphen does not (Two-Headed is two).
LATIN_WORD = rf"[{LATIN}]+(?:['\u2019][{LATIN}]+)*"
