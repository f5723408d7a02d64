"""Rewrite the tables of docs/conventions.md from the declarations: the options, the tokenizers,
the smoothing methods and the presets. Run it after declaring a new one:

    python docs/tables.py

tests/options/test_registries.py holds the page to the declarations.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from exactbleu import options, tokenizers  # noqa: E402

PAGE = ROOT / "docs" / "conventions.md"
TABLES = {"options": options.options_table, "tokenizers": tokenizers.tokenizers_table,
          "smoothing": options.smoothing_table, "presets": options.presets_table}


def rewritten(text: str) -> str:
    """The page with each table between its markers made anew."""
    for name, table in TABLES.items():
        start, end = f"<!-- table: {name} -->\n", f"<!-- end of table: {name} -->"
        before, rest = text.split(start)
        _, after = rest.split(end)
        text = f"{before}{start}{table()}\n{end}{after}"
    return text


if __name__ == "__main__":
    PAGE.write_text(rewritten(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
