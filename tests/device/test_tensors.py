"""Token-id tensors wherever token ids go: counted on the tensor's device (torch's CPU build here,
which takes the same code path as a GPU), scored by the one arithmetic, and every result bit for
bit that of the same ids as numpy arrays, under every preset and option; a tensor in gives a
float64 tensor out, on its device; a bad tensor gets a message."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import exactbleu
from conftest import examples
from oracles import OPTIONS, PER_CORPUS, outcome

PAD, END = 0, 9


@pytest.fixture(autouse=True)
def counted_as_on_a_device():
    """Every test here runs the device's code on the CPU: tensors in the CPU's memory otherwise go
    to the numpy engine (tests/dispatch/test_dispatch.py checks that route)."""
    with exactbleu.cpu_tensor_kernels("torch"):
        yield


def padded(rows, width=None, pad=PAD, dtype=np.int64):
    """Rows of ids as a padded 2-D array."""
    width = width or max(1, max(map(len, rows)))
    array = np.full((len(rows), width), pad, dtype=dtype)
    for index, row in enumerate(rows):
        array[index, : len(row)] = row
    return array


IDS = st.lists(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12]), max_size=10)


@st.composite
def id_corpora(draw, most_references=3):
    """Predictions and a list of references each, as lists of ids (0 pads, 9 ends: neither is drawn)."""
    size = draw(st.integers(1, 7))
    predictions = draw(st.lists(IDS, min_size=size, max_size=size))
    references = [draw(st.lists(IDS, min_size=1, max_size=most_references)) for _ in range(size)]
    return predictions, references


def as_tensors(predictions, references, form):
    """The corpus as tensors in one of the forms they are taken in, and the same ids as arrays or
    lists, as the numpy path takes them (a padded 3-D array holds a row of padding where a
    prediction has fewer references than the most: an empty reference, for arrays as for tensors)."""
    if form == "padded":
        most = max(map(len, references))
        width = max(1, max(len(row) for group in references for row in group))
        stacked = np.full((len(references), most, width), PAD)
        for index, group in enumerate(references):
            stacked[index, : len(group)] = padded(group, width)
        arrays = padded(predictions), stacked
        return (torch.tensor(arrays[0]), torch.tensor(arrays[1])), arrays
    if form == "lists":
        return ([torch.tensor(row, dtype=torch.int64) for row in predictions],
                [[torch.tensor(row, dtype=torch.int64) for row in group] for group in references]), (
            predictions, references)
    # int32 padded predictions with end ids, references as 2-D tensors per prediction
    ended = padded([[*row, END] for row in predictions], dtype=np.int32)
    return (torch.tensor(ended), [torch.tensor(padded(group), dtype=torch.int32) for group in references]), (
        ended, [padded(group) for group in references])


@settings(max_examples=examples(60), deadline=None)
@given(corpus=id_corpora(), preset=st.sampled_from(list(exactbleu.PRESETS)), drawn=OPTIONS,
       form=st.sampled_from(["padded", "lists", "int32"]))
def test_tensors_give_the_numbers_of_the_same_ids_as_arrays(corpus, preset, drawn, form):
    predictions, references = corpus
    options = {name: value for name, value in drawn.items() if name in PER_CORPUS and name not in (
        "tokenizer", "lang", "spm_model", "lowercase", "rstrip")}
    ignore = [PAD, END]
    (tensor_predictions, tensor_references), (arrays, array_references) = as_tensors(predictions, references, form)
    expected = outcome(lambda: exactbleu.sentence_scores(arrays, array_references, preset, ignore_ids=ignore,
                                                         **options))
    got = outcome(lambda: exactbleu.sentence_scores(tensor_predictions, tensor_references, preset,
                                                    ignore_ids=ignore, **options))
    # A tensor's references come cut already: none are kept of them; "one" takes them where each has one.
    if options.get("keep_references", exactbleu.PRESETS[preset].options.get("keep_references", "all")) not in (
            "all", "one"):
        assert got[0] == "error"
        return
    assert got[0] == expected[0]
    if got[0] == "ok":
        assert isinstance(got[1], torch.Tensor) and got[1].dtype == torch.float64 and got[1].device.type == "cpu"
        assert got[1].numpy().tolist() == expected[1].tolist()
        assert exactbleu.statistics(tensor_predictions, tensor_references, preset, ignore_ids=ignore, **options) == \
            exactbleu.statistics(arrays, array_references, preset, ignore_ids=ignore, **options)
        assert exactbleu.corpus_bleu(tensor_predictions, tensor_references, preset, ignore_ids=ignore, **options) == \
            exactbleu.corpus_bleu(arrays, array_references, preset, ignore_ids=ignore, **options)
    if form == "lists" and got[0] == "ok":  # and the ids as lists, with as many references as each has
        assert got[1].numpy().tolist() == exactbleu.sentence_scores(predictions, references, preset,
                                                                    **options).tolist()


# Self-BLEU scores texts against each other, which have no references to keep: the presets that keep
# some refuse it, tensors or not (tests/per_sentence/test_self_bleu.py).
ALL_REFERENCES = [name for name, preset in exactbleu.PRESETS.items() if preset.options.get("keep_references", "all") == "all"
                  and preset.options.get("ref_length") != "closest-first"]  # the presets Self-BLEU takes


@settings(max_examples=examples(30), deadline=None)
@given(corpus=id_corpora(most_references=1), preset=st.sampled_from(ALL_REFERENCES), order=st.integers(1, 5))
def test_self_bleu_and_matrices_of_tensors_are_those_of_arrays(corpus, preset, order):
    predictions, references = corpus
    texts = predictions + [group[0] for group in references]
    tensor = torch.tensor(padded(texts))
    expected = exactbleu.self_bleu(texts, preset, max_order=order)
    got = exactbleu.self_bleu(tensor, preset, max_order=order, ignore_ids=[PAD])
    assert got["scores"].dtype == torch.float64 and got["scores"].numpy().tolist() == expected["scores"].tolist()
    assert got["self_bleu"] == expected["self_bleu"]
    columns = [group[0] for group in references]
    matrix = exactbleu.bleu_matrix(torch.tensor(padded(predictions)), [torch.tensor(row) for row in columns], preset,
                                   max_order=order, ignore_ids=[PAD])
    assert matrix.dtype == torch.float64
    assert matrix.numpy().tolist() == exactbleu.bleu_matrix(predictions, columns, preset, max_order=order).tolist()


def test_empty_rows_ties_and_several_weight_sets_as_arrays():
    predictions = [[], [1, 2, 3], [4, 4, 4, 4], [5]]
    # Two references as close as each other (3 and 5 tokens for a prediction of 4): the shorter counts.
    references = [[[1], []], [[1, 2, 3], [3, 2, 1]], [[4, 4, 4], [4, 4, 4, 4, 4]], [[], [5]]]
    tensors, _ = as_tensors(predictions, references, "lists")
    for preset in ("default", "sacrebleu", "nltk"):
        for options in ({}, {"weights": [(0.5, 0.5), (1.0,)]}, {"ref_length": "closest"}):
            got = exactbleu.sentence_scores(*tensors, preset, ignore_ids=[PAD], **options)
            assert got.numpy().tolist() == exactbleu.sentence_scores(predictions, references, preset,
                                                                     **options).tolist()
    assert exactbleu.statistics(*tensors, ignore_ids=[PAD], ref_length="closest").reference_length.tolist() == \
        [0, 3, 3, 1]


def test_ids_near_and_past_2_to_the_31_are_exact():
    for base in (2**31 - 5, 2**40, 2**62):
        predictions = [[base, base + 1, base + 2, base + 3], [base + 3, base]]
        references = [[base, base + 1, base + 2, 7], [base + 3, base + 4]]
        tensor = exactbleu.sentence_scores([torch.tensor(row) for row in predictions],
                                           [torch.tensor(row) for row in references], "sacrebleu")
        assert tensor.numpy().tolist() == exactbleu.sentence_scores(predictions, references, "sacrebleu").tolist()
        words = [" ".join(map(str, row)) for row in predictions], [" ".join(map(str, row)) for row in references]
        assert tensor.numpy().tolist() == exactbleu.sentence_scores(*words, "sacrebleu", tokenizer="none").tolist()


def test_references_given_as_lists_go_to_the_predictions_device():
    predictions = torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]])
    references = [[[1, 2, 3], [2, 3]], [[4, 5, 6]]]
    expected = exactbleu.corpus_bleu([[1, 2, 3], [4, 5]], [[[1, 2, 3], [2, 3]], [[4, 5, 6]]])
    assert exactbleu.corpus_bleu(predictions, references, ignore_ids=[0]) == expected


@pytest.mark.slow
def test_a_batch_whose_dense_count_matrix_would_not_fit_in_memory():
    """16,384 rows of 64 ids from a vocabulary of 2**31: a dense batch x vocabulary count matrix
    would be 16,384 x 2**31 (about 35 TB of int8), and even a batch x distinct n-grams one (about
    16,384 x 900,000) about 118 GB in int64. Counted here in memory linear in the tokens, exactly."""
    rng = np.random.default_rng(7)
    rows, width = 16_384, 64
    predictions = rng.integers(1, 2**31 - 1, (rows, width))
    references = predictions.copy()
    changed = rng.random(references.shape) < 0.3
    references[changed] = rng.integers(1, 2**31 - 1, int(changed.sum()))
    tensor = exactbleu.sentence_scores(torch.tensor(predictions), torch.tensor(references), "sacrebleu", ignore_ids=[])
    assert tensor.numpy().tolist() == exactbleu.sentence_scores(predictions, references, "sacrebleu").tolist()


@pytest.mark.parametrize("predictions, references, options, error, words", [
    (torch.tensor([[1.0, 2.0]]), torch.tensor([[1, 2]]), {"ignore_ids": [0]}, TypeError,
     "predictions must hold integer token ids, got a torch.float32 tensor"),
    (torch.tensor([[[1, 2]]]), torch.tensor([[1, 2]]), {"ignore_ids": [0]}, ValueError,
     "predictions as a tensor must be 2-D, got shape (1, 1, 2); several references per prediction go in references"),
    (torch.tensor([[1, 2, 0]]), torch.tensor([[1, 2, 0]]), {}, ValueError,
     "predictions is a padded tensor: name its padding id in ignore_ids"),
    (torch.tensor([[1, 2, -100]]), torch.tensor([[1, 2]]), {"ignore_ids": []}, ValueError,
     "predictions holds the id -100, which no token has: if it pads the rows, name it in ignore_ids"),
    (torch.tensor([[1, 2]]), torch.tensor([[1, 2], [3, 4]]), {"ignore_ids": []}, ValueError,
     "got 1 predictions and 2 references"),
    ([torch.tensor([1, 2]), [3]], torch.tensor([[1, 2]]), {"ignore_ids": []}, TypeError,
     "predictions[1] must be a 1-D tensor of token ids"),
    (torch.tensor([[1, 2]]), torch.tensor([[True, False]]), {"ignore_ids": []}, TypeError,
     "references must hold integer token ids, got a torch.bool tensor"),
])
def test_a_bad_tensor_gets_a_message(predictions, references, options, error, words):
    with pytest.raises(error) as raised:
        exactbleu.sentence_scores(predictions, references, **options)
    assert words in str(raised.value)


def test_importing_exactbleu_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, exactbleu; exactbleu.corpus_bleu([[1, 2]], [[1, 2]]); print('torch' in sys.modules)"
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.stdout.strip() == "False", completed.stderr


def test_uint64_ids_of_2_to_the_63_and_more_are_refused_by_name():
    """The seed example: these were read as negative ids, and the message advised ignoring
    -9223372036854775803, which dropped the token and scored 1.0, a number no corpus has."""
    predictions, references = torch.tensor([[2**63 + 5, 7]], dtype=torch.uint64), torch.tensor([[7]], dtype=torch.uint64)
    for kernels in ("torch", "numpy"):
        with exactbleu.cpu_tensor_kernels(kernels), pytest.raises(ValueError) as raised:
            exactbleu.sentence_scores(predictions, references, ignore_ids=[])
        message = str(raised.value)
        assert "predictions" in message and str(2**63 + 5) in message and "int64" in message
        assert "ignore_ids=[" not in message and "-9223372036854775803" not in message
    # Below 2**63, uint64 ids are ids like any other.
    small = torch.tensor([[2**63 - 5, 7]], dtype=torch.uint64), torch.tensor([[7]], dtype=torch.uint64)
    assert exactbleu.sentence_scores(*small, "sacrebleu", ignore_ids=[]).tolist() == \
        exactbleu.sentence_scores([[2**63 - 5, 7]], [[7]], "sacrebleu").tolist()


@pytest.mark.parametrize("make, words", [
    (lambda rows: rows.to("meta"), ["meta tensor", "holds no values"]),
    (lambda rows: rows.to_sparse(), ["sparse", "to_dense()"]),
    (lambda rows: torch.nested.nested_tensor(list(rows), layout=torch.jagged), ["nested tensor", "unbind()"]),
])
@pytest.mark.parametrize("argument", ["predictions", "references"])
def test_tensors_a_bleu_cannot_read_get_a_message_that_says_what_to_pass(make, words, argument):
    rows = torch.tensor([[5, 6, 7], [8, 9, 0]])
    given = {"predictions": rows, "references": rows.clone()}
    given[argument] = make(given[argument])
    with pytest.raises((TypeError, ValueError)) as raised:
        exactbleu.sentence_scores(given["predictions"], given["references"], ignore_ids=[0])
    assert str(raised.value).startswith(argument)
    for word in words:
        assert word in str(raised.value)
