"""exactbleu.lm_eval inside EleutherAI's lm-evaluation-harness: the recipe of docs/harnesses.md, as a
user copies it beside a data.jsonl, run by lm-eval's own simple_evaluate with a model of this test's
that returns fixed generations. Its BLEU is sacrebleu's corpus_bleu over every reference, and its
standard error the spread of sacrebleu's own bootstrap resamples. Under every other preset it
accepts, its BLEU is that preset's own number on random tasks of one to four references a
document; the one preset whose rows do not add up ("lm-eval") is refused when the task loads."""

import json
import math
import re

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

from oracles import (
    RECORDED_ONLY,
    SCRIPT_TOKENIZERS,
    TORCHMETRICS_PRESETS,
    coco_bleu,
    hf_bleu,
    nltk_quietly,
    sacrebleus_standard_error,
    script_bleu,
    streams,
    torchmetrics_bleu,
    uneven_corpus,
)
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
    assert math.isclose(result["bleu_standard_error,none"], sacrebleus_standard_error(predictions, references),
                        rel_tol=1e-9)
    assert result["bleu_stderr,none"] == "N/A"
    assert output["n-samples"][TASK]["effective"] == 300
    json.dumps(output["samples"][TASK])  # what --log_samples writes: each sample's row, as JSON


def preset_number(preset, predictions, references):
    """Each preset's own number on 0..100, from the oracles: HF's algorithm restated, sacrebleu over
    every reference, NLTK's corpus_bleu, LightEval's (sacrebleu on each first reference)."""
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu

    if preset in ("default", "hf"):
        return 100 * hf_bleu(predictions, references)["bleu"]
    if preset == "sacrebleu":
        return sacrebleu.corpus_bleu(predictions, streams(references)).score
    if preset == "nltk":
        return 100 * nltk_quietly(nltk_corpus_bleu, [[r.split() for r in group] for group in references],
                                  [p.split() for p in predictions])
    if preset in ("coco", "nlg-eval", "vlmevalkit"):  # pycocoevalcap's Bleu on its PTB tokens, or on the text
        return 100 * coco_bleu(predictions, references, preset == "coco")
    if preset in SCRIPT_TOKENIZERS:
        return script_bleu(preset, predictions, references)
    if preset in TORCHMETRICS_PRESETS:
        return 100 * torchmetrics_bleu(preset, predictions, references)
    assert preset == "lighteval", preset
    return sacrebleu.corpus_bleu(predictions, [[group[0] for group in references]]).score


