"""Which BLEU is this? ``exactbleu.conventions`` on WMT17: the time of every convention on 3,004
segments, and the spread of the conventions on each of the 16 systems, as a table and a picture.

    python benchmarks/conventions.py           # every system; writes docs/which-bleu.png
    python benchmarks/conventions.py --smoke   # 100 segments of two systems: it runs

The time is the best of three calls on online-B's output against the reference, after one call on
50 segments (imports and the tokenizers' first use). The spread compares the conventions on the
0-100 scale: each system's lowest and highest, and what each is.
"""

import argparse
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import exactbleu  # noqa: E402

WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"
TIMED = "online-B.0"
CHARACTERS = "char"  # sacrebleu's tokenizer of character n-grams


def read_lines(path: pathlib.Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def described(row: exactbleu.Convention) -> str:
    options = ", ".join(f"{name}={value!r}" for name, value in row.options.items())
    return f"{row.preset}{' + ' + options if options else ''}, {row.aggregate}"


def plot(spreads: dict[str, list[float]], sacrebleus: dict[str, float], path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted(spreads, key=lambda name: sacrebleus[name])
    figure, axes = plt.subplots(figsize=(9, 6))
    for number, name in enumerate(names):
        scores = spreads[name]
        axes.plot([min(scores), max(scores)], [number, number], color="#dddddd", linewidth=7, solid_capstyle="round",
                  zorder=1)
        axes.scatter(scores, [number] * len(scores), s=9, color="#4c72b0", alpha=0.3, linewidths=0, zorder=2,
                     label="every convention" if number == 0 else None)
        axes.scatter([sacrebleus[name]], [number], s=40, color="#dd5522", zorder=3,
                     label="sacrebleu's default" if number == 0 else None)
    axes.set_yticks(range(len(names)), [name.rsplit(".", 1)[0] for name in names])
    axes.set_xlabel("BLEU (0-100) of every convention")
    axes.set_title("WMT17 English-German: one output, every BLEU convention")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="100 segments of two systems, to check that it runs")
    smoke = parser.parse_args().smoke
    reference = read_lines(WMT17 / "newstest2017.ref.de")
    names = sorted(path.stem for path in (WMT17 / "systems").glob("*.de"))
    if smoke:
        reference, names = reference[:100], [TIMED, names[0]]
    systems = {name: read_lines(WMT17 / "systems" / f"{name}.de")[: len(reference)] for name in names}
    exactbleu.conventions(systems[TIMED][:50], reference[:50])
    times, table = [], None
    for _ in range(1 if smoke else 3):
        start = time.perf_counter()
        table = exactbleu.conventions(systems[TIMED], reference)
        times.append(time.perf_counter() - start)
    assert table is not None
    print(f"| conventions on {TIMED}, {len(reference):,} segments | conventions | time (best of {len(times)}) |")
    print("|---|---|---|")
    print(f"| every convention | {len(table)} rows ({len(table) // 2} conventions, each on both scales) | "
          f"{min(times):.2f} s |\n")
    spreads, sacrebleus = {}, {}
    print("| system | sacrebleu's default | lowest | highest | without `char`: lowest | highest | the lowest | the "
          "highest | the highest without `char` |\n|---|---|---|---|---|---|---|---|---|")
    for name in names:
        rows = [row for row in exactbleu.conventions(systems[name], reference) if row.scale == 100]
        # sacrebleu's char tokenizer counts character n-grams: a measure of its own, for Chinese or Japanese.
        words = [row for row in rows if row.options.get("tokenizer") != CHARACTERS]
        low, high = min(rows, key=lambda row: row.score), max(rows, key=lambda row: row.score)
        word_low, word_high = min(words, key=lambda row: row.score), max(words, key=lambda row: row.score)
        spreads[name] = [row.score for row in rows]
        sacrebleus[name] = next(row.score for row in rows if row.preset == "sacrebleu" and not row.options
                                and row.aggregate == "corpus")
        print(f"| {name} | {sacrebleus[name]:.2f} | {low.score:.2f} | {high.score:.2f} | {word_low.score:.2f} | "
              f"{word_high.score:.2f} | {described(low)} | {described(high)} | {described(word_high)} |")
    if smoke:
        with tempfile.TemporaryDirectory() as scratch:
            plot(spreads, sacrebleus, pathlib.Path(scratch) / "which-bleu.png")
    else:
        plot(spreads, sacrebleus, ROOT / "docs" / "which-bleu.png")


if __name__ == "__main__":
    main()
