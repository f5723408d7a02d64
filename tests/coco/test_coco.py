"""exactbleu.coco inside the COCO caption evaluation: pycocoevalcap 1.2's own COCOEvalCap, on
pycocotools' COCO objects, gives the same Bleu_1 to Bleu_4, for the corpus and for each image, with
exactbleu's PTBTokenizer and Bleu in place of its own, and its own ROUGE_L and CIDEr give the same
numbers on exactbleu's tokens as on the jar's; exactbleu's run with no Java on the PATH. METEOR and
SPICE, which run Java (and SPICE a model download), stand aside in both runs.

The captions are pycocoevalcap's example results (tests/data/coco/); their ground truth is not
shipped, so each image's references are made here from the captions: its own caption with a word
dropped or two swapped, and other images' captions."""

import contextlib
import io
import json
import os
import random
import shutil
from pathlib import Path

import sys
import types

import pytest

from exactbleu import coco
from pages import recipe

evaluation = pytest.importorskip("pycocoevalcap.eval")
pycocotools = pytest.importorskip("pycocotools.coco")

RESULTS = json.loads((Path(__file__).parents[1] / "data" / "coco" / "captions_val2014_fakecap_results.json")
                     .read_text(encoding="utf-8"))


def references_of(results, seed=7):
    """Five references an image: its caption changed a little, and captions of other images."""
    rng = random.Random(seed)
    captions = [result["caption"] for result in results]
    made = {}
    for number, result in enumerate(results):
        words = result["caption"].split()
        dropped = words[:] if len(words) < 2 else words[: (cut := rng.randrange(len(words)))] + words[cut + 1:]
        swapped = words[:]
        if len(words) > 2:
            i = rng.randrange(len(words) - 1)
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
        others = [captions[(number + step) % len(captions)] for step in (1, 7, 31)]
        made[result["image_id"]] = [" ".join(dropped).capitalize() + ".", " ".join(swapped)] + others
    return made


def coco_objects(results, references):
    """The ground truth and the results as pycocotools' COCO objects, built from dicts, no file."""
    ground_truth = pycocotools.COCO()
    ground_truth.dataset = {
        "images": [{"id": image} for image in references],
        "annotations": [{"image_id": image, "id": number * 10 + k, "caption": caption}
                        for number, (image, captions) in enumerate(references.items())
                        for k, caption in enumerate(captions)]}
    with contextlib.redirect_stdout(io.StringIO()):
        ground_truth.createIndex()
        return ground_truth, ground_truth.loadRes(results)


class StandAside:
    """In place of METEOR and SPICE, which need Java: no score."""

    def compute_score(self, gts, res):
        return 0.0, [0.0] * len(gts)

    def method(self):
        return "stand-aside"


def evaluated(results, references, monkeypatch, ours):
    """COCOEvalCap's evaluate(), with pycocoevalcap's own parts or exactbleu's (the page's recipe)."""
    for name in ("Meteor", "Spice", "PTBTokenizer", "Bleu"):
        monkeypatch.setattr(evaluation, name, getattr(evaluation, name))  # each put back after the test
    monkeypatch.setattr(evaluation, "Meteor", StandAside)
    monkeypatch.setattr(evaluation, "Spice", StandAside)
    namespace = {}
    if ours:
        exec(compile(recipe("coco/cocoevalcap.py"), "docs/captions.md:coco/cocoevalcap.py", "exec"), namespace)
        assert evaluation.PTBTokenizer is coco.PTBTokenizer and evaluation.Bleu is coco.Bleu
    tokenized = []
    tokenizer_class = evaluation.PTBTokenizer

    class Recording(tokenizer_class):
        def tokenize(self, captions_for_image):
            tokenized.append(super().tokenize(captions_for_image))
            return tokenized[-1]

    monkeypatch.setattr(evaluation, "PTBTokenizer", Recording)
    ground_truth, results_object = coco_objects(results, references)
    evaluator = evaluation.COCOEvalCap(ground_truth, results_object)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        evaluator.evaluate()
    if ours:  # the recipe's own evaluate(), the same COCOEvalCap
        with contextlib.redirect_stdout(io.StringIO()):
            assert namespace["evaluate"](*coco_objects(results, references)) == evaluator.eval
    return evaluator, tokenized, printed.getvalue()


