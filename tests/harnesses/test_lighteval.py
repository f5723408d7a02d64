"""exactbleu.lighteval inside LightEval 0.13: the recipe of docs/harnesses.md, as a user copies it
beside a data.jsonl, run offline by LightEval's own `lighteval custom` command with the page's model
file, docs/examples/lighteval/fixed_model.py, answering with fixed generations; and the page's offline
run, as printed, in that folder. Its `bleu` is sacrebleu's corpus_bleu over every reference,
its `bleu_stderr` the spread of sacrebleu's own bootstrap resamples, and its `sentence_bleu` the mean
of sacrebleu's sentence_bleu. The "lighteval" preset equals LightEval's own corpus `bleu`, called
directly, on random corpora with uneven reference counts.

LightEval cannot share this environment: it needs huggingface_hub below 1, and the transformers and
datasets here need 1 or later. nox builds lighteval-env for it (noxfile.py), and LightEval runs
there, once for all these tests, in a process of its own (in_lighteval.py)."""

import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU

import exactbleu
from conftest import ROOT, client_python, once_for_the_run
import oracles
from oracles import coco_bleu, hf_bleu, nltk_quietly, sacrebleus_standard_error, streams, uneven_corpus
from pages import PAGES, recipe

pytestmark = pytest.mark.slow  # LightEval's start, in a process of its own

TASK = "exactbleu_translation|0"  # the recipe's task, with no few-shot examples
EXAMPLE = ROOT / "docs" / "examples" / "lighteval"  # the page's folder: its task file, a data.jsonl, its model file
# The page's offline run, from the repository's root; in_lighteval.py gives LightEval's app its arguments.
OFFLINE_RUN = ('cd docs/examples/lighteval && python no_download.py && lighteval custom fixed fixed_model.py '
               '"exactbleu_translation|0" --custom-tasks exactbleu_translation.py --output-dir .results')
SAMPLES = 300
# The "lighteval" preset against LightEval's own function: corpora of 1 to 12 segments, each with one
# to four references, in sacrebleu's default tokenizer and in the one it chooses for Chinese.
PRESET_CORPORA = 200


def offline(scratch, **variables):
    """The environment LightEval runs in here: no Hub, every cache in ``scratch``."""
    cache = scratch / "cache"
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(cache / "hf"),
                   "HF_DATASETS_CACHE": str(cache / "datasets"), "NLTK_DATA": str(cache / "nltk"),
                   "TMPDIR": str(scratch), "SACREBLEU": str(cache / "sacrebleu"), "LIGHTEVAL_DISABLE_TQDM": "1",
                   **variables}
    for name in ("SACREBLEU_SEED", "FIXED_GENERATIONS"):
        environment.pop(name, None)
    return environment


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """LightEval's report on the recipe's run, its own BLEU on the preset corpora and the face's
    errors, with what was given to it: once for the whole test run."""
    return once_for_the_run(tmp_path_factory, "lighteval", lambda: run_in_lighteval(tmp_path_factory))


def run_in_lighteval(tmp_path_factory):
    lighteval = client_python("lighteval")
    scratch = tmp_path_factory.mktemp("lighteval")
    folder = scratch / "task"  # the user's folder: the recipe's file beside a data.jsonl, and nothing else
    folder.mkdir()
    (folder / "exactbleu_translation.py").write_text(recipe("lighteval/exactbleu_translation.py"), encoding="utf-8")
    predictions, references = uneven_corpus(SAMPLES, seed=58)
    with open(folder / "data.jsonl", "w", encoding="utf-8") as file:
        for number, group in enumerate(references):
            file.write(json.dumps({"source": f"Translate sentence {number}.", "references": group}) + "\n")
    (scratch / "generations.json").write_text(json.dumps(
        {f"Translate sentence {number}.": prediction for number, prediction in enumerate(predictions)}),
        encoding="utf-8")
    corpora = [("zh" if seed % 2 else "", uneven_corpus(1 + seed % 12, seed=1000 + seed))
               for seed in range(PRESET_CORPORA)]
    preset_corpora = {preset: uneven_corpus(30 + number, seed=90 + number)
                      for number, preset in enumerate(exactbleu.PRESETS)
                      if preset != "lm-eval" and preset not in oracles.RECORDED_ONLY}
    job = {"scratch": str(scratch), "folder": str(folder), "generations": str(scratch / "generations.json"),
           "model": str(EXAMPLE / "fixed_model.py"), "corpora": corpora, "preset_corpora": preset_corpora}
    (scratch / "job.json").write_text(json.dumps(job), encoding="utf-8")
    completed = subprocess.run([str(lighteval), str(ROOT / "tests" / "harnesses" / "in_lighteval.py"),
                                str(scratch / "job.json"), str(scratch / "report.json")],
                               capture_output=True, text=True, timeout=400, env=offline(scratch), cwd=scratch)
    assert completed.returncode == 0, completed.stderr[-6000:]
    report = json.loads((scratch / "report.json").read_text(encoding="utf-8"))
    return {**report, "predictions": predictions, "references": references, "corpora": corpora,
            "preset_corpora": preset_corpora}


