"""The harnesses' own numbers, by name: the "lm-eval" preset is lm-evaluation-harness 0.4.13's `bleu`
aggregation, called directly; the "lighteval" preset is LightEval 0.13.0's corpus `bleu`, restated
here (LightEval cannot share this environment: tests/harnesses/test_lighteval.py calls its own in
LightEval's environment, on 200 corpora). Both on random corpora whose
predictions have one to four references each, and the rule that keeps the references
(``keep_references``) through every function that takes it, or a clear error."""

import math

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import examples
from oracles import corpora, outcome, random_corpus, streams

lm_eval_metrics = pytest.importorskip("lm_eval.api.metrics")

LANGUAGES = ["", "de", "zh", "ja", "ko"]


def lighteval_bleu(predictions, references, language=""):
    """LightEval 0.13.0's CorpusLevelTranslationMetric("bleu", lang).compute_corpus, restated: sacrebleu's
    BLEU(trg_lang=lang) on each sample's first reference (metrics/metrics_corpus.py), on 0..100."""
    return sacrebleu.BLEU(trg_lang=language).corpus_score(predictions, [[group[0] for group in references]]).score


@settings(max_examples=examples(300))
@given(corpus=corpora(max_segments=10, max_references=4))
def test_the_lm_eval_preset_is_lm_evals_own_bleu(corpus):
    predictions, references = corpus
    theirs = lm_eval_metrics.bleu(list(zip(references, predictions)))
    ours = exactbleu.corpus_bleu(predictions, references, "lm-eval")
    # On 0..1 as every preset gives it (sacrebleu's 0-100 score, divided); on sacrebleu's own scale,
    # the same float, of the references lm-eval keeps.
    assert math.isclose(ours["bleu"], theirs / 100, rel_tol=1e-15, abs_tol=0)
    kept = [group[: min(map(len, references))] for group in references]
    assert exactbleu.scored(exactbleu.statistics(predictions, kept, "sacrebleu"), "sacrebleu").value == theirs
    assert ours == exactbleu.corpus_bleu(predictions, kept, "sacrebleu")


@settings(max_examples=examples(300))
@given(corpus=corpora(max_segments=10, max_references=4), language=st.sampled_from(LANGUAGES))
def test_the_lighteval_preset_is_lightevals_own_bleu(corpus, language):
    predictions, references = corpus
    tokenizer = exactbleu.tokenizer_for_language(language)
    ours = exactbleu.corpus_bleu(predictions, references, "lighteval", tokenizer=tokenizer)
    theirs = lighteval_bleu(predictions, references, language)
    assert math.isclose(ours["bleu"], theirs / 100, rel_tol=1e-15, abs_tol=0)
    counted = exactbleu.statistics(predictions, references, "lighteval", tokenizer=tokenizer)
    assert exactbleu.scored(counted, "lighteval", tokenizer=tokenizer).value == theirs


def test_on_uneven_references_the_three_rules_give_three_numbers():
    predictions, references = random_corpus(200, seed=58, references=4)
    references = [group[: 1 + number % 4] for number, group in enumerate(references)]
    every = sacrebleu.corpus_bleu(predictions, streams(references)).score / 100
    first = lighteval_bleu(predictions, references) / 100
    fewest = lm_eval_metrics.bleu(list(zip(references, predictions))) / 100
    for rule, expected in (("all", every), ("first", first), ("fewest", fewest)):
        got = exactbleu.corpus_bleu(predictions, references, "sacrebleu", keep_references=rule)["bleu"]
        assert math.isclose(got, expected, rel_tol=1e-15, abs_tol=0), rule
    assert every > first == fewest  # one reference is the fewest here


def test_the_signature_names_the_rule_where_it_is_not_all():
    predictions, references = ["a b c d", "a b"], [["a b c d", "a b x"], ["a b"]]
    signature = exactbleu.corpus_bleu(predictions, references, "lm-eval", signature=True)["signature"]
    assert "|keep:fewest|" in signature and signature.startswith("nrefs:1|")
    assert "|keep:first|" in exactbleu.corpus_bleu(predictions, references, "lighteval", signature=True)["signature"]
    assert "keep" not in exactbleu.corpus_bleu(predictions, references, "sacrebleu", signature=True)["signature"]


