"""The "fairseq" preset against fairseq's own ``--scoring bleu``: its recordings
(tests/data/fairseq/, fairseq's ``Scorer`` over its C library libbleu, compiled and run as
published), count for count and float for float on 66 corpora of token ids, each segment alone too;
and against a plain restatement of its reading and counting on drawn ids, the hash collisions that
libbleu counts as matches included. Text, and ids fairseq cannot read, are refused by name."""

import gzip
import json
import math
import struct

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import ROOT, examples
from exactbleu.options import tools_for

RECORDED = json.loads(gzip.decompress((ROOT / "tests/data/fairseq/recorded.json.gz").read_bytes()))
CORPORA = {corpus["name"]: corpus for corpus in RECORDED["corpora"]}


def ids_of(corpus):
    return {"pad": corpus["pad"], "eos": corpus["eos"], "unk": corpus["unk"]}


def counts_of(stat, orders=4):
    return ([stat["predlen"], stat["reflen"]] + [stat[f"match{n}"] for n in range(1, orders + 1)]
            + [stat[f"count{n}"] for n in range(1, orders + 1)])


def as_counts(sums):
    return [int(sums.prediction_length), int(sums.reference_length), *map(int, sums.matches), *map(int, sums.totals)]


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_each_corpus_is_fairseqs_counts_and_numbers(name):
    corpus = CORPORA[name]
    predictions, references, options = corpus["predictions"], corpus["references"], ids_of(corpus)
    recorded = corpus["corpus"]
    counted = exactbleu.statistics(predictions, references, "fairseq", **options)
    assert as_counts(counted.sums()) == counts_of(recorded["stat"])
    scored = exactbleu.scored(counted, "fairseq", **options)
    assert scored.value == recorded["score"]["4"]
    assert scored.brevity_penalty == recorded["brevity"]
    assert scored.precisions == [precision * 100 for precision in recorded["precision"]]  # as its result_string
    assert exactbleu.corpus_bleu(predictions, references, "fairseq", **options)["bleu"] == recorded["score"]["4"] / 100
    for order in (1, 2, 3):  # Scorer.score(order): the first orders' precisions
        fewer = exactbleu.statistics(predictions, references, "fairseq", max_order=order, **options)
        assert exactbleu.scored(fewer, "fairseq", max_order=order, **options).value == recorded["score"][str(order)]


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_each_segment_alone_is_fairseqs_score_of_it(name):
    corpus = CORPORA[name]
    predictions, references, options = corpus["predictions"], corpus["references"], ids_of(corpus)
    counted = exactbleu.statistics(predictions, references, "fairseq", **options)
    rows = exactbleu.scored_rows(counted, "fairseq", **options)
    assert rows.value.tolist() == [one["score"] for one in corpus["sentences"]]
    assert [as_counts(row) for row in counted.segments()] == [counts_of(one["stat"]) for one in corpus["sentences"]]
    expected = [one["score"] / 100 for one in corpus["sentences"]]
    assert exactbleu.sentence_scores(predictions, references, "fairseq", **options).tolist() == expected
    assert exactbleu.sentence_bleu(predictions[0], references[0], "fairseq", **options)["bleu"] == expected[0]


def test_a_padded_tensor_is_read_as_fairseq_reads_its_batch():
    """fairseq pads a batch with its pad id: the tensor's padding is trimmed as fairseq trims it,
    wherever the tensor lies, and the scores come back on its device."""
    corpus = CORPORA["drawn-26-v100-n50"]  # fifty segments, fairseq's own ids
    predictions, references = corpus["predictions"], corpus["references"]
    width = max(map(len, predictions)) + 2
    padded = torch.full((len(predictions), width), corpus["pad"], dtype=torch.int32)
    for row, segment in enumerate(predictions):
        padded[row, : len(segment)] = torch.tensor(segment)
    options = ids_of(corpus)
    expected = corpus["corpus"]["score"]["4"] / 100
    assert exactbleu.corpus_bleu(padded, references, "fairseq", **options)["bleu"] == expected
    scores = exactbleu.sentence_scores(padded, [torch.tensor(one) for one in references], "fairseq", **options)
    assert isinstance(scores, torch.Tensor)
    assert scores.tolist() == [one["score"] / 100 for one in corpus["sentences"]]


