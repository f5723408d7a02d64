"""How a count runs (threads, max_tokens, cache, progress) is checked in one place, ``counting.Run``,
for every public function that takes any of it: a bad value is an error that names the argument,
the value and what is valid, before anything is counted, whatever the corpus's size (the reference
cache and the progress callback are first used only past the few segments counted by the
definition)."""

import inspect

import evaluate
import pytest

import exactbleu
from conftest import METRIC_PATH

KNOBS = ("threads", "max_tokens", "cache", "progress")
FEW = ["the cat sat on the mat", "a dog ran"]
FEW_REFERENCES = [["the cat sat on a mat"], ["a dog ran home"]]
# More segments than the definition counts alone: the numpy engine, its cache and its progress run.
MANY = FEW * 150
MANY_REFERENCES = FEW_REFERENCES * 150

# Each public function that takes a knob, called on a corpus of its own shape.
CALLS = {
    "corpus_bleu": lambda texts, references, **knobs: exactbleu.corpus_bleu(texts, references, **knobs),
    "statistics": lambda texts, references, **knobs: exactbleu.statistics(texts, references, **knobs),
    "sentence_scores": lambda texts, references, **knobs: exactbleu.sentence_scores(texts, references, **knobs),
    "paired_test": lambda texts, references, **knobs: exactbleu.paired_test(
        {"a": texts, "b": texts[::-1]}, references, n_samples=10, **knobs),
    "explain": lambda texts, references, **knobs: exactbleu.explain(texts, references, **knobs),
    "self_bleu": lambda texts, references, **knobs: exactbleu.self_bleu(texts, **knobs),
    "self_bleu_statistics": lambda texts, references, **knobs: exactbleu.self_bleu_statistics(texts, **knobs),
    "bleu_matrix": lambda texts, references, **knobs: exactbleu.bleu_matrix(texts, texts[:2], **knobs),
    "mbr": lambda texts, references, **knobs: exactbleu.mbr([texts[:2], texts[:3]], **knobs),
}

# Written out by hand: what each bad value must be told.
BAD = {
    "threads": [
        (0, ValueError, "threads must be a positive int or None, not 0 (int)"),
        (-2, ValueError, "threads must be a positive int or None, not -2 (int)"),
        (2.5, ValueError, "threads must be a positive int or None, not 2.5 (float)"),
        (True, ValueError, "threads must be a positive int or None, not True (bool)"),
        ("2", ValueError, "threads must be a positive int or None, not '2' (str)"),
    ],
    "max_tokens": [
        (0, ValueError, "max_tokens must be a positive int or None, not 0 (int)"),
        (1e6, ValueError, "max_tokens must be a positive int or None, not 1000000.0 (float)"),
        ("many", ValueError, "max_tokens must be a positive int or None, not 'many' (str)"),
    ],
    "cache": [
        ("yes", TypeError, "cache must be an exactbleu.ReferenceCache or None, not 'yes' (str)"),
        (True, TypeError, "cache must be an exactbleu.ReferenceCache or None, not True (bool)"),
        ({}, TypeError, "cache must be an exactbleu.ReferenceCache or None, not {} (dict)"),
    ],
    "progress": [
        (5, TypeError, "progress must be a callable taking the number of segments counted, or None, not 5 (int)"),
        ("tqdm", TypeError,
         "progress must be a callable taking the number of segments counted, or None, not 'tqdm' (str)"),
    ],
}


def knobs_of(name):
    return [knob for knob in KNOBS if knob in inspect.signature(getattr(exactbleu, name)).parameters]


def test_every_public_function_that_takes_a_knob_is_called_here():
    taking = {name for name in exactbleu.__all__ if callable(getattr(exactbleu, name))
              and not isinstance(getattr(exactbleu, name), type) and knobs_of(name)}
    assert taking == set(CALLS)


CASES = [pytest.param(name, knob, value, error, message, id=f"{name}-{knob}={value!r}")
         for name in CALLS for knob in KNOBS for value, error, message in BAD[knob]
         if knob in knobs_of(name)]


@pytest.mark.parametrize("size", ["few", "many"])
@pytest.mark.parametrize("name, knob, value, error, message", CASES)
def test_a_bad_knob_is_named_with_its_value_and_what_is_valid(name, knob, value, error, message, size):
    texts, references = (FEW, FEW_REFERENCES) if size == "few" else (MANY, MANY_REFERENCES)
    with pytest.raises(error) as raised:
        CALLS[name](texts, references, **{knob: value})
    assert str(raised.value) == message


@pytest.mark.parametrize("name", list(CALLS))
def test_good_knobs_pass(name):
    counted = []
    good = {"threads": 1, "max_tokens": 10**6, "cache": exactbleu.ReferenceCache(), "progress": counted.append}
    taken = {knob: good[knob] for knob in knobs_of(name)}
    result = CALLS[name](MANY, MANY_REFERENCES, **taken)
    if name == "explain":
        list(result)
    if "progress" in taken:
        assert sum(counted) == len(MANY)


@pytest.mark.parametrize("knob, value, error, message",
                         [case for knob in ("threads", "max_tokens") for case in [(knob, *bad) for bad in BAD[knob]]])
def test_the_metric_checks_its_load_time_knobs_as_the_functions_do(knob, value, error, message):
    with pytest.raises(error) as raised:
        evaluate.load(METRIC_PATH, **{knob: value})
    assert str(raised.value) == message
