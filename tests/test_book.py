"""The rules as a book: the table of contents of any edition (`/rules`, `/api/toc`), a section
or rule page with everything under it and its place in the book, previous and next through
the book, the glossary A-Z and by Chinese reading (`/glossary`, `/api/glossary`), a history a
judge can read, and help when a search finds nothing. What the pages must hold is read from
the rules files themselves (their Contents, their numbered lines), not from the service."""
from __future__ import annotations

import difflib
import re

import pytest

from indexer.documents.ingest import DEFAULT_CORPUS
from webapp import create_app, history, templating
from webapp.history import same_text, typographic_key, word_changes

TODAY = "2026-04-17"
RULES_EN = DEFAULT_CORPUS / "rules" / "bilingual-2026-04-17-en.txt"
RULES_ZH = DEFAULT_CORPUS / "rules" / "bilingual-2026-04-17-zh-hans.txt"
RULES_2008 = DEFAULT_CORPUS / "rules" / "MagicCompRules-2008-05-01.txt"


def contents_of(path) -> tuple[dict[str, str], dict[str, str]]:
    """The chapters and sections a rules file's own Contents lists, by number."""
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() in ("Contents", "目录"))
    stop = next(i for i in range(start, len(lines)) if lines[i].strip() in ("Glossary", "词汇表"))
    chapters, sections = {}, {}
    for line in lines[start + 1:stop]:
        if m := re.fullmatch(r"(\d)\.\s+(.+)", line.strip()):
            chapters[m.group(1)] = m.group(2)
        elif m := re.fullmatch(r"(\d{3})\.\s+(.+)", line.strip()):
            sections[m.group(1)] = m.group(2)
    return chapters, sections


def body_of(path) -> str:
    """A rules file's rules: after its Contents (which end with Credits), before its Glossary."""
    text = path.read_text(encoding="utf-8-sig")
    start = text.index("\nCredits\n")
    return text[start:text.index("\nGlossary\n", start)]


def numbered_lines(path, number: str) -> list[str]:
    """The numbers of the rules file's lines that start with a number matching the pattern
    `number` (`510\\.\\d+[a-z]?`: every rule and subrule of section 510), in file order."""
    return re.findall(rf"^({number})\.?\s", body_of(path), re.M)


def glossary_entries(path) -> list[str]:
    """The terms of a rules file's glossary: the first line of each of its blocks."""
    text = path.read_text(encoding="utf-8-sig")
    glossary = text[text.rindex("\nGlossary\n"):text.rindex("\nCredits\n")]
    return [block.strip().splitlines()[0] for block in glossary.split("\n\n")[1:] if block.strip()]


def main(html: str) -> str:
    return html[html.index('<main id="main"'):html.index("</main>")]


# --- the table of contents ---------------------------------------------------------------

def test_todays_contents_are_the_books_chapters_and_sections_in_both_languages(kb_client):
    toc = kb_client.get("/api/toc").get_json()
    assert (toc["edition"], toc["current"]) == (TODAY, True)
    chapters_en, sections_en = contents_of(RULES_EN)
    chapters_zh, sections_zh = contents_of(RULES_ZH)
    assert len(chapters_en) == 9 and len(sections_en) > 100
    shown = {c["number"]: {t["lang"]: t["text"] for t in c["title"]} for c in toc["chapters"]}
    assert shown == {n: {"en": chapters_en[n], "zh_hans": chapters_zh[n]} for n in chapters_en}
    sections = {s["number"]: s for c in toc["chapters"] for s in c["sections"]}
    assert list(sections) == list(sections_en)  # every section, in the book's order
    assert {t["lang"]: t["text"] for t in sections["510"]["title"]} == {"en": sections_en["510"],
                                                                       "zh_hans": sections_zh["510"]}
    assert sections["510"]["url"] == "/rules/510"
    # Each section's rules, numbered as the file numbers them; a titled rule has its title.
    assert [r["number"] for r in sections["509"]["rules"]] == [
        n for n in numbered_lines(RULES_EN, r"509\.\d+[a-z]?") if not n[-1].isalpha()]
    persist = next(r for r in sections["702"]["rules"] if r["number"] == "702.79")
    assert persist == {"number": "702.79", "url": "/rules/702.79",
                       "title": [{"lang": "en", "text": "Persist"}, {"lang": "zh_hans", "text": "留存"}]}
    assert next(r for r in sections["510"]["rules"] if r["number"] == "510.1")["title"] == []
    assert sum(len(s["rules"]) for s in sections.values()) > 1000