# A plain restatement of fairseq's reading (Scorer.add, libbleu's bleu_trim) and counting (bleu_addngram).

def plain_trim(segment, pad, eos):
    start = 0
    while start < len(segment) and segment[start] == pad:
        start += 1
    segment = segment[start:]
    end = len(segment) - 1
    while end > 0 and segment[end] in (eos, pad):
        end -= 1
    return segment[: end + 1]


def plain_hash(ngram):
    """FNV-1a over the ids' bytes (C ints, little endian), each byte a signed char, as on x86-64."""
    value = 14695981039346656037
    for byte in struct.pack(f"<{len(ngram)}i", *ngram):
        value ^= (byte - 256 if byte >= 128 else byte) & (2**64 - 1)
        value = (value * 0x100000001B3) % 2**64
    return value


def plain_row(prediction, reference, pad, eos, unk):
    reference = plain_trim([-999 if token == unk else token for token in reference], pad, eos)
    prediction = plain_trim(list(prediction), pad, eos)
    matches, totals = [], []
    for n in range(1, 5):
        mine = [plain_hash(prediction[i : i + n]) for i in range(len(prediction) - n + 1)]
        theirs = [plain_hash(reference[i : i + n]) for i in range(len(reference) - n + 1)]
        totals.append(len(mine))
        matches.append(sum(min(mine.count(h), theirs.count(h)) for h in set(mine)))
    return [len(prediction), len(reference), *matches, *totals]


def plain_score(rows):
    sums = [sum(column) for column in zip(*rows)]
    precisions = [m / t if t > 0 else 0 for m, t in zip(sums[2:6], sums[6:10])]
    log_sum = sum(math.log(p) if p > 0 else float("-inf") for p in precisions)
    return min(1, math.exp(1 - sums[1] / sums[0])) * math.exp(log_sum / 4) * 100


# Ids of the families libbleu's hash confuses (0 and 65278, 32510 and 32768, 254), and plain ones.
ID = st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 254, 65278, 32510, 32768, 200, 16844001])
SEGMENT = st.lists(ID, min_size=1, max_size=9)


@settings(max_examples=examples(300), deadline=None)
@given(corpus=st.lists(st.tuples(SEGMENT, SEGMENT), min_size=1, max_size=6),
       rules=st.sampled_from([(1, 2, 3), (0, 2, 1), (5, 7, 9), (254, 0, 65278)]))
def test_drawn_ids_are_the_plain_restatements_rows_and_score(corpus, rules):
    pad, eos, unk = rules
    predictions = [prediction for prediction, _ in corpus]
    references = [reference for _, reference in corpus]
    if any(all(token == pad for token in segment) for segment in predictions + references):
        with pytest.raises(ValueError, match="holds the padding id .* alone: fairseq's scorer reads past its end"):
            exactbleu.statistics(predictions, references, "fairseq", pad=pad, eos=eos, unk=unk)
        return
    rows = [plain_row(p, r, pad, eos, unk) for p, r in corpus]
    counted = exactbleu.statistics(predictions, references, "fairseq", pad=pad, eos=eos, unk=unk)
    assert counted.array.tolist() == rows
    assert exactbleu.scored(counted, "fairseq", pad=pad, eos=eos, unk=unk).value == plain_score(rows)


def test_libbleus_hash_collisions_count_as_matches():
    """Ids 0 and 65278 share a hash on x86-64 (a byte of 0xFE read as a signed char), as the
    recording of fairseq's scorer shows: 100 where the n-grams differ."""
    assert plain_hash([0]) == plain_hash([65278])
    assert exactbleu.corpus_bleu([[4, 65278, 5, 6]], [[4, 0, 5, 6]], "fairseq")["bleu"] == 1.0
    recorded = CORPORA["hash-collision-unigram"]
    assert exactbleu.corpus_bleu(recorded["predictions"], recorded["references"], "fairseq", **ids_of(recorded))[
        "bleu"] == recorded["corpus"]["score"]["4"] / 100


