"""MBR decoding: ``exactbleu.mbr`` against mbrs's own BLEU through mbrs's ``DecoderMBR``, in one run,
and ``mbr`` alone at test-set sizes.

    python benchmarks/mbr.py           # 200 x 64 side by side; 2,000 x 64 and 500 x 256 alone
    python benchmarks/mbr.py --smoke   # tiny sizes: it runs, and the picks agree
    python benchmarks/mbr.py --gpu     # token-id tensors on the GPU against the same ids on the host

Each source's samples are WMT17 English-German systems' outputs of one segment (16 systems, then
again with one to three words dropped, swapped or doubled per further round), as a model's samples
resemble each other. mbrs (naist-nlp, 0.1.8) runs in its own environment (nox's mbrs-env, which
`nox -s mbrs-env` builds), with its default ``MetricBLEU.Config()`` (8 workers in a process pool
started per call) and again with ``exactbleu.mbrs.MetricBLEU`` in its place. Each size of ``mbr``
alone runs in a fresh process, whose peak resident memory is reported. Times are the best of three
for ``mbr`` in this process, one run elsewhere.
"""

import argparse
import json
import os
import pathlib
import random
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SYSTEMS = ROOT / "tests" / "data" / "wmt17-en-de" / "systems"
MBRS = ROOT / ".nox" / "mbrs-env" / "bin" / "python"  # `nox -s mbrs-env` builds it


