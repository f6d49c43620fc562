"""The Planechase guide: the rules insert and the plane cards in English with a Chinese
translation, and the Comprehensive Rules section 901 quoted in Chinese.

The document is one paragraph per line with blank lines (often a single no-break space)
between them, in parts opened by a banner line `*****說明書參考翻譯*****`:

- before the first banner, the compiler's notes in Chinese (sections);
- the insert: headings `SETUP 準備` (English capitals, then Chinese), each English paragraph
  followed by its Chinese translation; a heading's paragraphs become ONE bilingual section;
- the cards: per card an English block (name, `Plane - Zendikar` or `Phenomenon`, abilities)
  then a Chinese block (name, `地域 - Zendikar 贊迪卡` or `奇跡`, abilities); an ability may
  run over several lines, and the two languages do not always split it the same way, so
  abilities are paired by their labels (`Planeswalking Ability:` / `時空旅行異能：`,
  `Chaos Ability:` / `混亂異能：`), a phenomenon's encounter ability being the one unlabelled;
- the rules: `901. 競逐時空`, `901.1. …` to `901.15c …`, one per line.

Deck headings among the cards (`SAVAGE AURAS 野蠻靈氣`) name the product's decks, not cards,
and are skipped with a warning.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import zip_longest

from .. import textclean
from ..chinese import HAN_RUN
from ..corpus import Source
from ..records import Record, rule_parent, slug
from ..references import SUBRULE_LETTER
from ..script_ranges import HAN
from . import Parsed, ParseError
from .prose import Line, Paragraph, has_words, merge_after_colon, section_records, source_lines, with_references

_BANNER = re.compile(r"^\*{3,}.*\*{3,}$")
_URL = re.compile(r"^https?://\S+$")
# `USING YOUR PLANAR DECK 使用你的時空牌`: an English heading in capitals, then its Chinese.
_HEADING = re.compile(rf"^(?P<en>[A-Z][A-Z0-9 :,'&-]*[A-Z])\s*(?P<zh>[{HAN}].*)$")
_EN_TYPE = re.compile(r"^(?:Plane\s*[-–—]\s*(?P<world>.+)|Phenomenon)$")
_ZH_TYPE = re.compile(r"^(?:地域\s*[-–—]\s*(?P<world>.+)|奇跡)$")
_EN_LABEL = re.compile(r"^(?:Planeswalking|Chaos) Ability\s*:", re.IGNORECASE)
_ZH_LABEL = re.compile(r"^(?:時空旅行|混亂)異能[:：]")
_RULE = re.compile(rf"^(?P<number>[1-9]\d\d(?:\.\d{{1,3}}{SUBRULE_LETTER}?)?)\.?\s+(?P<body>\S.*)$")
# The guide quotes section 901 in Chinese only; its English title is the Comprehensive Rules'
# own heading, `901. Planechase`, unchanged in every edition since the variant entered them.
_EN_RULE_TITLES = {"901": "Planechase"}


@dataclass
class _CardSide:
    """One language's block of a card: name line, type line and ability lines."""

    name: Line
    type_line: Line
    world: str | None
    abilities: list[list[Line]] = field(default_factory=list)


def _regions(lines: list[Line]) -> list[list[Line]]:
    """The document cut at its banner lines."""
    regions: list[list[Line]] = [[]]
    for line in lines:
        if _BANNER.match(line.text):
            regions.append([])
        else:
            regions[-1].append(line)
    return regions


def _blocks(lines: list[Line]) -> list[list[Line]]:
    """Runs of consecutive non-blank lines."""
    blocks: list[list[Line]] = []
    after_blank = True
    for line in lines:
        if line.text:
            if after_blank:
                blocks.append([])
            blocks[-1].append(line)
        after_blank = not line.text
    return blocks


def _front_matter(lines: list[Line], warnings: list[str]) -> list[Paragraph]:
    """The notes before the first banner: blocks of lines; link lines (the corpus metadata keeps
    the document's addresses) are skipped."""
    paragraphs = []
    for block in _blocks(lines):
        if all(_URL.match(line.text) for line in block):
            warnings.append(f"line {block[0].number}: link skipped (the source's addresses are in its metadata)")
            continue
        paragraphs.append(Paragraph(block[0], [line.text for line in block]))
    return merge_after_colon(paragraphs)


def _is_chinese(text: str) -> bool:
    return bool(HAN_RUN.search(text))


