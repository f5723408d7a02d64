"""``exactbleu conventions REF [REF ...] -i HYP``: which BLEU is this? Every convention's score on the
files (``exactbleu.conventions``), or with ``--score X`` the conventions that give X, the common
ones first, and the nearest where none does (``exactbleu.identify``)."""

import argparse
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .. import TOKENIZERS, tokenizer_for_language
from .files import CommandLineError, read_references, read_systems
from .parser import SuggestingParser
from .printing import printed

if TYPE_CHECKING:  # numpy and the counting layers load once the arguments are read, not for --help
    from .. import Convention

COMMAND = "conventions"


def conventions_command(argv: list[str], prog: str) -> int:
    """The subcommand's exit status, having printed what it found."""
    parser = _conventions_parser(f"{prog} {COMMAND}")
    return printed(parser, parser.parse_args(argv), _conventions_lines)


def _conventions_parser(prog: str) -> argparse.ArgumentParser:
    parser = SuggestingParser(
        prog=prog, allow_abbrev=False,
        description="Every convention's BLEU of one hypothesis file against its references (tokenizer, lowercase, "
        "smoothing and arithmetic, reference length, references kept, corpus or mean of sentences, scale), or "
        "with --score the conventions that give a reported score.")
    parser.add_argument("-t", "--test-set", metavar="SET", help="sacrebleu's test sets are not downloaded here")
    parser.add_argument("references", nargs="*", metavar="REF", help="reference files, one per reference set")
    parser.add_argument("-i", "--input", nargs="*", metavar="HYP", help="the hypothesis file (default: standard input)")
    parser.add_argument("-nr", "--num-refs", type=int, default=1, metavar="N",
                        help="tab-separated references in one file, N a line")
    parser.add_argument("-e", "--encoding", default="utf-8", help="the files' encoding (default: utf-8)")
    parser.add_argument("-l", "--language-pair", metavar="SRC-TRG",
                        help="adds the tokenizer sacrebleu chooses for the target language (zh, ja-mecab, ko-mecab)")
    parser.add_argument("--score", metavar="X",
                        help="a reported score, as written (27.3, 0.273): print the conventions that give it")
    parser.add_argument("--nearest", type=int, default=5, metavar="N",
                        help="with --score, how many of the nearest conventions to print besides (default: 5)")
    parser.add_argument("--tokenizers", nargs="+", choices=list(TOKENIZERS), metavar="TOK",
                        help="the tokenizers to try instead of those that apply (moses, say)")
    parser.add_argument("-f", "--format", choices=["text", "json"], default="text",
                        help="a table (default) or JSON")
    return parser


def _conventions_lines(arguments: argparse.Namespace) -> Iterator[str]:
    from .. import conventions, identify

    arguments.paired = False
    _, systems = read_systems(arguments)
    if len(systems) != 1:
        raise CommandLineError(f"{COMMAND} scores one hypothesis file at a time, got {len(systems)}")
    references = read_references(arguments, len(systems[0]))
    if not systems[0]:
        raise CommandLineError("the hypotheses are empty: nothing to score")
    language = arguments.language_pair.split("-")[-1] if arguments.language_pair else None
    if language is not None:
        tokenizer_for_language(language)
    options: dict[str, Any] = {"language": language, "tokenizers": arguments.tokenizers}
    if arguments.score is None:
        table = conventions(systems[0], references, **options)
        if arguments.format == "json":
            yield json.dumps([row._asdict() for row in table], ensure_ascii=False, indent=1)
        else:
            yield from _conventions_table(table)
        return
    if arguments.nearest < 0:
        raise CommandLineError(f"--nearest must be an int >= 0, got {arguments.nearest}")
    found = identify(systems[0], references, arguments.score, nearest=arguments.nearest, **options)
    if arguments.format == "json":
        yield json.dumps({"reported": found.reported, "matches": [row._asdict() for row in found.matches],
                          "nearest": [{**row._asdict(), "off": off} for row, off in found.nearest]},
                         ensure_ascii=False, indent=1)
        return
    if found.matches:
        count = len(found.matches)
        yield f"{count} convention{'s' if count > 1 else ''} give {found.reported}, the common ones first:"
        yield from _conventions_table(found.matches)
    else:
        yield f"no convention gives {found.reported}"
    if found.nearest:
        yield f"the nearest {len(found.nearest)}, and how far each is off:"
        yield from _conventions_table([row for row, _ in found.nearest], [off for _, off in found.nearest])


def _conventions_table(rows: list["Convention"], offs: list[float] | None = None) -> Iterator[str]:
    """One line a convention: its score on its scale, the preset and options that give it, and how."""
    for number, row in enumerate(rows):
        score = f"{row.score:.4f}" if row.scale == 1 else f"{row.score:.2f}"
        off = f"  ({offs[number]:+.4g})" if offs is not None else ""
        options = " ".join(f"{name}={value}" for name, value in row.options.items()) or "-"
        yield f"{score:>8}{off}  0-{row.scale:<3}  {row.aggregate:<13}  {row.preset:<9}  {options}"
