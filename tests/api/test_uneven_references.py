"""Every face under every preset, on corpora whose predictions hold one to four references each:
the convention's own number, or a refusal. Nothing in between.

Uneven reference counts are where the presets part: HF's and NLTK's count every reference,
LightEval's its first, and lm-eval's as many as the prediction with the fewest has, a rule over the
whole corpus. A face that counts a corpus whole gives each preset's number; a face that counts
samples apart and adds their rows (a harness's aggregation, shards, stored columns, summed vectors)
cannot give lm-eval's, and must refuse it, on every path by which rows are rebuilt. The expected
numbers come from the oracles: HF's algorithm restated, sacrebleu, NLTK, lm-eval's own `bleu` and
torchmetrics' own functions.
"""

import functools
import math

import pytest
import sacrebleu
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu

import exactbleu
from conftest import load_metric
from exactbleu import rewards
from exactbleu.lm_eval import TaskMetric
from oracles import (
    RECORDED_ONLY,
    SCRIPT_TOKENIZERS,
    TORCHMETRICS_PRESETS,
    coco_bleu,
    hf_bleu,
    nltk_quietly,
    outcome,
    script_bleu,
    streams,
    torchmetrics_bleu,
    uneven_corpus,
)

lm_eval_metrics = pytest.importorskip("lm_eval.api.metrics")

# Each holds a prediction of one reference and one of four.
CORPORA = [uneven_corpus(size, seed=700 + number) for number, size in enumerate((6, 11, 17))]
# The presets that take several references, with a peer (t2t-bleu's takes one: its test is below).
ONE_REFERENCE = sorted(name for name, preset in exactbleu.PRESETS.items()
                       if preset.options.get("keep_references") == "one" and not preset.token_ids)
PRESETS = sorted(set(exactbleu.PRESETS) - RECORDED_ONLY)
# pycocoevalcap's Bleu: on its PTB tokens, and as nlg-eval and VLMEvalKit call it, on the text.
COCO = ("coco", "nlg-eval", "vlmevalkit")


def convention(preset, predictions, references):
    """The preset's own corpus BLEU on 0..1, from its oracle."""
    if preset in ("default", "hf"):
        return hf_bleu(predictions, references)["bleu"]
    if preset == "sacrebleu":
        return sacrebleu.corpus_bleu(predictions, streams(references)).score / 100
    if preset == "nltk":
        return nltk_quietly(nltk_corpus_bleu, [[r.split() for r in group] for group in references],
                            [p.split() for p in predictions])
    if preset == "lm-eval":
        return lm_eval_metrics.bleu(list(zip(references, predictions))) / 100
    if preset in COCO:
        return coco_scores(predictions, references, preset == "coco")[0]
    if preset in SCRIPT_TOKENIZERS:
        return script_bleu(preset, predictions, references) / 100
    if preset in TORCHMETRICS_PRESETS:
        return torchmetrics_bleu(preset, predictions, references)
    assert preset == "lighteval"
    return sacrebleu.corpus_bleu(predictions, [[group[0] for group in references]]).score / 100


def sentence_convention(preset, prediction, references):
    """The preset's own score of one segment alone on 0..1, or None where the preset has none."""
    if preset in ("default", "hf"):
        return hf_bleu([prediction], [references])["bleu"]
    if preset == "sacrebleu":
        return sacrebleu.sentence_bleu(prediction, references).score / 100
    if preset == "nltk":
        return convention("nltk", [prediction], [references])
    if preset == "lighteval":
        return sacrebleu.sentence_bleu(prediction, references[:1]).score / 100
    if preset in COCO:
        return coco_scores([prediction], [references], preset == "coco")[1][0]
    if preset in SCRIPT_TOKENIZERS or preset in TORCHMETRICS_PRESETS:  # the script on a file of one line; one update
        return convention(preset, [prediction], [references])
    return None  # lm-eval's rule keeps references by the whole corpus


