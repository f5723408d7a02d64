"""Which BLEU is this? ``conventions`` scores every convention at once, each row exactly what the
public functions give for its preset and options (so every derived count is exact: another reference
length, fewer orders, another right-strip); ``identify`` finds the convention that gave a score
the peers computed (sacrebleu, NLTK, HF's ``bleu``, restated), and every convention it returns
gives that number when the peers compute it again."""

import math
import random
import statistics as stats

import nltk.translate.bleu_score as nltk_bleu
import numpy as np
import pytest
from sacrebleu.metrics import BLEU

import exactbleu
from exactbleu.which_bleu import conventions, identify
from oracles import hf_bleu, nltk_quietly, streams

SMOOTHINGS = {"sacrebleu": ["none", "floor", "add-k", "exp"], "nltk": [f"method{n}" for n in range(8)],
              "default": [False, True], "coco": ["coco"]}
TOKENIZERS = ["13a", "intl", "char", "none"]
# NLTK's corpus_bleu hands these methods its last sentence (docs/conventions.md, "NLTK's quirks"): the
# "nltk" preset departs from its corpus score there, by design, so no peer gives those corpus rows.
NLTK_LAST_SENTENCE = {"method5", "method6", "method7"}
# sacrebleu's and NLTK's own reference length is the closest; HF's (tensorflow/nmt's) the shortest.
NATIVE_REF_LENGTH = {"sacrebleu": "closest", "nltk": "closest", "default": "shortest", "coco": "closest"}


def expected_score(predictions, references, row, counted=None):
    """What the public functions give for a row's preset and options, on its scale; ``counted``
    keeps the statistics of each preset and options, which a row's other scale and aggregate share."""
    counted = {} if counted is None else counted
    key = (row.preset, repr(sorted(row.options.items())))
    if key not in counted:
        counted[key] = exactbleu.statistics(predictions, references, row.preset, **row.options)
    if row.aggregate == "corpus":
        result = exactbleu.scored(counted[key], row.preset, **row.options)
        return result.bleu if row.scale == 1 else result.percent()
    rows = exactbleu.scored_rows(counted[key], row.preset, **row.options)
    return float(np.mean(rows.bleu if row.scale == 1 else rows.value * (100 // rows.scale)))


def small_corpus(seed, references, trailing_spaces):
    rng = random.Random(seed)
    words = ["the", "cat", "sat", "on", "a", "mat", ",", ".", "Der", "Hund", "lief", "3.5", "e.g.", "–", "Köln"]

    def line():
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 9)))
        return text + ("  " if trailing_spaces and rng.random() < 0.3 else "")

    predictions = [line() for _ in range(6)]
    return predictions, [[line() for _ in range(rng.randint(1, references))] for _ in predictions]


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
@pytest.mark.parametrize("seed, references, trailing_spaces", [(1, 1, False), (2, 3, True), (3, 4, False)])
def test_every_row_is_what_the_public_functions_give_for_its_preset_and_options(seed, references, trailing_spaces):
    predictions, groups = small_corpus(seed, references, trailing_spaces)
    table, counted = conventions(predictions, groups), {}
    for row in table:
        assert row.score == expected_score(predictions, groups, row, counted), row
        if row.aggregate == "corpus":
            assert row.signature == exactbleu.corpus_bleu(predictions, groups, row.preset, **row.options,
                                                          signature=True)["signature"]


