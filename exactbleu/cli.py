"""The command line, in the spirit of sacrebleu's: ``exactbleu REF [REF ...] -i HYP [HYP ...]``.

Its flags for options come from ``options.DECLARED``; it never imports evaluate, so it starts at once.
"""

import argparse
import json
import sys
from typing import List, Optional

from .api import result_of_statistics
from .counting import _CHUNK_SEGMENTS, ReferenceCache, count
from .options import DECLARED, PRESETS, STAGE_OF, _check_int, counted_orders, resolve_settings, signature
from .significance import PAIRED_TESTS, paired_test_statistics

class CommandLineError(Exception):
    """A problem with the command line's files or options, told in one line."""


def _read_segments(path, what):
    """One segment per line of a UTF-8 file (or of standard input, for "-")."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                data = file.read()
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise CommandLineError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise CommandLineError(f"{what} {path}: is a directory") from None
    except PermissionError:
        raise CommandLineError(f"{what} {path}: permission denied") from None
    except UnicodeDecodeError as error:
        raise CommandLineError(f"{what} {path}: not UTF-8 text (byte {error.start}: {error.reason})") from None
    segments = text.split("\n")
    if segments[-1] == "":
        segments.pop()
    return segments


def _score_line(result):
    precisions = "/".join(f"{100 * p:.1f}" for p in result["precisions"])
    return (f"BLEU = {100 * result['bleu']:.2f} {precisions} (BP = {result['brevity_penalty']:.3f} "
            f"ratio = {result['length_ratio']:.3f} hyp_len = {result['translation_length']} "
            f"ref_len = {result['reference_length']})")


def main(argv: Optional[List[str]] = None, prog: Optional[str] = None) -> int:
    """``exactbleu REF [REF ...] -i HYP``, in the spirit of sacrebleu's command line; returns the
    exit status."""
    parser = argparse.ArgumentParser(
        prog=prog or "exactbleu",
        description="Corpus BLEU of hypotheses against one or more reference files, one segment per line. "
        "By default the numbers are Hugging Face's bleu; --preset sacrebleu or nltk gives theirs.",
    )
    parser.add_argument("references", nargs="+", metavar="REF", help="reference files, one per reference set")
    parser.add_argument("-i", "--input", nargs="+", default=["-"], metavar="HYP",
                        help="hypotheses, one file per system; the first is the baseline (default: standard input)")
    paired = parser.add_mutually_exclusive_group()
    paired.add_argument("--paired-bs", dest="paired", action="store_const", const="bootstrap",
                        help="paired bootstrap resampling of each system against the first, as sacrebleu's")
    paired.add_argument("--paired-ar", dest="paired", action="store_const", const="randomization",
                        help="paired approximate randomization, as sacrebleu's")
    parser.add_argument("--paired-n", type=int, metavar="N",
                        help=f"resamples or trials (default: {PAIRED_TESTS['bootstrap']} and {PAIRED_TESTS['randomization']})")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="default", help="whose conventions")
    for option in DECLARED:  # every option with a flag, as declared
        if option.flags:
            parser.add_argument(*option.flags, dest=option.name, help=_help(option), **option.cli)
    parser.add_argument("--sentence-level", action="store_true", help="one score per line")
    parser.add_argument("-f", "--format", choices=["text", "json"], default="text")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    arguments = parser.parse_args(argv)
    # Every argument named for an option is that option; the rest choose files and output.
    options = {name: value for name, value in vars(arguments).items() if name in STAGE_OF and value is not None}
    try:
        settings = resolve_settings(arguments.preset, signature=True, **options)
        systems = {path: _read_segments(path, "hypotheses") for path in arguments.input}
        hypotheses = next(iter(systems.values()))
        reference_sets = [_read_segments(path, "references") for path in arguments.references]
        for path, segments in [*zip(arguments.references, reference_sets), *systems.items()]:
            if len(segments) != len(hypotheses):
                raise CommandLineError(f"{path} has {len(segments)} lines but {arguments.input[0]} has "
                                       f"{len(hypotheses)}: files must align line by line")
        if not hypotheses:
            raise CommandLineError("the hypotheses are empty: nothing to score")
        if arguments.paired and len(systems) < 2:
            raise CommandLineError("a paired test needs a baseline and at least one system: -i BASE SYSTEM [SYSTEM ...]")
        if arguments.paired_n is not None:
            _check_int("--paired-n", arguments.paired_n, 1)
        references = [list(segment) for segment in zip(*reference_sets)]
        if len(systems) > 1 or arguments.paired:
            cache = ReferenceCache()  # the references are counted once for every system
            counted = {path: _count(lines, references, settings, cache) for path, lines in systems.items()}
            return _print_systems(counted, arguments, settings, len(reference_sets))
        result = result_of_statistics(_counted_with_progress(hypotheses, references, settings, arguments.quiet),
                                      settings)
    except (CommandLineError, ValueError, TypeError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    if arguments.format == "json":
        print(json.dumps(result, indent=1, ensure_ascii=False))
    elif arguments.sentence_level:
        for score in result["sentence_bleu"]:
            print(f"{100 * score:.2f}")
    else:
        print(_score_line(result))
        if "bleu_ci" in result:
            low, high = result["bleu_ci"]
            print(f"95% bootstrap interval: {100 * low:.2f} .. {100 * high:.2f}")
        print(result["signature"])
    return 0


def _print_systems(counted, arguments, settings, nrefs):
    """Several systems: a table, one row per system, as sacrebleu prints it; with a paired test,
    each system's mean and 95% interval and its p-value against the first, the baseline."""
    baseline = next(iter(counted))
    if arguments.paired:
        results = paired_test_statistics(counted, baseline, settings, arguments.paired, arguments.paired_n,
                                         settings.output.bootstrap_seed)
    else:
        results = {name: result_of_statistics(statistics, settings) for name, statistics in counted.items()}
    if arguments.format == "json":
        print(json.dumps(results, indent=1, ensure_ascii=False))
        return 0
    header = "BLEU (μ ± 95% CI)" if arguments.paired == "bootstrap" else "BLEU"
    table = []
    for name, result in results.items():
        cell = f"{100 * result['bleu']:.1f}"
        if result.get("mean") is not None:
            cell += f" ({100 * result['mean']:.1f} ± {100 * result['ci']:.1f})"
        if result.get("p_value") is not None:
            cell += f"\n(p = {result['p_value']:.4f}){'*' if result['p_value'] < 0.05 else ''}"
        table.append((f"Baseline: {name}" if arguments.paired and name == baseline else name, cell))
    print(_grid(("System", header), table))
    if arguments.paired:
        n_samples = arguments.paired_n or PAIRED_TESTS[arguments.paired]
        kind = {"bootstrap": "Paired bootstrap resampling test with", "randomization": "Paired approximate "
                "randomization test with"}[arguments.paired]
        print(f"\n{kind} {n_samples} trials, seed {settings.output.bootstrap_seed}: each system against the baseline.\n"
              "The p-value is roughly the chance of a score difference this large or larger if the system and the\n"
              "baseline came from the same process; * marks p < 0.05, a difference unlikely to be chance. It says\n"
              "the systems differ, not which one is better.")
    print(signature(settings, nrefs))
    return 0


