"""The command line, a drop-in for sacrebleu's BLEU: ``exactbleu REF [REF ...] -i HYP [HYP ...]``.

sacrebleu's flags give sacrebleu's numbers in sacrebleu's output formats (JSON by default, ``-f
text``, ``-b``, ``-w``, ``-sl``, ``-ci``, ``--paired-bs``, ``--paired-ar``), which ``compat``
states; ``--preset hf`` gives Hugging Face's numbers and ``--preset nltk`` NLTK's, in the same
formats, and ``--list-presets`` lists every preset (``presets.py``). The options' flags come from
their declarations (``exactbleu.OPTIONS``). It uses the public API only, never imports evaluate,
datasets or transformers, and imports numpy and the counting layers only once its arguments are
read, so ``--help`` is as quick as sacrebleu's.
"""

import argparse
import sys
from collections.abc import Iterator

from .. import (
    MAX_SAMPLES,
    OPTIONS,
    PAIRED_TESTS,
    PRESETS,
    TOKENIZERS,
    Option,
    Settings,
    __version__,
    check_whole_corpus,
    resolve_settings,
    tokenizer_for_language,
)
from .conventions import COMMAND, conventions_command
from .files import CommandLineError, read_references, read_systems
from .mteval import is_markup, mteval_lines, read_scored
from .parser import SuggestingParser
from .presets import COMMAND_DEFAULT, ListPresets
from .printing import counted, printed, sentence_lines, single_result, systems_lines

__all__ = ["CommandLineError", "main"]


def _parser(prog: str | None) -> argparse.ArgumentParser:
    # allow_abbrev=False: sacrebleu's -t (its test sets) must not be read as a prefix of -tok.
    parser = SuggestingParser(
        prog=prog or "exactbleu", allow_abbrev=False,
        description="Corpus BLEU of hypotheses against one or more reference files, one segment per line, as "
        "sacrebleu's command line computes and prints it. --preset hf gives Hugging Face's numbers, --preset nltk "
        "NLTK's; --list-presets prints them all.",
        epilog=f"Which BLEU is a reported score? %(prog)s {COMMAND} REF -i HYP --score X (%(prog)s {COMMAND} --help).")
    parser.add_argument("-t", "--test-set", metavar="SET",
                        help="sacrebleu's test sets are not downloaded here: give the reference files instead")
    parser.add_argument("references", nargs="*", metavar="REF", help="reference files, one per reference set")
    parser.add_argument("-i", "--input", nargs="*", metavar="HYP",
                        help="hypotheses, one file per system (default: standard input, one system per tab-separated "
                        "field); with a paired test the first is the baseline")
    parser.add_argument("-nr", "--num-refs", type=int, default=1, metavar="N",
                        help="each line of the single reference file holds N tab-separated references")
    parser.add_argument("-e", "--encoding", default="utf-8", help="the files' encoding (default: utf-8)")
    languages = ", ".join(f"{language}: {name}" for name, one in TOKENIZERS.items() for language in one.languages)
    parser.add_argument("-l", "--language-pair", metavar="SRC-TRG",
                        help=f"sets the tokenizer by the target language, as sacrebleu ({languages}; else "
                        f"{tokenizer_for_language('')})")
    parser.add_argument("-m", "--metrics", nargs="+", choices=["bleu"], default=["bleu"],
                        help="the metric: BLEU is the only one")
    # The presets' descriptions live in --list-presets' table: in --help they would grow with each one.
    parser.add_argument("--preset", choices=list(PRESETS), default=COMMAND_DEFAULT, metavar="NAME",
                        help="whose numbers: one of the presets that --list-presets prints (default: "
                        f"{COMMAND_DEFAULT}, as sacrebleu's command line; the preset named \"default\" is Hugging "
                        "Face's bleu, the library's default, not this command's)")
    parser.add_argument("--list-presets", action=ListPresets,
                        help="print every preset and what it reproduces, and exit")
    parser.add_argument("-sl", "--sentence-level", action="store_true",
                        help="a score per line; with the sacrebleu preset, with effective order, as sacrebleu")
    for option in OPTIONS.values():  # every option with a flag, as declared
        if option.flags:
            parser.add_argument(*option.flags, dest=option.name, help=_help(option), **option.argparse_keywords())
    _sacrebleus_other_flags(parser)
    return parser


