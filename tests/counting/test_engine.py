"""The numpy engine gives exactly the rows of the plain definition: packed n-gram keys, prepared
references serving other predictions, segments too wide to pack, tokens' identity words,
colliding fingerprints and chunk boundaries."""

import contextlib
import itertools
import random
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from exactbleu import options
from exactbleu.counting import engine, reading
from exactbleu.counting import corpus as counting
from exactbleu.tokenizers import tokenizing
from conftest import WMT17
from oracles import corpora, plain_rows, sacrebleu_13a

DEFAULT = options.resolve_settings()


# These tests are about the numpy engine: no corpus here is counted as a few segments.
pytestmark = pytest.mark.usefixtures("chunked_path")


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
    # 1100 references: too many. Short ones, as their number, not their length, is what does not pack
    # (and the plain definition's cost grows with every reference token).
    references = [[long, long[::-1]], [["w1", "w2"]], [long[:20]] * 1100]
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


def test_distinct_tokens_get_distinct_fingerprints():
    """Fingerprints that collide send the counting to its slow, exact path. Words of 7 bytes and
    their extensions by an eighth ("Energie", "Energie-") differ only in the top byte of each
    identity word; a mix that multiplies the words keeps that difference in one byte, and one pair
    in 256 collided. The WMT17 reference's tokens, and the 7-byte stems of 20,000 draws each with
    two extensions, all get distinct ones."""
    rng = random.Random(11)
    stems = {"".join(rng.choice("abcdefghijklmnopqrstuvwxyzäöü") for _ in range(7)) for _ in range(20_000)}
    stems = sorted(stem for stem in stems if len(stem.encode()) == 7)
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8")
    tokens = sorted({*stems, *(stem + "-" for stem in stems), *(stem + "n" for stem in stems), *reference.split()})
    table = reading.token_table(" ".join(tokens), {}, grow=True)
    assert len(set(zip(table.low.tolist(), table.high.tolist()))) == len(tokens)
    assert len(np.unique(reading.fingerprints(table.low, table.high))) == len(tokens)


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


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
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
            assert (counting.count(predictions, references, settings, options.counted_with(settings), counting.Run(threads=threads)).array == expected).all()


def test_a_counted_corpus_of_ids_is_the_chunked_engines_too():
    """Past a few segments the numpy engine counts, in threads: the same rows."""
    rng = np.random.default_rng(0)
    predictions = [rng.integers(0, 300, rng.integers(0, 30)).tolist() for _ in range(6000)]
    references = [[rng.integers(0, 300, rng.integers(1, 30)).tolist() for _ in range(2)] for _ in range(6000)]
    as_words = [" ".join(map(str, p)) for p in predictions], [[" ".join(map(str, r)) for r in group]
                                                              for group in references]
    assert exactbleu.statistics(predictions, references) == exactbleu.statistics(*as_words, tokenizer="none")


@st.composite
def shared_corpora(draw):
    """A corpus whose predictions share references in groups (several samples of one prompt), the
    groups' members laid out in any order, some groups of one."""
    predictions, references = draw(corpora(max_segments=8, max_references=3))
    members = [(group, prediction) for group, _ in enumerate(references)
               for prediction in [predictions[group]] + draw(st.lists(st.sampled_from(predictions), max_size=5))]
    order = draw(st.permutations(range(len(members))))
    return [members[index][1] for index in order], [references[members[index][0]] for index in order]


# The fallbacks' variants are heavy (the plain definition per segment): the full run takes them.
@pytest.mark.parametrize("keys", ["packed", pytest.param("unpackable", marks=pytest.mark.slow),
                                  pytest.param("colliding", marks=pytest.mark.slow)])
@given(corpus=shared_corpora(), max_order=st.integers(1, 6), ref_length=st.sampled_from(["shortest", "closest"]))
def test_references_shared_by_predictions_are_counted_once_and_exactly(keys, corpus, max_order, ref_length):
    """Predictions that share their references (equal lists, not the same objects) get the rows of
    the plain definition, each its own, while each list of references is read and counted once."""
    predictions, references = corpus
    references = [list(group) for group in references]  # equal, never the same list
    read = []
    reader_text = counting.reader_text
    path = {"packed": contextlib.nullcontext(),
            "unpackable": mock.patch.object(engine, "max_token_bits", lambda max_order: 0),
            "colliding": mock.patch.object(engine, "fingerprints", weak_fingerprints)}[keys]
    with path, mock.patch.object(counting, "_SHARED_AT_LEAST", 0.0), \
            mock.patch.object(counting, "reader_text", lambda segments, tokenize: (read.append(len(segments)),
                                                                                   reader_text(segments, tokenize))[1]):
        fast = fast_rows(predictions, references, max_order, ref_length)
    assert (fast == plain_rows(predictions, references, max_order, ref_length)).all()
    distinct = {tuple(group) for group in references}
    assert read[1] == sum(map(len, distinct))  # the predictions' text first, then the references' once each


def test_shared_references_are_found_and_numbered_in_order():
    same = ["a b", "c"]
    segments, groups = counting.shared_references([same, list(same), ["d"], ["d"], list(same), ["e"]])
    assert segments == [["a b", "c"], ["d"], ["e"]] and groups.tolist() == [0, 0, 1, 1, 0, 2]
    segments, groups = counting.shared_references([["a"], ["b"], ["a"], ["a"]])
    assert segments == [["a"], ["b"]] and groups.tolist() == [0, 1, 0, 0]
    few = [["a"], ["b"], ["c"], ["d"], ["e"], ["a"]]  # no neighbours alike: not worth numbering
    assert counting.shared_references(few) == (few, None)
    assert counting.shared_references(few[:2]) == (few[:2], None) and counting.shared_references([]) == ([], None)
    late = [[str(number)] for number in range(300)] + [["x"]] * 300  # only the first 257 are looked at
    assert counting.shared_references(late) == (late, None)


def test_shared_references_kept_in_the_reference_cache_count_other_predictions_exactly():
    rng = random.Random(7)
    words = "a b c d e , . 1.5".split()
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))  # noqa: E731
    references = [[sentence()] for _ in range(40) for _ in range(8)]
    references = [references[8 * (index // 8)] for index in range(len(references))]  # groups of eight
    cache = exactbleu.ReferenceCache()
    for _ in range(3):
        predictions = [sentence() for _ in references]
        counted = exactbleu.statistics(predictions, references, "sacrebleu", cache=cache)
        assert (counted.array == plain_rows(predictions, references, 4, "closest")).all()
    assert len(cache) == 1
