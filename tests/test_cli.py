"""The terminal command: rules, rulings, cards, terms and search, readable and wrapped by
display width; the same payload as the API with --json; clear errors."""
import json
import re
import subprocess
import sys

import pytest

from indexer.documents.ingest import ROOT
from mtgrules.commands import cli
from mtgrules.terminal import width, wrap

COLUMNS = {"COLUMNS": "100"}


def run(runner, *args):
    """The command group as `flask --app webapp kb ...` runs it: over the app's index."""
    return runner.invoke(cli, args=list(args), env=COLUMNS)


def unwrapped(output):
    """The output without any whitespace, to find a wrapped sentence in it (compare with
    `unwrapped(sentence)` where the sentence has spaces)."""
    return re.sub(r"\s+", "", output)


def test_a_rule_with_its_text_source_and_parent(runner):
    result = run(runner, "rule", "702.30c")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "702.30c 增幅  · 2010-02-01"
    assert lines[1] == "  天地醒轉常見問題集 / Worldwake FAQ › 關鍵字異能變化：多重增幅"
    assert lines[3] == "  [繁體]"
    assert ("多重增幅是增幅異能的變化。「多重增幅[費用]」意指："
            "「你施放此咒語時，可以任意次數地額外支付[費用]。」") in unwrapped(result.output)
    assert "上層規則 Parent rule: 702.30 增幅" in lines


def test_a_rule_with_subrules_and_rulings(runner):
    result = run(runner, "rule", "702.30")
    assert result.exit_code == 0
    text = result.output
    subrules = text[text.index("子規則 Subrules"):text.index("規則釋疑 Rulings")]
    assert [line.strip() for line in subrules.splitlines() if line.startswith("  702.")] == [
        "702.30a", "702.30b", "702.30c", "702.30d", "702.30e", "702.30f", "702.30g"]
    rulings = text[text.index("規則釋疑 Rulings"):]
    assert sum(line.startswith("  • ") for line in rulings.splitlines()) == 9
    assert "• 增幅不會改變咒語的法術力費用或總法術力費用。" in rulings


@pytest.mark.server
def test_the_first_argument_defaults_to_a_rule_number(small_index):
    completed = subprocess.run(
        [sys.executable, "-m", "mtgrules", "--index-root", str(small_index), "規則702.30c"],
        cwd=ROOT, capture_output=True, text=True, env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"})
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("702.30c 增幅  · 2010-02-01\n")
    assert completed.stderr == ""


def test_rule_history_with_a_word_diff(cr_app):
    result = run(cr_app.test_cli_runner(), "rule", "702.30a")
    assert result.exit_code == 0
    history = result.output[result.output.index("沿革 History"):]
    assert "  2009-07-11  702.30a\n  2010-02-01  702.30a  ←\n" in history
    assert unwrapped("functions while the spell[+ with kicker+] is on the stack.") in unwrapped(history)
    assert unwrapped('[-The phrase "Kicker [cost 1] and/or [cost 2]" means') in unwrapped(history)
    assert "[English]" in result.output and "[繁體]" in result.output


def test_a_rule_in_a_named_edition(cr_app):
    result = run(cr_app.test_cli_runner(), "rule", "702.30c", "--edition", "2009-07-11")
    assert result.exit_code == 0
    assert result.output.startswith("702.30c Kicker  · 2009-07-11\n")
    assert unwrapped("Objects with more than one kicker cost have abilities") in unwrapped(result.output)


def test_search(runner):
    result = run(runner, "search", "留存", "--limit", "3")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].startswith("11 results, ")  # 502.79 and its subrules are one
    titles = [line for line in lines if line[:4] in (" 1. ", " 2. ")]
    assert titles == [" 1. 502.79 留存 / Persist  [rule] 2008-05-01 · 暗影荒原常見問題集 / Shadowmoor FAQ",
                      " 2. 新關鍵字異能：留存(Persist)  [section] 2008-05-01 · 暗影荒原常見問題集 / Shadowmoor FAQ"]
    assert "<mark>" not in result.output


def test_search_for_a_rule_number_shows_the_jump(runner):
    result = run(runner, "search", "rule", "901.9")
    assert result.output.splitlines()[0] == "直接前往規則 Go to rule: 901.9 競逐時空 / Planechase (2016-01)"


def test_a_card_in_simplified(runner):
    result = run(runner, "--script", "hans", "card", "奪魂紅帽客")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[:6] == ["夺魂红帽客 / Murderous Redcap", "  繁體: 奪魂紅帽客", "  English: Murderous Redcap",
                         "  简体: 夺魂红帽客", "  {二}{黑/红}{黑/红}  生物～精灵／杀手  2/2",
                         "  暗影荒原常见问题集 / Shadowmoor FAQ › 新关键字异能：留存(Persist)"]
    assert "规则释疑 Rulings" in lines
    assert "此异能结算时，才会检查夺魂红帽客之力量。" in unwrapped(result.output)


def test_a_plane_by_english_name(runner):
    result = run(runner, "card", "Chaotic", "Aether")
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "混亂乙太 / Chaotic Aether"
    assert "When you encounter Chaotic Aether, each blank roll of the planar die is a chaos symbol" in \
        " ".join(line.strip() for line in result.output.splitlines())


def test_a_term(runner):
    result = run(runner, "term", "留存")
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "留存 / persist"
    assert "  persist · 留存 · 留存" in result.output.splitlines()


def test_json_is_the_api_payload(runner, client):
    result = run(runner, "--json", "rule", "702.30c")
    assert json.loads(result.output) == client.get("/api/rules/702.30c").get_json()


@pytest.mark.parametrize("args, code, message", [
    (["rule", "999.9"], 1, "Error: no rule 999.9; no edition has it"),
    (["rule", "702.30c", "--edition", "2008-05-01"], 1,
     "Error: no rule 702.30c in edition 2008-05-01; it is in: 2010-02-01"),
    (["rule", "persist"], 2, "Error: 'persist' is not a rule number (rule numbers look like 702.30a)"),
    (["card", "No Such Card"], 1, "Error: no card named 'No Such Card'"),
    (["card", "留存"], 1, "Error: no card named '留存'"),
    (["search", "a" * 501], 2, "Error: query too long: 501 characters (at most 500)"),
])
def test_errors_are_one_clear_line(runner, args, code, message):
    result = run(runner, *args)
    assert result.exit_code == code
    assert result.output.strip().splitlines()[-1] == message


@pytest.mark.server
def test_no_index_is_a_clear_error(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "mtgrules", "--index-root", str(tmp_path), "702.30a"],
        cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 1
    assert completed.stderr == f"Error: {tmp_path}: no index built yet (run: python -m indexer build)\n"


def test_wrapping_counts_chinese_as_two_columns():
    assert width("增幅 kicker") == 4 + 1 + 6
    text = ("增幅屬於靜止式異能，當該咒語在堆疊中時生效。「增幅[費用]」意指：「你施放此咒語時，可以額外支付[費用]。」"
            " Paying a spell's kicker cost(s) follows the rules.")
    lines = wrap(text, "  ", columns=31).splitlines()
    # 30 columns, or 32 where punctuation that may not start a line (，。」) stayed on this one
    assert all(width(line) <= 30 or (width(line) == 32 and line[-1] in "，。」") for line in lines), lines
    assert unwrapped("".join(lines)) == unwrapped(text)
    assert all(not line.strip().startswith(("，", "。", "」")) for line in lines)
    assert lines[-2:] == ["  spell's kicker cost(s)", "  follows the rules."]  # English breaks between words
