"""The index schema: which parts of a record are searchable, and how.

Names, titles and body text all use the one text analyzer (so indexing, querying and
highlighting agree); a character-bigram copy of everything is searched at a lower weight as a
recall fallback for words the dictionary segments differently. Record contents are not
stored in the index: the library serves them from the records file built beside it.
"""
from whoosh.fields import ID, KEYWORD, TEXT, Schema

from indexer.documents import scryfall

from .analysis import bigram_analyzer, text_analyzer

# Query-time weights of the searchable fields.
FIELD_WEIGHTS = {"names": 4.0, "title": 3.0, "body": 1.0, "grams": 0.3}
# The field of character bigrams: it finds what the segmenter cut otherwise, weak evidence of
# a match on its own.
RECALL_FIELD = "grams"
# A card's or plane's type line and world, searched like a heading: `Ravnica`, `拉尼卡` and
# `巨海獸` (a creature type) find the planes of that world and the cards of that type.
HEADING_ATTRS = ("type_line", "type_line_zh_hant", "world", "world_zh_hant")
# Records a query finds by their names only, and by their text and type line under `kind:card`:
# every card of Scryfall's data, thousands whose Oracle text and type lines would otherwise
# fill the answers of rules queries (persist, Equipment). Their recall field holds their names
# only, so a name partly typed in Chinese (化剑) still finds the card.
NAMED_ONLY_SOURCE = scryfall.SOURCE
NAMED_ONLY_KIND = "card"
# The fields that match a record by its names.
NAME_FIELDS = ("names", RECALL_FIELD)


def build_schema() -> Schema:
    text = text_analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        kind=ID,
        source=ID,
        edition=ID,
        lang=KEYWORD(commas=True),
        number=ID,
        names=TEXT(analyzer=text),
        title=TEXT(analyzer=text),
        body=TEXT(analyzer=text, phrase=True),
        grams=TEXT(analyzer=bigram_analyzer(), phrase=False),
    )


def searched_blocks(record) -> list[tuple[str, str]]:
    """The (language, text) blocks of a record that a query searches, folds and marks: each of
    `Record.blocks`, but a card of Scryfall's only its English Oracle text, the one it is
    searched by (`document`): 35,000 cards' rulings and Chinese text folded and marked would
    be 45 MB of every worker's memory that no query reads."""
    if record.source == NAMED_ONLY_SOURCE:
        return [("en", record.text["en"])] if record.text.get("en") else []
    return record.blocks()


def document(record) -> dict:
    """The fields of one record as the index sees them. A card of Scryfall's is searched by
    its English Oracle text (under `kind:card`), not by its rulings or printed Chinese text,
    which its page shows: tens of thousands of cards' rulings would double the build."""
    if record.source == NAMED_ONLY_SOURCE:
        body = [block for _, block in searched_blocks(record)]
    else:
        body = [record.text.get(lang, "") for lang in record.text]
        for group in (record.abilities, record.rulings, record.examples):
            body.extend(text for item in group for text in item.values())
    names = [*record.names.values(), *record.aliases]
    titles = [*record.title.values(), *(record.attrs[key] for key in HEADING_ATTRS if record.attrs.get(key))]
    return {
        "id": record.id,
        "kind": record.kind,
        "source": record.source,
        "edition": record.edition or "",
        "lang": ",".join(record.languages()),
        "number": record.number or "",
        "names": "\n".join(names),
        "title": "\n".join(titles),
        "body": "\n".join(body),
        "grams": "\n".join(names if record.source == NAMED_ONLY_SOURCE else [*names, *titles, *body]),
    }
