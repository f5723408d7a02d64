"""exactbleu.compat is a drop-in for sacrebleu's BLEU API: its layouts, its return types, its
numbers. Held to sacrebleu itself on random corpora, and to the vectors of sacrebleu's own test
suite (test_bleu.py and test_sentence_bleu.py) that apply."""

import pytest
import sacrebleu
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from exactbleu import compat
from oracles import corpora, segments, streams

SMOOTHING = st.sampled_from(["none", "floor", "add-k", "exp"])
SMOOTH_VALUE = st.sampled_from([None, 0.0, 0.01, 0.5, 1, 2])
TOKENIZE = st.sampled_from(["13a", "intl", "zh", "char", "none", "ja-mecab", "ko-mecab"])


def assert_same_score(ours, theirs):
    assert ours.score == pytest.approx(theirs.score, rel=1e-9, abs=1e-9)
    assert (ours.counts, ours.totals, ours.sys_len, ours.ref_len) == \
        (theirs.counts, theirs.totals, theirs.sys_len, theirs.ref_len)
    assert ours.precisions == pytest.approx(theirs.precisions, rel=1e-12, abs=1e-12)
    assert ours.bp == pytest.approx(theirs.bp, rel=1e-15)
    assert ours.format(width=4) == theirs.format(width=4)


@given(corpus=corpora(max_segments=6, max_references=3), smooth_method=SMOOTHING, smooth_value=SMOOTH_VALUE,
       lowercase=st.booleans(), tokenize=TOKENIZE, effective_order=st.booleans())
def test_corpus_bleu_with_reference_streams_is_sacrebleus(corpus, smooth_method, smooth_value, lowercase, tokenize,
                                                          effective_order):
    predictions, references = corpus
    layout = streams(references)  # one stream per reference set, None where a segment has fewer
    options = dict(smooth_method=smooth_method, smooth_value=smooth_value, lowercase=lowercase, tokenize=tokenize,
                   use_effective_order=effective_order)
    assert_same_score(compat.corpus_bleu(predictions, layout, **options),
                      sacrebleu.corpus_bleu(predictions, layout, **options))


@given(prediction=segments(), references=st.lists(segments(), min_size=1, max_size=3), smooth_method=SMOOTHING,
       smooth_value=SMOOTH_VALUE, tokenize=TOKENIZE, effective_order=st.booleans(), order=st.integers(1, 6))
def test_sentence_scores_are_sacrebleus(prediction, references, smooth_method, smooth_value, tokenize,
                                        effective_order, order):
    assert_same_score(compat.sentence_bleu(prediction, references, smooth_method=smooth_method,
                                           smooth_value=smooth_value, tokenize=tokenize),
                      sacrebleu.sentence_bleu(prediction, references, smooth_method=smooth_method,
                                              smooth_value=smooth_value, tokenize=tokenize))
    # BLEU().sentence_score: effective order off unless asked for, as sacrebleu's.
    options = dict(smooth_method=smooth_method, smooth_value=smooth_value, tokenize=tokenize,
                   max_ngram_order=order, effective_order=effective_order)
    assert_same_score(compat.BLEU(**options).sentence_score(prediction, references),
                      sacrebleu.BLEU(**options).sentence_score(prediction, references))


def test_the_bleu_class_caches_references_bootstraps_and_signs_as_sacrebleu(monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    hypotheses = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
    references = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
                  ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
    ours, theirs = compat.BLEU(references=references), sacrebleu.BLEU(references=references)
    with pytest.raises(ValueError, match="evaluate the metric first"):
        compat.BLEU().get_signature()
    mine, expected = ours.corpus_score(hypotheses, None, n_bootstrap=200), theirs.corpus_score(hypotheses, None,
                                                                                              n_bootstrap=200)
    assert_same_score(mine, expected)
    assert (mine._mean, mine._ci) == pytest.approx((expected._mean, expected._ci), rel=1e-12)
    assert mine.format(signature=str(ours.get_signature())) != ""
    sacrebleus_fields = str(theirs.get_signature()).rsplit("|version:", 1)[0]
    assert str(ours.get_signature()).rsplit("|version:", 1)[0] == sacrebleus_fields
    assert ours.get_signature().format(short=True).rsplit("|v:", 1)[0] == \
        theirs.get_signature().format(short=True).rsplit("|v:", 1)[0]


# sacrebleu's own test vectors (test/test_bleu.py, test/test_sentence_bleu.py).
_REFS = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
_HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]