def samples(sources: int, each: int, seed: int = 0) -> list[list[str]]:
    """Per source, ``each`` samples: the systems' outputs of one segment, perturbed more each round."""
    outputs = [path.read_text(encoding="utf-8").split("\n")[:-1] for path in sorted(SYSTEMS.glob("*.de"))]
    rng = random.Random(seed)
    result = []
    for source in range(sources):
        group = []
        for number in range(each):
            words = perturbed(outputs[number % len(outputs)][source % len(outputs[0])].split(),
                              number // len(outputs), rng)
            group.append(" ".join(words))
        result.append(group)
    return result


def perturbed(words: list[str], changes: int, rng: random.Random) -> list[str]:
    """The words with ``changes`` random edits, each a word dropped, two swapped or one doubled."""
    words = list(words)
    for _ in range(changes):
        if len(words) > 2:
            place, change = rng.randrange(len(words) - 1), rng.randrange(3)
            if change == 0:
                del words[place]
            elif change == 1:
                words[place], words[place + 1] = words[place + 1], words[place]
            else:
                words.insert(place, words[place])
    return words


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def alone(sources: int, each: int) -> dict:
    """``mbr`` on one size, in this (fresh) process: pairwise and aggregated times, peak memory."""
    import exactbleu

    data = samples(sources, each)
    exactbleu.mbr(samples(2, 4))  # imports and first-call costs, outside the clock
    start = time.perf_counter()
    pairwise = exactbleu.mbr(data)
    pairwise_time = time.perf_counter() - start
    peak = peak_mb()
    start = time.perf_counter()
    aggregated = exactbleu.mbr(data, reference_aggregation=True)
    aggregated_time = time.perf_counter() - start
    same = sum(int(a == b) for a, b in zip(pairwise.best.tolist(), aggregated.best.tolist()))
    return {"pairwise": pairwise_time, "aggregated": aggregated_time, "peak_mb": peak, "same_best": same}


def in_mbrs(sources: int, each: int, smoke: bool = False) -> dict:
    """mbrs's DecoderMBR on every source, with its MetricBLEU and with exactbleu's (run in mbrs-env).
    The smoke run gives mbrs's MetricBLEU one worker: its pool starts on every call, and at tiny
    sizes each of the default 8 is a fork of this process and little else; the picks are the same.
    It also leaves out mbrs's neural metrics, as mbrs's tests do: their imports are some 10 s of CPU
    in a process that scores BLEU only."""
    if smoke:
        sys.path.insert(0, str(ROOT / "tests" / "mbr"))
        from in_mbrs import without_neural_metrics

        without_neural_metrics()
    from mbrs.decoders import DecoderMBR
    from mbrs.metrics import MetricBLEU as Theirs

    from exactbleu.mbrs import MetricBLEU as Ours

    data = samples(sources, each)
    report = {}
    theirs = Theirs.Config(num_workers=1) if smoke else Theirs.Config()
    for name, metric in (("theirs", Theirs(theirs)), ("face", Ours(Ours.Config()))):
        decoder = DecoderMBR(DecoderMBR.Config(), metric)
        decoder.decode(data[0][:4], data[0][:4])  # first-call costs, outside the clock
        start = time.perf_counter()
        report[name + "_best"] = [decoder.decode(group, group).idx[0] for group in data]
        report[name] = time.perf_counter() - start
    return report


def child(python: pathlib.Path, role: str, sources: int, each: int, smoke: bool = False) -> dict:
    """A run in a fresh process, with a temporary folder of its own that goes with it (torch, which
    mbrs imports, writes its compiler's cache there)."""
    command = [str(python), __file__, "--child", role, str(sources), str(each)] + (["--smoke"] if smoke else [])
    with tempfile.TemporaryDirectory() as scratch:
        completed = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT,
                                   env={**os.environ, "TMPDIR": scratch})
    if completed.returncode:
        raise SystemExit(f"the {role} run failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def on_gpu(sizes: list[tuple[int, int]]) -> list[list[str]]:
    """Token-id tensors on the GPU against the same ids as lists on the host: times, and equal utilities."""
    import torch

    import exactbleu

    if not torch.cuda.is_available():
        return [["(no GPU here)", "", "", ""]]
    rows = []
    for sources, each in sizes:
        data = samples(sources, each)
        vocabulary: dict[str, int] = {}
        ids = [[[vocabulary.setdefault(word, len(vocabulary) + 1) for word in text.split()] for text in group]
               for group in data]
        width = max(len(row) for group in ids for row in group)
        tensor = torch.zeros((sources, each, width), dtype=torch.int64)
        for s, group in enumerate(ids):
            for c, row in enumerate(group):
                tensor[s, c, : len(row)] = torch.tensor(row)
        device = tensor.cuda()
        exactbleu.mbr(device[:2], ignore_ids=[0])  # first-call costs, outside the clock
        exactbleu.mbr(ids[:2])
        torch.cuda.synchronize()
        start = time.perf_counter()
        got = exactbleu.mbr(device, ignore_ids=[0])
        torch.cuda.synchronize()
        gpu = time.perf_counter() - start
        start = time.perf_counter()
        host = exactbleu.mbr(ids)
        cpu = time.perf_counter() - start
        equal = got.utilities.cpu().tolist() == [u.tolist() for u in host.utilities]
        rows.append([f"{sources:,} x {each} token ids", f"{gpu:.2f} s on {torch.cuda.get_device_name()}",
                     f"{cpu:.2f} s as lists on the host", "equal" if equal else "DIFFERENT"])
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: it runs, and the picks agree")
    parser.add_argument("--gpu", action="store_true", help="only token-id tensors on the GPU, against the host")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        role, sources, each = arguments.child[0], int(arguments.child[1]), int(arguments.child[2])
        print(json.dumps(alone(sources, each) if role == "alone" else in_mbrs(sources, each, arguments.smoke)))
        return
    import exactbleu

    side, sizes = ((6, 8), [(20, 8), (5, 16)]) if arguments.smoke else ((200, 64), [(2000, 64), (500, 256)])
    if arguments.gpu:  # a GPU machine has no mbrs environment: this part alone
        print(table(["input", "GPU", "host", "utilities"], on_gpu([side, *sizes])))
        return
    data = samples(*side)
    exactbleu.mbr(samples(2, 4))
    ours = min(timed(lambda: exactbleu.mbr(data)) for _ in range(3))
    best = exactbleu.mbr(data).best.tolist()
    if not MBRS.exists():
        raise SystemExit(f"mbrs's environment {MBRS.parent.parent} is missing: the README's set-up builds it")
    theirs = child(MBRS, "mbrs", *side, smoke=arguments.smoke)
    if theirs["face_best"] != theirs["theirs_best"]:
        raise SystemExit("exactbleu.mbrs picked other candidates than mbrs's own MetricBLEU")
    differing = sum(int(a != b) for a, b in zip(best, theirs["theirs_best"]))
    label = f"{side[0]:,} sources x {side[1]} candidates"
    print(table(["run", "time", "vs mbrs", "picks"], [
        [f"mbrs `DecoderMBR`, its `MetricBLEU` ({label})", f"{theirs['theirs']:.1f} s", "1", "-"],
        ["mbrs `DecoderMBR`, `exactbleu.mbrs.MetricBLEU`", f"{theirs['face']:.2f} s",
         f"{theirs['face'] / theirs['theirs']:.4f}x", "the same"],
        ["`exactbleu.mbr`, every source in one call", f"{ours:.3f} s", f"{ours / theirs['theirs']:.4f}x",
         f"{len(best) - differing}/{len(best)} the same"],
    ]))
    print()
    rows = []
    for sources, each in sizes:
        result = child(pathlib.Path(sys.executable), "alone", sources, each)
        rows.append([f"{sources:,} x {each}", f"{sources * each * each:,}", f"{result['pairwise']:.2f} s",
                     f"{result['aggregated']:.2f} s", f"{result['peak_mb']:.0f} MB",
                     f"{result['same_best']}/{sources}"])
    print(table(["sources x candidates", "pairs", "`mbr`", "`reference_aggregation=True`", "peak resident memory",
                 "same best"], rows))


def timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
