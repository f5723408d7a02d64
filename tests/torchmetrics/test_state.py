"""The torchmetrics face's state: int64 counts whatever dtype is asked for (``set_dtype``,
``.to(dtype)``, and torchmetrics' no-op ``half``/``double``/``float``/``bfloat16``), at any point
between updates; ``merge_state`` refusing, before it changes anything, what it could not score;
and ``plot``, drawn as torchmetrics' own BLEUScore draws the same values."""

import pickle

import matplotlib
import pytest
import torch
import torchmetrics.text
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from exactbleu.torchmetrics import BLEUScore, SacreBLEUScore
from test_torchmetrics import BATCHES, everything, nltk_corpus_bleu

matplotlib.use("Agg")

PREDICTIONS, TARGET = ["the cat is on the mat"], [["a cat is on the mat"]]


def exactly(value, dtype):
    """The exact float64 number, given in ``dtype``: what compute returns."""
    return torch.tensor(value, dtype=torch.float64).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("change", ["set_dtype", "to"])
def test_a_dtype_change_keeps_the_counts_and_applies_to_the_result(change, dtype):
    ours, theirs = BLEUScore(), torchmetrics.text.BLEUScore()
    for metric in (ours, theirs):
        metric.update(PREDICTIONS, TARGET)
        getattr(metric, change)(dtype)
    result, expected = ours.compute(), theirs.compute()
    assert ours.statistics.dtype == torch.int64 and ours.kinds.dtype == torch.int64
    assert result.dtype == dtype and ours.dtype == dtype
    assert result == exactly(nltk_corpus_bleu(PREDICTIONS, TARGET), dtype)
    # torchmetrics casts its (float) state and computes from it: near, in its own dtype (float32 here)
    assert abs(result.item() - expected.item()) <= 1e-2


DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
# (name, what it does to a metric, the dtype it makes the result's: None for none)
STEPS = [(f"set_dtype({dtype})", lambda metric, dtype=dtype: metric.set_dtype(dtype), dtype) for dtype in DTYPES] + [
    (f"to({dtype})", lambda metric, dtype=dtype: metric.to(dtype), dtype) for dtype in DTYPES] + [
    ("set_dtype('torch.HalfTensor')", lambda metric: metric.set_dtype("torch.HalfTensor"), torch.float16),
    ("half()", lambda metric: metric.half(), None), ("double()", lambda metric: metric.double(), None),
    ("float()", lambda metric: metric.float(), None), ("bfloat16()", lambda metric: metric.bfloat16(), None),
    ("type(float16)", lambda metric: metric.type(torch.float16), None), ("to('cpu')", lambda metric: metric.to("cpu"), None),
    ("clone()", lambda metric: metric.clone(), None),
    ("pickled", lambda metric: pickle.loads(pickle.dumps(metric)), None),
    ("forward", None, None),
]


@settings(max_examples=examples(60), deadline=None)
@given(plan=st.lists(st.one_of(st.tuples(st.just("batch"), st.integers(0, 1)),
                               st.tuples(st.just("step"), st.integers(0, len(STEPS) - 1))), max_size=10),
       smooth=st.booleans())
def test_dtype_changes_in_any_order_between_updates_keep_the_number_exact(plan, smooth):
    metric, added, dtype = BLEUScore(smooth=smooth), [], torch.float64
    for what, index in plan:
        if what == "batch":
            metric.update(*BATCHES[index])
            added.append(BATCHES[index])
            continue
        name, step, makes = STEPS[index]
        if step is None:  # forward: the batch's own number, and the whole kept
            assert metric(*BATCHES[0]) == exactly(nltk_corpus_bleu(*BATCHES[0], smooth=smooth), dtype), name
            added.append(BATCHES[0])
        else:
            returned = step(metric)
            metric = returned if isinstance(returned, BLEUScore) else metric
        dtype = makes or dtype
        assert metric.statistics.dtype == torch.int64 and metric.kinds.dtype == torch.int64, name
        if added:
            expected = exactly(nltk_corpus_bleu(*everything(added), smooth=smooth), dtype)
            assert metric.compute() == expected and metric.compute().dtype == dtype, name
    metric.update(*BATCHES[1])
    assert metric.compute() == exactly(nltk_corpus_bleu(*everything(added + [BATCHES[1]]), smooth=smooth), dtype)


