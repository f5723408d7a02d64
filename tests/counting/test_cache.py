"""The reference cache: a training loop's references are counted once, the key holds the whole
tokenizing stage and nothing else, and nothing is kept beyond its bounds."""

import random

import evaluate
import pytest

from conftest import METRIC_PATH
from exactbleu import options
from exactbleu.counting import cache
from exactbleu.counting import corpus as counting
from oracles import hf_bleu

pytestmark = pytest.mark.usefixtures("chunked_path")


def test_the_references_cache_key_is_the_whole_tokenizing_stage_and_nothing_else(monkeypatch):
    """A tokenizing option added later joins the references' cache key without being listed there:
    two settings that differ in any tokenizing option must not share cached statistics, and the
    options of later stages do not split the cache."""
    tokenizing = {"tokenizer": "intl", "lowercase": True, "rstrip": True, "pad": 1, "eos": 2, "unk": 3}
    later = {"max_order": 2, "ref_length": "closest", "smooth": True, "smooth_method": "floor", "weights": [0.5, 0.5],
             "n_bootstrap": 10, "sentence_level": True}
    assert {name for name, option in options.OPTIONS.items() if option.stage == "tokenize"} == \
        {*tokenizing, "lang", "spm_model", "aggressive_dash_splits"}
    keys = []
    monkeypatch.setattr(cache.ReferenceCache, "get", lambda self, key: keys.append(key))
    monkeypatch.setattr(counting, "_FEW_DOCUMENTS", 0)  # a few segments skip the cache

    def key(**changed):
        keys.clear()
        settings = options.resolve_settings(**changed)
        counting.count(["a B"], [["a b"]], settings, options.counted_with(settings),
                       counting.Run(cache=cache.ReferenceCache()))
        return keys[0][0]

    plain = key()
    for name, value in tokenizing.items():
        assert key(**{name: value}) != plain, name
    assert key(tokenizer="moses", lang="de") != key(tokenizer="moses")  # a tokenizer's own setting
    assert key(tokenizer="moses-perl", aggressive_dash_splits=True) != key(tokenizer="moses-perl")
    for name, value in later.items():
        assert key(**{name: value}) == plain, name


def test_reference_cache_gives_the_same_results_and_is_bounded(fresh):
    rng = random.Random(3)
    words = "the cat sat on a mat dog ran".split()
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))  # noqa: E731
    references = [[sentence(), sentence()] for _ in range(50)]
    for epoch in range(3):
        predictions = [sentence() for _ in range(50)]
        assert fresh.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)
        # Settings that change the references' statistics are part of the key.
        for changed in ({"lowercase": True}, {"tokenizer": "none"}, {"max_order": 2}, {"ref_length": "closest"}):
            assert fresh.compute(predictions=predictions, references=references, **changed) == \
                evaluate.load(METRIC_PATH).compute(predictions=predictions, references=references, **changed)
    for _ in range(5):
        fresh.compute(predictions=["a"], references=[[sentence()]])
    assert len(fresh._reference_cache()) <= cache.REFERENCE_CACHE_ENTRIES


def test_nothing_is_kept_beyond_the_cache_bound(fresh, monkeypatch):
    module = counting
    monkeypatch.setattr(module, "_THREADS_MIN_DOCUMENTS", 10)
    monkeypatch.setattr(cache, "REFERENCE_CACHE_REFERENCES", 100)
    rng = random.Random(13)
    sentence = lambda: " ".join(rng.choice("a b c d , .".split()) for _ in range(rng.randint(0, 12)))  # noqa: E731
    predictions = [sentence() for _ in range(300)]
    references = [[sentence() for _ in range(rng.randint(1, 3))] for _ in range(300)]
    assert fresh.compute(predictions=predictions, references=references) == hf_bleu(predictions, references)
    assert len(fresh._reference_cache()) == 0