def test_the_space_has_every_dimension():
    predictions, groups = small_corpus(4, 1, False)
    single = conventions(predictions, groups)
    # 15 smoothing choices (2 of HF's, 4 of sacrebleu's, 8 of NLTK's, COCO's) x 5 tokenizers (13a, intl, char,
    # none, ptb) x lowercase x 2 reference lengths, each as a corpus score and a mean of sentence scores, on 2 scales;
    # and the 5 scripts (multi-bleu.perl, multi-bleu-detok.perl, t2t-bleu, mteval v13a and v14), cased and
    # lowercased, and CodeXGLUE's evaluator, ignite's Bleu, DeepEval's bleu1 to bleu4, HELM's bleu_1 and bleu_4 and
    # Azure's BleuScoreEvaluator as they run, each as its corpus score on 2 scales; and torchmetrics' BLEUScore and
    # SacreBLEUScore as they compute, where torch is installed.
    scripts = 5 * 2 * 2 + 2 + 2 + 7 * 2 + 2 * 2
    assert len(single) == 15 * 5 * 2 * 2 * 2 * 2 + scripts
    uneven = conventions(*small_corpus(5, 3, False))
    # and all, the first or the fewest references: the fewest only as a corpus score.
    # t2t-bleu and Azure's evaluator read one reference a line, so they have no number here.
    assert len(uneven) == 15 * 5 * 2 * 2 * (3 + 2) * 2 + scripts - 2 * 2 - 2
    assert {row.preset for row in uneven} == {"default", "sacrebleu", "nltk", "lm-eval", "lighteval", "coco", "nlg-eval",
                                              "vlmevalkit", "codexglue", "ignite", "multi-bleu", "multi-bleu-detok",
                                              "mteval-v13a", "mteval-v14", "deepeval-bleu1", "deepeval-bleu2",
                                              "deepeval-bleu3", "deepeval-bleu4", "helm-bleu-1", "helm-bleu-4",
                                              "torchmetrics", "torchmetrics-sacrebleu"}
    zh = conventions(predictions, groups, language="zh")
    assert {row.options.get("tokenizer") for row in zh} >= {"zh", "intl", "char", "none", "ptb"}
    # and tokenizer.perl's tokenized BLEU in Chinese, cased and lowercased.
    assert len(zh) == (len(single) - scripts) * 6 // 5 + scripts + 2 * 2
    assert [row.departures for row in single] == sorted(row.departures for row in single)
    first = single[0]
    assert (first.preset, first.options, first.aggregate, first.scale) == ("default", {}, "corpus", 1)


def test_each_convention_names_its_arithmetic_and_its_score_on_0_to_100():
    """Each row says which arithmetic scored it (HF's without a smoothing method, else the one that
    SMOOTHING declares for its method) and its score on 0..100: its own score on that scale, its
    twin's on the other; so the Space can draw any arithmetic on its own line."""
    rows = conventions(*small_corpus(5, 3, False))
    # A row's twin on the other scale: the same settings (a tool may name it otherwise on that scale).
    twins = {(row.signature, row.arithmetic, row.aggregate, row.scale): row for row in rows}
    for row in rows:
        method = row.options.get("smooth_method", exactbleu.PRESETS[row.preset].options.get("smooth_method"))
        assert row.arithmetic == ("HF" if method is None else exactbleu.SMOOTHING[method].arithmetic), row
        on_1, on_100 = (twins[(row.signature, row.arithmetic, row.aggregate, scale)] for scale in (1, 100))
        assert row.percent == on_100.score
        assert math.isclose(on_100.score, 100 * on_1.score, rel_tol=1e-12, abs_tol=1e-300), row
    # mteval's scripts, CodeXGLUE's, ignite's and torchmetrics' too; t2t-bleu's takes one reference
    assert {row.arithmetic for row in rows} == {"HF", "sacrebleu", "NLTK", "COCO", "mteval", "CodeXGLUE", "ignite",
                                                "torchmetrics"}


def test_the_spaces_plot_draws_a_line_for_each_arithmetic_it_is_given():
    from space import spread

    rows = [{"score": score, "percent": percent, "scale": scale, "arithmetic": arithmetic, "aggregate": aggregate,
             "preset": "p", "options": {}}
            for arithmetic, score, percent, scale in (("HF", 0.5, 50.0, 1), ("another", 31.2, 31.2, 100))
            for aggregate in ("corpus", "sentence mean")]
    svg = spread.spread_plot({"conventions": rows, "matches": [], "reported": None})
    assert "another, corpus" in svg and "another, sentence mean" in svg and "HF, corpus" in svg
    assert "sacrebleu" not in svg  # a new arithmetic is drawn as itself, never on sacrebleu's line
    assert "from 31.20 to 50.00 BLEU" in svg


