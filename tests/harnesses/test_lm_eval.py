"""exactbleu.lm_eval inside EleutherAI's lm-evaluation-harness: the recipe of docs/harnesses.md, as a
user copies it beside a data.jsonl, run by lm-eval's own simple_evaluate with a model of this test's
that returns fixed generations. Its BLEU is sacrebleu's corpus_bleu over every reference, and its
standard error the spread of sacrebleu's own bootstrap resamples."""

import json
import math

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

from oracles import hf_bleu, sacrebleus_standard_error, streams, uneven_corpus
from pages import recipe

lm_eval = pytest.importorskip("lm_eval")
from lm_eval.api.metrics import bleu as lm_evals_bleu  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402

from exactbleu.lm_eval import TaskMetric  # noqa: E402

TASK = "exactbleu_translation"  # the recipe's task name


class FixedGenerations(LM):
    """A model that answers each prompt with the generation given for it."""

    def __init__(self, generations):
        super().__init__()
        self.generations = generations

    def generate_until(self, requests, disable_tqdm=False):
        return [self.generations[request.args[0]] for request in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError("a generation task asks for no likelihood")

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError("a generation task asks for no likelihood")


@pytest.fixture
def task_folder(tmp_path, monkeypatch):
    """The recipe's two files and a data.jsonl in a folder, as the working directory, with
    datasets' cache inside it."""
    import datasets

    for name in ("exactbleu_translation.yaml", "utils.py"):
        (tmp_path / name).write_text(recipe(f"lm-eval/{name}"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", str(tmp_path / "datasets-cache"))
    return tmp_path


def run_task(folder, predictions, references, **arguments):
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    with open(folder / "data.jsonl", "w", encoding="utf-8") as file:
        for number, group in enumerate(references):
            file.write(json.dumps({"source": f"Translate sentence {number}.", "references": group}) + "\n")
    model = FixedGenerations({f"Translate sentence {number}.": prediction
                              for number, prediction in enumerate(predictions)})
    return simple_evaluate(model=model, tasks=[TASK], task_manager=TaskManager(include_path=str(folder),
                                                                               include_defaults=False), **arguments)


@pytest.mark.slow
def test_the_recipe_reports_sacrebleus_bleu_over_every_reference_and_its_standard_error(task_folder, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    predictions, references = uneven_corpus(300, seed=55)
    output = run_task(task_folder, predictions, references, bootstrap_iters=1000, log_samples=True)
    result = output["results"][TASK]
    expected = sacrebleu.corpus_bleu(predictions, streams(references)).score
    assert result["bleu,none"] == expected
    # lm-eval's own aggregation keeps as many references as the segment with the fewest.
    assert lm_evals_bleu(list(zip(references, predictions))) != expected
    assert math.isclose(result["bleu_bootstrap_stderr,none"], sacrebleus_standard_error(predictions, references),
                        rel_tol=1e-9)
    assert result["bleu_stderr,none"] == "N/A"
    assert output["n-samples"][TASK]["effective"] == 300
    json.dumps(output["samples"][TASK])  # what --log_samples writes: each sample's row, as JSON


def test_the_recipes_task_metric_is_sacrebleu_over_every_reference_in_the_target_language():
    namespace = {}
    exec(compile(recipe("lm-eval/utils.py"), "docs/harnesses.md:lm-eval/utils.py", "exec"), namespace)
    predictions, references = uneven_corpus(40, seed=56)
    items = [namespace["process_results"]({"references": group}, [prediction])["bleu"]
             for prediction, group in zip(predictions, references)]
    assert namespace["bleu"](items) == BLEU(trg_lang="de").corpus_score(predictions, streams(references)).score


@pytest.mark.parametrize("language, tokenizer", [("zh", "zh"), ("ja", "ja-mecab"), ("ko", "ko-mecab"), ("de", "13a"),
                                                 ("", "13a")])
def test_the_target_language_chooses_sacrebleus_tokenizer(language, tokenizer):
    assert TaskMetric(target_language=language).settings.tokenize.tokenizer == tokenizer


def test_any_preset_scores_on_0_to_100_and_a_string_is_one_reference():
    predictions, references = uneven_corpus(30, seed=57)
    metric = TaskMetric(preset="default")
    items = [metric.process_results({"references": group[0] if len(group) == 1 else group}, [prediction])["bleu"]
             for prediction, group in zip(predictions, references)]
    assert math.isclose(metric.bleu(items), 100 * hf_bleu(predictions, references)["bleu"], rel_tol=1e-12)


def test_rows_counted_under_other_options_are_refused():
    counted = TaskMetric(tokenizer="char").process_results({"references": ["a cat"]}, ["the cat"])["bleu"]
    with pytest.raises(ValueError, match="counted with different settings|counted with"):
        TaskMetric().bleu([counted])


@pytest.mark.parametrize("arguments, error, words", [
    ({"preset": "lm-evaluation"}, ValueError, "preset"),
    ({"target_language": "zh", "tokenizer": "13a"}, ValueError, "target_language='zh' chooses the tokenizer"),
    ({"target_language": 7}, TypeError, "target_language"),
    ({"references": ""}, TypeError, "references must name a field"),
    ({"n_bootstrap": 1}, ValueError, "n_bootstrap must be at least 2"),
    ({"n_bootstrap": -3}, ValueError, "n_bootstrap"),
    ({"smooth_method": "sideways"}, ValueError, "smooth_method"),
])
def test_options_are_checked_when_the_task_loads(arguments, error, words):
    with pytest.raises(error, match=words):
        TaskMetric(**arguments)


def test_a_document_without_the_field_or_a_generation_is_a_clear_error():
    metric = TaskMetric(references="targets")
    with pytest.raises(KeyError, match="no field 'targets'.*'references', 'source'"):
        metric.process_results({"source": "x", "references": ["y"]}, ["y"])
    with pytest.raises(ValueError, match="no generation"):
        metric.process_results({"targets": ["y"]}, [])
    with pytest.raises(ValueError, match="no sample"):
        metric.bleu([])