def test_the_recipe_reports_sacrebleus_bleu_over_every_reference_and_its_standard_error(run):
    predictions, references = run["predictions"], run["references"]
    result = run["results"][TASK]
    expected = BLEU(trg_lang="de").corpus_score(predictions, streams(references)).score
    assert result["bleu"] == expected
    # LightEval's own corpus bleu keeps each sample's first reference.
    assert sacrebleu.corpus_bleu(predictions, [[group[0] for group in references]]).score != expected
    # The resamples draw from the samples in the order LightEval scores them: the order it asked the model in.
    order = [int(prompt.removeprefix("Translate sentence ").removesuffix(".")) for prompt in run["asked"]]
    assert sorted(order) == list(range(SAMPLES))
    assert math.isclose(result["bleu_stderr"], sacrebleus_standard_error([predictions[i] for i in order],
                                                                         [references[i] for i in order]),
                        rel_tol=1e-9)


def test_the_recipes_sentence_bleu_is_sacrebleus_averaged(run):
    predictions, references = run["predictions"], run["references"]
    scores = [sacrebleu.sentence_bleu(prediction, group).score for prediction, group in zip(predictions, references)]
    result = run["results"][TASK]
    assert math.isclose(result["sentence_bleu"], sum(scores) / len(scores), rel_tol=1e-12)
    # LightEval's error of a mean: the standard deviation of the scores over the root of their number.
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((score - mean) ** 2 for score in scores) / (len(scores) - 1))
    assert math.isclose(result["sentence_bleu_stderr"], spread / math.sqrt(len(scores)), rel_tol=1e-9)


def test_nothing_but_lightevals_own_start_asked_for_the_network(run):
    """The sockets were refused throughout; the one URL asked for is LightEval's, at its start."""
    assert all("tinyBenchmarks" in url for url in run["requested"]), run["requested"]


def test_the_lighteval_preset_is_lightevals_own_corpus_bleu_called_directly(run):
    assert len(run["lightevals_own_bleu"]) == len(run["corpora"]) == PRESET_CORPORA
    assert all(theirs > 0 for theirs in run["lightevals_own_bleu"])  # every corpus has matches to keep or lose
    for (language, (predictions, references)), theirs in zip(run["corpora"], run["lightevals_own_bleu"]):
        tokenizer = exactbleu.tokenizer_for_language(language)
        counted = exactbleu.statistics(predictions, references, "lighteval", tokenizer=tokenizer)
        assert exactbleu.scored(counted, "lighteval", tokenizer=tokenizer).value == theirs
        ours = exactbleu.corpus_bleu(predictions, references, "lighteval", tokenizer=tokenizer)["bleu"]
        assert math.isclose(ours, theirs / 100, rel_tol=1e-15, abs_tol=0)


def test_under_every_preset_it_takes_the_corpus_metric_gives_that_presets_number(run):
    """Each sample's row, as LightEval computes it, then the corpus metric: on uneven references, each
    preset's own number from the oracles (the "lm-eval" preset is refused when the task loads)."""
    from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu

    for preset, (predictions, references) in run["preset_corpora"].items():
        assert min(map(len, references)) == 1 and max(map(len, references)) == 4
        expected = {"default": lambda: 100 * hf_bleu(predictions, references)["bleu"],
                    "hf": lambda: 100 * hf_bleu(predictions, references)["bleu"],
                    "sacrebleu": lambda: sacrebleu.corpus_bleu(predictions, streams(references)).score,
                    "nltk": lambda: 100 * nltk_quietly(nltk_corpus_bleu, [[r.split() for r in g] for g in references],
                                                       [p.split() for p in predictions]),
                    "lighteval": lambda: sacrebleu.corpus_bleu(predictions, [[g[0] for g in references]]).score,
                    **{name: functools.partial(lambda ptb: 100 * coco_bleu(predictions, references, ptb), name == "coco")
                       for name in ("coco", "nlg-eval", "vlmevalkit")},
                    **{script: functools.partial(oracles.script_bleu, script, predictions, references)
                       for script in oracles.SCRIPT_TOKENIZERS},
                    **{name: functools.partial(lambda name: 100 * oracles.torchmetrics_bleu(name, predictions, references),
                                               name) for name in oracles.TORCHMETRICS_PRESETS}}
        assert math.isclose(run["every_preset"][preset], expected[preset](), rel_tol=1e-12), preset