def peer_tokens(tokenizer, lowercase, rstrip):
    """sacrebleu's tokenizer of that name, as its BLEU applies it (lowercasing, right-strip)."""
    tokenize = BLEU(tokenize=tokenizer).tokenizer

    def tokens(line):
        line = line.lower() if lowercase else line
        return tokenize(line.rstrip() if rstrip else line).split()

    return tokens


def peer_score(predictions, references, draw):
    """The draw's score, computed by the peer whose convention it is, on its scale."""
    preset, smoothing, tokenizer, lowercase, keep, aggregate, scale = draw
    keep_count = 1 if keep == "first" else min(map(len, references)) if keep == "fewest" else None
    references = [group[:keep_count] for group in references]
    if preset == "sacrebleu":
        metric = BLEU(tokenize=tokenizer, lowercase=lowercase, smooth_method=smoothing,
                      effective_order=aggregate == "sentence mean")
        if aggregate == "corpus":
            value = metric.corpus_score(predictions, streams(references)).score
        else:
            value = stats.fmean([metric.sentence_score(p, group).score for p, group in zip(predictions, references)])
        return value if scale == 100 else value / 100
    if preset == "coco":  # pycocoevalcap's Bleu, on the tokens joined by spaces, as its tokenizer returns them
        from pycocoevalcap.bleu.bleu import Bleu

        tokens = peer_tokens(tokenizer, lowercase, rstrip=False)
        gts = {number: [" ".join(tokens(r)) for r in group] for number, group in enumerate(references)}
        score, scores = Bleu(4).compute_score(gts, {number: [" ".join(tokens(p))] for number, p in
                                                    enumerate(predictions)}, verbose=0)
        return (score[3] if aggregate == "corpus" else stats.fmean(scores[3])) * scale
    if preset == "nltk":
        tokens = peer_tokens(tokenizer, lowercase, rstrip=True)
        function = getattr(nltk_bleu.SmoothingFunction(), smoothing)
        hypotheses = [tokens(p) for p in predictions]
        groups = [[tokens(r) for r in group] for group in references]
        if aggregate == "corpus":
            value = nltk_quietly(nltk_bleu.corpus_bleu, groups, hypotheses, smoothing_function=function)
        else:
            value = stats.fmean([nltk_quietly(nltk_bleu.sentence_bleu, group, hypothesis, smoothing_function=function)
                                 for group, hypothesis in zip(groups, hypotheses)])
    else:
        tokens = peer_tokens(tokenizer, lowercase, rstrip=False)
        if aggregate == "corpus":
            value = hf_bleu(predictions, references, smooth=smoothing, tokenize=tokens)["bleu"]
        else:
            value = stats.fmean([hf_bleu([p], [group], smooth=smoothing, tokenize=tokens)["bleu"]
                                 for p, group in zip(predictions, references)])
    return value * scale


def convention_of(row):
    """A row's convention in the draw's terms, where a peer computes it; else None."""
    settings = exactbleu.resolve_settings(row.preset, **row.options)
    method = settings.scoring.smooth_method
    preset = next((name for name, methods in SMOOTHINGS.items() if method in methods), "default")
    if settings.statistics.ref_length != NATIVE_REF_LENGTH[preset] or settings.tokenize.tokenizer == "ptb":
        return None  # no peer takes that reference length; ptb's peer is a jar, tested on its own
    if exactbleu.PRESETS[row.preset].script:
        return None  # a script's recordings are its peer: tests/conventions/test_mt_scripts.py
    if preset == "nltk" and row.aggregate == "corpus" and method in NLTK_LAST_SENTENCE:
        return None
    smoothing = settings.scoring.smooth if preset == "default" else method
    return (preset, smoothing, settings.tokenize.tokenizer, settings.tokenize.lowercase,
            settings.statistics.keep_references, row.aggregate, row.scale)