def test_the_contents_page_links_every_section_in_the_readers_script(kb_client):
    html = main(kb_client.get("/rules").get_data(as_text=True))
    assert '<section class="chapter" id="chapter-5">' in html
    assert ('<a class="section-link" href="/rules/510"><span class="num">510.</span> '
            '<span lang="en">Combat Damage Step</span> <span lang="zh-Hant">戰鬥傷害步驟</span></a>') in html
    assert '<a href="/rules/702.79"><span class="num">702.79</span> <span lang="en">Persist</span>' in html
    hans = main(kb_client.get("/rules?script=hans").get_data(as_text=True))
    assert '<span lang="zh-Hans">战斗伤害步骤</span>' in hans and "戰鬥" not in hans
    assert kb_client.get("/rules?format=json").get_json() == kb_client.get("/api/toc").get_json()


def test_an_older_editions_contents_are_its_own(kb_client):
    toc = kb_client.get("/api/toc?edition=2008").get_json()
    assert toc["edition"] == "2008-05-01" and toc["current"] is False
    chapters, sections = contents_of(RULES_2008)
    assert {c["number"]: c["title"][0]["text"] for c in toc["chapters"]} == chapters
    shown = [s["number"] for c in toc["chapters"] for s in c["sections"]]
    # Every section the body heads, 211 "intentionally left blank" too, which the Contents omit.
    assert shown == re.findall(r"^(\d{3})\. ", body_of(RULES_2008), re.M)
    assert set(sections) < set(shown) and "211" in shown
    keyword = next(s for c in toc["chapters"] for s in c["sections"] if s["number"] == "502")
    persist = next(r for r in keyword["rules"] if r["number"] == "502.79")
    assert persist["url"] == "/rules/502.79?edition=2008-05-01"
    assert [e["edition"] for e in toc["editions"] if e["current"]] == ["2008-05-01"]


def test_an_edition_without_a_rules_file_is_a_clear_404(kb_client, cr_client, client):
    answer = kb_client.get("/api/toc?edition=1999")
    assert answer.status_code == 404
    assert answer.get_json()["error"]["message"].startswith("No rules file of edition 1999 is in the index")
    page = kb_client.get("/rules?edition=%3Cscript%3Ealert(1)%3C/script%3E").get_data(as_text=True)
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)" in page
    assert client.get("/api/toc").status_code == 404  # the documents alone hold no rules file
    assert cr_client.get("/api/toc").get_json()["edition"] == "2010-02-01"


# --- a section and a rule in one scroll, in the book ---------------------------------------

def test_a_section_page_is_the_whole_section_with_examples(kb_client):
    section = kb_client.get("/api/rules/510").get_json()
    assert [r["number"] for r in section["contents"]] == numbered_lines(RULES_EN, r"510\.\d+[a-z]?")
    depth = {r["number"]: r["depth"] for r in section["contents"]}
    assert (depth["510.1"], depth["510.1a"]) == (1, 2)
    example = next(r for r in section["contents"] if r["examples"])
    html = main(kb_client.get("/rules/510").get_data(as_text=True))
    assert f'id="r-{example["number"]}"' in html
    assert example["examples"][0][0]["text"][:40] in html
    assert section["place"]["chapter"]["number"] == "5" and section["place"]["section"] is None


def test_a_section_page_shows_what_the_build_rendered_the_same_as_rendered_per_request(kb_app, monkeypatch):
    """The build renders every edition's contents, glossary and sections and rules with rules
    under them, in both scripts (webapp.book_parts): a page shows that part, and the same page
    made with code the parts were not built with (another fingerprint) renders it per
    request, byte for byte."""
    with kb_app.app_context():
        library = kb_app.extensions["kb.library"].get()
    editions = library.book.editions
    for edition in editions:
        for script in ("hant", "hans"):
            for key in ("_rules_under.html 100", "_contents_chapters.html", "_glossary_lists.html"):
                assert library.parts.get(f"{key} {edition} {script}", templating.PARTS_FINGERPRINT) is not None
    assert library.parts.get(f"_rules_under.html 702.79a {TODAY} hant", templating.PARTS_FINGERPRINT) is None
    urls = ["/rules/702", "/rules/702.79?script=hans", f"/rules/100?edition={editions[-1]}", "/rules",
            f"/glossary?edition={editions[-1]}&script=hans"]
    built = [main(kb_app.test_client().get(url).get_data(as_text=True)) for url in urls]
    monkeypatch.setattr(templating, "PARTS_FINGERPRINT", "code changed since the build")
    rendered = [main(create_app({"TESTING": True, "INDEX_ROOT": kb_app.config["INDEX_ROOT"]}).test_client().get(url)
                     .get_data(as_text=True)) for url in urls]
    assert built == rendered and all('<ol class="subrules">' in html for html in built[:3])