def _sacrebleus_other_flags(parser: argparse.ArgumentParser) -> None:
    """sacrebleu's flags for its tests, its output and its scripts."""
    parser.add_argument("--force", action="store_true",
                        help="accepted for sacrebleu's scripts: this command line never warns about tokenized input")
    parser.add_argument("-ci", "--confidence", action="store_true", help="the 95%% bootstrap interval, as sacrebleu")
    parser.add_argument("-cin", "--confidence-n", type=int, default=1000, metavar="N",
                        help=f"its resamples (default: 1000, at most {MAX_SAMPLES:,})")
    paired = parser.add_mutually_exclusive_group()
    paired.add_argument("-pbs", "--paired-bs", dest="paired", action="store_const", const="bootstrap",
                        help="paired bootstrap resampling of each system against the first, as sacrebleu")
    paired.add_argument("-par", "--paired-ar", dest="paired", action="store_const", const="randomization",
                        help="paired approximate randomization of each system against the first, as sacrebleu")
    parser.add_argument("-pbsn", "--paired-bs-n", type=int, default=PAIRED_TESTS["bootstrap"], metavar="N",
                        help=f"bootstrap resamples (default: {PAIRED_TESTS['bootstrap']}, at most {MAX_SAMPLES:,})")
    parser.add_argument("-parn", "--paired-ar-n", type=int, default=PAIRED_TESTS["randomization"], metavar="N",
                        help=f"randomization trials (default: {PAIRED_TESTS['randomization']}, at most "
                        f"{MAX_SAMPLES:,})")
    parser.add_argument("--paired-n", type=int, metavar="N",
                        help=f"resamples or trials of either test (at most {MAX_SAMPLES:,})")
    parser.add_argument("-j", "--paired-jobs", type=int, default=1, metavar="N",
                        help="accepted for sacrebleu's scripts: the tests run on statistics, in this process")
    parser.add_argument("-f", "--format", choices=["json", "text"],
                        help="json (default, as sacrebleu) or text; a script's preset prints the script's line "
                        "unless told json")
    parser.add_argument("-b", "--score-only", action="store_true", help="print the score alone")
    parser.add_argument("-w", "--width", type=int, default=1, help="decimals of the scores (default: 1)")
    parser.add_argument("-sh", "--short", action="store_true", help="a short signature")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("-nc", "--no-color", action="store_true", help="accepted for sacrebleu's scripts: no colours")
    parser.add_argument("-d", "--detail", type=int, choices=[1, 2], metavar="N",
                        help="mteval's -d under its presets, on its SGML or XML files: each document's score (1), and "
                        "each segment's (2)")
    parser.add_argument("--source", metavar="SRC",
                        help="mteval's -s: the source's SGML or XML file, whose documents are scored (default: the "
                        "first system's)")
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """``exactbleu REF [REF ...] -i HYP``: sacrebleu's BLEU command line; returns the exit status.
    ``exactbleu conventions ...`` is the subcommand that asks which BLEU a score is."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [COMMAND]:
        return conventions_command(argv[1:], prog or "exactbleu")
    parser = _parser(prog)
    return printed(parser, parser.parse_args(argv), _run)


def _run(arguments: argparse.Namespace) -> Iterator[str]:
    """What the command line prints for these arguments, line by line."""
    if arguments.format is None:
        arguments.format = "text" if PRESETS[arguments.preset].prints else "json"
    settings = _settings(arguments)
    _check_whole_corpus(settings, arguments)
    names, systems, references, documents = _read(arguments, settings)
    if not systems[0]:
        raise CommandLineError("the hypotheses are empty: nothing to score")
    nrefs = len(references[0])
    mteval = (PRESETS[arguments.preset].prints == "mteval" and arguments.format == "text" and not (
        arguments.score_only or arguments.sentence_level or arguments.paired or arguments.confidence))
    if arguments.detail and not (mteval and documents):
        raise CommandLineError("-d/--detail prints mteval's document and segment lines: give its SGML or XML files "
                               "under --preset mteval-v13a or mteval-v14, without -b, -sl, -ci or a paired test")
    if arguments.sentence_level:
        if len(systems) > 1 or arguments.paired or arguments.confidence:
            raise CommandLineError("-sl scores one system, without -ci or paired tests")
        yield from sentence_lines(systems[0], references, settings, arguments, nrefs)
        return
    if arguments.paired and len(systems) < 2:
        raise CommandLineError("a paired test needs a baseline and at least one system: -i BASE SYSTEM [SYSTEM ...]")
    if arguments.confidence and len(systems) > 1:
        raise CommandLineError("-ci is for one system; for several, use a paired test (--paired-bs)")
    if len(systems) == 1 and not mteval:
        name = names[0].rsplit("/", 1)[-1]
        yield single_result(counted(systems[0], references, settings, arguments.quiet), settings, arguments, nrefs,
                            name)
        return
    from .. import ReferenceCache, statistics

    cache = ReferenceCache()  # the references are counted once for every system
    every = {name: statistics(lines, references, settings, cache=cache) for name, lines in zip(names, systems)}
    if mteval:
        yield from mteval_lines(every, documents, settings, arguments)
    else:
        yield from systems_lines(every, arguments, settings, nrefs)


def _read(arguments: argparse.Namespace,
          settings: Settings) -> tuple[list[str], list[list[str]], list[list[str]], list[tuple[str, list[str]]] | None]:
    """The systems' names and lines, each line's references, and the documents where mteval's own
    files give them (under its presets, files named .sgm or .xml)."""
    markup = PRESETS[arguments.preset].prints == "mteval" and arguments.input and any(
        map(is_markup, [*arguments.references, *arguments.input]))
    if arguments.source and not markup:
        raise CommandLineError("--source is mteval's source file: give it with mteval's SGML or XML files under "
                               "--preset mteval-v13a or mteval-v14")
    if markup:
        read = read_scored(arguments, settings)
        return list(read.systems), list(read.systems.values()), read.references, read.documents
    names, systems = read_systems(arguments)
    references = read_references(arguments, len(systems[0]))
    for name, lines in zip(names, systems):
        if len(lines) != len(references):
            raise CommandLineError(f"{name} has {len(lines)} lines but the references have {len(references)}: "
                                   "files must align line by line")
    if PRESETS[arguments.preset].prints == "mteval":  # mteval names a system by its sysid; here, by its file
        names = [name.rsplit("/", 1)[-1] for name in names]
    return names, systems, references, None


def _checked_count(flag: str, value: int, minimum: int, maximum: int | None = None) -> int:
    """A flag's count, from ``minimum`` to ``maximum``, or a one-line error naming the flag."""
    if value < minimum or (maximum is not None and value > maximum):
        kind = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        bound = f" of at most {maximum}" if maximum is not None else ""
        raise CommandLineError(f"{flag} must be {kind}{bound}, got {value}")
    return value