def _grid(header, rows):
    """A box-drawn table of two columns, the first right-aligned and the second centred, each cell
    one or more lines."""
    lines = [[cell.split("\n") for cell in row] for row in [header, *rows]]
    widths = [max(len(text) for row in lines for text in row[column]) + 2 for column in range(2)]

    def rule(left, middle, right, fill):
        return left + middle.join(fill * width for width in widths) + right

    def body(row):
        height = max(map(len, row))
        cells = [cell + [""] * (height - len(cell)) for cell in row]
        return ["│" + f" {first:>{widths[0] - 2}} " + "│" + f"{second:^{widths[1]}}" + "│"
                for first, second in zip(*cells)]

    out = [rule("╒", "╤", "╕", "═"), *body(lines[0]), rule("╞", "╪", "╡", "═")]
    for number, row in enumerate(lines[1:]):
        out += body(row)
        out.append(rule("╘", "╧", "╛", "═") if number == len(lines) - 2 else rule("├", "┼", "┤", "─"))
    return "\n".join(out)


def _count(hypotheses, references, settings, cache=None, progress=None):
    statistics = count(hypotheses, references, settings, counted_orders(settings), cache, progress=progress)
    statistics.references = list(map(len, references))
    return statistics


def _counted_with_progress(hypotheses, references, settings, quiet):
    """The statistics, under a progress bar on stderr when the input is big."""
    if quiet or len(hypotheses) <= 2 * _CHUNK_SEGMENTS:
        return _count(hypotheses, references, settings)
    from tqdm import tqdm

    with tqdm(total=len(hypotheses), unit=" segments", file=sys.stderr, desc="BLEU") as bar:
        return _count(hypotheses, references, settings, progress=bar.update)


def _help(option):
    """An option's help on the command line: the README's words, without their markup."""
    return option.help.replace("`", "").replace("%", "%%")