@pytest.mark.slow  # the peers on twelve WMT17 draws, every match recomputed by its peer
@pytest.mark.parametrize("seed", range(12))
def test_identify_finds_the_convention_of_a_peers_number_and_only_what_reproduces_it(wmt17, seed):
    """Recall: the draw is among the matches. Precision: each match, computed by its peer again (or,
    for a reference length that no peer takes, by the public functions), rounds to the number."""
    rng = random.Random(seed)
    start = rng.randrange(0, 2900)
    names = sorted(wmt17["systems"])
    system, others = names[seed % len(names)], [name for name in names if name != names[seed % len(names)]]
    predictions = wmt17["systems"][system][start:start + 25]
    references = [[wmt17["reference"][line], *(wmt17["systems"][name][line] for name in others[:3])][:rng.randint(1, 4)]
                  for line in range(start, start + 25)]
    preset = rng.choice(sorted(SMOOTHINGS))
    smoothing = rng.choice(SMOOTHINGS[preset])
    uneven = len(set(map(len, references))) > 1 and smoothing not in NLTK_LAST_SENTENCE
    keeps = ["all", "first"] + (["fewest"] if uneven else [])
    keep = rng.choice(keeps)
    aggregate = "corpus" if keep == "fewest" else rng.choice(["corpus", "sentence mean"])
    if smoothing in NLTK_LAST_SENTENCE:
        aggregate = "sentence mean"
    draw = (preset, smoothing, rng.choice(TOKENIZERS), rng.random() < 0.5, keep, aggregate,
            rng.choice([1, 100]))
    decimals = rng.choice([1, 2]) + (2 if draw[-1] == 1 else 0)
    reported = f"{peer_score(predictions, references, draw):.{decimals}f}"
    found = identify(predictions, references, reported)
    assert found.reported == reported and found.decimals == decimals
    assert draw in [convention_of(row) for row in found.matches], (draw, reported)
    for row in found.matches:
        again = convention_of(row)
        value = peer_score(predictions, references, again) if again else expected_score(predictions, references, row)
        assert f"{value:.{decimals}f}" == reported, row


def test_sacrebleus_default_number_is_named_first(wmt17):
    predictions, references = wmt17["systems"]["uedin-nmt.4722"][:100], wmt17["reference"][:100]
    score = BLEU().corpus_score(predictions, [references]).score
    found = identify(predictions, references, f"{score:.1f}")
    assert (found.matches[0].preset, found.matches[0].options, found.matches[0].scale) == ("sacrebleu", {}, 100)
    number = round(score / 100, 4)  # a number is read as its shortest form: 0.271 has 3 decimals, 0.2713 has 4
    found = identify(predictions, references, number)
    assert found.decimals == len(repr(number).split(".")[1]) and found.matches


def test_a_number_nothing_gives_gets_the_nearest_conventions():
    predictions, references = small_corpus(6, 2, False)
    found = identify(predictions, references, "99.99", nearest=3)
    assert found.matches == [] and len(found.nearest) == 3
    distances = [abs(off) for _, off in found.nearest]
    assert distances == sorted(distances)
    assert all(abs(row.score - 99.99) == abs(off) for row, off in found.nearest)


@pytest.mark.parametrize("reported, written, decimals", [("27.3", "27.3", 1), ("0.273", "0.273", 3),
                                                         ("27.30", "27.30", 2), (27.3, "27.3", 1), (27, "27.0", 1),
                                                         (" 4 ", "4", 0)])
def test_a_reported_number_tells_its_own_rounding(reported, written, decimals):
    found = identify(["a b c"], [["a b c"]], reported, nearest=0)
    assert (found.reported, found.decimals) == (written, decimals)


