"""The interface's labels: each in Traditional Chinese (shown in the reader's script and words)
and English, made once per label and script; the search and offline scripts draw theirs from
`SCRIPT_LABELS`."""
from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup

from indexer.knowledge.display import display

from .present import LANG_TAGS

# Labels the search script needs to draw results.
SCRIPT_LABELS = ("edition", "jump", "did_you_mean", "left_out", "cards_named", "unknown_cards", "add_cards", "results",
                 "no_results", "official", "suggestions", "subrules", "other_editions", "how_to_search", "book",
                 "glossary", "today", "not_in_today", "last_in")
# Interface labels: Traditional Chinese (converted for Simplified readers) and English.
LABELS = {
    "site": ("萬智牌規則查詢", "MTG rules search"),
    "search": ("搜尋", "Search"),
    "search_hint": ("規則編號、關鍵字、牌名（中英文皆可）", "rule number, keyword or card name, in any language"),
    "rule": ("規則", "Rule"),
    "card": ("牌", "Card"),
    "planar_card": ("時空牌", "Plane"),
    "term": ("詞彙", "Term"),
    "section": ("段落", "Section"),
    "edition": ("版本", "Edition"),
    "current": ("現行規則", "Current rules"),
    "superseded": ("舊版規則", "Superseded edition"),
    "today": ("現行規則中", "In today's rules"),
    "not_in_today": ("已無此規則", "no longer a rule"),
    "last_in": ("最後出現於", "last in"),
    "number_now": ("此編號現指", "this number now names"),
    "what_changed": ("版本間的變更", "What changed"),
    "added": ("新增", "Added"),
    "removed": ("刪除", "Removed"),
    "renumbered": ("改編號", "Renumbered"),
    "renumbered_reworded": ("改編號並改寫", "Renumbered and reworded"),
    "subrules_changed": ("有變更的子規則", "Subrules changed"),
    "renamed": ("改名", "Renamed"),
    "changed": ("文字修改", "Changed"),
    "split": ("分拆", "Split"),
    "merged": ("合併", "Merged"),
    "same": ("未變更", "Unchanged"),
    "source": ("來源", "Source"),
    "rulings": ("規則釋疑", "Rulings"),
    "examples": ("範例", "Examples"),
    "parent": ("上層規則", "Parent rule"),
    "subrules": ("子規則", "Subrules"),
    "other_editions": ("此編號在各版本", "This number in each edition"),
    "keyword_numbers": ("此關鍵字在各版本的編號", "This keyword's number in each edition"),
    "history": ("沿革", "History"),
    "quoted_elsewhere": ("其他版本中引用此規則的文件", "Quoted as other editions' numbers"),
    "changes": ("文字變更", "Text changes"),
    "same_text": ("文字相同", "Same text"),
    "referenced_by": ("引用此規則的內容", "Referenced by"),
    "references": ("參見規則", "Rules referred to"),
    "keywords": ("此牌相關規則", "Rules for this card"),
    "also_in": ("亦見於", "Also in"),
    "converted": ("由简体轉換", "converted from Simplified"),
    "did_you_mean": ("您是不是要找", "Did you mean"),
    "left_out": ("詞太多，未搜尋", "Too many words; not searched"),
    "cards_named": ("問題中的牌", "Cards in the question"),
    "unknown_cards": ("牌資料中沒有這張牌", "Not in the card data"),
    "add_cards": ("加入 Scryfall 牌資料：mtgrules fetch cards", "add Scryfall's cards: mtgrules fetch cards"),
    "jump": ("直接前往規則", "Go to rule"),
    "no_results": ("沒有結果", "No results"),
    "how_to_search": ("可以搜尋規則編號（702.79a）、關鍵字或詞彙（留存、persist）、牌名，英文、繁體、简体皆可；"
                      "也可從規則目錄或詞彙表查閱。",
                      "Search for a rule number (702.79a), a keyword or term (persist, 留存) or a card name, in "
                      "English, 繁體 or 简体; or browse the contents or the glossary."),
    "official": ("遊戲中的名稱是", "The game calls it"),
    "suggestions": ("您可能在找", "Perhaps you mean"),
    "skip": ("跳到內容", "Skip to content"),
    "previous": ("上一條", "Previous"),
    "next": ("下一條", "Next"),
    "copy_rule": ("複製規則", "Copy rule"),
    "copy_link": ("複製連結", "Copy link"),
    "english_first": ("英文在前", "English first"),
    "forum_tools": ("論壇工具", "Forum tools"),
    "for_owners": ("給論壇管理者：加入規則連結", "For forum owners: add rule links"),
    "for_writers": ("給發文者：把文章中的規則編號變成連結", "For writers: link the rule numbers of a post"),
    "preview_script": ("預覽的中文字體", "Chinese script of the previews"),
    "selector": ("只在這些元素中尋找（CSS 選擇器）", "Only inside these elements (CSS selector)"),
    "make_snippet": ("產生程式碼", "Make the tag"),
    "copy_snippet": ("複製程式碼", "Copy the tag"),
    "your_post": ("您的文章", "Your post"),
    "format": ("格式", "Format"),
    "linkify": ("加入連結", "Link rule numbers"),
    "linked_post": ("加上連結的文章", "The post with links"),
    "copy_post": ("複製文章", "Copy the post"),
    "links_made": ("個連結", "links"),
    "unknown_numbers": ("找不到的規則編號", "Rule numbers not found"),
    "chinese_only": ("此規則的文件只提供中文，索引中沒有這一版的英文規則。",
                     "The documents give this rule in Chinese only; the index has no English rules of this edition."),
    "english_only": ("此規則只有英文：索引中的文件沒有它的中文。",
                     "English only: no document in the index gives it in Chinese."),
    "results": ("筆結果", "results"),
    "more": ("更多結果", "More results"),
    "cost": ("法術力費用", "Mana cost"),
    "type": ("類別", "Type"),
    "pt": ("力量／防禦力", "Power/toughness"),
    "set": ("系列", "Set"),
    "world": ("世界", "World"),
    "abilities": ("異能", "Abilities"),
    "names": ("名稱", "Names"),
    "forms": ("各種寫法", "All forms"),
    "defining_rules": ("定義規則", "Defining rules"),
    "mentions": ("出現於", "Where it occurs"),
    "document": ("文件", "Document"),
    "date": ("日期", "Date"),
    "original": ("原始網址", "Original addresses"),
    "contents": ("內容", "Contents"),
    "languages": ("語言", "Languages"),
    "product": ("產品", "Product"),
    "error": ("錯誤", "Error"),
    "home": ("回首頁", "Home"),
    "forum": ("論壇範例", "Forum sample"),
    "english": ("英文", "English"),
    "traditional": ("繁體", "Traditional"),
    "simplified": ("簡體", "Simplified"),
    "book": ("規則目錄", "Contents"),
    "glossary": ("詞彙表", "Glossary"),
    "rules_in_section": ("條規則", "rules"),
    "rules_under": ("本節規則", "The rules of this section"),
    "a_to_z": ("英文 A–Z", "A–Z in English"),
    "by_reading": ("依中文讀音（拼音）", "By Chinese reading (pinyin)"),
    "pages": ("分頁", "Pages"),
    "previous_page": ("上一頁", "Previous page"),
    "next_page": ("下一頁", "Next page"),
    # The forum tool's.
    "link_previews": ("預覽：各連結開啟的內容", "Preview: what each link opens"),
    "post_markup": ("可複製的文字（含連結）", "The text to copy, with its links"),
    # The kinds of the project glossary's entries (`glossary.TERM_KINDS`, spaces as "_"; card, term,
    # set, world and document are labels already), its reference, and a card page's note.
    "keyword": ("關鍵字異能", "Keyword ability"),
    "ability_word": ("異能提示", "Ability word"),
    "keyword_action": ("關鍵字動作", "Keyword action"),
    "symbol": ("符號", "Symbol"),
    "zone": ("區域", "Zone"),
    "step": ("步驟", "Step"),
    "card_type": ("牌的類別", "Card type"),
    "creature_type": ("生物類別", "Creature type"),
    "game": ("遊戲與賽制", "Game or format"),
    "plane": ("時空", "Plane"),
    "phenomenon": ("異象", "Phenomenon"),
    "terminology": ("官方中英術語對照", "Official terms in English and Chinese"),
    "no_card_data": ("此牌只有中文：牌資料中沒有它的英文牌文（加入 Scryfall 牌資料：mtgrules fetch cards）",
                     "Chinese only: the card data has no English text for it (add Scryfall's cards: "
                     "mtgrules fetch cards)"),
}


# The interface's words where a Simplified reader's differ from the Traditional ones' letter
# for letter (the labels are written in Traditional and converted): one word per idea.
INTERFACE_HANS = {"搜寻": "搜索", "连结": "链接", "程式码": "代码"}
_INTERFACE_HANS = re.compile("|".join(INTERFACE_HANS))


def interface_zh(text: str, script: str | None) -> str:
    """An interface text written in Traditional Chinese, in the reader's script and words."""
    shown = display(text, "zh_hant", script)
    return _INTERFACE_HANS.sub(lambda m: INTERFACE_HANS[m.group()], shown) if script == "hans" else shown


@lru_cache(maxsize=4 * len(LABELS))
def label(key: str, script: str | None) -> Markup:
    """An interface label in Chinese (reader's script) and English, each with its lang; made
    once per label and script (a Simplified page converted every label it shows each time)."""
    zh, en = LABELS[key]
    lang = "zh_hans" if script == "hans" else "zh_hant"
    return Markup('<span lang="{}">{}</span> <span lang="en">{}</span>').format(
        LANG_TAGS[lang], interface_zh(zh, script), en)
