"""The fast path gives exactly what the plain definitions give: corpus tokenizing, the packed
n-gram statistics, the reference cache and the helper process."""

import itertools
import pickle
import random
import signal
import sys
import threading
import time
from unittest import mock

import evaluate
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import METRIC_PATH
from exactbleu import options, tokenizers
from exactbleu.counting import cache, engine, reading
from exactbleu.counting import corpus as counting
from exactbleu.counting import threads as worker_threads
from exactbleu.tokenizers import tokenizing
from exactbleu.tokenizers import tokenizer_13a
from oracles import corpora, hf_bleu, plain_rows, sacrebleu_13a, segments

DEFAULT = options.resolve_settings()


@pytest.fixture(autouse=True, scope="module")
def chunked_path():
    """These tests are about the numpy engine, so no corpus here is counted as a few segments
    (tests/reliability/test_small_path.py holds that path to the same definitions)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(counting, "_FEW_DOCUMENTS", 0)
        yield


def fast_rows(predictions, references, max_order, ref_length):
    """The rows as compute() counts them: counting.count, the one chunk loop."""
    settings = options.resolve_settings(max_order=max_order, ref_length=ref_length)
    return counting.count(predictions, references, settings, options.counted_with(settings)).array


def escaped(token_lists):
    """A token text of token lists, as a custom tokenizer's tokens become one."""
    return tokenizing._escaped_token_text(token_lists)


@given(corpus=corpora(max_segments=10, max_references=5), max_order=st.integers(1, 8),
       ref_length=st.sampled_from(["shortest", "closest"]))
def test_packed_statistics_equal_the_plain_definition(corpus, max_order, ref_length):
    predictions, references = corpus
    assert (fast_rows(predictions, references, max_order, ref_length) ==
            plain_rows(predictions, references, max_order, ref_length)).all()


def references_of(references, max_order=4):
    """One chunk's ReferenceStatistics, from a list of token lists per segment."""
    text = escaped([tokens for segment in references for tokens in segment])
    return engine.ReferenceStatistics(text, [len(segment) for segment in references], max_order)


@given(corpus=corpora(max_segments=10, max_references=5), other=corpora(max_segments=10, max_references=1),
       ref_length=st.sampled_from(["shortest", "closest"]))
def test_prepared_references_serve_other_predictions(corpus, other, ref_length):
    """References prepared once count any predictions exactly, again and again."""
    predictions, references = corpus
    others = (other[0] * len(predictions))[: len(predictions)] or predictions
    prepared = references_of([[sacrebleu_13a(r) for r in refs] for refs in references])
    for these in (predictions, others, predictions):
        fast = engine.chunk_statistics(escaped([sacrebleu_13a(p) for p in these]), prepared, 4, ref_length)
        assert (fast == plain_rows(these, references, 4, ref_length)).all()


@pytest.mark.slow
def test_segments_too_big_to_pack_take_the_plain_definition():
    rng = random.Random(5)
    words = [f"w{i}" for i in range(3000)]
    long = [rng.choice(words) for _ in range(3000)]  # about 1900 distinct reference tokens: more than 10 bits
    predictions = [long[:2000], ["w1", "w2"], long[5:900]]
    references = [[long, long[::-1]], [["w1", "w2"]], [long[:200]] * 1100]  # 1100 references: too many
    assert np.flatnonzero(~references_of(references).packable).tolist() == [0, 2]
    texts = [" ".join(p) for p in predictions], [[" ".join(r) for r in refs] for refs in references]
    for max_order in (4, 12):
        for ref_length in ("shortest", "closest"):
            assert (fast_rows(*texts, max_order, ref_length) == plain_rows(*texts, max_order, ref_length)).all()


@given(corpus=corpora(max_segments=10, max_references=5), max_order=st.integers(1, 8),
       ref_length=st.sampled_from(["shortest", "closest"]))
def test_unpackable_segments_equal_the_plain_definition(corpus, max_order, ref_length):
    """Every segment through the engine's plain fallback: no token id fits a packed key."""
    predictions, references = corpus
    with mock.patch.object(engine, "max_token_bits", lambda max_order: 0):
        prepared = references_of([[sacrebleu_13a(r) for r in refs] for refs in references], max_order)
        assert not (prepared.packable & (prepared.vocabulary > 0)).any()  # only segments without tokens pack
        fast = fast_rows(predictions, references, max_order, ref_length)
    assert (fast == plain_rows(predictions, references, max_order, ref_length)).all()


TOKEN = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=24).filter(lambda t: not any(map(str.isspace, t)))