def coco_scores(predictions, references, ptb):
    """pycocoevalcap's Bleu_4, of the corpus and of each image, on its PTB tokens or on the text."""
    return coco_bleu(predictions, references, ptb), [coco_bleu([p], [r], ptb) for p, r in zip(predictions, references)]


def same(got, expected):
    return math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-300)


def refused(call):
    kind, value = outcome(call)
    return kind == "error" and issubclass(value, ValueError)


@functools.cache
def every_convention(corpus):
    """conventions() on CORPORA[corpus]: its table is the same whichever preset a test looks up."""
    return exactbleu.conventions(*CORPORA[corpus])


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
@pytest.mark.parametrize("preset", PRESETS)
def test_the_whole_corpus_faces_give_the_presets_number(preset):
    for corpus, (predictions, references) in enumerate(CORPORA):
        assert min(map(len, references)) == 1 and max(map(len, references)) == 4
        expected = convention(preset, predictions, references)
        assert same(exactbleu.corpus_bleu(predictions, references, preset)["bleu"], expected)
        counted = exactbleu.statistics(predictions, references, preset)
        assert same(exactbleu.score(counted, preset)["bleu"], expected)
        # Stored as columns and read back whole (a datasets.Dataset, or a shuffled one), it is the same corpus.
        stored = counted.as_dict()
        assert same(exactbleu.score(exactbleu.Statistics.from_dict(stored), preset)["bleu"], expected)
        shuffled = {name: column[::-1] for name, column in stored.items()}
        assert same(exactbleu.score(exactbleu.Statistics.from_dict(shuffled), preset)["bleu"], expected)
        # A harness that reports its score times 100 (VLMEvalKit's) is named on that scale.
        scale = exactbleu.PRESETS[preset].scale if not exactbleu.PRESETS[preset].script else None
        found = [row for row in every_convention(corpus)
                 if row.preset == preset and not row.options and row.aggregate == "corpus" and row.scale == (scale or 1)]
        if preset != "hf":  # "hf" is "default"'s other name: the table names each convention once
            assert len(found) == 1 and same(found[0].score, expected * (scale or 1)), preset


@pytest.mark.parametrize("preset", PRESETS)
def test_the_faces_that_add_rows_counted_apart_give_the_presets_number_or_refuse(preset):
    whole_corpus = preset == "lm-eval"
    for predictions, references in CORPORA:
        expected = convention(preset, predictions, references)
        half = len(predictions) // 2
        shards = [exactbleu.statistics(predictions[part], references[part], preset)
                  for part in (slice(None, half), slice(half, None))]
        samples = [exactbleu.statistics([p], [r], preset).as_dict() for p, r in zip(predictions, references)]
        batched = {name: [*shards[0].as_dict()[name], *shards[1].as_dict()[name]] for name in samples[0]}
        paths = {
            "shards added": lambda: exactbleu.score(shards[0] + shards[1], preset)["bleu"],
            "vectors summed": lambda: exactbleu.score(shards[0].vector() + shards[1].vector(), preset)["bleu"],
            "samples joined": lambda: exactbleu.score(exactbleu.Statistics.from_dicts(samples), preset)["bleu"],
            "columns of batches": lambda: exactbleu.score(exactbleu.Statistics.from_dict(batched), preset)["bleu"],
            "score_samples": lambda: exactbleu.score_samples(samples, preset, standard_error=False).bleu,
            "a part of the corpus": lambda: exactbleu.score(counted[:half], preset)["bleu"],
        }
        counted = exactbleu.statistics(predictions, references, preset)
        for path, call in paths.items():
            if whole_corpus:
                assert refused(call), path
            elif path == "score_samples":  # on 0..100
                assert same(call() / 100, expected), path
            elif path == "a part of the corpus":
                assert same(call(), convention(preset, predictions[:half], references[:half])), path
            else:
                assert same(call(), expected), path


