"""``exactbleu --list-presets``: every preset and what it reproduces, a table read from the registry
(``exactbleu.PRESETS``), so a preset registered anywhere is listed, and ``--help`` names the flag
rather than a paragraph that grows with each preset. Like sacrebleu's ``--list``, it prints and
exits before any file is read."""

import argparse
import shutil
import textwrap
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from .. import PRESETS

# The command's own default: sacrebleu's, as its command line scores; the preset named "default" is
# the library's (Hugging Face's `bleu`).
COMMAND_DEFAULT = "sacrebleu"


def presets_lines(width: int) -> Iterator[str]:
    """The presets' table, ``width`` characters wide at most where words allow: a row a preset,
    its name and what it reproduces (the docs' words, without their markup), the default marked."""
    names = max(len("preset"), *(len(name) for name in PRESETS))
    yield f"{'preset':<{names}}  what it reproduces"
    yield f"{'-' * names}  {'-' * len('what it reproduces')}"
    for name, preset in PRESETS.items():
        described = preset.describe.replace("`", "") + (" (this command's default)" if name == COMMAND_DEFAULT else "")
        wrapped = textwrap.wrap(described, max(width - names - 2, 30)) or [""]
        yield f"{name:<{names}}  {wrapped[0]}"
        yield from (f"{'':<{names}}  {more}" for more in wrapped[1:])


class ListPresets(argparse.Action):
    """``--list-presets``: prints the presets' table and exits, as ``--version`` does."""

    def __init__(self, option_strings: Sequence[str], dest: str, **keywords: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **keywords)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        """Print the table, as wide as the terminal (argparse's help measures it the same way)."""
        print("\n".join(presets_lines(shutil.get_terminal_size().columns - 2)))
        parser.exit()