def test_a_rule_page_shows_its_subrules_and_its_place_in_the_book(kb_client):
    rule = kb_client.get("/api/rules/702.79?script=hant").get_json()
    assert [r["number"] for r in rule["contents"]] == numbered_lines(RULES_EN, r"702\.79[a-z]")
    place = rule["place"]
    assert place["contents"] == "/rules"
    assert (place["chapter"]["number"], place["chapter"]["url"]) == ("7", "/rules#chapter-7")
    assert place["chapter"]["title"] == [{"lang": "en", "text": "Additional Rules"},
                                         {"lang": "zh_hant", "text": "附加規則"}]
    assert (place["section"]["number"], place["section"]["url"]) == ("702", "/rules/702")
    html = main(kb_client.get("/rules/702.79a").get_data(as_text=True))
    crumbs = html[html.index('<nav class="crumbs"'):html.index("</nav>")]
    assert crumbs.index('href="/rules#chapter-7"') < crumbs.index('href="/rules/702"') < crumbs.index("702.79 ")


def test_previous_and_next_walk_the_book(kb_client, cr_client):
    def steps(client, number):
        rule = client.get(f"/api/rules/{number}").get_json()
        return rule["previous"] and rule["previous"]["number"], rule["next"] and rule["next"]["number"]

    assert steps(kb_client, "510") == ("509", "511")
    assert steps(kb_client, "702.79") == ("702.78", "702.80")
    last_of_509 = [n for n in numbered_lines(RULES_EN, r"509\.\d+[a-z]?") if not n[-1].isalpha()][-1]
    assert steps(kb_client, last_of_509)[1] == "510.1"  # across sections
    assert steps(kb_client, "702.79a") == ("702.79", "702.80")  # a subrule reads on
    assert steps(cr_client, "702.30a") == ("702.30", "702.30b")


# --- the glossary ------------------------------------------------------------------------

def test_the_glossary_lists_every_term_a_to_z_and_by_chinese_reading(kb_client):
    glossary = kb_client.get("/api/glossary").get_json()
    english = [t for g in glossary["english"] for t in g["terms"]]
    names = [next(n["text"] for n in t["names"] if n["lang"] == "en") for t in english]
    assert sorted(names) == sorted(glossary_entries(RULES_EN))  # every term, once
    assert names == sorted(names, key=str.casefold)
    assert all(g["letter"] == (t_en[0].upper() if t_en[0].isascii() and t_en[0].isalpha() else "#")
               for g in glossary["english"] for t_en in
               [next(n["text"] for n in t["names"] if n["lang"] == "en") for t in g["terms"]])
    chinese = [t for g in glossary["chinese"] for t in g["terms"]]
    assert len(chinese) > 600
    readings = [re.sub(r"\d", "", t["reading"]).lower() for t in chinese]
    assert readings == sorted(readings)
    by_name = {next(n["text"] for n in t["names"] if n["lang"] == "zh_hans"): t for t in chinese}
    # A word's reading, not its first character's most common one.
    assert by_name["重生"]["reading"] == "chong2 sheng1" and by_name["长效"]["reading"] == "chang2 xiao4"
    assert by_name["重置"]["reading"] == "chong2 zhi4"
    letters = [g["letter"] for g in glossary["chinese"]]
    assert letters == sorted(letters) and "C" in letters and "Z" in letters
    html = main(kb_client.get("/glossary").get_data(as_text=True))
    assert '<section class="letter" id="zh-C">' in html and '<span lang="zh-Hant">重生</span>' in html


# --- a history a judge can read -----------------------------------------------------------

def test_typography_is_not_a_change():
    assert same_text({"en": "Persist means “When …”—and ‘so’"}, {"en": 'Persist means "When ..."-and \'so\''})
    assert same_text({"zh_hans": "「留存」意指，（一）"}, {"zh_hans": "“留存”意指,(一)", "en": "added"})
    assert not same_text({"en": "from play"}, {"en": "from the battlefield"})
    assert typographic_key("a  b\u3000c") == "a b c"


