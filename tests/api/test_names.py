"""One name per thing, and every call form a user's docs show: evaluate's keyword forms, the
presets' names in every face, the arguments' own names in errors, keyword-only options."""

import subprocess
import sys

import evaluate
import pytest

import exactbleu
from conftest import METRIC_PATH, ROOT
from oracles import hf_bleu

PREDICTIONS = ["the cat sat on the mat", "a dog ran"]
REFERENCES = [["the cat sat on a mat", "there is a cat on the mat"], ["a dog ran home"]]


def test_add_takes_evaluates_documented_keyword_form():
    """evaluate's quick tour adds one example a call with add(predictions=..., references=...)."""
    metric = evaluate.load(METRIC_PATH)
    for prediction, references in zip(PREDICTIONS, REFERENCES):
        metric.add(predictions=prediction, references=references)
    assert metric.compute() == hf_bleu(PREDICTIONS, REFERENCES)
    mixed = evaluate.load(METRIC_PATH)
    mixed.add(prediction=PREDICTIONS[0], references=REFERENCES[0])
    mixed.add(predictions=PREDICTIONS[1], reference=REFERENCES[1])
    assert mixed.compute() == hf_bleu(PREDICTIONS, REFERENCES)


def test_add_refuses_one_example_named_twice():
    metric = evaluate.load(METRIC_PATH)
    with pytest.raises(ValueError, match="each once.*predictions"):
        metric.add(prediction="a", predictions="b", reference="a")
    with pytest.raises(ValueError, match="sources"):
        metric.add(prediction="a", reference="a", sources="x")


def test_hf_is_a_preset_in_every_face(tmp_path):
    assert "hf" in exactbleu.PRESETS
    assert exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, "hf") == hf_bleu(PREDICTIONS, REFERENCES)
    assert evaluate.load(METRIC_PATH, "hf").compute(predictions=PREDICTIONS, references=REFERENCES) == \
        hf_bleu(PREDICTIONS, REFERENCES)
    (tmp_path / "hyp").write_text("the cat sat on the mat\n", encoding="utf-8")
    (tmp_path / "ref").write_text("the cat sat on a mat\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "exactbleu", str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"),
                          "--preset", "hf", "-b", "-w", "12"], capture_output=True, text=True, check=True).stdout
    assert float(out) == pytest.approx(100 * hf_bleu(["the cat sat on the mat"], ["the cat sat on a mat"])["bleu"])


def test_a_bad_preset_is_named_preset_in_the_api_and_config_name_in_the_metric():
    with pytest.raises(ValueError) as error:
        exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, "sacreblue")
    assert ("preset must be one of ['default', 'hf', 'sacrebleu', 'nltk', 'lm-eval', 'lighteval', 'coco', 'nlg-eval', "
            "'vlmevalkit', 'codexglue', 'ignite', 'deepeval-bleu1', 'deepeval-bleu2', 'deepeval-bleu3', "
            "'deepeval-bleu4', 'helm-bleu-1', 'helm-bleu-4', 'azure', 'fairseq', 'torchmetrics', 'torchmetrics-sacrebleu', 'multi-bleu', 'multi-bleu-detok', "
            "'t2t-bleu', 'tokenized-bleu', 't2t-ende', 'mteval-v13a', 'mteval-v14'], got 'sacreblue'") in str(error.value)
    assert "config_name" not in str(error.value)
    presets = (r"\['default', 'hf', 'sacrebleu', 'nltk', 'lm-eval', 'lighteval', 'coco', 'nlg-eval', 'vlmevalkit', "
               r"'codexglue', 'ignite', 'deepeval-bleu1', 'deepeval-bleu2', 'deepeval-bleu3', 'deepeval-bleu4', "
               r"'helm-bleu-1', 'helm-bleu-4', 'azure', 'fairseq', 'torchmetrics', 'torchmetrics-sacrebleu', 'multi-bleu', 'multi-bleu-detok', 't2t-bleu', "
               r"'tokenized-bleu', 't2t-ende', 'mteval-v13a', 'mteval-v14'\]")
    with pytest.raises(ValueError, match=rf"config_name must be one of {presets}"):
        evaluate.load(METRIC_PATH, "sacreblue")


@pytest.mark.parametrize("prediction, references, words", [
    (3, ["a"], "prediction must be a string, got int: 3"),
    ("a", ["a", 3], "references[1] must be a string, got int: 3"),
    ("a", [], "references is empty"),
    (["a"], ["a"], "prediction must be a string, got list"),
])
def test_sentence_bleus_errors_name_its_own_arguments(prediction, references, words):
    with pytest.raises((TypeError, ValueError)) as error:
        exactbleu.sentence_bleu(prediction, references)
    assert words in str(error.value)
    assert "predictions[" not in str(error.value)


def test_paired_test_takes_its_options_by_keyword_only():
    systems = {"a": PREDICTIONS, "b": PREDICTIONS[::-1]}
    with pytest.raises(TypeError):
        exactbleu.paired_test(systems, REFERENCES, "a", "bootstrap", 10, 1, "sacrebleu")
    assert exactbleu.paired_test(systems, REFERENCES, baseline="a", n_samples=10, preset="sacrebleu")["a"]["bleu"] == \
        exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, "sacrebleu")["bleu"]


@pytest.mark.parametrize("call", [
    lambda: exactbleu.paired_test({"a": ["a"], "b": ["b"]}, ["a"], sentence_level=True),
    lambda: exactbleu.explain(["a"], ["a"], signature=True),
    lambda: evaluate.load(METRIC_PATH).explain(["a"], ["a"], n_bootstrap=10),
])
def test_options_that_shape_a_corpus_result_are_refused_where_there_is_none(call):
    with pytest.raises(ValueError, match="does not take"):
        call()


def test_bleu_metric_py_runs_the_command_line_without_importing_evaluate(tmp_path):
    """`python bleu_metric.py` is the same command line as `python -m exactbleu`, as quick to start."""
    (tmp_path / "hyp").write_text("a b c d e\n", encoding="utf-8")
    (tmp_path / "ref").write_text("a b c d e\n", encoding="utf-8")
    probe = ("import runpy, sys\n"
             f"sys.argv = ['bleu_metric.py', {str(tmp_path / 'ref')!r}, '-i', {str(tmp_path / 'hyp')!r}, '-b']\n"
             "try:\n"
             f"    runpy.run_path({str(ROOT / 'bleu_metric.py')!r}, run_name='__main__')\n"
             "except SystemExit as stop:\n"
             "    assert stop.code == 0, stop.code\n"
             "print('evaluate' in sys.modules, 'datasets' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out.split() == ["100.0", "False", "False"]
