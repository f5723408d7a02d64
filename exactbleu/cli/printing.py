"""What the command line prints: one system's score (with -ci, its bootstrap estimate), each line's
score (-sl), or several systems' table (with a paired test), in sacrebleu's formats, which
``compat`` states.
"""

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from .. import PRESETS, MissingExtra, Settings, Signature
from .files import CommandLineError

# A progress bar from this many segments on (below it, counting takes a moment).
PROGRESS_SEGMENTS = 8192


def single_result(statistics: Any, settings: Settings, arguments: argparse.Namespace, nrefs: int,
                  name: str = "System 1") -> str:
    """One system's corpus score; with -ci, sacrebleu's bootstrap mean and half-width; under a
    script's preset, as text, the line that script prints (of the system ``name``)."""
    from .. import bootstrap, scored
    from ..compat import BLEUScore

    as_json = arguments.format == "json"
    sums = statistics.sums()
    line = LINES.get(PRESETS[arguments.preset].prints)
    if line is not None and not as_json and not arguments.score_only and not settings.output.n_bootstrap:
        return line(sums, scored(statistics, settings), settings, PRESETS[arguments.preset].script, name)
    shown = BLEUScore.of(sums, scored(statistics, settings))
    if settings.output.n_bootstrap:
        shown._mean, shown._ci = bootstrap(statistics, settings).percents()
    sign = Signature(settings, nrefs).format(short=arguments.short and not as_json)
    return shown.format(arguments.width, arguments.score_only, sign, as_json)


def multi_bleu_line(sums: Any, score: Any, settings: Settings, script: str, name: str) -> str:
    """The line ``multi-bleu.perl`` and ``multi-bleu-detok.perl`` print (their printf), each
    precision 100 times matches / totals as the scripts divide."""
    length, reference = int(sums.prediction_length), int(sums.reference_length)
    if not reference:
        return "BLEU = 0, 0/0/0/0 (BP=0, ratio=0, hyp_len=0, ref_len=0)"
    if not length:
        raise CommandLineError("the hypotheses hold no words: multi-bleu.perl divides by zero there and prints no "
                               "score")
    precisions = "/".join(f"{100 * (int(m) / int(t)) if t else 0.0:.1f}" for m, t in zip(sums.matches, sums.totals))
    return (f"BLEU = {100 * score.bleu:.2f}, {precisions} (BP={score.brevity_penalty:.3f}, ratio="
            f"{length / reference:.3f}, hyp_len={length}, ref_len={reference})")


def t2t_bleu_line(sums: Any, score: Any, settings: Settings, script: str, name: str) -> str:
    """The line ``t2t-bleu`` prints for the settings' case: 100 times ``bleu_wrapper``'s float32, a
    float32 product, as ``%6.2f``."""
    import numpy as np

    case = "uncased" if settings.tokenize.lowercase else "cased"
    return f"BLEU_{case} = {float(np.float32(100) * np.float32(score.bleu)):6.2f}"


# The lines of the scripts' presets (``Preset.prints``), as each script prints it.
LINES: dict[str, Callable[[Any, Any, Settings, str, str], str]] = {
    "multi-bleu": multi_bleu_line, "t2t-bleu": t2t_bleu_line}


def sentence_lines(hypotheses: list[str], references: list[list[str]], settings: Settings,
                    arguments: argparse.Namespace, nrefs: int) -> Iterator[str]:
    """-sl: each line's per-sentence score, all at once (``scored_rows``), printed as sacrebleu
    prints them (never as JSON)."""
    from .. import scored_rows, statistics
    from ..compat import BLEUScore

    counted = statistics(hypotheses, references, settings)
    rows = scored_rows(counted, settings)
    sign = Signature(settings.per_sentence(), nrefs).format(short=arguments.short)
    columns = zip(rows.percents().tolist(), rows.percent_precisions().tolist(),
                  rows.brevity_penalty.tolist(), rows.length_ratio.tolist(), counted.prediction_length.tolist(),
                  counted.reference_length.tolist())
    for value, precisions, brevity_penalty, ratio, hypothesis_length, reference_length in columns:
        shown = BLEUScore(value, [], [], precisions, brevity_penalty, hypothesis_length, reference_length, ratio=ratio)
        yield shown.format(arguments.width, arguments.score_only, sign)