@given(reference_tokens=st.lists(TOKEN, max_size=30), prediction_tokens=st.lists(TOKEN, max_size=30))
def test_token_identity_words_are_equal_exactly_when_tokens_are(reference_tokens, prediction_tokens):
    """Tokens of every length around the 15 bytes held in place (NUL bytes, astral characters
    included): equal words on either side mean equal tokens, and unequal words unequal ones."""
    numbers = {}
    table = reading.token_table(" ".join(reference_tokens), numbers, grow=True)
    words = list(zip(table[2].tolist(), table[3].tolist()))
    assert table[0].tolist() == [len(reference_tokens)]
    for (a, x), (b, y) in itertools.product(zip(reference_tokens, words), repeat=2):
        assert (a == b) == (x == y)
    table = reading.token_table(" ".join(prediction_tokens), numbers, grow=False)
    for (a, x), (b, y) in itertools.product(zip(prediction_tokens, zip(table[2].tolist(), table[3].tolist())),
                                            zip(reference_tokens, words)):
        assert (a == b) == (x == y)


def test_token_texts_split_on_exactly_what_str_split_splits_on():
    whitespace = {chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()}
    assert set(tokenizing._WHITESPACE) == whitespace
    rng = random.Random(17)
    pieces = sorted(whitespace) + ["a", "é", "日本", "\x00", "\U0001f600", "abcdefghijklmnopq"]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))).replace("\n", " ") for _ in range(200)]
    per_line, line, _, _, _ = reading.token_table("\n".join(lines), {}, grow=True)
    assert per_line.tolist() == [len(text.split()) for text in lines]
    assert line.tolist() == [number for number, text in enumerate(lines) for _ in text.split()]


def weak_fingerprints(low, high, bits=50):
    """Fingerprints that collide all the time: the exact comparisons must catch every case."""
    return ((low ^ high) % np.uint64(3)).astype(np.int64)


@given(corpus=corpora(max_segments=10, max_references=4), max_order=st.integers(1, 5),
       ref_length=st.sampled_from(["shortest", "closest"]))
def test_colliding_fingerprints_still_give_exact_rows(corpus, max_order, ref_length):
    predictions, references = corpus
    with mock.patch.object(engine, "fingerprints", weak_fingerprints):
        fast = fast_rows(predictions, references, max_order, ref_length)
    assert (fast == plain_rows(predictions, references, max_order, ref_length)).all()


def test_chunk_boundaries():
    """More segments than one chunk holds, with shared n-grams across the boundaries."""
    rng = random.Random(7)
    sentence = lambda: " ".join(rng.choice("a b c d e f".split()) for _ in range(rng.randint(0, 9)))  # noqa: E731
    n = 2 * engine.CHUNK_SEGMENTS + 17
    predictions = [sentence() for _ in range(n)]
    references = [[sentence() for _ in range(rng.randint(1, 3))] for _ in range(n)]
    for ref_length in ("shortest", "closest"):
        expected = plain_rows(predictions, references, 4, ref_length)
        settings = options.resolve_settings(ref_length=ref_length)
        for threads in (1, 2, 3):
            assert (counting.count(predictions, references, settings, options.counted_with(settings), threads=threads).array == expected).all()


LINE = st.one_of(segments(max_words=15), st.text(max_size=30),
                 st.lists(st.sampled_from(list("0123456789.,-& \na") + ["&amp;", "<skipped>", "-\n"]), max_size=12).map("".join))


@given(lines=st.lists(LINE, min_size=1, max_size=12))
def test_corpus_tokenizer_equals_one_line_at_a_time(lines):
    expected = [sacrebleu_13a(line) for line in lines]
    assert [line.split() for line in tokenizers.token_text(lines, DEFAULT.tokenize).split("\n")] == expected
    assert [tokenizer_13a.tokenize_13a(line) for line in lines] == expected


@given(text=st.lists(st.sampled_from(list("0123456789.,-a ")), max_size=16).map("".join))
def test_closed_form_of_the_period_comma_hyphen_rules(text):
    """The closed form gives the stated substitutions' tokens on any padded text."""
    padded = f" {text} "
    stated = padded
    for pattern, replacement in tokenizer_13a._13A_CONTEXT_RULES:
        stated = pattern.sub(replacement, stated)
    assert tokenizer_13a._split_periods_commas_hyphens(padded).split() == stated.split()


@pytest.fixture()
def fresh():
    return evaluate.load(METRIC_PATH)


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


def test_worker_threads_count_exactly(fresh, monkeypatch):
    """Worker threads count the later chunks: the rows are those of one thread, with and without
    the cache, under other options too."""
    module = counting
    monkeypatch.setattr(module, "_THREADS_MIN_DOCUMENTS", 10)
    used = []
    in_threads = module.in_threads
    monkeypatch.setattr(module, "in_threads", lambda work, items, threads: (used.append(threads),
                                                                             in_threads(work, items, threads))[1])
    rng = random.Random(11)
    words = "a b c d e f g , . 1.5".split()
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(0, 15)))  # noqa: E731
    predictions = [sentence() for _ in range(400)]
    references = [[sentence() for _ in range(rng.randint(1, 3))] for _ in range(400)]
    expected = hf_bleu(predictions, references)
    assert fresh.compute(predictions=predictions, references=references) == expected
    assert fresh.compute(predictions=predictions, references=references) == expected  # from the cache
    assert used == [2, 2]
    options = {"tokenizer": "intl", "lowercase": True, "smooth_method": "floor", "ref_length": "closest",
               "sentence_level": True}
    one_thread = evaluate.load(METRIC_PATH, threads=1).compute(predictions=predictions, references=references, **options)
    assert used[-1] == 1
    assert fresh.compute(predictions=predictions, references=references, **options) == one_thread
    assert used[-1] == 2


