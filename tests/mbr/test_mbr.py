"""exactbleu.mbr: each utility is the plain mean (or weighted mean) of a loop of sentence_bleu, added
in order, bit for bit, under every preset and option, for ragged text and token ids, in blocks of any
size and in threads; best and n_best rank them, ties to the first; the aggregated utility is DeNero's
expected-count BLEU, restated here; the device's kernels give the host's numbers; bad input gets a
message that names it."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from exactbleu.counting import by_source
from oracles import OPTIONS, PER_CORPUS, mbr_samples, outcome, sacrebleu_13a, segments

GROUPS = st.lists(st.lists(segments(max_words=8), min_size=1, max_size=4), min_size=1, max_size=4)


def in_order(values):
    """A sum added left to right, as the utilities define it."""
    total = 0.0
    for value in values:
        total += value
    return total


def plain_utilities(candidates, pseudo_references, preset, reference_weights=None, reference_lprobs=None, **options):
    """The definition: a loop of sentence_bleu per pair, then the mean (or the weighted mean)."""
    weights, lprobs = reference_weights, reference_lprobs
    utilities = []
    for source, (group, theirs) in enumerate(zip(candidates, pseudo_references)):
        if lprobs is not None:
            top = max(lprobs[source])
            weights_here = [math.exp(value - top) for value in lprobs[source]]
        else:
            weights_here = None if weights is None else weights[source]
        if weights_here is not None:
            total = in_order(weights_here)
            probabilities = [weight / total for weight in weights_here]
        row = []
        for candidate in group:
            scores = [exactbleu.sentence_bleu(candidate, [reference], preset, **options)["bleu"] for reference in theirs]
            if weights_here is None:
                row.append(in_order(scores) / len(scores))
            else:
                row.append(in_order([p * s for p, s in zip(probabilities, scores)]))
        utilities.append(row)
    return utilities


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
@given(candidates=GROUPS, theirs=GROUPS, preset=st.sampled_from(sorted(exactbleu.PRESETS)), drawn=OPTIONS,
       weighting=st.sampled_from([None, "weights", "lprobs"]), blocks=st.sampled_from([1, 7, 10**6]),
       own_references=st.booleans(), seed=st.integers(0, 2**16))
def test_every_utility_is_the_mean_of_a_loop_of_sentence_bleu(candidates, theirs, preset, drawn, weighting, blocks,
                                                               own_references, seed):
    """Blocks of one pair (a source each), a few sources, and all; the candidates as their own
    pseudo-references, or others; plain, weighted and log-probability weighted means."""
    options = {name: value for name, value in drawn.items() if name in PER_CORPUS}
    pseudo_references = candidates if own_references else (theirs * len(candidates))[: len(candidates)]
    rng = np.random.default_rng(seed)
    numbers = [rng.random(len(group)).tolist() for group in pseudo_references]
    weights = numbers if weighting == "weights" else None
    lprobs = [[20 * value - 10 for value in group] for group in numbers] if weighting == "lprobs" else None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(by_source, "BLOCK_PAIRS", blocks)
        got = outcome(lambda: exactbleu.mbr(candidates, None if own_references else pseudo_references, preset,
                                            reference_weights=weights, reference_lprobs=lprobs, threads=2,
                                            n_best=2, **options))
    expected = outcome(lambda: plain_utilities(candidates, pseudo_references, preset, weights, lprobs, **options))
    weight_sets = isinstance(options.get("weights"), (list, tuple)) and isinstance(options["weights"][0],
                                                                                    (list, tuple))
    if weight_sets:  # a utility needs one score per pair
        assert got[0] == "error"
        return
    assert got[0] == expected[0]
    if got[0] == "ok":
        result = got[1]
        assert [utilities.tolist() for utilities in result.utilities] == expected[1]
        for utilities, best, top in zip(expected[1], result.best.tolist(), result.n_best):
            ranked = sorted(range(len(utilities)), key=lambda index: (-utilities[index], index))
            assert best == ranked[0] and top.tolist() == ranked[:2]


def test_token_ids_give_the_utilities_of_the_same_ids_as_words():
    rng = np.random.default_rng(3)
    candidates = [[rng.integers(0, 9, rng.integers(0, 9)).tolist() for _ in range(rng.integers(1, 6))]
                  for _ in range(7)]
    references = [[rng.integers(0, 9, rng.integers(1, 9)).tolist() for _ in range(rng.integers(1, 5))]
                  for _ in range(7)]
    words = lambda groups: [[" ".join(map(str, ids)) for ids in group] for group in groups]  # noqa: E731
    for pseudo in (None, references):
        got = exactbleu.mbr(candidates, pseudo, "sacrebleu")
        expected = exactbleu.mbr(words(candidates), None if pseudo is None else words(pseudo), "sacrebleu",
                                 tokenizer="none")
        assert [u.tolist() for u in got.utilities] == [u.tolist() for u in expected.utilities]
        plain = plain_utilities(words(candidates), words(pseudo or candidates), "sacrebleu", tokenizer="none")
        assert [u.tolist() for u in got.utilities] == plain


def test_wmt17_samples_in_blocks_and_threads_give_the_loops_utilities(monkeypatch):
    candidates = mbr_samples(12, seed=5)
    expected = plain_utilities(candidates, candidates, "sacrebleu")
    counted = []
    real = by_source.pair_rows
    monkeypatch.setattr(by_source, "pair_rows", lambda block, counted_with: counted.append(
        len(block.candidates)) or real(block, counted_with))
    for blocks, threads in ((10**6, 1), (300, 2), (1, 3)):
        monkeypatch.setattr(by_source, "BLOCK_PAIRS", blocks)
        counted.clear()
        got = exactbleu.mbr(candidates, threads=threads)
        assert [u.tolist() for u in got.utilities] == expected
        # one block of every source; a few sources a block; a source a block
        assert sum(counted) == 12 and len(counted) == {10**6: 1, 1: 12}.get(blocks, len(counted))
        assert blocks != 300 or 1 < len(counted) < 12


def aggregated_bleu(candidate, pseudo_references, probabilities, max_order=4):
    """DeNero et al.'s aggregated BLEU in sacrebleu's sentence arithmetic (exp smoothing, effective
    order), restated: each reference n-gram's expected count, the expected length, and the
    candidate's counts clipped by them."""
    expected, length = Counter(), 0.0
    for reference, probability in zip(pseudo_references, probabilities):
        tokens = sacrebleu_13a(reference.rstrip())
        length += probability * len(tokens)
        for n in range(1, max_order + 1):
            for ngram, count in Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)).items():
                expected[ngram] += probability * count
    tokens = sacrebleu_13a(candidate.rstrip())
    correct, total = [0.0] * max_order, [0] * max_order
    for n in range(1, max_order + 1):
        for ngram, count in Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)).items():
            total[n - 1] += count
            correct[n - 1] += min(count, expected[ngram])
    if not any(correct):
        return 0.0
    brevity = math.exp(1 - length / len(tokens)) if len(tokens) < length else 1.0
    logs, halvings = [], 1
    for n in range(max_order):
        if total[n] == 0:
            break
        if correct[n] == 0:
            halvings *= 2
            logs.append(math.log(1 / (halvings * total[n])))
        else:
            logs.append(math.log(correct[n] / total[n]))
    return brevity * math.exp(sum(logs) / len(logs))


