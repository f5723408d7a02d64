"""CI runs the benchmarks only in their tiny smoke modes: they must still run, and the answers
they compare must still agree."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # the benchmarks' processes


def smoke_run(script, tmp_path):
    """Run a benchmark in smoke mode with a temporary folder of its own, which it must leave empty."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    completed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), "--smoke"],
                               capture_output=True, text=True, timeout=600, cwd=ROOT,
                               env={**os.environ, "TMPDIR": str(scratch)})
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert not list(scratch.iterdir()), "the benchmark left files behind"
    return completed.stdout


def test_the_corpus_benchmark_runs_in_smoke_mode(tmp_path):
    printed = smoke_run("run.py", tmp_path)
    assert "| corpus | ours | bleuscore (Rust)" in printed
    assert "wrote" in printed  # the scaling plot


def test_the_per_sentence_benchmark_runs_and_its_answers_agree_in_smoke_mode(tmp_path):
    """Its speed goals do not apply at tiny sizes; its exactness checks (equal to a loop of
    sentence_bleu, to sacrebleu, NLTK, fast-bleu and Texygen's loop) do."""
    printed = smoke_run("per_sentence.py", tmp_path)
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in printed.splitlines()
            if line.startswith("| ") and line.count("|") == 6]
    exactness = [row for row in rows if row[3] == "equal" or row[3].startswith("≤ 1e-")]
    assert len(exactness) >= 7, printed
    assert all(row[4] == "yes" for row in exactness), [row for row in exactness if row[4] != "yes"]


def test_the_torchmetrics_benchmark_runs_and_ours_is_nltks_in_smoke_mode(tmp_path):
    printed = smoke_run("against_torchmetrics.py", tmp_path)
    assert "| ours another than NLTK's | 0 |" in printed
    assert "the ids' number is the same ids' as words and NLTK's: yes" in printed


def test_the_harness_benchmark_runs_and_its_bleu_is_sacrebleus_in_smoke_mode(tmp_path):
    """Its timings mean nothing at tiny sizes; the check that the face's BLEU is sacrebleu's over
    every reference, set by set, still runs."""
    printed = smoke_run("harnesses.py", tmp_path)
    assert '"sets": 5' in printed and "| exactbleu.lm_eval `bleu_standard_error` | 100 |" in printed
    assert "| LightEval's own corpus `bleu` |" in printed


def test_the_captions_benchmark_runs_and_its_answers_are_pycocoevalcaps_in_smoke_mode(tmp_path):
    """Its times mean little at 200 images; its tokens and floats are pycocoevalcap's (the jar's)."""
    printed = smoke_run("captions.py", tmp_path)
    rows = [line for line in printed.splitlines() if line.startswith("| ") and "captions" in line or "images |" in line]
    assert len(rows) == 2 and all(row.rstrip().endswith("| yes |") for row in rows), printed


def test_the_conventions_benchmark_runs_in_smoke_mode(tmp_path):
    """Its time means little at 100 segments; the spread table and the plot are made."""
    printed = smoke_run("conventions.py", tmp_path)
    assert "| every convention | 1242 rows (621 conventions, each on both scales) |" in printed
    assert "| online-B.0 | " in printed and "wrote" in printed


def test_the_mbr_benchmark_runs_and_the_picks_agree_in_smoke_mode(tmp_path):
    """mbrs's own decoder beside exactbleu's, in mbrs's environment; exactbleu.mbrs must pick what
    mbrs's MetricBLEU picks (the benchmark stops otherwise)."""
    printed = smoke_run("mbr.py", tmp_path)
    assert "| mbrs `DecoderMBR`, `exactbleu.mbrs.MetricBLEU` |" in printed and "the same |" in printed
    assert "| 20 x 8 | 1,280 |" in printed


def test_the_small_inputs_benchmark_runs_and_its_numbers_agree_in_smoke_mode(tmp_path):
    """It stops where ours differ from sacrebleu's sentence scores or bleuscore's corpus scores, or
    where the batched rewards differ from the per-sample one."""
    printed = smoke_run("small.py", tmp_path)
    assert "| `exactbleu.sentence_bleu(h, [r], \"sacrebleu\")` |" in printed
    assert "| `exactbleu.rewards.compute_score_batch`, the step at once" in printed
