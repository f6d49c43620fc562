"""The article parser on the real Bulgarian Planechase article."""
from collections import Counter
from pathlib import Path

import pytest
from corpus_support import corpus_source

from indexer.documents.parsers import ParseError, position
from indexer.documents.parsers.article import parse
from indexer.documents.textclean import mixed_script_words

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = "planechase-article-bg"
SOURCE = corpus_source(DOCUMENT)
TEXT = SOURCE.path.read_text(encoding="utf-8")


def test_counts_per_kind(parsed):
    assert Counter(r.kind for r in parsed.records) == {"section": 19}
    assert parsed.warnings == []


def test_title_line_is_the_first_sections_title(parsed):
    first = parsed.records[0]
    assert first.id == "planechase-article-bg:section:1"
    assert first.title == {"bg": "Planechase - пътуване през световете"} and first.attrs == {"level": "1"}
    assert first.text["bg"].startswith("Planechase ви дава всичко необходимо, за да играете Dimensional Magic,")
    assert (first.line, first.offset) == (1, 0)


def test_headings_title_the_paragraph_under_them(parsed):
    titled = [(r.line, r.title["bg"]) for r in parsed.records if r.title]
    assert titled == [
        (1, "Planechase - пътуване през световете"), (3, "Да започнем пътуването"), (20, "Играчът напуска играта"),
    ]
    leaving = next(r for r in parsed.records if r.line == 20)
    assert leaving.text["bg"].startswith("За разлика от дуелите, в мултиплейър игрите")


def test_bullets_belong_to_the_paragraph_before(parsed):
    facts = next(r for r in parsed.records if r.text["bg"].startswith("Нека да разгледаме"))
    lines = facts.text["bg"].split("\n")
    assert lines[0] == "Нека да разгледаме някои факти за размерните карти:"
    assert [line[:20] for line in lines[1:]] == ["- Точно една карта н", "- Те никога не влиза", "- Картата с измерени"]
    assert (facts.line, facts.offset) == (8, TEXT.index("Нека да разгледаме"))
    last = parsed.records[-2]
    assert last.text["bg"].split("\n")[1:] == [
        "- Вашето тесте с измерения трябва да има поне 10 карти.",
        "- Вашето тесте с измерения не трябва да съдържа карти с едно и също име.",
    ]
    assert not any(r.text["bg"].startswith("- ") for r in parsed.records)


def test_bulgarian_stays_cyrillic_and_glued_words_are_split(parsed):
    texts = [r.text["bg"] for r in parsed.records]
    assert any(" зар" in t for t in texts) and any("хвърлите зара" in t for t in texts)
    assert any("като нормалната Magic," in t for t in texts)
    for text in texts:
        assert mixed_script_words(text) == [], text


def test_no_edition_and_no_references(parsed):
    for record in parsed.records:
        assert record.edition is None and record.references == [] and record.source == "planechase-article-bg"


def test_positions_and_stable_unique_ids(parsed):
    for record in parsed.records:
        assert position(TEXT, record.offset)[0] == record.line
    ids = [r.id for r in parsed.records]
    assert ids == [f"planechase-article-bg:section:{n}" for n in range(1, 20)]
    assert [r.to_dict() for r in parse(SOURCE, TEXT).records] == [r.to_dict() for r in parsed.records]


@pytest.mark.parametrize("text, line", [
    ("", 1),
    (" \n\u00a0\n", 1),
    ("\x00\x01\x02 ### 123\n", 1),
    ("Planechase\n\nИграчът напуска играта\n", 3),
])
def test_input_that_is_not_an_article_raises_with_a_position(text, line):
    with pytest.raises(ParseError) as info:
        parse(SOURCE, text)
    assert info.value.line == line


def test_words_the_article_glued_together_are_apart(parsed, text):
    glued = {"DimensionalMagic": "Dimensional Magic", "можетеза": "можете за", "играчнапуска": "играч напуска",
             "товасе": "това се"}
    body = "\n".join(t for r in parsed.records for t in r.texts("bg"))
    for word, words in glued.items():
        assert word in text and word not in body and words in body, word
    # Words that only look like two (an ending or a prefix that is also a word) stay whole.
    for word in ("опонентите", "пътуването", "подтипа", "показва"):
        assert word in body.lower(), word