@pytest.mark.slow  # pycocoevalcap's own run starts Java for its tokenizer
def test_cocoevalcap_gives_the_same_scores_with_exactbleus_parts_and_no_java(monkeypatch):
    references = references_of(RESULTS)
    theirs, their_tokens, their_print = evaluated(RESULTS, references, monkeypatch, ours=False)
    monkeypatch.undo()
    hidden = Path(os.environ.get("TMPDIR", "/tmp")) / "no-java-here"
    hidden.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(hidden))  # exactbleu's run: no java to find
    assert shutil.which("java") is None
    ours, our_tokens, our_print = evaluated(RESULTS, references, monkeypatch, ours=True)
    assert our_tokens[:2] == their_tokens  # every caption's tokens, as strings, the ground truth's and the results'
    for metric in ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"):
        assert ours.eval[metric] == theirs.eval[metric], metric
    assert ours.imgToEval == theirs.imgToEval  # each image's Bleu_1..4, ROUGE_L and CIDEr
    assert 0.05 < theirs.eval["Bleu_4"] < 0.95
    assert our_print == their_print  # what it prints, pycocoevalcap's verbose counts included
    # The page's recipe with no Java at all: the scorers that need none, on exactbleu's tokens.
    namespace = {}
    exec(compile(recipe("coco/no-java.py"), "docs/captions.md:coco/no-java.py", "exec"), namespace)
    as_annotations = {image: [{"caption": caption} for caption in captions] for image, captions in references.items()}
    with contextlib.redirect_stdout(io.StringIO()):
        found = namespace["scores"](as_annotations, {result["image_id"]: [{"caption": result["caption"]}]
                                                     for result in RESULTS})
    assert found == {metric: theirs.eval[metric] for metric in ("Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L",
                                                                 "CIDEr")}


def test_the_lmms_eval_recipe_puts_exactbleus_parts_in_each_tasks_module(monkeypatch):
    """lmms-eval is not installed here (it brings a model stack): the recipe runs on stand-ins for
    the three task modules, holding pycocoevalcap's names as lmms-eval's do, and puts exactbleu's
    parts in their place; a scorer then taken from a module, as lmms-eval's aggregation takes it,
    is exactbleu's."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    for package in ("lmms_eval", "lmms_eval.tasks"):
        monkeypatch.setitem(sys.modules, package, types.ModuleType(package))
    tasks = {}
    for task in ("coco_cap", "flickr30k", "nocaps"):
        module = types.ModuleType(f"lmms_eval.tasks.{task}.utils")
        module.PTBTokenizer, module.Bleu = PTBTokenizer, Bleu
        monkeypatch.setitem(sys.modules, f"lmms_eval.tasks.{task}", types.ModuleType(f"lmms_eval.tasks.{task}"))
        monkeypatch.setitem(sys.modules, module.__name__, module)
        tasks[task] = module
    exec(compile(recipe("coco/lmms-eval.py"), "docs/captions.md:coco/lmms-eval.py", "exec"), {})
    for module in tasks.values():
        assert module.PTBTokenizer is coco.PTBTokenizer and module.Bleu is coco.Bleu
    gts = tasks["coco_cap"].PTBTokenizer().tokenize({1: [{"caption": "A dog (brown) runs."}]})
    assert gts == {1: ["a dog -lrb- brown -rrb- runs"]}


def test_bleu_takes_pycocoevalcaps_shapes_and_gives_its_numbers():
    from pycocoevalcap.bleu.bleu import Bleu

    tokenizer = coco.PTBTokenizer()
    gts = tokenizer.tokenize({1: [{"caption": "A dog runs on the grass."}, {"caption": "The dog is running."}],
                              "b": [{"caption": "Two people (approx.) ride horses!"}]})
    res = tokenizer.tokenize({1: [{"caption": "a dog running on grass"}], "b": [{"caption": "people riding"}]})
    assert gts == {1: ["a dog runs on the grass", "the dog is running"], "b": ["two people -lrb- approx -rrb- ride horses"]}
    for n in (1, 2, 3, 4):
        with contextlib.redirect_stdout(io.StringIO()) as ours_printed:
            ours = coco.Bleu(n).compute_score(gts, res)
        with contextlib.redirect_stdout(io.StringIO()) as theirs_printed:
            theirs = Bleu(n).compute_score(gts, res)
        assert ours == theirs and len(ours[0]) == n and len(ours[1]) == n and len(ours[1][0]) == 2
        assert ours_printed.getvalue() == theirs_printed.getvalue()
    assert coco.Bleu().method() == "Bleu" and len(coco.Bleu(6).compute_score(gts, res, verbose=0)[0]) == 6


@pytest.mark.parametrize("call, error, words", [
    (lambda: coco.Bleu(4).compute_score({1: ["a"]}, {2: ["a"]}), ValueError, "the same images: \\[1, 2\\]"),
    (lambda: coco.Bleu(4).compute_score({1: ["a"]}, {1: ["a", "b"]}), ValueError, "res\\[1\\] must be a list of one"),
    (lambda: coco.Bleu(4).compute_score({1: []}, {1: ["a"]}), ValueError, "gts\\[1\\] must be a list of at least one"),
    (lambda: coco.Bleu(4).compute_score({1: "a"}, {1: ["a"]}), ValueError, "gts\\[1\\] must be a list"),
    (lambda: coco.Bleu(0), ValueError, "n must be an int from 1 to 20, the number of orders, got 0"),
    (lambda: coco.PTBTokenizer().tokenize({1: ["a caption"]}), TypeError, "captions_for_image\\[1\\]\\[0\\] must be a dict"),
    (lambda: coco.PTBTokenizer().tokenize({1: "a caption"}), TypeError, "captions_for_image\\[1\\] must be a list"),
    (lambda: coco.PTBTokenizer().tokenize(["a caption"]), TypeError, "captions_for_image must map each image"),
])
def test_what_pycocoevalcap_asserts_gets_the_librarys_own_message(call, error, words):
    with pytest.raises(error, match=words):
        call()