@pytest.mark.slow
def test_under_every_preset_it_accepts_the_task_reports_that_presets_number(task_folder):
    """One task per preset, each on a random corpus of its own (1-4 references a document), all in
    one run of lm-eval's evaluator; the "lm-eval" preset, whose rows depend on the whole corpus, is
    refused as its task loads."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    import exactbleu

    yaml, utils, generations, corpora = recipe("lm-eval/exactbleu_translation.yaml"), recipe("lm-eval/utils.py"), {}, {}
    accepted = [name for name in exactbleu.PRESETS if name != "lm-eval" and name not in RECORDED_ONLY]
    for number, preset in enumerate(accepted):
        name = f"bleu_{preset.replace('-', '_')}"
        predictions, references = uneven_corpus(40 + 7 * number, seed=80 + number)
        corpora[name] = preset, predictions, references
        (task_folder / f"{name}.jsonl").write_text("".join(
            json.dumps({"source": f"{name} {i}.", "references": group}) + "\n" for i, group in enumerate(references)),
            encoding="utf-8")
        generations.update({f"{name} {i}.": prediction for i, prediction in enumerate(predictions)})
        made = re.sub(r"TaskMetric\(.*\)", f"TaskMetric(preset={preset!r}, n_bootstrap=20)", utils)
        assert made != utils
        (task_folder / f"{name}.py").write_text(made, encoding="utf-8")
        (task_folder / f"{name}.yaml").write_text(
            re.sub(r"utils\.", f"{name}.", yaml).replace("task: exactbleu_translation", f"task: {name}")
            .replace("data.jsonl", f"{name}.jsonl"), encoding="utf-8")
    output = simple_evaluate(model=FixedGenerations(generations), tasks=sorted(corpora),
                             task_manager=TaskManager(include_path=str(task_folder), include_defaults=False))
    for name, (preset, predictions, references) in corpora.items():
        assert min(map(len, references)) == 1 and max(map(len, references)) == 4
        got = output["results"][name]["bleu,none"]
        assert math.isclose(got, preset_number(preset, predictions, references), rel_tol=1e-12), preset
        # In sacrebleu's arithmetic (its presets', the Moses scripts'), its own score is not 100 times bleu.
        sacrebleus = exactbleu.PRESETS[preset].options.get("smooth_method") in ("exp", "none")
        assert got == exactbleu.corpus_bleu(predictions, references, preset)["bleu"] * 100 or sacrebleus
    with pytest.raises(ValueError, match="lm-eval's own `bleu` metric gives.*keep_references='fewest'"):
        TaskMetric(preset="lm-eval")


def test_the_repositorys_example_folder_holds_the_pages_files():
    """docs/examples/lm-eval/, where the page's offline run takes place: its two files are the page's,
    beside a data.jsonl of the shape the page describes."""
    from conftest import ROOT

    folder = ROOT / "docs" / "examples" / "lm-eval"
    for name in ("exactbleu_translation.yaml", "utils.py"):
        assert (folder / name).read_text(encoding="utf-8") == recipe(f"lm-eval/{name}")
    documents = [json.loads(line) for line in (folder / "data.jsonl").read_text(encoding="utf-8").splitlines()]
    assert documents and all(set(doc) == {"source", "references"} and doc["references"] for doc in documents)


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


def test_per_sample_rows_under_lm_evals_rule_are_refused_on_every_path():
    """The issue's example: two documents, two references and one; lm-eval's own number keeps one
    reference each (33.44), every reference gives 100. Per-sample rows counted under the rule that
    keeps as many references as the document with the fewest cannot give that number: the face
    refuses the preset when the task loads, and rows counted apart are refused wherever they are
    rebuilt (joined dicts, one dict of rows from several calls, a part of a corpus)."""
    import exactbleu

    references = [["x y z w", "the cat sat on the mat"], ["a dog ran home"]]
    predictions = ["the cat sat on the mat", "a dog ran home"]
    assert lm_evals_bleu(list(zip(references, predictions))) == pytest.approx(33.437015248821105, abs=1e-12)
    with pytest.raises(ValueError, match="keep_references='fewest'"):
        TaskMetric(preset="lm-eval")
    rows = [exactbleu.statistics([p], [r], "lm-eval").as_dict() for p, r in zip(predictions, references)]
    with pytest.raises(ValueError, match="fewest.*2 corpora, each counted in a call of its own"):
        exactbleu.Statistics.from_dicts(rows)
    with pytest.raises(ValueError, match="fewest.*2 corpora"):
        exactbleu.score_samples(rows, "lm-eval")
    whole = exactbleu.statistics(predictions, references, "lm-eval")
    assert exactbleu.score(exactbleu.Statistics.from_dict(whole.as_dict()), "lm-eval")["bleu"] == \
        pytest.approx(lm_evals_bleu(list(zip(references, predictions))) / 100, rel=1e-15)
    part = {name: column[1:] for name, column in whole.as_dict().items()}
    with pytest.raises(ValueError, match="fewest.*not the corpus they were counted on"):
        exactbleu.Statistics.from_dict(part)
    shuffled = {name: column[::-1] for name, column in whole.as_dict().items()}  # a shuffled dataset: still whole
    assert exactbleu.score(exactbleu.Statistics.from_dict(shuffled), "lm-eval") == exactbleu.score(whole, "lm-eval")


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
    ({"preset": "lm-eval"}, ValueError, "sums per-sample statistics rows"),
    ({"keep_references": "fewest"}, ValueError, "keep_references='fewest'"),
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
