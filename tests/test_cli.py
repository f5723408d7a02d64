"""The command line: sacrebleu-style text, JSON and sentence scores; one-line errors."""

import json
import os
import re
import subprocess
import sys

import pytest

from conftest import METRIC_PATH, WMT17

UEDIN = WMT17 / "systems" / "uedin-nmt.4722.de"
REFERENCE = WMT17 / "newstest2017.ref.de"


def run(*arguments, stdin=None):
    return subprocess.run([sys.executable, METRIC_PATH, *map(str, arguments)], input=stdin, capture_output=True,
                          text=True, timeout=300)


def test_text_output_on_wmt17(wmt17):
    expected = wmt17["expected"]["uedin-nmt.4722"]["hf_bleu"]
    completed = run(REFERENCE, "-i", UEDIN)
    assert completed.returncode == 0, completed.stderr
    score_line, signature = completed.stdout.splitlines()
    precisions = "/".join(f"{100 * p:.1f}" for p in expected["precisions"])
    assert score_line == (f"BLEU = {100 * expected['bleu']:.2f} {precisions} (BP = {expected['brevity_penalty']:.3f} "
                          f"ratio = {expected['length_ratio']:.3f} hyp_len = {expected['translation_length']} "
                          f"ref_len = {expected['reference_length']})")
    assert signature.startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:shortest|order:4|")


def test_json_from_standard_input_equals_hf(wmt17):
    completed = run(REFERENCE, "-f", "json", stdin=UEDIN.read_text(encoding="utf-8"))
    result = json.loads(completed.stdout)
    expected = wmt17["expected"]["uedin-nmt.4722"]["hf_bleu"]
    assert {key: result[key] for key in expected} == expected


def test_sacrebleu_preset(wmt17):
    result = json.loads(run(REFERENCE, "-i", UEDIN, "--preset", "sacrebleu", "-f", "json").stdout)
    assert result["bleu"] == wmt17["expected"]["uedin-nmt.4722"]["sacrebleu_default"]["score"] / 100


def test_sentence_level_and_several_reference_files(tmp_path, bleu):
    hypotheses = ["the cat sat on the mat", "a dog", "hello there general kenobi"]
    first = ["the cat sat on a mat", "a dog barked", "hello there"]
    second = ["there is a cat on the mat", "the dog", "general kenobi"]
    for name, lines in (("hyp", hypotheses), ("ref1", first), ("ref2", second)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    completed = run(tmp_path / "ref1", tmp_path / "ref2", "-i", tmp_path / "hyp", "--sentence-level", "--max-order", "2")
    expected = bleu.compute(predictions=hypotheses, references=[list(r) for r in zip(first, second)],
                            max_order=2, sentence_level=True)["sentence_bleu"]
    assert completed.stdout.split() == [f"{100 * s:.2f}" for s in expected]


def test_progress_bar_for_big_inputs_and_the_same_result(tmp_path, wmt17):
    lines = wmt17["systems"]["uedin-nmt.4722"] * 12  # more than two blocks
    references = wmt17["reference"] * 12
    (tmp_path / "hyp").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(references) + "\n", encoding="utf-8")
    with_bar = run(tmp_path / "ref", "-i", tmp_path / "hyp", "-f", "json")
    quiet = run(tmp_path / "ref", "-i", tmp_path / "hyp", "-f", "json", "-q")
    assert "segments" in with_bar.stderr and quiet.stderr == ""
    assert json.loads(with_bar.stdout) == json.loads(quiet.stdout)
    assert json.loads(quiet.stdout)["translation_length"] == 12 * wmt17["expected"]["uedin-nmt.4722"]["hf_bleu"]["translation_length"]


@pytest.mark.parametrize("case, words", [
    ("missing", ["no such file"]),
    ("encoding", ["not UTF-8"]),
    ("mismatch", ["3 lines", "3004"]),
    ("option", ["smooth_method", "floor", "conflicts"]),
])
def test_errors_are_one_line_and_a_non_zero_exit(tmp_path, case, words):
    (tmp_path / "three").write_text("a\nb\nc\n", encoding="utf-8")
    (tmp_path / "latin1").write_bytes("caf\xe9\n".encode("latin-1"))
    arguments = {
        "missing": [tmp_path / "nope.txt", "-i", UEDIN],
        "encoding": [tmp_path / "latin1", "-i", tmp_path / "latin1"],
        "mismatch": [tmp_path / "three", "-i", UEDIN],
        "option": [REFERENCE, "-i", UEDIN, "--smooth", "-s", "floor"],
    }[case]
    completed = run(*arguments)
    assert completed.returncode != 0
    assert completed.stdout == ""
    assert len(completed.stderr.strip().splitlines()) == 1 and "Traceback" not in completed.stderr
    for word in words:
        assert word in completed.stderr


SYSTEMS = [WMT17 / "systems" / f"{name}.de" for name in ("KIT.4950", "FBK.4870", "LIUM-NMT.4900")]


def cells(table):
    """The score cells of a sacrebleu-style table: "26.3 (26.3 ± 0.7)", "(p = 0.0989)*", ..."""
    return re.findall(r"\d+\.\d \(\d+\.\d ± \d+\.\d\)|\(p = [\d.]+\)\*?|│ +\d+\.\d +│", table)


@pytest.mark.parametrize("flag", ["--paired-bs", "--paired-ar"])
def test_paired_tests_print_sacrebleus_table(flag):
    ours = run(REFERENCE, "-i", *SYSTEMS, "--preset", "sacrebleu", flag, "--paired-n", "300")
    assert ours.returncode == 0, ours.stderr
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", str(REFERENCE), "-i", *map(str, SYSTEMS), "-m", "bleu",
                             flag, f"{flag}-n", "300", "-f", "text"], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, SACREBLEU_SEED="12345"))
    assert cells(ours.stdout) and cells(ours.stdout) == cells(theirs.stdout)
    assert f"Baseline: {SYSTEMS[0]}" in ours.stdout and "p < 0.05" in ours.stdout


def test_several_systems_give_a_row_each_and_json_keyed_by_system(bleu, wmt17):
    table = run(REFERENCE, "-i", *SYSTEMS)
    assert table.returncode == 0, table.stderr
    for path in SYSTEMS:
        score = bleu.compute(predictions=wmt17["systems"][path.stem], references=wmt17["reference"])["bleu"]
        assert re.search(rf"{re.escape(str(path))} │ +{100 * score:.1f} +│", table.stdout)
    paired = json.loads(run(REFERENCE, "-i", *SYSTEMS, "--paired-bs", "--paired-n", "200", "-f", "json").stdout)
    expected = bleu.paired_test({str(path): wmt17["systems"][path.stem] for path in SYSTEMS}, wmt17["reference"],
                                n_samples=200)
    assert paired == expected


@pytest.mark.parametrize("arguments, words", [
    (["--paired-bs"], ["paired test needs a baseline"]),
    ([*SYSTEMS[:2], "--paired-ar", "--paired-n", "0"], ["--paired-n", "0"]),
])
def test_paired_errors_are_one_line(arguments, words):
    completed = run(REFERENCE, "-i", SYSTEMS[0], *arguments)
    assert completed.returncode != 0 and len(completed.stderr.strip().splitlines()) == 1
    for word in words:
        assert word in completed.stderr
