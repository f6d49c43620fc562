"""One timeline of editions: a document's edition label resolves to the rules edition it quotes."""
from indexer.documents.records import Record, Reference, rules_file_source
from indexer.documents.timeline import resolve_editions


def rule(source: str, edition: str, number: str, **text) -> Record:
    return Record(id=f"{source}:rule:{number}", kind="rule", source=source, edition=edition, line=1, offset=0,
                  number=number, text=text)


def rules_file(edition: str, numbers: dict[str, str]) -> list[Record]:
    return [rule(rules_file_source(edition), edition, number, en=text) for number, text in numbers.items()]


def test_the_nearest_edition_that_has_the_documents_rules_and_words():
    quoted = rule("digest", "2009-07-08", "702.79", en="Devour  N", zh_hant="吞噬N")
    citing = Record(id="faq:card:x", kind="card", source="digest", edition="2009-07-08", line=1, offset=0,
                    references=[Reference("702.79", edition="2009-07-08")])
    records = [*rules_file("2008-05-01", {"702.79": "Devour N"}), *rules_file("2009-07-11", {"702.79": "devour N"}),
               *rules_file("2010-02-01", {"702.79": "Devour N"}), quoted, citing]
    assert resolve_editions(records) == {"2009-07-08": "2009-07-11"}
    assert quoted.edition == citing.edition == citing.references[0].edition == "2009-07-11"


def test_an_edition_with_other_words_or_without_the_numbers_does_not_confirm():
    quoted = rule("guide", "2016-01", "901.9c", en="The planar die has six faces.")
    records = [*rules_file("2016-09-30", {"901.9c": "The planar die has five faces."}),
               *rules_file("2010-02-01", {"901.9": "Planar die."}), quoted]
    assert resolve_editions(records) == {}
    assert quoted.edition == "2016-01"


def test_chinese_only_rules_are_confirmed_by_their_numbers():
    quoted = rule("guide", "2016-01", "901.9c", zh_hant="時空骰")
    records = [*rules_file("2016-09-30", {"901.9c": "Planar die."}),
               *rules_file("2026-04-17", {"901.9c": "Planar die."}), quoted]
    assert resolve_editions(records) == {"2016-01": "2016-09-30"}


def test_documents_without_rules_files_keep_their_labels():
    quoted = rule("guide", "2016-01", "901.9c", zh_hant="時空骰")
    assert resolve_editions([quoted]) == {} and quoted.edition == "2016-01"