@pytest.mark.parametrize("arguments, error, words", [
    ({"reported": "27,3"}, ValueError, "reported must be a score"),
    ({"reported": "-1"}, ValueError, "0 or more"),
    ({"reported": "1e2"}, ValueError, "0 or more in decimals"),
    ({"reported": float("nan")}, ValueError, "reported"),
    ({"reported": True}, TypeError, "reported must be a score"),
    ({"reported": "27.3", "nearest": -1}, ValueError, "nearest must be"),
    ({"reported": "27.3", "language": 7}, TypeError, "language must be"),
    ({"reported": "27.3", "tokenizers": "13a"}, TypeError, "tokenizers must be a list"),
    ({"reported": "27.3", "tokenizers": ["13b"]}, ValueError, "13b"),
])
def test_bad_arguments_are_named(arguments, error, words):
    with pytest.raises(error, match=words):
        identify(["a b"], [["a b"]], **arguments)


def test_a_script_whose_tokenizer_cannot_run_here_is_left_out(monkeypatch):
    """tokenizer.perl's pipelines read sacremoses' copy of its prefixes: without sacremoses, "Which
    BLEU?" in German scores every other convention."""
    predictions, references = small_corpus(7, 1, False)
    german = {row.preset for row in conventions(predictions, references, language="de")}
    assert {"tokenized-bleu", "t2t-ende"} <= german
    monkeypatch.setattr(exactbleu.Needs, "missing",
                        lambda needs: "pip install sacremoses" if "sacremoses" in needs.modules else "")
    without = {row.preset for row in conventions(predictions, references, language="de")}
    assert without == german - {"tokenized-bleu", "t2t-ende"}


def test_on_token_ids_every_convention_but_the_tokenizers_is_its_peers_on_the_ids_as_words():
    """Token ids are tokens already: no tokenizer, case or script to try, every other dimension; each
    row is what its peer gives on the ids written as words, split at spaces."""
    rng = random.Random(5)

    def ids():
        return [rng.randrange(7) for _ in range(rng.randint(0, 9))]

    predictions = [ids() for _ in range(8)]
    references = [[ids() for _ in range(rng.randint(1, 3))] for _ in predictions]
    words = [" ".join(map(str, one)) for one in predictions]
    groups = [[" ".join(map(str, one)) for one in group] for group in references]
    table = conventions(predictions, references)
    # 15 smoothing choices x 2 reference lengths x (all, first: both aggregates; fewest: the corpus) x 2 scales
    assert len(table) == 15 * 2 * (2 * 2 + 1) * 2
    assert not any({"tokenizer", "lowercase"} & set(row.options) or exactbleu.PRESETS[row.preset].script
                   for row in table)
    checked = 0
    for row in table:
        draw = convention_of(row._replace(options={**row.options, "tokenizer": "none"}))
        try:
            expected = None if draw is None else peer_score(words, groups, draw)
        except AssertionError:  # NLTK's method6 asserts a bigram match in every sentence
            expected = None
        if expected is not None:
            assert math.isclose(row.score, expected, rel_tol=1e-12, abs_tol=1e-300), row
            checked += 1
    assert checked >= 120  # the rest take a reference length that no peer takes, or NLTK asserts
    reported = f"{BLEU(tokenize='none').corpus_score(words, streams(groups)).score:.2f}"
    assert (identify(predictions, references, reported).matches[0].preset, reported) == ("sacrebleu", reported)


@pytest.mark.parametrize("arguments, error, words", [
    ({"language": "de"}, ValueError, "token ids, which are tokens already"),
    ({"tokenizers": ["13a"]}, ValueError, "token ids, which are tokens already"),
])
def test_token_ids_take_no_tokenizer_nor_language(arguments, error, words):
    with pytest.raises(error, match=words):
        conventions([[1, 2, 3]], [[[1, 2, 3]]], **arguments)


def test_token_ids_come_as_lists_or_arrays_not_tensors():
    import torch

    with pytest.raises(TypeError, match=r"not tensors: pass tensor.tolist\(\)"):
        conventions(torch.tensor([[1, 2, 3]]), [[[1, 2, 3]]])