def test_a_diff_marks_only_the_words_that_changed():
    old = "If it had no -1/-1 counters on it, return it to play under its owner’s control."
    new = 'If it had no -1/-1 counters on it, return it to the battlefield under its owner\'s control.'
    assert word_changes(old, new) == [
        ("equal", "If it had no -1/-1 counters on it, return it to "), ("delete", "play"),
        ("insert", "the battlefield"), ("equal", " under its owner's control.")]
    assert word_changes("若其上沒有指示物", "如果它上面沒有指示物") == [
        ("delete", "若其"), ("insert", "如果它"), ("equal", "上"), ("insert", "面"), ("equal", "沒有指示物")]


def test_a_long_diff_is_matched_in_bounded_pieces_and_marks_only_what_changed(monkeypatch):
    """A list of 1,500 names (205.3m's creature types grow so) with names added at both ends
    and in the middle and one removed: only those are marked, both texts rebuild from the
    pieces, and no comparison difflib is given is over DIFF_WORK."""
    compared = []

    class Matcher(difflib.SequenceMatcher):
        def __init__(self, isjunk, a, b, autojunk):
            compared.append(len(a) * len(b))
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(history.difflib, "SequenceMatcher", Matcher)
    names = [f"Type{n}" for n in range(1500)]
    old = ", ".join(names)
    new = ", ".join(["Aardvark", *names[:700], "Bat", *names[700:900], *names[901:], "Zombie"])
    pieces = word_changes(old, new)
    assert "".join(t for op, t in pieces if op != "insert") == old
    assert "".join(t for op, t in pieces if op != "delete") == new
    assert sorted(t.strip(", ") for op, t in pieces if op != "equal") == ["Aardvark", "Bat", "Type900", "Zombie"]
    assert compared and max(compared) <= history.DIFF_WORK


def test_editions_with_the_same_text_fold_into_one_entry(kb_client):
    history = kb_client.get("/api/rules/702.79a").get_json()["history"]
    assert [(v["first"], v["edition"]) for v in history] == [("2008-05-01", "2008-05-01"), ("2009-07-11", TODAY)]
    assert history[1]["editions"] == ["2009-07-11", "2010-02-01", "2016-09-30", "2022-11-18", "2026-01-16", TODAY]
    assert history[1]["numbers"] == ["702.76a", "702.78a", "702.79a"]
    assert history[1]["current"] and not history[0]["current"]
    changed = [piece for change in history[1]["changes"] for op, piece in change["pieces"] if op != "equal"]
    assert changed == ["play", "the battlefield", "play", "the battlefield"]
    html = main(kb_client.get("/rules/702.79a").get_data(as_text=True))
    section = html[html.index('<section class="history">'):]
    assert "2009-07-11 → 2026-04-17 · 702.76a → 702.78a → 702.79a" in section
    assert section.count('<div class="version') == 2


def test_a_rule_of_many_changed_subrules_compares_only_the_newest_steps(kb_client):
    """508.1's subrules changed in 18 steps: the newest are compared word by word, each older
    one links to its list of changes (a page's CPU stays bounded)."""
    subrules = kb_client.get("/api/rules/508.1").get_json()["history_subrules"]
    steps = [step for sub in subrules for step in sub["steps"]]
    compared = [step for step in steps if any(change["pieces"] is not None for change in step["changes"])]
    assert len(steps) > history.COMPARED_STEPS >= len(compared) > 0
    newest_skipped = max(s["edition"] for s in steps if s not in compared)
    assert all(s["edition"] >= newest_skipped for s in compared)
    assert all(s["changes_url"].startswith("/changes?") for s in steps)


def test_a_rules_history_shows_what_its_subrules_changed(kb_client):
    """2008's 502.79 Persist is one text in every edition: what changed is its subrule's
    "play", now "the battlefield", listed (folded) in the rule's own history."""
    subrules = kb_client.get("/api/rules/502.79?edition=2008-05-01").get_json()["history_subrules"]
    assert [s["numbers"][0] for s in subrules] == ["502.79a"]
    step = subrules[0]["steps"][0]
    assert (step["from"], step["from_number"], step["edition"], step["number"]) == (
        "2008-05-01", "502.79a", "2009-07-11", "702.76a")
    assert step["url"] == "/rules/702.76a?edition=2009-07-11"
    marked = [(op, piece) for change in step["changes"] for op, piece in change["pieces"] if op != "equal"]
    assert marked == [("delete", "play"), ("insert", "the battlefield")] * 2
    html = main(kb_client.get("/rules/502.79?edition=2008-05-01").get_data(as_text=True))
    section = html[html.index('<section class="history">'):]
    folded = section[section.index('<details class="subrule-changes">'):section.index("</details>")]
    assert '<span lang="en">Subrules changed</span> (1)</summary>' in folded
    assert '<a class="subrule-link" href="/rules/702.76a?edition=2009-07-11">502.79a → 702.76a</a>' in folded
    assert "from <del>play</del><ins>the battlefield</ins>, if it had" in folded
    assert kb_client.get("/api/rules/702.79a").get_json()["history_subrules"] == []  # a subrule has none