@pytest.mark.parametrize("hypotheses, references, options, expected", [
    (_HYPS, _REFS, {}, 48.530827),
    (("", "", ""), _REFS, {}, 0.0),
    (_HYPS, _REFS, {"tokenize": "none"}, 49.1919566),
    (_HYPS, _REFS, {"tokenize": "13a"}, 48.530827),
    (_HYPS, _REFS, {"tokenize": "intl"}, 43.91623493),
    (_HYPS, _REFS, {"smooth_method": "none"}, 48.530827),
])
def test_sacrebleus_corpus_vectors(hypotheses, references, options, expected):
    assert compat.corpus_bleu(hypotheses, references, **options).score == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("hypotheses, references, smooth_value, expected", [
    # No match at all: 0, smoothed or not, as sacrebleu scores it.
    (["this is a test", "another test"], [["ref1", "ref2"]], 0.01, 0.0),
    (["this is a test"], [["this is a test"]], 0.01, 1.0),
    (["this is a fest"], [["this is a test"]], 0.01, 0.223606797749979),
    (["test"], [["a test"]], 0.01, 0.3678794411714425),
    (["a test"], [["a test"]], 0.01, 1.0),
    (["a little test"], [["a test"]], 0.01, 0.03218297948685433),
    (["am I am a character sequence"], [["I am a symbol string sequence a a"]], 0.0, 0.0),
    (["am I am a character sequence"], [["I am a symbol string sequence a a"]], None, 0.1555722182),
])
def test_sacrebleus_raw_corpus_vectors(hypotheses, references, smooth_value, expected):
    assert compat.raw_corpus_bleu(hypotheses, references, smooth_value).score / 100 == pytest.approx(expected, abs=1e-8)
    if smooth_value is None:  # the default, 0.1
        assert compat.raw_corpus_bleu(hypotheses, references).score / 100 == pytest.approx(expected, abs=1e-8)


def test_sacrebleus_statistics_vector():
    result = compat.raw_corpus_bleu(["am I am a character sequence"], [["I am a symbol string sequence a a"]], 0.01)
    assert (result.counts, result.totals) == ([4, 2, 1, 0], [6, 5, 4, 3])


@pytest.mark.parametrize("order, expected", [(1, "77.65"), (2, "60.50"), (3, "53.93"), (4, "48.53"), (5, "46.14"),
                                             (6, "43.28")])
def test_sacrebleus_max_ngram_order_vectors(order, expected):
    assert f"{compat.BLEU(max_ngram_order=order).corpus_score(_HYPS, _REFS).score:.2f}" == expected


@pytest.mark.parametrize("correct, total, sys_len, ref_len, options, expected", [
    ([9, 7, 5, 3], [10, 8, 6, 4], 11, 11, {}, 0.8375922397),
    ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1, {"smooth_method": "floor", "smooth_value": 0.0}, 0.0),
    ([0, 0, 0, 0], [10, 11, 12, 0], 14, 10, {"smooth_method": "floor", "smooth_value": 0.0}, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, {"smooth_method": "floor", "smooth_value": 0.0}, 0.0),
    ([6, 5, 4, 0], [6, 5, 4, 3], 6, 6, {"smooth_method": "floor", "smooth_value": 0.0}, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0, {"smooth_method": "floor", "smooth_value": 0.1}, 0.0),
    ([0, 0, 0, 0], [0, 0, 0, 0], 1, 5, {"smooth_method": "floor", "smooth_value": 0.01}, 0.0),
])
def test_sacrebleus_scoring_vectors(correct, total, sys_len, ref_len, options, expected):
    score = compat.BLEU.compute_bleu(correct, total, sys_len, ref_len, **options).score / 100
    if options:  # sacrebleu's degenerate statistics: exactly 0
        assert score == expected
    assert score == pytest.approx(expected, abs=1e-8)


_SYS = "Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"
_REF = "producţia de zahăr brut se exprimă în zahăr alb;"


@pytest.mark.parametrize("smooth_method, smooth_value, lowercase, tokenize, expected", [
    ("exp", None, False, "13a", 8.493), ("none", None, False, "13a", 0.0), ("floor", None, False, "13a", 4.51688),
    ("floor", 0.1, False, "13a", 4.51688), ("floor", 0.5, False, "13a", 10.10), ("add-k", None, False, "13a", 14.882),
    ("add-k", 1, False, "13a", 14.882), ("add-k", 2, False, "13a", 21.389), ("exp", None, False, "none", 7.347),
    ("exp", None, False, "intl", 8.493), ("exp", None, False, "char", 40.8759), ("exp", None, True, "char", 42.0267),
])
def test_sacrebleus_sentence_vectors(smooth_method, smooth_value, lowercase, tokenize, expected):
    options = dict(smooth_method=smooth_method, smooth_value=smooth_value, lowercase=lowercase, tokenize=tokenize)
    assert compat.sentence_bleu(_SYS, [_REF], **options).score == pytest.approx(expected, abs=1e-3)
    metric = compat.BLEU(effective_order=True, **options)
    assert metric.sentence_score(_SYS, [_REF]).score == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize("smooth_method, smooth_value", [("exp", None), ("none", None), ("floor", None),
                                                          ("floor", 0.1), ("add-k", None), ("add-k", 1)])
def test_sacrebleus_zero_sentence_vectors(smooth_method, smooth_value):
    metric = compat.BLEU(smooth_method=smooth_method, smooth_value=smooth_value, effective_order=True)
    assert metric.sentence_score("this is a cat", ["okay thanks"]).score == 0.0