def systems_lines(counted: dict[str, Any], arguments: argparse.Namespace, settings: Settings,
                   nrefs: int) -> Iterator[str]:
    """Several systems: sacrebleu's table (or its JSON list), with a paired test's means,
    intervals and p-values against the first system, the baseline."""
    from .. import compare, scored
    from ..compat import BLEUScore

    names = list(counted)
    percents = {name: BLEUScore.of(one.sums(), scored(one, settings)).score for name, one in counted.items()}
    results: dict[str, dict[str, float | None]] = {name: {} for name in names}
    names_shown, test = names, None
    if arguments.paired:
        compared = compare(counted, test=arguments.paired, n_samples=arguments.paired_n,
                           seed=settings.output.bootstrap_seed, preset=settings)
        results = {name: one.percents() for name, one in compared.items()}
        test = ("bs" if arguments.paired == "bootstrap" else "ar", arguments.paired_n)
        if arguments.input:  # standard input's first system is already named "Baseline"
            names_shown = [f"Baseline: {names[0]}", *names[1:]]
    if arguments.format == "json":
        rows: list[dict[str, object]] = []
        for name, shown in zip(names, names_shown):
            value: object = f"{percents[name]:.{arguments.width}f}"
            if arguments.paired:
                value = {"score": percents[name], **{key: results[name][key] for key in ("p_value", "mean", "ci")}}
            rows.append({"system": shown, "BLEU": value})
        yield json.dumps(rows, indent=4)
        return
    yield _table(names, names_shown, percents, results, arguments)
    if arguments.paired:
        kind = ("Paired bootstrap resampling test with" if arguments.paired == "bootstrap"
                else "Paired approximate randomization test with")
        title = f"{kind} {arguments.paired_n} trials, seed {settings.output.bootstrap_seed}"
        yield (f"\n{'-' * len(title)}\n{title}\n{'-' * len(title)}\n"
               f" - Each system is compared with the baseline, {names[0]}.\n"
               " - The p-value is roughly the chance of a score difference this large or larger if the system and\n"
               "   the baseline came from the same process. * marks p < 0.05: a difference unlikely to be chance.\n"
               " - It says that the systems differ, not which one is better.")
    title = "Metric signatures"
    yield f"\n{'-' * len(title)}\n{title}\n{'-' * len(title)}"
    yield f" - BLEU       {Signature(settings, nrefs, test).format(short=arguments.short)}"


def _table(names: list[str], names_shown: list[str], percents: dict[str, float],
           results: dict[str, dict[str, float | None]], arguments: argparse.Namespace) -> str:
    """The systems' scores as sacrebleu's table draws them."""
    from ..compat import results_table

    width = arguments.width
    header = "BLEU (μ ± 95% CI)" if arguments.paired == "bootstrap" else "BLEU"
    table = []
    for name, shown in zip(names, names_shown):
        result = results[name]
        cell = f"{percents[name]:.{width}f}"
        mean, ci, p_value = result.get("mean"), result.get("ci"), result.get("p_value")
        if mean is not None and ci is not None:
            cell += f" ({mean:.{width}f} ± {ci:.{width}f})"
        if p_value is not None:
            cell += f"\n(p = {p_value:.4f}){'*' if p_value < 0.05 else ''}"
        table.append((shown, cell))
    return results_table(("System", header), table)


def counted(hypotheses: list[str], references: list[list[str]], settings: Settings, quiet: bool) -> Any:
    """The statistics, under a progress bar on stderr when the input is big."""
    from .. import statistics

    if quiet or len(hypotheses) < PROGRESS_SEGMENTS:
        return statistics(hypotheses, references, settings)
    from tqdm import tqdm

    with tqdm(total=len(hypotheses), unit=" segments", file=sys.stderr, desc="BLEU") as bar:
        return statistics(hypotheses, references, settings, progress=bar.update)


def printed(parser: argparse.ArgumentParser, arguments: argparse.Namespace,
            run: Callable[[argparse.Namespace], Iterator[str]]) -> int:
    """Print what ``run`` makes of the arguments, line by line; the exit status. An error is one
    line; with nothing to read but a terminal, the usage, rather than a wait."""
    from .files import CommandLineError

    if not arguments.references and not arguments.input and sys.stdin.isatty():
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: give reference files and -i hypothesis files (or hypotheses on standard "
              f"input); {parser.prog} --help says more", file=sys.stderr)
        return 2
    try:
        for line in run(arguments):
            print(line)
    except (CommandLineError, ValueError, TypeError, MissingExtra) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: a word, not a traceback, and the shell's status for it
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, with the status of SIGPIPE, as sacrebleu
        with contextlib.suppress(OSError, ValueError):  # Python flushes stdout at exit: it goes nowhere now
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return 0