def test_a_step_renumbered_and_reworded_says_both(kb_client):
    steps = kb_client.get("/api/rules/702.79a").get_json()["history"][1]["steps"]
    assert [(s["edition"], s["relation"], s["reworded"]) for s in steps][:3] == [
        ("2009-07-11", "renumbered", True), ("2010-02-01", "same", False), ("2016-09-30", "renumbered", False)]
    html = main(kb_client.get("/rules/702.79a").get_data(as_text=True))
    both = '<span lang="zh-Hant">改編號並改寫</span> <span lang="en">Renumbered and reworded</span>'
    renumbered = '<span lang="zh-Hant">改編號</span> <span lang="en">Renumbered</span>'
    assert f"2009-07-11 · 702.76a: {both}" in html and f"2016-09-30 · 702.78a: {renumbered}" in html
    # The heading's text (Persist) stayed: its own 2009 step is renumbered only.
    heading = main(kb_client.get("/rules/702.79").get_data(as_text=True))
    assert f"2009-07-11 · 702.76: {renumbered}" in heading
    simplified = kb_client.get("/rules/702.79a?script=hans").get_data(as_text=True)
    assert '<span lang="zh-Hans">改编号并改写</span>' in simplified


# --- help when nothing matches ------------------------------------------------------------

def test_a_number_no_edition_has_names_the_nearest_rules(kb_client):
    answer = kb_client.get("/api/search?q=702.999&script=hant").get_json()
    assert answer["results"] == [] and answer["rule_jump"] is None
    last = max((n for n in numbered_lines(RULES_EN, r"702\.\d+") if not n[-1].isalpha()),
               key=lambda n: int(n.split(".")[1]))
    assert [s["id"] for s in answer["suggestions"]] == [
        f"cr-{TODAY}:rule:702", f"cr-{TODAY}:rule:{last}", f"cr-{TODAY}:rule:703.1"]
    assert answer["suggestions"][0] == {"text": "702 關鍵字異能 / Keyword Abilities", "kind": "rule",
                                        "id": f"cr-{TODAY}:rule:702", "url": f"/rules/702?edition={TODAY}"}


@pytest.mark.parametrize("query, script, offered", [
    ("持存", "hant", "留存"), ("持存", "hans", "留存"), ("凋零", "hant", "凋鱗亞龍"), ("凋零", "hans", "凋鳞亚龙"),
    ("Persistt", "hant", "Persist"),
])
def test_a_word_that_finds_nothing_gets_the_closest_names(kb_client, query, script, offered):
    answer = kb_client.get(f"/api/search?q={query}&script={script}").get_json()
    assert answer["results"] == [] or query == "Persistt"
    if answer["results"]:  # a Latin word is corrected instead (did you mean)
        assert answer["did_you_mean"] == offered
        return
    assert offered in [s["text"] for s in answer["suggestions"]]


def test_nonsense_gets_a_line_on_how_to_search(kb_client):
    answer = kb_client.get("/api/search?q=asdfgh").get_json()
    assert answer["results"] == [] and answer["suggestions"] == []
    html = main(kb_client.get("/?q=asdfgh").get_data(as_text=True))
    assert '<p class="how">' in html and 'href="/rules"' in html and 'href="/glossary"' in html
    assert '<p class="how">' not in main(kb_client.get("/?q=persist").get_data(as_text=True))


def test_the_rule_jump_is_in_the_readers_script(kb_client):
    page = main(kb_client.get("/?q=704").get_data(as_text=True))  # a 繁 page, as no script was chosen
    assert "704 狀態動作 / State-Based Actions" in page and "状态动作" not in page
    hant = kb_client.get("/api/search?q=704&script=hant").get_json()["rule_jump"]["title"]
    hans = kb_client.get("/api/search?q=704&script=hans").get_json()["rule_jump"]["title"]
    assert (hant, hans) == ("704 狀態動作 / State-Based Actions", "704 状态动作 / State-Based Actions")
