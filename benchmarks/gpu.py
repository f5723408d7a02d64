"""GPU benchmark: exactbleu's token-id tensors against TensorBLEU on the same device, in one run.

    python benchmarks/gpu.py            # on a machine with a GPU: every row, then the checks
    python benchmarks/gpu.py --quick    # tiny sizes, on the GPU if there is one, else on the CPU

TensorBLEU (arXiv 2510.05485) is PyPI's ``rxlm==0.3.80``, ``rxlm.metrics.tensorbleu``; it needs only
torch (``pip install --no-deps rxlm==0.3.80``). It is a peer here, never imported by the library.

The batches are random token ids from a 32k vocabulary, one reference each, with 30% of the tokens
changed and lengths between L/2 and L, padded with 0. Both compute sacrebleu's sentence BLEU with
floor smoothing at 0.1 (ours: the "sacrebleu" preset without effective order, as TensorBLEU has
none; TensorBLEU's "exp" is not sacrebleu's, it floors a zero precision at 1e-12). The largest gap
is TensorBLEU's float32 arithmetic. Times
are medians of several calls after warm-up calls, with the device synchronized before the clock is
read; peak memory is torch's peak allocation during our call. Every GPU result is checked against
exactbleu's CPU path on the same ids as numpy arrays: they must be equal, bit for bit. TensorBLEU
runs in a process of its own for the sizes where it fails (its dense count matrix: out of memory,
or an illegal memory access that would leave the device unusable to this process).

The last row is minimum-Bayes-risk decoding's workload: ``bleu_matrix`` of 8,000 x 2,000 texts of
10-40 tokens on the device, checked entry for entry against the CPU path.
"""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import exactbleu  # noqa: E402

VOCABULARY, PAD = 32_000, 0
# TensorBLEU runs here in this process; at the other sizes it runs apart (see the module).
IN_PROCESS = {(32, 256), (128, 1024), (256, 1024), (512, 1024)}