def test_the_aggregated_utility_is_bleu_against_expected_counts():
    candidates = mbr_samples(10, seed=8)
    rng = np.random.default_rng(8)
    weights = [rng.random(len(group)).tolist() for group in candidates]
    for given_weights in (None, weights):
        got = exactbleu.mbr(candidates, reference_aggregation=True, reference_weights=given_weights)
        for source, group in enumerate(candidates):
            raw = given_weights[source] if given_weights else [1.0] * len(group)
            probabilities = [weight / sum(raw) for weight in raw]
            expected = [aggregated_bleu(candidate, group, probabilities) for candidate in group]
            assert got.utilities[source].tolist() == pytest.approx(expected, rel=1e-9, abs=1e-300)
    pairwise = exactbleu.mbr(candidates)
    assert any(a.tolist() != b.tolist() for a, b in zip(got.utilities, pairwise.utilities))


def test_on_the_arithmetics_own_scale_a_utility_is_the_mean_of_sacrebleus_scores():
    """``own_scale``: pairwise, the mean of sacrebleu's own ``sentence_score(...).score`` (0..100),
    added in order, float for float; aggregated, DeNero's BLEU of the restatement on 0..100."""
    from sacrebleu.metrics import BLEU

    candidates = mbr_samples(6, seed=9)
    scorer = BLEU(effective_order=True)
    got = exactbleu.mbr(candidates, own_scale=True).utilities
    for group, utilities in zip(candidates, got):
        expected = [in_order([scorer.sentence_score(c, [r]).score for r in group]) / len(group) for c in group]
        assert utilities.tolist() == expected
    aggregated = exactbleu.mbr(candidates, reference_aggregation=True, own_scale=True).utilities
    for group, utilities in zip(candidates, aggregated):
        expected = [100 * aggregated_bleu(c, group, [1 / len(group)] * len(group)) for c in group]
        assert utilities.tolist() == pytest.approx(expected, rel=1e-9, abs=1e-300)
    with pytest.raises(TypeError, match="own_scale must be True or False"):
        exactbleu.mbr(candidates, own_scale=1)


