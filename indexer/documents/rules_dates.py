"""How a rules file states its effective date: "These rules are effective as of April 17,
2026." in English, "此规则于2026年4月17日起生效" in Chinese. The date names the edition."""
from __future__ import annotations

import re

EFFECTIVE_EN = re.compile(r"(?:effective|current) as of ([A-Z][a-z]+) (\d{1,2}), (\d{4})")
EFFECTIVE_ZH = re.compile(r"此规则于\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日\s*起生效")
MONTHS = {name: n for n, name in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August",
     "September", "October", "November", "December"], 1)}
