"""The command line, a drop-in for sacrebleu's BLEU: ``exactbleu REF [REF ...] -i HYP [HYP ...]``.

sacrebleu's flags give sacrebleu's numbers in sacrebleu's output formats (JSON by default, ``-f
text``, ``-b``, ``-w``, ``-sl``, ``-ci``, ``--paired-bs``, ``--paired-ar``); ``--preset hf`` gives
Hugging Face's numbers and ``--preset nltk`` NLTK's, in the same formats. The other options'
flags come from ``options.DECLARED``. It never imports evaluate, datasets or transformers, and
imports numpy and the counting layers only once its arguments are read, so ``--help`` is as quick
as sacrebleu's.
"""

import argparse
import json
import sys
from typing import List, NamedTuple, Optional

from .limits import MAX_SAMPLES, PAIRED_TESTS
from .options import DECLARED, PRESETS, STAGE_OF, _check_int, counted_orders, resolve_settings, signature
from .tokenizers import TOKENIZER_OF_LANGUAGE
from .version import __version__


class CommandLineError(Exception):
    """A problem with the command line's files or options, told in one line."""


def _parser(prog):
    # allow_abbrev=False: sacrebleu's -t (its test sets) must not be read as a prefix of -tok.
    parser = argparse.ArgumentParser(
        prog=prog or "exactbleu", allow_abbrev=False,
        description="Corpus BLEU of hypotheses against one or more reference files, one segment per line, as "
        "sacrebleu's command line computes and prints it. --preset hf gives Hugging Face's numbers, --preset nltk "
        "NLTK's.")
    parser.add_argument("-t", "--test-set", metavar="SET",
                        help="sacrebleu's test sets are not downloaded here: give the reference files instead")
    parser.add_argument("references", nargs="*", metavar="REF", help="reference files, one per reference set")
    parser.add_argument("-i", "--input", nargs="*", metavar="HYP",
                        help="hypotheses, one file per system (default: standard input, one system per tab-separated "
                        "field); with a paired test the first is the baseline")
    parser.add_argument("-nr", "--num-refs", type=int, default=1, metavar="N",
                        help="each line of the single reference file holds N tab-separated references")
    parser.add_argument("-e", "--encoding", default="utf-8", help="the files' encoding (default: utf-8)")
    parser.add_argument("-l", "--language-pair", metavar="SRC-TRG",
                        help="sets the tokenizer by the target language, as sacrebleu: zh, ja-mecab, ko-mecab, else 13a")
    parser.add_argument("-m", "--metrics", nargs="+", choices=["bleu"], default=["bleu"],
                        help="the metric: BLEU is the only one")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="sacrebleu",
                        help="whose numbers: sacrebleu's (default), Hugging Face's (hf, or default) or NLTK's")
    parser.add_argument("-sl", "--sentence-level", action="store_true",
                        help="a score per line; with the sacrebleu preset, with effective order, as sacrebleu")
    for option in DECLARED:  # every option with a flag, as declared
        if option.flags:
            parser.add_argument(*option.flags, dest=option.name, help=_help(option), **option.argparse_keywords())
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
                        help=f"randomization trials (default: {PAIRED_TESTS['randomization']}, at most {MAX_SAMPLES:,})")
    parser.add_argument("--paired-n", type=int, metavar="N", help=f"resamples or trials of either test (at most {MAX_SAMPLES:,})")
    parser.add_argument("-j", "--paired-jobs", type=int, default=1, metavar="N",
                        help="accepted for sacrebleu's scripts: the tests run on statistics, in this process")
    parser.add_argument("-f", "--format", choices=["json", "text"], default="json",
                        help="json (default, as sacrebleu) or text")
    parser.add_argument("-b", "--score-only", action="store_true", help="print the score alone")
    parser.add_argument("-w", "--width", type=int, default=1, help="decimals of the scores (default: 1)")
    parser.add_argument("-sh", "--short", action="store_true", help="a short signature")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    parser.add_argument("-nc", "--no-color", action="store_true", help="accepted for sacrebleu's scripts: no colours")
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def main(argv: Optional[List[str]] = None, prog: Optional[str] = None) -> int:
    """``exactbleu REF [REF ...] -i HYP``: sacrebleu's BLEU command line; returns the exit status."""
    parser = _parser(prog)
    arguments = parser.parse_args(argv)
    if not arguments.references and not arguments.input and sys.stdin.isatty():
        parser.print_usage(sys.stderr)  # nothing to read but a terminal: say how, rather than wait
        print(f"{parser.prog}: error: give reference files and -i hypothesis files (or hypotheses on standard "
              f"input); {parser.prog} --help says more", file=sys.stderr)
        return 2
    try:
        settings = _settings(arguments)
        names, systems = _read_systems(arguments)
        references = _read_references(arguments, len(systems[0]))
        for name, lines in zip(names, systems):
            if len(lines) != len(references):
                raise CommandLineError(f"{name} has {len(lines)} lines but the references have {len(references)}: "
                                       "files must align line by line")
        if not systems[0]:
            raise CommandLineError("the hypotheses are empty: nothing to score")
        nrefs = len(references[0])
        if arguments.sentence_level:
            if len(systems) > 1 or arguments.paired or arguments.confidence:
                raise CommandLineError("-sl scores one system, without -ci or paired tests")
            for line in _sentence_lines(systems[0], references, settings, arguments, nrefs):
                print(line)
            return 0
        if arguments.paired and len(systems) < 2:
            raise CommandLineError("a paired test needs a baseline and at least one system: -i BASE SYSTEM [SYSTEM ...]")
        if arguments.confidence and len(systems) > 1:
            raise CommandLineError("-ci is for one system; for several, use a paired test (--paired-bs)")
        if len(systems) == 1:
            statistics = _counted_with_progress(systems[0], references, settings, arguments.quiet)
            print(_single_result(statistics, settings, arguments, nrefs))
            return 0
        from .counting import ReferenceCache

        cache = ReferenceCache()  # the references are counted once for every system
        counted = {name: _count(lines, references, settings, cache) for name, lines in zip(names, systems)}
        _print_systems(counted, arguments, settings, nrefs)
    except (CommandLineError, ValueError, TypeError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: a word, not a traceback, and the shell's status for it
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    return 0


def _settings(arguments):
    """The settings the flags ask for, checked; the flags of sacrebleu's that set options."""
    options = {name: value for name, value in vars(arguments).items() if name in STAGE_OF and value is not None}
    if arguments.language_pair and "tokenizer" not in options:
        target = arguments.language_pair.split("-")[-1]
        options["tokenizer"] = TOKENIZER_OF_LANGUAGE.get(target, "13a")
    if arguments.confidence:
        _check_int("--confidence-n", arguments.confidence_n, 1, MAX_SAMPLES)
        options["n_bootstrap"] = arguments.confidence_n
    _check_int("--width", arguments.width, 0)
    _check_int("--num-refs", arguments.num_refs, 1)
    if arguments.paired:
        flag, n_samples = "--paired-n", arguments.paired_n
        if n_samples is None:
            bootstrap = arguments.paired == "bootstrap"
            flag = "--paired-bs-n" if bootstrap else "--paired-ar-n"
            n_samples = arguments.paired_bs_n if bootstrap else arguments.paired_ar_n
        arguments.paired_n = _check_int(flag, n_samples, 1, MAX_SAMPLES)
    return resolve_settings(arguments.preset, **options)


def _read_lines(path, what, encoding):
    """One segment per line of a file (or of standard input, for "-"), right-stripped as sacrebleu
    reads them."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                data = file.read()
        text = data.decode(encoding)
    except FileNotFoundError:
        raise CommandLineError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise CommandLineError(f"{what} {path}: is a directory") from None
    except PermissionError:
        raise CommandLineError(f"{what} {path}: permission denied") from None
    except LookupError:
        raise CommandLineError(f"--encoding {encoding!r}: no such encoding") from None
    except UnicodeDecodeError as error:
        raise CommandLineError(f"{what} {path}: not {encoding} text (byte {error.start}: {error.reason})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def _read_systems(arguments):
    """The systems' names and lines: files, or tab-separated fields of standard input."""
    if arguments.input:
        if len(set(arguments.input)) != len(arguments.input):
            raise CommandLineError("a hypothesis file is given twice: each system needs its own file")
        return list(arguments.input), [_read_lines(path, "hypotheses", arguments.encoding) for path in arguments.input]
    rows = [line.split("\t") for line in _read_lines("-", "hypotheses", arguments.encoding)]
    width = len(rows[0]) if rows else 1
    if any(len(row) != width for row in rows):
        raise CommandLineError("standard input: the number of tab-separated systems differs from line to line")
    names = [f"System {number + 1}" for number in range(width)]
    if arguments.paired:
        names[0] = "Baseline"
    return names, [[row[column].rstrip() for row in rows] for column in range(width)]


def _read_references(arguments, hypotheses):
    """Each segment's references: one file per reference set, or tab-separated in one (-nr)."""
    if arguments.test_set:
        raise CommandLineError(f"-t {arguments.test_set}: sacrebleu's test sets are not downloaded here; give the "
                               f"reference files before -i (sacrebleu --echo ref -t SET -l PAIR writes them)")
    if not arguments.references:
        raise CommandLineError("give the reference files before -i (test sets, sacrebleu's -t and -l without "
                               "references, are not downloaded)")
    sets = [_read_lines(path, "references", arguments.encoding) for path in arguments.references]
    if arguments.num_refs == 1:
        for path, lines in zip(arguments.references, sets):
            if len(lines) != hypotheses:
                raise CommandLineError(f"{path} has {len(lines)} lines but the hypotheses have {hypotheses}: "
                                       "files must align line by line")
        return [list(segment) for segment in zip(*sets)]
    if len(sets) > 1:
        raise CommandLineError("--num-refs reads tab-separated references from one file: give just one")
    references = []
    for number, line in enumerate(sets[0], 1):
        fields = line.split("\t", arguments.num_refs - 1)
        if len(fields) != arguments.num_refs:
            raise CommandLineError(f"{arguments.references[0]} line {number}: {len(fields)} references, "
                                   f"not --num-refs {arguments.num_refs}")
        references.append(fields)
    return references


class Shown(NamedTuple):
    """One score as the command line prints it: score and precisions in percent (sacrebleu's own
    percent where its arithmetic applies, so that the printed digits are its digits; else 100
    times the score), brevity penalty, ratio and lengths."""

    percent: float
    precisions: List[float]
    brevity_penalty: float
    ratio: float
    hypothesis_length: int
    reference_length: int


def _shown(sums, settings) -> Shown:
    """A sum's score, as printed."""
    from .scoring import scored

    result = scored(sums, settings)
    to_percent = 100 // result.scale
    return Shown(to_percent * result.value, [to_percent * p for p in result.precisions], result.brevity_penalty,
                 result.length_ratio, int(sums.prediction_length), int(sums.reference_length))


def _formatted(shown, arguments, sign, confidence=None, as_json=False):
    """One score as sacrebleu's ``Score.format`` prints it: the score alone (-b), a line, or JSON."""
    width = arguments.width
    score = f"{shown.percent:.{width}f}"
    fields = {"name": "BLEU", "score": float(score), "signature": sign}
    if confidence is not None:
        mean, half_width = f"{confidence[0]:.{width}f}", f"{confidence[1]:.{width}f}"
        score += f" (μ = {mean} ± {half_width})"
        fields.update(confidence_mean=float(mean), confidence_var=float(half_width),
                      confidence=f"μ = {mean} ± {half_width}")
    if arguments.score_only:
        return score
    verbose = (f"{'/'.join(f'{p:.1f}' for p in shown.precisions)} (BP = {shown.brevity_penalty:.3f} "
               f"ratio = {shown.ratio:.3f} hyp_len = {shown.hypothesis_length:d} ref_len = {shown.reference_length:d})")
    if as_json:
        fields["verbose_score"] = verbose
        fields.update(field.split(":", 1) for field in sign.split("|"))
        return json.dumps(fields, indent=1, ensure_ascii=False)
    return f"BLEU|{sign} = {score} {verbose}" if sign else f"BLEU = {score} {verbose}"


def _single_result(statistics, settings, arguments, nrefs):
    """One system's corpus score; with -ci, sacrebleu's bootstrap mean and half-width."""
    from .significance import paired_test_statistics

    as_json = arguments.format == "json"
    sign = signature(settings, nrefs, short=arguments.short and not as_json)
    confidence = None
    if settings.output.n_bootstrap:
        estimate = paired_test_statistics({"system": statistics}, "system", settings, "bootstrap",
                                          settings.output.n_bootstrap, settings.output.bootstrap_seed,
                                          percent=True, exact_mean=True)["system"]
        confidence = (estimate["mean"], estimate["ci"])
    return _formatted(_shown(statistics.sums(), settings), arguments, sign, confidence, as_json)


def _sentence_lines(hypotheses, references, settings, arguments, nrefs):
    """-sl: each line's per-sentence score, all at once (``scoring.sentence_results``), printed as
    sacrebleu prints them (never as JSON)."""
    from .scoring import for_sentences, sentence_results

    statistics = _count(hypotheses, references, settings)
    rows = sentence_results(statistics, settings)
    sign = signature(for_sentences(settings), nrefs, short=arguments.short)
    to_percent = 100 // rows.scale
    columns = zip((to_percent * rows.value).tolist(), (to_percent * rows.precisions).tolist(),
                  rows.brevity_penalty.tolist(), rows.length_ratio.tolist(), statistics.prediction_length.tolist(),
                  statistics.reference_length.tolist())
    for numbers in columns:
        yield _formatted(Shown(*numbers), arguments, sign)


def _print_systems(counted, arguments, settings, nrefs):
    """Several systems: sacrebleu's table (or its JSON list), with a paired test's means,
    intervals and p-values against the first system, the baseline."""
    from .significance import paired_test_statistics

    names = list(counted)
    width = arguments.width
    percents = {name: _shown(statistics.sums(), settings).percent for name, statistics in counted.items()}
    results, names_shown, test = {name: {} for name in names}, names, None
    if arguments.paired:
        results = paired_test_statistics(counted, names[0], settings, arguments.paired, arguments.paired_n,
                                         settings.output.bootstrap_seed, percent=True)
        test = ("bs" if arguments.paired == "bootstrap" else "ar", arguments.paired_n)
        if arguments.input:  # standard input's first system is already named "Baseline"
            names_shown = [f"Baseline: {names[0]}", *names[1:]]
    if arguments.format == "json":
        rows = []
        for name, shown in zip(names, names_shown):
            result, percent = results[name], percents[name]
            if arguments.paired:
                value = {"score": percent, "p_value": result["p_value"], "mean": result["mean"], "ci": result["ci"]}
            else:
                value = f"{percent:.{width}f}"
            rows.append({"system": shown, "BLEU": value})
        print(json.dumps(rows, indent=4))
        return
    header = "BLEU (μ ± 95% CI)" if arguments.paired == "bootstrap" else "BLEU"
    table = []
    for name, shown in zip(names, names_shown):
        result = results[name]
        cell = f"{percents[name]:.{width}f}"
        if result.get("mean") is not None:
            cell += f" ({result['mean']:.{width}f} ± {result['ci']:.{width}f})"
        if result.get("p_value") is not None:
            cell += f"\n(p = {result['p_value']:.4f}){'*' if result['p_value'] < 0.05 else ''}"
        table.append((shown, cell))
    print(_grid(("System", header), table))
    if arguments.paired:
        kind = ("Paired bootstrap resampling test with" if arguments.paired == "bootstrap"
                else "Paired approximate randomization test with")
        title = f"{kind} {arguments.paired_n} trials, seed {settings.output.bootstrap_seed}"
        print(f"\n{'-' * len(title)}\n{title}\n{'-' * len(title)}\n"
              f" - Each system is compared with the baseline, {names[0]}.\n"
              " - The p-value is roughly the chance of a score difference this large or larger if the system and\n"
              "   the baseline came from the same process. * marks p < 0.05: a difference unlikely to be chance.\n"
              " - It says that the systems differ, not which one is better.")
    title = "Metric signatures"
    print(f"\n{'-' * len(title)}\n{title}\n{'-' * len(title)}")
    print(f" - BLEU       {signature(settings, nrefs, test, short=arguments.short)}")


def _grid(header, rows):
    """A box-drawn table of two columns, the first right-aligned and the second centred, each cell
    one or more lines, as tabulate's "fancy_grid" draws sacrebleu's: a column is as wide as its
    widest cell or its header and two spaces, and one space more on each side."""
    lines = [[cell.split("\n") for cell in row] for row in [header, *rows]]
    widths = [max(len(header[column]) + 2, *(len(text) for row in lines[1:] for text in row[column])) + 2
              for column in range(2)]

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
    from .counting import count

    return count(hypotheses, references, settings, counted_orders(settings), cache, progress=progress)


def _counted_with_progress(hypotheses, references, settings, quiet):
    """The statistics, under a progress bar on stderr when the input is big."""
    from .counting import _CHUNK_SEGMENTS

    if quiet or len(hypotheses) <= 2 * _CHUNK_SEGMENTS:
        return _count(hypotheses, references, settings)
    from tqdm import tqdm

    with tqdm(total=len(hypotheses), unit=" segments", file=sys.stderr, desc="BLEU") as bar:
        return _count(hypotheses, references, settings, progress=bar.update)


def _help(option):
    """An option's help on the command line: the README's words, without their markup."""
    return option.help.replace("`", "").replace("%", "%%")