def test_the_device_kernels_give_the_hosts_numbers():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    ids = torch.tensor(rng.integers(1, 8, (5, 6, 9)))
    ids[ids == 7] = 0  # padding anywhere: dropped by ignore_ids
    references = torch.tensor(rng.integers(1, 7, (5, 3, 7)))
    host = lambda tensor: [[[v for v in row if v != 0] for row in group] for group in tensor.tolist()]  # noqa: E731
    for kernels in ("numpy", "torch"):
        with exactbleu.cpu_tensor_kernels(kernels):
            for theirs in (None, references):
                got = exactbleu.mbr(ids, theirs, ignore_ids=[0], n_best=3)
                expected = exactbleu.mbr(host(ids), None if theirs is None else host(theirs), n_best=3)
                assert isinstance(got.utilities, torch.Tensor) and got.utilities.dtype == torch.float64
                assert got.utilities.tolist() == [u.tolist() for u in expected.utilities]
                assert got.best.tolist() == expected.best.tolist()
                assert got.n_best.tolist() == [top.tolist() for top in expected.n_best]
            aggregated = exactbleu.mbr(ids, references, ignore_ids=[0], reference_aggregation=True)
            assert aggregated.utilities.tolist() == [u.tolist() for u in exactbleu.mbr(
                host(ids), host(references), reference_aggregation=True).utilities]


@pytest.mark.parametrize("call, words", [
    (lambda: exactbleu.mbr([]), ["candidates is empty"]),
    (lambda: exactbleu.mbr(["a b"]), ["candidates[0] must be a list", "str"]),
    (lambda: exactbleu.mbr([["a"], []]), ["candidates[1] is empty"]),
    (lambda: exactbleu.mbr([["a"], ["b", 3]]), ["candidates[1][1]"]),
    (lambda: exactbleu.mbr([["a"]], [["b"], ["c"]]), ["one group per source", "1 and 2"]),
    (lambda: exactbleu.mbr([["a"]], [[[1, 2]]]), ["one kind", "text and ids"]),
    (lambda: exactbleu.mbr([["a", "b"]], reference_weights=[[1.0]]), ["reference_weights[0]", "(2)"]),
    (lambda: exactbleu.mbr([["a", "b"]], reference_weights=[[1.0, -1.0]]), ["non-negative", "-1.0"]),
    (lambda: exactbleu.mbr([["a", "b"]], reference_weights=[[0.0, 0.0]]), ["reference_weights[0] is all 0"]),
    (lambda: exactbleu.mbr([["a", "b"]], reference_lprobs=[[float("nan"), 0.0]]), ["log-probabilities", "nan"]),
    (lambda: exactbleu.mbr([["a"]], reference_lprobs=[[float("-inf")]]), ["all -inf"]),
    (lambda: exactbleu.mbr([["a"]], reference_weights=[[1.0]], reference_lprobs=[[0.0]]), ["not both"]),
    (lambda: exactbleu.mbr([["a"]], n_best=0), ["n_best must be a positive int", "0"]),
    (lambda: exactbleu.mbr([["a"]], reference_aggregation="yes"), ["reference_aggregation", "'yes'"]),
    (lambda: exactbleu.mbr([["a"]], preset="nltk", reference_aggregation=True), ["HF's or sacrebleu's", "method0"]),
    (lambda: exactbleu.mbr([["a"]], "nltk"), ["pseudo_references", "preset='nltk'"]),
    (lambda: exactbleu.mbr([["a"]], weights=[[1, 0], [0.5, 0.5]]), ["one set of n-gram weights"]),
    (lambda: exactbleu.mbr([["a"]], sentence_level=True), ["mbr does not take", "sentence_level"]),
    (lambda: exactbleu.mbr([["a"]], preset="lm-eval"), ["keep_references='fewest'"]),
])
def test_bad_input_gets_a_message_that_names_it(call, words):
    with pytest.raises((TypeError, ValueError)) as raised:
        call()
    for word in words:
        assert word in str(raised.value)