def batch(rows, length, seed=0):
    """Predictions and one reference each, as padded int64 arrays (rows, length)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(length // 2, length + 1, rows)
    predictions = np.full((rows, length), PAD, dtype=np.int64)
    references = np.full((rows, length), PAD, dtype=np.int64)
    for row, size in enumerate(lengths.tolist()):
        ids = rng.integers(1, VOCABULARY, size)
        predictions[row, :size] = ids
        changed = ids.copy()
        flip = rng.random(size) < 0.3
        changed[flip] = rng.integers(1, VOCABULARY, int(flip.sum()))
        kept = int(rng.integers(max(1, size // 2), size + 1))
        references[row, :kept] = changed[:kept]
    return predictions, references


def timed(function, calls, warm_up=2, device=None):
    """The median seconds of ``calls`` calls after ``warm_up`` ones, and the last result."""
    import torch

    synchronize = torch.cuda.synchronize if device is not None and device.type == "cuda" else (lambda: None)
    result = None
    for _ in range(warm_up):
        result = function()
    synchronize()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        result = function()
        synchronize()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def ours(predictions, references, threads=None):
    return exactbleu.sentence_scores(predictions, references, "sacrebleu", effective_order=False, threads=threads,
                                     smooth_method="floor", smooth_value=0.1, ignore_ids=[PAD])


def tensorbleu(predictions, references):
    from rxlm.metrics.tensorbleu import tensor_sentence_bleu

    return tensor_sentence_bleu(predictions, references[:, None, :], pad_token_id=PAD, max_n=4,
                                smoothing_method="floor", smoothing_epsilon=0.1)


def tensorbleu_apart(rows, length, calls):
    """TensorBLEU at one size, in a process of its own: (seconds, None) or (None, why it failed)."""
    command = [sys.executable, str(pathlib.Path(__file__).resolve()), "--tensorbleu-worker", str(rows), str(length),
               str(calls)]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "no answer within 300 s"
    if completed.returncode == 0 and completed.stdout.strip():
        return float(completed.stdout.strip().splitlines()[-1]), None
    failure = completed.stderr
    asked = re.search(r"Tried to allocate ([\d.]+ GiB)", failure)
    if asked:
        return None, f"out of memory (asked for {asked.group(1)})"
    if "IllegalAddress" in failure or "illegal memory access" in failure:
        return None, "CUDA illegal memory access"
    lines = [line for line in failure.strip().splitlines() if "Error" in line]
    return None, (lines[-1] if lines else failure.strip()[-200:])[:120]


def tensorbleu_worker(rows, length, calls):
    import torch

    device = torch.device("cuda")
    predictions, references = (torch.tensor(array, device=device) for array in batch(rows, length))
    seconds, _ = timed(lambda: tensorbleu(predictions, references), calls, device=device)
    print(seconds)


def sentence_rows(sizes, device, calls, with_peer):
    """One line per size: ours on the device, TensorBLEU, ours on the CPU; and the checks."""
    import torch

    lines, checks = [], []
    for rows, length in sizes:
        arrays = batch(rows, length)
        predictions, references = (torch.tensor(array, device=device) for array in arrays)
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
            base = torch.cuda.memory_allocated(device)
        seconds, scores = timed(lambda: ours(predictions, references), calls, device=device)
        peak = f"{(torch.cuda.max_memory_allocated(device) - base) / 2**30:.2f} GiB" if device.type == "cuda" else "-"
        cpu_seconds, expected = timed(lambda: ours(*arrays, threads=os.cpu_count()), max(1, calls // 3), warm_up=1)
        same = scores.dtype == torch.float64 and scores.device.type == device.type and \
            scores.cpu().numpy().tolist() == expected.tolist()
        checks.append((f"sentence_scores {rows} x {length}: equal to the CPU path", same))
        peer, peer_note, gap = None, "", float("nan")
        if with_peer and ((rows, length) in IN_PROCESS or device.type == "cpu"):
            peer, theirs = timed(lambda: tensorbleu(predictions, references), calls, device=device)
            gap = float((theirs.double() - scores).abs().max())
        elif with_peer:
            peer, peer_note = tensorbleu_apart(rows, length, calls)
        peer_text = f"{peer * 1000:.2f} ms" if peer else peer_note or "-"
        ratio = f"{seconds / peer:.2f}" if peer else "-"
        lines.append(f"| {rows} x {length} | {seconds * 1000:.2f} ms | {peer_text} | {ratio} | "
                     f"{cpu_seconds * 1000:.1f} ms | {peak} | {gap:.1e} |")
    return lines, checks


def matrix_row(predictions_count, references_count, device, calls):
    """bleu_matrix of texts of 10-40 tokens on the device, and on the CPU."""
    import torch

    rng = np.random.default_rng(1)
    references = [rng.integers(1, VOCABULARY, int(rng.integers(10, 41))) for _ in range(references_count)]
    predictions = []
    for _ in range(predictions_count):
        ids = references[int(rng.integers(0, references_count))].copy()
        flip = rng.random(len(ids)) < 0.3
        ids[flip] = rng.integers(1, VOCABULARY, int(flip.sum()))
        predictions.append(ids)
    on_device = ([torch.tensor(one, device=device) for one in predictions],
                 [torch.tensor(one, device=device) for one in references])
    seconds, matrix = timed(lambda: exactbleu.bleu_matrix(*on_device, "sacrebleu"), calls, warm_up=1, device=device)
    exactbleu.bleu_matrix(predictions[:2], references[:2])  # scipy imported before the clock starts
    cpu_seconds, expected = timed(lambda: exactbleu.bleu_matrix(predictions, references, "sacrebleu",
                                                                threads=os.cpu_count()), 1, warm_up=0)
    same = matrix.device.type == device.type and matrix.cpu().numpy().tolist() == expected.tolist()
    line = (f"| bleu_matrix {predictions_count:,} x {references_count:,} texts of 10-40 tokens | "
            f"{seconds * 1000:.1f} ms | - | - | {cpu_seconds * 1000:.0f} ms | - | - |")
    return line, (f"bleu_matrix {predictions_count} x {references_count}: equal to the CPU path", same)


def main(quick):
    import torch

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    peer = _has_tensorbleu()
    if quick:
        sizes, calls, matrix = [(32, 64), (64, 128)], 3, (200, 50)
    else:
        sizes = [(32, 256), (128, 1024), (256, 1024), (512, 1024), (2048, 1024), (8192, 256), (8192, 1024)]
        calls, matrix = 10, (8000, 2000)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    out = [f"device: {name}; torch {torch.__version__}; TensorBLEU: {'rxlm 0.3.80' if peer else 'not run'}", "",
           "| batch x length | exactbleu (device) | TensorBLEU (device) | ours / TensorBLEU | exactbleu (CPU path, "
           f"{os.cpu_count()} cores) | peak GPU memory | largest gap to TensorBLEU |", "|---|---|---|---|---|---|---|"]
    warm = [torch.tensor(array, device=device) for array in batch(256, 1024, seed=1)]
    for _ in range(20):  # the device's clocks up, and every kernel loaded, before the first row
        ours(*warm)
    lines, checks = sentence_rows(sizes, device, calls, peer)
    out += lines
    line, check = matrix_row(*matrix, device, 3)
    out.append(line)
    checks.append(check)
    out += ["", *(f"- {'ok' if passed else 'FAILED'}: {what}" for what, passed in checks)]
    text = "\n".join(out)
    print(text, flush=True)
    if os.environ.get("OUT"):
        (pathlib.Path(os.environ["OUT"]) / "gpu.md").write_text(text + "\n", encoding="utf-8")
    return 0 if all(passed for _, passed in checks) else 1


def _has_tensorbleu():
    try:
        import rxlm.metrics.tensorbleu  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--tensorbleu-worker":
        tensorbleu_worker(*map(int, sys.argv[2:5]))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes; on the CPU where there is no GPU")
    sys.exit(main(parser.parse_args().quick))