@pytest.mark.parametrize("call, message", [
    (lambda: exactbleu.corpus_bleu(["a b"], [["a b"]], "fairseq"), r"pad=1, eos=2, unk=3 .* read token ids"),
    (lambda: exactbleu.sentence_bleu("a b", ["a b"], "fairseq"), r"read token ids, .* but the predictions are text"),
    (lambda: exactbleu.corpus_bleu(["a b"], [["a b"]], pad=0), r"pad=0 .* read token ids"),
    (lambda: exactbleu.explain(["a b"], [["a b"]], "fairseq"), r"read token ids"),
    (lambda: exactbleu.count_tokens(["a b"], unk=3), r"unk=3 .* read token ids"),
    (lambda: exactbleu.corpus_bleu([[4, 5], []], [[4], [5]], "fairseq"),
     r"predictions\[1\] is empty: fairseq's scorer reads past the end"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[1, 1]], "fairseq"), r"references\[0\] holds the padding id 1 alone"),
    (lambda: exactbleu.corpus_bleu([[4, 2**31]], [[4]], "fairseq"),
     r"predictions\[0\] holds the token id 2147483648: .* C ints"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[[4], [5]]], "fairseq", keep_references="all"),
     r"fairseq's scorer takes one reference a prediction, but prediction 0 has 2"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[[4], [5]]], "fairseq"), r"keep_references='one' takes one reference"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[4]], "fairseq", max_order=5),
     r"max_order must be at most 4 under smooth_method='fairseq'"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[4]], "fairseq", weights=[0.5, 0.5]), r"weights do not apply"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[4]], "fairseq", pad=-1), r"pad must be an int >= 0"),
    (lambda: exactbleu.corpus_bleu([[4, 5]], [[4]], "fairseq", eos=2**31), r"eos must be an int >= 0 of at most"),
    (lambda: exactbleu.bleu_matrix([[4, 5]], [[4]], "fairseq"), r"bleu_matrix compares texts with each other"),
    (lambda: exactbleu.self_bleu([[4, 5], [4]], pad=1), r"self_bleu compares texts .* \(pad=1;"),
    (lambda: exactbleu.mbr([[[4, 5], [4]]], preset="fairseq"), r"mbr compares texts with each other"),
])
def test_what_fairseq_cannot_read_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_statistics_carry_fairseqs_ids():
    counted = exactbleu.statistics([[4, 5, 2]], [[4, 5, 2]], "fairseq")
    with pytest.raises(ValueError, match=r"counted with tokenizer='none\+pad=1\+eos=2\+unk=3', and are scored with "
                                         r"tokenizer='none\+pad=0\+eos=2\+unk=3'"):
        exactbleu.score(counted, "fairseq", pad=0)
    other = exactbleu.statistics([[4, 5, 2]], [[4, 5, 2]], "fairseq", eos=7)
    with pytest.raises(ValueError, match="do not add up"):
        counted + other  # noqa: B018
    assert "|pad:1|eos:2|unk:3|" in exactbleu.corpus_bleu([[4, 5]], [[4, 5]], "fairseq", signature=True)["signature"]


def test_identify_names_fairseq_first_for_its_logged_number():
    """fairseq-generate prints "BLEU4 = 23.18, ..." on the dictionary's ids: "Which BLEU?" on
    those ids names fairseq's scorer first."""
    corpus = max(CORPORA.values(), key=lambda one: (ids_of(one) == {"pad": 1, "eos": 2, "unk": 3},
                                                    one["corpus"]["score"]["4"] > 0, len(one["predictions"])))
    logged = corpus["corpus"]["result_string"].split()[2].rstrip(",")  # "BLEU4 = 23.18, ..." as printed
    found = exactbleu.identify(corpus["predictions"], corpus["references"], logged)
    assert found.matches and found.matches[0].preset == "fairseq"
    assert "fairseq" not in [tool.name for tool, _ in tools_for(None, 1, ids=False)]  # text: never tried


@pytest.mark.slow  # every tokenizer's conventions on text
def test_conventions_on_text_leave_fairseq_out():
    assert not [row for row in exactbleu.conventions(["a b"], [["a b"]]) if row.preset == "fairseq"]


def test_conventions_leave_fairseq_out_where_it_has_no_number():
    rows = exactbleu.conventions([[4, 5], []], [[4, 5], [6]])
    assert rows and not [row for row in rows if row.preset == "fairseq"]
    assert np.isfinite([row.score for row in rows]).all()