def test_a_failing_worker_thread_raises_here_and_every_worker_ends():
    started = threading.active_count()

    def work(part, stop):
        if 3 in part:
            raise RuntimeError("chunk 3")
        for _ in part:
            if stop.wait(0.05):
                return

    with pytest.raises(RuntimeError, match="chunk 3"):
        counting.in_threads(work, range(4), 2)
    assert threading.active_count() == started


@pytest.mark.parametrize("shape", ["parts", "pipeline"])
def test_an_interrupt_while_waiting_for_the_workers_leaves_none_running(shape):
    """Ctrl-C lands while this thread waits for a worker: the worker is told to stop, is waited
    for, and only then is the interrupt raised; so no worker works on after the call."""
    started, seen = threading.active_count(), []

    def work(part, stop):
        for item in part:
            if item and stop.wait(0.05):  # the worker's items are slow; this thread's part is quick
                seen.append("stopped")
                return
            seen.append(item)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.1)  # after this thread's part, while it waits
    try:
        with pytest.raises(KeyboardInterrupt):
            if shape == "parts":
                worker_threads.in_threads(work, [0] * 50 + [1] * 50, 2)
            else:  # the worker consumes slowly while this thread produces quickly
                worker_threads.pipelined(range(100), lambda item: time.sleep(0.05), 2)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert threading.active_count() == started
    if shape == "parts":
        assert seen[-1] == "stopped" and seen.count(1) < 10  # of the worker's 50 slow items


def test_processes_is_the_old_name_of_threads():
    with pytest.warns(FutureWarning, match="threads="):
        metric = evaluate.load(METRIC_PATH, processes=1)
    assert metric._threads == 1
    with pytest.raises(ValueError, match="threads must be a positive int"):
        evaluate.load(METRIC_PATH, threads=0)


def test_the_metric_pickles_without_its_cache_and_scores_the_same(fresh):
    """datasets.map pickles the metric into its workers: the cache (and its lock) stay here."""
    predictions, references = ["a b c d", "e f"], [["a b c d"], ["e f g"]]
    expected = hf_bleu(predictions, references)
    assert fresh.compute(predictions=predictions, references=references) == expected
    assert len(fresh._reference_cache()) == 1
    clone = pickle.loads(pickle.dumps(fresh))
    assert "_cache" not in clone.__dict__
    assert clone.compute(predictions=predictions, references=references) == expected


@pytest.mark.parametrize("line", ["a.\ue000, 5.,3 x\ue001y 1..2", "\ue000. \ue001, a..5", "e.g. 3,5-7"])
def test_text_holding_the_placeholder_characters(line):
    """The period/comma pass swaps handled marks for U+E000/U+E001 only when the text has none."""
    text = tokenizers.token_text([line, "x. y"], DEFAULT.tokenize)
    assert [tokens.split() for tokens in text.split("\n")] == [sacrebleu_13a(line), sacrebleu_13a("x. y")]


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


def test_custom_tokens_holding_whitespace_backslashes_or_nothing_stay_distinct(fresh):
    """A custom tokenizer's tokens go into the statistics escaped: "a b" is one token, not two,
    and an empty token or a backslash is a token like any other."""
    tokenize = lambda segment: segment.split(",")  # noqa: E731
    predictions = ["a b,,c\\d, e", "x,y z", ",\\", "a b"]
    references = [["a b,c\\d,, e"], ["x ,y z"], ["\\,\\\\"], ["a,b"]]
    expected = hf_bleu(predictions, references, tokenize=tokenize)
    assert fresh.compute(predictions=predictions, references=references, tokenizer=tokenize) == expected
    assert fresh.compute(predictions=predictions, references=references, tokenizer=tokenize,
                         sentence_level=True)["sentence_bleu"][3] == 0.0


def test_escaping_custom_tokens_is_one_to_one():
    """Every token of up to two characters from whitespace, backslashes, digits and a letter:
    each escapes to a non-empty string free of whitespace, and no two to the same one."""
    alphabet = sorted(tokenizing._WHITESPACE) + ["\\", "0", "1", "2", "a"]
    tokens = [""] + alphabet + ["".join(pair) for pair in itertools.product(alphabet, repeat=2)]
    escaped = tokenizing._escaped_token_text([tokens]).split(" ")
    assert len(escaped) == len(tokens) and all(token and token.split() == [token] for token in escaped)
    assert len(set(escaped)) == len(tokens)


def test_custom_tokenizer_returning_other_than_strings_is_named(fresh):
    with pytest.raises(TypeError, match="tokenizer must return a list of str.*int token: 5"):
        fresh.compute(predictions=["a"], references=["a"], tokenizer=lambda segment: [5])
