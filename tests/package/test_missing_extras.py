"""Every optional path, without its package, raises one exception type, ``exactbleu.MissingExtra``:
an ImportError whose ``extra`` and message name the extra that installs what is missing. Each case
hides the package as Python reads "not installed" (``sys.modules[name] = None``, which
``importlib.util.find_spec`` answers with None too) and imports a face anew where its import is the
path; the clients that live in environments of their own (LightEval, mbrs, verl) are hidden alike,
so the case holds where they are installed too."""

import importlib
import pickle
import sys

import pytest

import exactbleu
from exactbleu import MissingExtra, Needs

PREDICTIONS, REFERENCES = ["the cat sat on the mat", "a dog ran"], [["the cat sat on a mat"], ["a dog ran home"]]


def scored_with(tokenizer):
    return lambda: exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, tokenizer=tokenizer)


def imported(module, *through):
    """An import of ``module`` anew (and of the modules it imports ``through``), which fails: the
    modules in sys.modules, if any, are left as they were."""
    def call():
        return importlib.import_module(module)

    call.anew = (module, *through)
    return call


def plotted():
    import torch

    from exactbleu.torchmetrics import BLEUScore

    BLEUScore().plot(torch.tensor(0.5))


def rewarded():
    from exactbleu.rewards import reward_func

    reward_func(["q a cat"], ["q"], ["a cat"])


# (the packages hidden, what is called, the extra it must name[, what is imported before: torchmetrics
# imports matplotlib where its metadata says it is installed]); a module imported anew is dropped first.
CASES = {
    "ko-mecab without MeCab-ko": (["mecab_ko"], scored_with("ko-mecab"), "ko"),
    "ja-mecab without MeCab": (["MeCab"], scored_with("ja-mecab"), "ja"),
    "flores101 without sentencepiece": (["sentencepiece"], scored_with("flores101"), "spm"),
    "moses without sacremoses": (["sacremoses"], scored_with("moses"), "moses"),
    "conventions' moses without sacremoses": (
        ["sacremoses"], lambda: exactbleu.conventions(PREDICTIONS, REFERENCES, tokenizers=["moses"]), "moses"),
    "bleu_matrix without scipy": (["scipy"], lambda: exactbleu.bleu_matrix(PREDICTIONS, ["a cat", "a dog"]), "matrix"),
    "mbr without scipy": (["scipy"], lambda: exactbleu.mbr([["a cat", "a dog", "the cat"]]), "matrix"),
    "reward_func without torch": (["torch"], rewarded, "torch"),
    "exactbleu.torchmetrics without torchmetrics": (["torchmetrics"], imported("exactbleu.torchmetrics"),
                                                    "torchmetrics"),
    "plot without matplotlib": (["matplotlib"], plotted, "plot", ["torchmetrics"]),
    "exactbleu.lighteval without LightEval": (["lighteval"], imported("exactbleu.lighteval"), "lighteval"),
    "exactbleu.mbrs without mbrs": (["mbrs"], imported("exactbleu.mbrs"), "mbrs"),
    "exactbleu.verl without verl": (["verl"], imported("exactbleu.verl"), "verl"),
    "the evaluate metric without evaluate": (["evaluate"], imported("exactbleu.metric.evaluate_metric"), "evaluate"),
    "bleu_metric.py without evaluate": (["evaluate"], imported("bleu_metric", "exactbleu.metric.evaluate_metric"),
                                        "evaluate"),
    "the Space without gradio": (["gradio"], imported("space.page"), "space"),
    "torchmetrics' arithmetic without torch": (["torch"], lambda: exactbleu.corpus_bleu(PREDICTIONS, REFERENCES,
                                                                                       "torchmetrics"), "torch"),
}


def test_which_bleu_without_torch_leaves_out_the_tools_that_need_it(monkeypatch):
    """As in the Space, whose requirements hold no torch: every other convention, none of torchmetrics'.
    torch is hidden from ``find_spec`` alone: scipy, which "Which BLEU?" loads, reads sys.modules's."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "torch" else real(name, *rest))
    rows = exactbleu.conventions(PREDICTIONS, REFERENCES)
    presets = {row.preset for row in rows}
    assert "sacrebleu" in presets and "ignite" in presets and not presets & {"torchmetrics", "torchmetrics-sacrebleu"}
    assert [row.preset for row in exactbleu.conventions([[5, 6, 2]], [[5, 6, 2]])].count("fairseq") == 2


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_missing_package_is_a_missing_extra_that_names_its_extra(monkeypatch, case):
    hidden, call, extra, *ready = case
    for module in ready[0] if ready else []:
        importlib.import_module(module)
    for name in hidden:
        monkeypatch.setitem(sys.modules, name, None)
    for module in getattr(call, "anew", ()):
        monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ImportError) as raised:
        call()
    assert type(raised.value) is exactbleu.MissingExtra
    assert raised.value.extra == extra
    assert f'pip install "exactbleu[{extra}]"' in str(raised.value)
    assert raised.value.name.split(".")[0] in hidden and "not installed here" in str(raised.value)


def test_a_missing_extra_pickles_whole():
    """As a worker process sends its error back."""
    error = MissingExtra("bleu_matrix", "scipy's sparse matrices", "matrix", name="scipy")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is MissingExtra and str(again) == str(error) == (
        "bleu_matrix needs scipy's sparse matrices (not installed here: no module named 'scipy'): "
        'pip install "exactbleu[matrix]"')
    assert (again.extra, again.name, again.install) == ("matrix", "scipy", 'pip install "exactbleu[matrix]"')


def test_a_package_outside_the_extras_is_a_missing_extra_with_its_own_command():
    """A tokenizer registered from outside may need a package that no extra of exactbleu installs."""
    error = Needs(("a_package_nobody_installed",), "`a-package`", 'pip install "a-package"').error("tokenizer='x'")
    assert type(error) is MissingExtra and error.extra is None and error.name == "a_package_nobody_installed"
    assert str(error) == ("tokenizer='x' needs `a-package` (not installed here: no module named "
                          "'a_package_nobody_installed'): pip install \"a-package\"")