def _settings(arguments: argparse.Namespace) -> Settings:
    """The settings the flags ask for, checked; the flags of sacrebleu's that set options."""
    options = {name: value for name, value in vars(arguments).items() if name in OPTIONS and value is not None}
    if arguments.language_pair and "tokenizer" not in options:
        options["tokenizer"] = tokenizer_for_language(arguments.language_pair.split("-")[-1])
    if arguments.confidence:
        options["n_bootstrap"] = _checked_count("--confidence-n", arguments.confidence_n, 1, MAX_SAMPLES)
    _checked_count("--width", arguments.width, 0)
    _checked_count("--num-refs", arguments.num_refs, 1)
    if arguments.paired:
        flag, n_samples = "--paired-n", arguments.paired_n
        if n_samples is None:
            bootstrap = arguments.paired == "bootstrap"
            flag = "--paired-bs-n" if bootstrap else "--paired-ar-n"
            n_samples = arguments.paired_bs_n if bootstrap else arguments.paired_ar_n
        arguments.paired_n = _checked_count(flag, n_samples, 1, MAX_SAMPLES)
    return resolve_settings(arguments.preset, **options)


def _check_whole_corpus(settings: Settings, arguments: argparse.Namespace) -> None:
    """A one-line error, in the flags typed, where references kept by the whole corpus (the lm-eval
    preset's rule) meet a flag that scores lines or resamples: the library's check decides, and its
    message names Python's arguments, which the command has none of."""
    resampled = "resampled corpora"
    asked = [(flag, what) for flag, what, on in (
        ("-sl/--sentence-level", "score per line", arguments.sentence_level),
        ("-ci/--confidence", resampled, arguments.confidence),
        ("--n-bootstrap", resampled, arguments.n_bootstrap and not arguments.confidence),
        ("-pbs/--paired-bs", resampled, arguments.paired == "bootstrap"),
        ("-par/--paired-ar", resampled, arguments.paired == "randomization"),
    ) if on]
    try:
        for flag, _ in asked:
            check_whole_corpus(settings, flag)
    except ValueError:
        (flag, what), given = asked[0], arguments.keep_references is not None
        typed = f"--keep-references {arguments.keep_references}" if given else f"--preset {arguments.preset}"
        raise CommandLineError(f"{typed} keeps as many references a line as the line with the fewest has, which "
                               f"depends on the whole corpus, so only a corpus score takes it, not {flag}'s {what}: "
                               f"drop {flag.split('/')[0]} for the corpus score, or {'use' if given else 'add'} "
                               "--keep-references all (or first) to keep each line's own references") from None


def _help(option: Option) -> str:
    """An option's help on the command line: the docs' words, without their markup."""
    return option.help.replace("`", "").replace("%", "%%")