def _insert_sections(source: Source, lines: list[Line], first_ordinal: int, warnings: list[str]) -> list[Record]:
    """One bilingual section per heading of the rules insert."""
    groups: list[tuple[Line | None, list[Line]]] = []
    for line in lines:
        if _HEADING.match(line.text):
            groups.append((line, []))
        elif groups:
            groups[-1][1].append(line)
        else:
            groups.append((None, [line]))
    records: list[Record] = []
    for heading, body in groups:
        if not body:
            assert heading is not None, "a group without a heading starts with its first line"
            warnings.append(f"line {heading.number}: heading {heading.text!r} has no text under it; skipped")
            continue
        runs: list[list[Line]] = []
        for line in body:
            if runs and _is_chinese(runs[-1][0].text) == _is_chinese(line.text):
                runs[-1].append(line)
            else:
                runs.append([line])
        first = heading or body[0]
        for en_run, zh_run in zip_longest(runs[::2], runs[1::2]):
            if not en_run or not zh_run or _is_chinese(en_run[0].text) or len(en_run) != len(zh_run):
                warnings.append(f"line {first.number}: English and Chinese paragraphs do not pair one to one")
                break
        en = textclean.join_paragraphs([line.text for line in body if not _is_chinese(line.text)])
        zh = textclean.join_paragraphs([line.text for line in body if _is_chinese(line.text)])
        record = Record(
            id=f"{source.id}:section:{first_ordinal + len(records)}", kind="section", source=source.id,
            edition=source.edition, line=first.number, offset=first.offset,
            text={k: v for k, v in (("en", en), ("zh_hant", zh)) if v},
        )
        if heading is not None:
            m = _HEADING.match(heading.text)
            assert m is not None, "headings are the lines _HEADING matched"
            record.title, record.attrs = {"en": m.group("en"), "zh_hant": m.group("zh")}, {"level": "2"}
        records.append(with_references(record))
    return records


def _card_sides(lines: list[Line], warnings: list[str]) -> list[_CardSide]:
    """Each card block of either language, found by its type line (the line before is the name)."""
    type_at = [i for i, line in enumerate(lines) if _EN_TYPE.match(line.text) or _ZH_TYPE.match(line.text)]
    sides = []
    first_name = type_at[0] - 1 if type_at else len(lines)
    for line in lines[: max(first_name, 0)]:
        _skip_before_card(line, warnings)
    for n, i in enumerate(type_at):
        end = type_at[n + 1] - 1 if n + 1 < len(type_at) else len(lines)
        if i == 0 or (n and type_at[n - 1] == i - 1):
            warnings.append(f"line {lines[i].number}: type line {lines[i].text!r} without a name line skipped")
            continue
        m = _EN_TYPE.match(lines[i].text) or _ZH_TYPE.match(lines[i].text)
        assert m is not None, "type_at holds the lines either pattern matched"
        side = _CardSide(lines[i - 1], lines[i], m.group("world"))
        label = _ZH_LABEL if _ZH_TYPE.match(lines[i].text) else _EN_LABEL
        for line in lines[i + 1 : end]:
            if _HEADING.match(line.text):
                _skip_before_card(line, warnings)
            elif label.match(line.text) or not side.abilities:
                side.abilities.append([line])
            else:
                side.abilities[-1].append(line)
        sides.append(side)
    return sides


def _skip_before_card(line: Line, warnings: list[str]) -> None:
    kind = "deck heading" if _HEADING.match(line.text) else "line"
    warnings.append(f"line {line.number}: {kind} {line.text!r} before a card skipped")


def _card_record(source: Source, en: _CardSide, zh: _CardSide | None, warnings: list[str],
                 worlds: Counter) -> Record:
    """One card from its English and Chinese blocks. `worlds` counts how often the document
    names each world: a world the English spells once and the Chinese line spells as other
    planes do (Revnica beside Ravnica 拉尼卡) is that other planes' world."""
    name = en.name.text
    names: dict[str, str] = {"en": name}
    world = en.world.strip() if en.world else None
    zh_latin = HAN_RUN.split(zh.world)[0].strip() if zh is not None and zh.world else ""
    if world and zh_latin and zh_latin.lower() != world.lower():
        warnings.append(f"line {en.type_line.number}: {name}: world {world!r} in English, {zh_latin!r} in Chinese")
        if worlds[zh_latin] > worlds[world]:
            world = zh_latin
    attrs = {"type_line": f"Plane — {world}", "world": world} if world else {"type_line": en.type_line.text}
    abilities = [{"en": textclean.join_wrapped([line.text for line in group])} for group in en.abilities]
    if zh is not None:
        zh_name = zh.name.text
        if zh_name.lower().startswith(name.lower()):
            zh_name = zh_name[len(name):].strip()
        else:
            warnings.append(f"line {zh.name.number}: Chinese name line {zh_name!r} does not start with {name!r}")
        if _is_chinese(zh_name):
            names["zh_hant"] = zh_name
        attrs["type_line_zh_hant"] = re.sub(r"\s*[-–—]\s*", " — ", zh.type_line.text, count=1)
        if zh.world:
            zh_world = HAN_RUN.search(zh.world)
            if zh_world:
                attrs["world_zh_hant"] = zh.world[zh_world.start():].strip()
        if len(zh.abilities) != len(en.abilities):
            warnings.append(
                f"line {en.name.number}: {name}: {len(en.abilities)} English, {len(zh.abilities)} Chinese abilities"
            )
        for i, group in enumerate(zh.abilities):
            ability = textclean.join_wrapped([line.text for line in group])
            if i < len(abilities):
                abilities[i]["zh_hant"] = ability
            else:
                abilities.append({"zh_hant": ability})
    text = {
        lang: textclean.join_paragraphs([a[lang] for a in abilities if lang in a])
        for lang in ("en", "zh_hant") if any(lang in a for a in abilities)
    }
    record = Record(
        id=f"{source.id}:planar_card:{slug(name)}", kind="planar_card", source=source.id, edition=source.edition,
        line=en.name.number, offset=en.name.offset, names=names, text=text, abilities=abilities, attrs=attrs,
    )
    return with_references(record)