@pytest.mark.parametrize("call", [
    lambda p, r: exactbleu.statistics(p[:1], r[:1], "lm-eval") + exactbleu.statistics(p[1:], r[1:], "lm-eval"),
    lambda p, r: exactbleu.statistics(p, r, "lm-eval")[:1],
    lambda p, r: exactbleu.statistics(p, r, "lm-eval").vector(),
    lambda p, r: exactbleu.sentence_bleu(p[0], r[0], "lm-eval"),
    lambda p, r: exactbleu.sentence_scores(p, r, "lm-eval"),
    lambda p, r: exactbleu.corpus_bleu(p, r, "lm-eval", sentence_level=True),
    lambda p, r: exactbleu.corpus_bleu(p, r, "lm-eval", n_bootstrap=10),
    lambda p, r: exactbleu.explain(p, r, "lm-eval")[0],
    lambda p, r: exactbleu.paired_test({"a": p, "b": p}, r, preset="lm-eval"),
    lambda p, r: exactbleu.score(exactbleu.statistics(p, r, "sacrebleu"), "lm-eval"),
    lambda p, r: exactbleu.bleu_matrix(p, [g[0] for g in r], "lm-eval"),
    lambda p, r: exactbleu.self_bleu(p, "lighteval"),
    lambda p, r: exactbleu.self_bleu_statistics(p, keep_references="first"),
    lambda p, r: exactbleu.corpus_bleu(p, r, keep_references="most"),
], ids=["statistics added up", "statistics cut", "statistics as a vector", "sentence_bleu", "sentence_scores", "sentence_level", "n_bootstrap", "explain", "paired_test",
        "score", "bleu_matrix", "self_bleu", "self_bleu_statistics", "unknown rule"])
def test_what_cannot_keep_references_says_so(call):
    predictions, references = ["a b c d", "a b"], [["a b c d", "a b x"], ["a b"]]
    with pytest.raises(ValueError, match="keep_references"):
        call(predictions, references)


def test_the_statistics_of_one_whole_corpus_score_as_the_corpus():
    """As the command line counts and scores them: one call's statistics are of the whole corpus."""
    predictions, references = random_corpus(30, seed=59, references=3)
    references = [group[: 1 + number % 3] for number, group in enumerate(references)]
    counted = exactbleu.statistics(predictions, references, "lm-eval")
    assert exactbleu.score(counted, "lm-eval", signature=True) == \
        exactbleu.corpus_bleu(predictions, references, "lm-eval", signature=True)
    assert sum([counted]) is counted


def test_statistics_kept_by_one_rule_do_not_score_under_another():
    predictions, references = ["a b c d e f"], [["a b c d x f", "a b c d e f"]]
    counted = exactbleu.statistics(predictions, references, "sacrebleu", keep_references="first")
    with pytest.raises(ValueError, match="keep_references"):
        exactbleu.score(counted, "sacrebleu")
    assert exactbleu.score(counted, "lighteval") == exactbleu.corpus_bleu(predictions, references, "lighteval")
    assert exactbleu.score(counted, "lighteval")["bleu"] < 1 == exactbleu.corpus_bleu(predictions, references,
                                                                                       "sacrebleu")["bleu"]


def test_token_ids_keep_references_as_their_words_do():
    predictions, references = [[1, 2, 3], [4, 5]], [[[1, 2, 3], [1, 2, 4], [9]], [[4, 5], [4]]]
    as_words = [" ".join(map(str, p)) for p in predictions], [[" ".join(map(str, r)) for r in g] for g in references]
    for rule in ("all", "first", "fewest"):
        assert exactbleu.corpus_bleu(predictions, references, "sacrebleu", keep_references=rule) == \
            exactbleu.corpus_bleu(*as_words, "sacrebleu", keep_references=rule, tokenizer="none")
    import torch

    with pytest.raises(ValueError, match="keep_references='first' applies to text and to token ids"):
        exactbleu.corpus_bleu(torch.tensor([[1, 2, 3]]), torch.tensor([[[1, 2, 3], [1, 2, 4]]]), "lighteval",
                              ignore_ids=[])