def test_set_dtype_refuses_what_is_no_floating_point_dtype():
    metric = BLEUScore()
    metric.update(PREDICTIONS, TARGET)
    for bad in (torch.int32, torch.bool, "int8", "float16x"):
        with pytest.raises(ValueError, match="set_dtype takes a floating-point dtype"):
            metric.set_dtype(bad)
    assert metric.compute() == exactly(nltk_corpus_bleu(PREDICTIONS, TARGET), torch.float64)


def ids_metric():
    metric = BLEUScore()
    metric.update([[5, 8, 9]], [[[5, 8, 9, 7]]])
    return metric


def text_metric():
    metric = BLEUScore()
    metric.update(*BATCHES[0])
    return metric


def sacrebleu_state():
    metric = SacreBLEUScore()
    metric.update(*BATCHES[0])
    return {"statistics": metric.statistics, "kinds": metric.kinds}


@pytest.mark.parametrize("make, incoming, words", [
    (lambda: BLEUScore(), ids_metric, "this metric has counted text, and the incoming state token ids"),
    (ids_metric, text_metric, "this metric has counted token ids, and the incoming state text"),
    (lambda: BLEUScore(), lambda: {"statistics": ids_metric().statistics, "kinds": ids_metric().kinds},
     "this metric has counted text, and the incoming state token ids"),
    (lambda: BLEUScore(), sacrebleu_state, "the incoming state was not counted under this BLEUScore's arguments"),
    (lambda: SacreBLEUScore(), lambda: state_of(SacreBLEUScore(lowercase=True)),
     "the incoming state was not counted under this SacreBLEUScore's arguments"),
])
def test_merge_state_refuses_a_mixed_or_foreign_state_and_changes_nothing(make, incoming, words):
    metric = make()
    if not metric.kinds.sum():
        metric.update(*BATCHES[0])
    before, kinds, number = metric.statistics.clone(), metric.kinds.clone(), metric.compute()
    with pytest.raises(ValueError, match="merge_state: " + words.replace("(", r"\(")):
        metric.merge_state(incoming())
    assert torch.equal(metric.statistics, before) and torch.equal(metric.kinds, kinds)
    assert metric.compute() == number


def state_of(metric):
    """A counted metric's state as a dict, as a checkpoint keeps it."""
    metric.update(*BATCHES[1])
    return {"statistics": metric.statistics, "kinds": metric.kinds}


def test_merge_state_takes_an_empty_or_alike_state_of_either_side():
    empty, counted = BLEUScore(), ids_metric()
    empty.merge_state(ids_metric())  # an empty text metric takes token ids: it has counted no text
    counted.merge_state(BLEUScore())
    with pytest.warns(UserWarning, match="before the ``update``"):  # torchmetrics': merge_state is no update
        assert empty.compute() == counted.compute() == ids_metric().compute()


@pytest.mark.parametrize("values", [None, "one", "several"])
def test_plot_draws_what_torchmetrics_draws(values):
    ours, theirs = BLEUScore(), torchmetrics.text.BLEUScore()
    drawn = []
    for metric in (ours, theirs):
        if values == "several":
            value = [metric(*BATCHES[step % 2]).float() for step in range(4)]
        else:
            metric.update(*BATCHES[0])
            value = None if values is None else metric.compute().float()
        figure, axes = metric.plot(value)
        lines = [(list(map(float, line.get_xdata())), [round(float(y), 4) for y in line.get_ydata()],
                  line.get_marker(), line.get_linestyle(), line.get_label())
                 for line in axes.get_lines()]
        drawn.append((type(figure).__name__, lines, axes.get_ylim(), axes.get_title(), axes.get_xlabel()))
        matplotlib.pyplot.close(figure)
    assert drawn[0] == drawn[1] and drawn[0][1]


def test_plot_without_matplotlib_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "matplotlib" else real(name, *rest))
    with pytest.raises(ImportError, match=r'pip install "exactbleu\[plot\]"'):
        BLEUScore().plot(torch.tensor(0.5))