def _card_records(source: Source, lines: list[Line], warnings: list[str]) -> list[Record]:
    """English block then its Chinese block, card after card."""
    records: list[Record] = []
    sides = _card_sides(lines, warnings)
    worlds = Counter(part for side in sides if side.world
                     for part in (side.world.strip(), HAN_RUN.split(side.world)[0].strip()) if part)
    seen = set()
    i = 0
    while i < len(sides):
        en = sides[i]
        if _ZH_TYPE.match(en.type_line.text):
            warnings.append(f"line {en.name.number}: Chinese card {en.name.text!r} without its English skipped")
            i += 1
            continue
        zh = sides[i + 1] if i + 1 < len(sides) and _ZH_TYPE.match(sides[i + 1].type_line.text) else None
        if zh is None:
            warnings.append(f"line {en.name.number}: card {en.name.text!r} has no Chinese block")
        i += 2 if zh else 1
        record = _card_record(source, en, zh, warnings, worlds)
        if record.id in seen:
            warnings.append(f"line {en.name.number}: card {en.name.text!r} appears twice; the second is skipped")
            continue
        seen.add(record.id)
        records.append(record)
    return records


def _rule_records(source: Source, lines: list[Line], warnings: list[str]) -> list[Record]:
    """One record per quoted rule; a rule's title is its section's (901's) title."""
    rules: list[tuple[Line, str, list[str]]] = []
    for line in lines:
        m = _RULE.match(line.text)
        if m:
            rules.append((line, m.group("number"), [m.group("body")]))
        elif rules:
            rules[-1][2].append(line.text)
        else:
            warnings.append(f"line {line.number}: {line.text!r} before the first rule skipped")
    titles: dict[str, dict[str, str]] = {}
    records = []
    for line, number, parts in rules:
        text = textclean.join_paragraphs(parts)
        section = number.split(".")[0]
        if number == section:
            titles[section] = {"zh_hant": text}
            if section in _EN_RULE_TITLES:
                titles[section]["en"] = _EN_RULE_TITLES[section]
        record = Record(
            id=f"{source.id}:rule:{number}", kind="rule", source=source.id, edition=source.edition,
            line=line.number, offset=line.offset, number=number, parent=rule_parent(number),
            title=dict(titles.get(section, {})), text={"zh_hant": text},
        )
        records.append(with_references(record))
    return records


def parse(source: Source, text: str) -> Parsed:
    lines = source_lines(text)
    if not any(has_words(line.text) for line in lines):
        raise ParseError("no text: a Planechase guide needs cards or rules", line=1, offset=0)
    warnings: list[str] = []
    front, *parts = _regions(lines)
    records = section_records(source, _front_matter(front, warnings), "zh_hant", 1, warnings)
    for region in ([line for line in part if line.text] for part in parts):
        if any(_EN_TYPE.match(line.text) for line in region):
            records += _card_records(source, region, warnings)
        elif region and all(_RULE.match(line.text) for line in region[:3]):
            records += _rule_records(source, region, warnings)
        elif region:
            ordinal = 1 + sum(r.kind == "section" for r in records)
            records += _insert_sections(source, region, ordinal, warnings)
    if not any(r.kind in ("planar_card", "rule") for r in records):
        first = next(line for line in lines if line.text)
        raise ParseError(
            "no plane card ('Plane - <world>' line) and no rule: not a Planechase guide",
            line=first.number, offset=first.offset,
        )
    return Parsed(records, warnings)