def test_the_faces_errors_name_the_argument_and_the_choices(run):
    said = run["errors"]
    assert set(said) == {"preset", "both", "resamples", "name", "option", "fewest corpus", "fewest sentence"}
    assert "keep_references='fewest'" in said["fewest corpus"] and "sums per-sample" in said["fewest corpus"]
    assert "sentence_bleu_metric" in said["fewest sentence"] and "keep_references='fewest'" in said["fewest sentence"]
    assert "'light'" in said["preset"] and "sacrebleu" in said["preset"]
    assert "target_language='zh' chooses the tokenizer" in said["both"]
    assert said["resamples"].startswith("ValueError: n_bootstrap must be at least 2")
    assert said["name"].startswith("TypeError: name must be")
    assert "smooth_method" in said["option"] and "sideways" in said["option"]


def test_the_recipes_run_command_is_the_one_tested():
    page = next(page for page in PAGES if "<!-- recipe: lighteval/exactbleu_translation.py -->" in page)
    assert f"<!-- run by tests/harnesses/test_lighteval.py -->\n```bash\n{OFFLINE_RUN}\n```" in page


def test_the_repositorys_example_folder_holds_the_pages_files():
    """docs/examples/lighteval/, where the page's offline run takes place: the page's task file, the
    model file it names, and a data.jsonl of the shape the page describes, and no other data file."""
    assert (EXAMPLE / "exactbleu_translation.py").read_text(encoding="utf-8") == \
        recipe("lighteval/exactbleu_translation.py")
    assert (EXAMPLE / "fixed_model.py").exists()
    documents = [json.loads(line) for line in (EXAMPLE / "data.jsonl").read_text(encoding="utf-8").splitlines()]
    assert documents and all(set(doc) == {"source", "references"} and doc["references"] for doc in documents)
    assert sorted(path.name for path in EXAMPLE.iterdir() if path.name != "__pycache__") == \
        ["data.jsonl", "exactbleu_translation.py", "fixed_model.py", "no_download.py"]


def test_the_pages_offline_run_prints_what_the_page_shows(tmp_path):
    """The page's command, as printed, from the repository's root, with LightEval's environment first
    on the PATH and the network refused (a sitecustomize that every Python of the run imports): no
    socket leaves the machine, and no download is answered. The placeholder that the command leaves
    in LightEval's folder is removed first, so that the command must make it."""
    lighteval = client_python("lighteval")
    page = (ROOT / "docs" / "harnesses.md").read_text(encoding="utf-8")
    command, shown = re.search(r"<!-- run by tests/harnesses/test_lighteval.py -->\n```bash\n(.*?)```\n\n"
                               r"```text\n(.*?)```", page, re.DOTALL).groups()
    assert command.strip() == OFFLINE_RUN
    (tmp_path / "sitecustomize.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tests' / 'harnesses')!r})\nimport in_lighteval\n"
        "in_lighteval.refuse_the_sockets()\n", encoding="utf-8")
    placeholder = lighteval.parent.parent / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / \
        "site-packages" / "lighteval" / "tasks" / "tasks" / "tinyBenchmarks.pkl"
    assert placeholder.parent.is_dir(), placeholder
    if placeholder.exists() and placeholder.stat().st_size == 0:
        placeholder.unlink()
    environment = offline(tmp_path, PATH=f"{lighteval.parent}{os.pathsep}{os.environ['PATH']}",
                          PYTHONPATH=str(tmp_path))
    shutil.rmtree(EXAMPLE / ".results", ignore_errors=True)
    try:
        completed = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=300,
                                   env=environment)
    finally:
        shutil.rmtree(EXAMPLE / ".results", ignore_errors=True)  # the run's results: the repository keeps none
    assert completed.returncode == 0, completed.stderr[-6000:]
    assert completed.stdout == shown


def test_without_lighteval_the_face_names_its_extra():
    code = "import exactbleu.lighteval"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if completed.returncode == 0:
        pytest.skip("LightEval is installed in this environment")
    assert 'pip install "exactbleu[lighteval]"' in completed.stderr