@pytest.mark.parametrize("preset", PRESETS)
def test_the_harness_face_gives_the_presets_number_or_refuses_when_the_task_loads(preset):
    if preset == "lm-eval":
        assert refused(lambda: TaskMetric(preset=preset))
        return
    metric = TaskMetric(preset=preset, n_bootstrap=5)
    for predictions, references in CORPORA:
        items = [metric.process_results({"references": group}, [p])["bleu"] for p, group in zip(predictions, references)]
        assert same(metric.bleu(items) / 100, convention(preset, predictions, references)), preset


@pytest.mark.parametrize("preset", PRESETS)
def test_the_per_sentence_faces_give_the_presets_sentence_score_or_refuse(preset):
    predictions, references = CORPORA[1]
    expected = [sentence_convention(preset, p, r) for p, r in zip(predictions, references)]
    calls = {
        "sentence_bleu": lambda: [exactbleu.sentence_bleu(p, r, preset)["bleu"] for p, r in zip(predictions, references)],
        "sentence_scores": lambda: exactbleu.sentence_scores(predictions, references, preset).tolist(),
        "sentence_level": lambda: exactbleu.corpus_bleu(predictions, references, preset,
                                                        sentence_level=True)["sentence_bleu"],
        "explain": lambda: [one["sentence_bleu"] for one in exactbleu.explain(predictions, references, preset)],
        "verl's compute_score": lambda: [rewards.compute_score("d", p, r, preset=preset)
                                         for p, r in zip(predictions, references)],
        "verl's compute_score_batch": lambda: rewards.compute_score_batch(["d"] * len(predictions), predictions,
                                                                          references, preset=preset),
        "TRL's bleu_reward": lambda: rewards.bleu_reward(predictions, references, preset=preset),
    }
    for face, call in calls.items():
        if expected[0] is None:
            assert refused(call), face
        else:
            got = call()
            assert len(got) == len(expected) and all(map(same, got, expected)), face


@pytest.mark.slow  # the evaluate metric's load
@pytest.mark.parametrize("preset", PRESETS)
def test_the_evaluate_metric_gives_the_presets_number_or_refuses(preset):
    metric = load_metric(preset)
    for predictions, references in CORPORA:
        expected = convention(preset, predictions, references)
        assert same(metric.compute(predictions=predictions, references=references)["bleu"], expected)
        half = len(predictions) // 2
        batches = [metric.statistics(predictions[part], references[part]) for part in (slice(None, half),
                                                                                         slice(half, None))]
        stored = {name: [*batches[0][name], *batches[1][name]] for name in batches[0]}  # datasets.map's columns
        if preset == "lm-eval":
            assert refused(lambda: metric.score_statistics(stored))
        else:
            assert same(metric.score_statistics(stored)["bleu"], expected)
        whole = metric.statistics(predictions, references)
        assert same(metric.score_statistics(whole)["bleu"], expected)


@pytest.mark.parametrize("preset", ONE_REFERENCE)
def test_a_preset_of_one_reference_refuses_more_on_every_face(preset):
    predictions, references = CORPORA[0]
    one = [group[:1] for group in references]
    calls = {
        "corpus_bleu": lambda refs: exactbleu.corpus_bleu(predictions, refs, preset),
        "statistics": lambda refs: exactbleu.statistics(predictions, refs, preset),
        "sentence_bleu": lambda refs: exactbleu.sentence_bleu(predictions[1], refs[1], preset),
        "sentence_scores": lambda refs: exactbleu.sentence_scores(predictions, refs, preset),
        "explain": lambda refs: exactbleu.explain(predictions, refs, preset),
        "TRL's bleu_reward": lambda refs: rewards.bleu_reward(predictions, refs, preset=preset),
        "the evaluate metric": lambda refs: load_metric(preset).compute(predictions=predictions, references=refs),
    }
    for face, call in calls.items():
        assert refused(lambda: call(references)), face
        assert outcome(lambda: call(one))[0] == "ok", face
