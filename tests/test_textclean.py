"""Text cleaning: each repair fixes its own damage and leaves clean text of any language alone."""
from hypothesis import given, strategies as st

from indexer.documents.textclean import (
    clean,
    fix_conversion_errors,
    fold_homoglyphs,
    join_paragraphs,
    mixed_script_words,
    normalize_spaces,
    remove_junk_chars,
    separate_scripts,
    split_glued_words,
    vocabulary,
)


def test_normalize_spaces_turns_odd_spaces_into_plain_ones_and_blank_lines_empty():
    assert normalize_spaces("a\u00a0b\u3000c\u2009d") == "a b c d"
    assert normalize_spaces("\u00a0\n  x  \n \u00a0 ") == "\nx\n"
    assert normalize_spaces("costs 1  ,  the") == "costs 1 , the"


def test_fold_homoglyphs_keeps_its_plain_behaviour():
    assert fold_homoglyphs("ruLЕS hАVe") == "ruLES hAVe"
    assert fold_homoglyphs("ruLES 增幅 hAVe, зар") == "ruLES 增幅 hAVe, зар"  # no look-alike: untouched


def test_fold_homoglyphs_restores_the_case_the_damage_changed():
    damaged = "No ТWo cards can hАVe the same name; the ruLЕS say so, regardLЕSs, when it leАVes ТWice"
    assert fold_homoglyphs(damaged, restore_case=True) == (
        "No two cards can have the same name; the rules say so, regardless, when it leaves twice"
    )


def test_fold_homoglyphs_restore_case_keeps_names_and_capitals():
    # a look-alike initial capital stays a capital; a word in capitals stays in capitals
    assert fold_homoglyphs("Аkoum PLАNECHASE McDоnald", restore_case=True) == "Akoum PLANECHASE McDonald"


def test_fold_homoglyphs_leaves_real_cyrillic_words():
    assert fold_homoglyphs("хвърлянето на зара", restore_case=True) == "хвърлянето на зара"


def test_fix_conversion_errors_turns_the_bit_back_into_the_classifier():
    assert fix_conversion_errors("每位元玩家") == "每位玩家"
    assert fix_conversion_errors("按照順序的下一位元玩家") == "按照順序的下一位玩家"
    assert fix_conversion_errors("依照回合順序的下一位元不會離開遊戲的牌手") == "依照回合順序的下一位不會離開遊戲的牌手"
    assert fix_conversion_errors("擇以哪位元對手為目標") == "擇以哪位對手為目標"


def test_fix_conversion_errors_repairs_only_and_numerals():
    assert (fix_conversion_errors("如果某異能的一部分隻會在該咒語增幅過後才會生效")
            == "如果某異能的一部分只會在該咒語增幅過後才會生效")
    assert fix_conversion_errors("{三}，{四}之類的數位記號；") == "{三}，{四}之類的數字記號；"
    # 隻 as a classifier and 數位 "digital" elsewhere stay.
    assert fix_conversion_errors("一隻會飛的鳥") == "一隻會飛的鳥"
    assert fix_conversion_errors("數位相機的部分零件") == "數位相機的部分零件"


def test_fix_conversion_errors_leaves_real_bits_and_bytes():
    assert fix_conversion_errors("位元是資訊的單位") == "位元是資訊的單位"
    assert fix_conversion_errors("32位元處理器") == "32位元處理器"
    assert fix_conversion_errors("一位元組") == "一位元組"


def test_remove_junk_chars_only_inside_chinese_words():
    assert remove_junk_chars("萬智牌套囘牌") == "萬智牌套牌"
    assert remove_junk_chars("只有三囘條規則") == "只有三條規則"
    assert remove_junk_chars("囘") == "囘"
    assert remove_junk_chars("A囘B 囘合") == "A囘B 囘合"
    assert remove_junk_chars("回合") == "回合"


def test_separate_scripts_splits_glued_cyrillic_and_latin_words():
    assert separate_scripts("нормалнатаMagic") == "нормалната Magic"
    assert separate_scripts("Magicкарти") == "Magic карти"
    assert separate_scripts("DimensionalMagic зар planeswalker") == "DimensionalMagic зар planeswalker"


def test_clean_repairs_every_kind_of_damage_in_one_pass():
    raw = "\ufeff\u00a0每位元玩家的套囘牌 hАVe картиMagic\u00a0\r"
    assert clean(raw) == "每位玩家的套牌 have карти Magic"
    assert mixed_script_words(clean(raw)) == []


@given(st.text(alphabet="aAеЕhVТW 位元每囘套牌\u00a0\nкартиMagic。", max_size=40))
def test_clean_is_idempotent(text):
    assert clean(clean(text)) == clean(text)


def test_join_paragraphs_never_breaks_a_chinese_run_with_a_newline():
    assert join_paragraphs(["時空旅行異能：戰鬥階段至多一個生物可以攻擊。", "戰鬥階段至多一個生物可以阻擋。"]) == (
        "時空旅行異能：戰鬥階段至多一個生物可以攻擊。戰鬥階段至多一個生物可以阻擋。"
    )
    assert join_paragraphs(["大型側拉套牌盒", "35張雙面衍生物牌", "特別版時空骰", "策略簡介"]) == (
        "大型側拉套牌盒\n35張雙面衍生物牌 特別版時空骰 策略簡介"
    )
    assert join_paragraphs(["Rolling the die could have three results:", "", "·If you roll a blank face."]) == (
        "Rolling the die could have three results:\n·If you roll a blank face."
    )


def test_accented_latin_is_not_a_mixed_script_word():
    assert mixed_script_words("Dandân and Lim-Dûl") == []
    assert mixed_script_words("Pаrsist") == ["Pаrsist"]  # a Cyrillic а among Latin letters


def test_split_glued_words_uses_the_documents_own_words():
    words = vocabulary(["можете да играете", "това е за вас", "се", "карти Magic", "опоненти те"])
    assert split_glued_words("можетеза това", words) == "можете за това"
    assert split_glued_words("товасе", words) == "това се"
    assert split_glued_words("DimensionalMagic", words) == "Dimensional Magic"
    # An ending that is also a word does not split a word; nor does an unknown second part.
    assert split_glued_words("опонентите", words) == "опонентите"
    assert split_glued_words("PlayStation", words) == "PlayStation"
    # A word the document holds more than once is its own word.
    assert split_glued_words("можетеза", vocabulary(["можетеза можетеза можете за"])) == "можетеза"