def test_a_layout_mistake_gets_a_message_that_names_the_other_layout():
    hypotheses = ["a b", "c d", "e f"]
    per_prediction = [["a b"], ["c d"], ["e f"]]  # exactbleu's layout, not sacrebleu's streams
    with pytest.raises(ValueError, match="one stream per reference set.*exactbleu.corpus_bleu"):
        compat.corpus_bleu(hypotheses, per_prediction)
    with pytest.raises(TypeError, match="reference streams"):
        compat.corpus_bleu(hypotheses, ["a b", "c d", "e f"])
    with pytest.raises(TypeError, match="put it in a list"):
        compat.sentence_bleu("a b", "a b")
    import exactbleu

    with pytest.raises(ValueError, match="exactbleu.compat"):
        exactbleu.corpus_bleu(hypotheses, [["a b", "c d", "e f"]])


# sacrebleu's BLEU fields, as bleu_settings resolves them for the faces whose clients configure
# sacrebleu's BLEU (mbrs's MetricBLEU.Config): every smoothing method of sacrebleu's, with and
# without a value, the target language's tokenizer where tokenize is None.
_FIELDS = [{"smooth_method": method, **value, **tokenizer} for method in sacrebleu.BLEU.SMOOTH_DEFAULTS
           for value in ({}, {"smooth_value": 0.3}, {"smooth_value": 0.0})
           for tokenizer in ({}, {"tokenize": "char", "lowercase": True}, {"trg_lang": "zh"})]
_ZH_HYPS = ["猫坐在垫子上。", "今天天气很好", "我们明天见"]
_ZH_REFS = [["猫在垫子上坐着。", "今天天气不错", "明天见"]]


@pytest.mark.parametrize("fields", _FIELDS, ids=str)
@pytest.mark.parametrize("effective_order", [False, True])
def test_bleu_settings_give_sacrebleus_score(fields, effective_order):
    for hypotheses, streams in ((_HYPS, _REFS), (_ZH_HYPS, _ZH_REFS)):
        theirs = sacrebleu.BLEU(effective_order=effective_order, **fields)
        settings = compat.bleu_settings(effective_order=effective_order, **fields)
        rows = exactbleu.statistics(hypotheses, compat.references_per_segment(streams, len(hypotheses)), settings)
        assert exactbleu.scored(rows, settings).percent() == theirs.corpus_score(hypotheses, streams).score
        for hypothesis, reference in zip(hypotheses, streams[0]):
            one = exactbleu.statistics([hypothesis], [[reference]], settings)
            assert exactbleu.scored(one, settings).percent() == theirs.sentence_score(hypothesis, [reference]).score


@pytest.mark.parametrize("method", [name for name in exactbleu.SMOOTHING if name not in sacrebleu.BLEU.SMOOTH_DEFAULTS])
def test_what_sacrebleu_refuses_is_refused_with_the_librarys_message(method):
    with pytest.raises(AssertionError):  # sacrebleu's own refusal, by an assert
        sacrebleu.BLEU(smooth_method=method)
    choices = str(list(sacrebleu.BLEU.SMOOTH_DEFAULTS))
    for make in (lambda: compat.bleu_settings(smooth_method=method), lambda: compat.BLEU(smooth_method=method),
                 lambda: compat.corpus_bleu(_HYPS, _REFS, smooth_method=method)):
        with pytest.raises(ValueError) as raised:
            make()
        assert "smooth_method" in str(raised.value) and repr(method) in str(raised.value)
        assert choices in str(raised.value)


@pytest.mark.parametrize("streams, kind, message", [
    ([_REFS[0], _REFS[1][:2]], ValueError, r"refs\[1\] holds 2 references but there are 3 hypotheses"),
    ([[_REFS[0][0], None, _REFS[0][2]], [_REFS[1][0], None, _REFS[1][2]]], ValueError,
     r"hypothesis 1 has no reference.*refs\[j\]\[1\]"),
    ([_REFS[0], 5], TypeError, r"refs\[1\] must be a list, got int"),
    ([_REFS[0], "a b c"], TypeError, r"refs\[1\] is a string"),
    ("a b c", TypeError, r"refs must be a list, got str"),
    ([[_REFS[0][0], _REFS[0][1], 7], _REFS[1]], TypeError, r"refs\[0\]\[2\] must be a string or None, got int: 7"),
    ([], ValueError, r"refs is empty"),
])
def test_bad_reference_streams_get_messages_that_name_the_callers_argument_and_indices(streams, kind, message):
    with pytest.raises(kind, match=message):
        compat.references_per_segment(streams, len(_HYPS), "refs")
    with pytest.raises(kind, match=message.replace("refs", "references")):
        compat.corpus_bleu(_HYPS, streams)


def test_a_none_beside_a_reference_is_dropped_as_sacrebleu_drops_it():
    streams = [[_REFS[0][0], None, _REFS[0][2]], _REFS[1]]
    assert compat.references_per_segment(streams, 3) == [[_REFS[0][0], _REFS[1][0]], [_REFS[1][1]],
                                                         [_REFS[0][2], _REFS[1][2]]]
    assert compat.corpus_bleu(_HYPS, streams).score == sacrebleu.corpus_bleu(_HYPS, streams).score
