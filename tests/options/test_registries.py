"""Every option kind is declared once, whole, in its registry, and everything reads it: a tokenizer
registered here (with a setting of its own, and a package it needs) appears in every face, the
command line, the metric, the Space, compat, the signature and the docs' tables, with the right
error while its package is missing (``MissingExtra``, naming the extra); a smoothing method and a preset likewise; and no registered
tokenizer is priced below what it costs."""

import contextlib
import dataclasses
import io
import json
import sys

import evaluate
import pytest

import exactbleu
from conftest import METRIC_PATH, ROOT
from exactbleu import (
    OPTIONS,
    PRESETS,
    SMOOTHING,
    TOKENIZERS,
    MissingExtra,
    Needs,
    Option,
    Preset,
    Price,
    Tokenizer,
    cli,
    compat,
)
from exactbleu import options, scoring, tokenizers
from space import pricing
from space import requests as space


@pytest.fixture
def shouting():
    """A tokenizer of upper-cased words, registered for one test."""
    declared = TOKENIZERS.register(Tokenizer("shouting", lambda settings: lambda line: line.upper().split(),
                                             "upper-cased words", Price(character=0.2e-6, line=10e-6)))
    yield declared
    TOKENIZERS.unregister("shouting")


def test_a_registered_tokenizer_appears_everywhere(shouting):
    arguments = cli._parser(None).parse_args(["references.txt", "-i", "hypotheses.txt", "-tok", "shouting"])
    assert arguments.tokenizer == "shouting"
    assert "shouting" in OPTIONS["tokenizer"].choices
    assert "tok:shouting" in options.signature(options.resolve_settings(tokenizer="shouting"), 1)
    assert exactbleu.corpus_bleu(["the Cat sat"], ["THE CAT SAT"], tokenizer="shouting", max_order=3)["bleu"] == 1.0
    assert "shouting" in space.tokenizers()
    cost = pricing.cost_of(["the cat sat"], [["the cat sat"]], "shouting", 4)
    assert cost.seconds == pytest.approx(22 * 0.2e-6 + 2 * 10e-6 + 18 * pricing.PACKED_PRICE[3])
    assert "| `shouting` | upper-cased words | yes | - | - | 0.2 µs a character, 10 µs a line |" in \
        tokenizers.tokenizers_table()


def test_a_tokenizer_pays_more_for_its_dear_characters():
    """A tokenizer that declares the characters dear to it pays more for each; one that cuts words only
    at them has its counting priced for its words and so many tokens more per dear character; and ptb's
    dear characters are where its rules run, none in plain words."""
    price = Price(character=0.2e-6, line=10e-6, dear=3e-6, dear_characters=tokenizers.SYMBOLS, tokens=(1, 2))
    TOKENIZERS.register(Tokenizer("symbolic", lambda settings: lambda line: line.split(), "words", price))
    try:
        cost = pricing.cost_of(["the cat, sat!"], [["the cat sat"]], "symbolic", 4)
        # 24 characters, 2 lines, 2 dear ones; 20 that may be tokens, but at most 6 words and 2 * 2 more
        assert (cost.tokens, cost.counted) == (20, 10)
        assert cost.seconds == pytest.approx(24 * 0.2e-6 + 2 * 3e-6 + 2 * 10e-6 + 10 * pricing.PACKED_PRICE[3])
        assert "0.2 µs a character, 10 µs a line, 3 µs more for each of its Unicode punctuation and symbols |" in \
            tokenizers.tokenizers_table()
        assert tokenizers.SYMBOLS.count("„Ja“, sagte er — 5 € & mehr") == 6
    finally:
        TOKENIZERS.unregister("symbolic")
    rules = TOKENIZERS["ptb"].price.dear_characters
    assert rules.count("a man riding a wave on a surfboard, then another wave.") == 0
    assert 0 < rules.count("Mr. Smith's dog") < rules.count("Mr. Smith's dog (brown)")


def _checked_volume(value, tokenizer):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 3:
        raise ValueError(f"volume must be an int from 1 to 3, got {value!r}")
    return value


VOLUME = Option("volume", "tokenize", 1, "how many times the `loud` tokenizer repeats each word", ("--volume",),
                {"type": int}, check=_checked_volume)
MISSING = Needs(("a_package_nobody_installed",), "`a-package`", 'pip install "exactbleu[loud]"')


def loud(settings):
    return lambda line: [word.upper() for word in line.split() for _ in range(settings["volume"])]


@pytest.fixture
def loud_tokenizer():
    """A tokenizer that takes a setting of its own and needs a package that is not installed."""
    declared = TOKENIZERS.register(Tokenizer("loud", loud, "words, upper-cased and repeated", Price(1e-6, 1e-5),
                                             signature=lambda settings: f"loud-{settings['volume']}",
                                             settings=(VOLUME,), needs=MISSING))
    yield declared
    TOKENIZERS.unregister("loud")


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main([str(argument) for argument in argv])
    return status, out.getvalue(), err.getvalue()


def test_a_tokenizer_that_needs_a_missing_package_is_refused_by_every_face_with_the_install_command(loud_tokenizer,
                                                                                                   tmp_path):
    error = ("tokenizer='loud' needs `a-package` (not installed here: no module named 'a_package_nobody_installed'): "
             'pip install "exactbleu[loud]"')
    for call in (lambda: exactbleu.corpus_bleu(["a b"], ["a b"], tokenizer="loud"),
                 lambda: evaluate.load(METRIC_PATH, tokenizer="loud"),
                 lambda: evaluate.load(METRIC_PATH).compute(predictions=["a b"], references=["a b"], tokenizer="loud",
                                                            volume=2),
                 lambda: compat.BLEU(tokenize="loud")):
        with pytest.raises(MissingExtra) as raised:
            call()
        assert str(raised.value) == error and raised.value.extra == "loud" and isinstance(raised.value, ImportError)
    # The Space offers what runs on it, and says what a missing one needs, but not how to install it there.
    with pytest.raises(space.InputError, match=r"tokenizer must be one of \[.*\], got 'loud'; 'loud' is not installed "
                                               r"on this Space: it needs `a-package`"):
        space.score("a b", "a b", tokenizer="loud")
    assert "loud" not in space.tokenizers()
    (tmp_path / "ref").write_text("a b\n", encoding="utf-8")
    status, out, err = run_cli(tmp_path / "ref", "-i", tmp_path / "ref", "-tok", "loud", "--volume", "2")
    assert status == 1 and out == "" and error in err
    # Its setting is an option everywhere, with its own check, and only with the tokenizer that takes it.
    assert "volume" in OPTIONS and "--volume" in cli._parser(None).format_help()
    assert "volume (default 1): how many times the loud tokenizer repeats each word" in \
        evaluate.load(METRIC_PATH).inputs_description
    with pytest.raises(ValueError, match=r"volume applies only to the tokenizers \['loud'\], got tokenizer='13a'"):
        exactbleu.corpus_bleu(["a b"], ["a b"], volume=2)
    assert "| `volume` | `1` | how many times the `loud` tokenizer repeats each word | tokenize |" in \
        options.options_table()
    assert "| `loud` | words, upper-cased and repeated | yes | `volume` | `a-package` (`pip install \"exactbleu[loud]\"`) |" \
        in tokenizers.tokenizers_table()


def test_a_tokenizer_with_a_setting_scores_alike_through_every_face_once_installed(loud_tokenizer, tmp_path,
                                                                                   monkeypatch):
    TOKENIZERS.register(dataclasses.replace(loud_tokenizer, needs=Needs(("json",), "`json`", "pip install json")))
    predictions, references = ["the the cat", "a dog"], [["the cat"], ["a dog ran"]]
    expected = exactbleu.corpus_bleu(predictions, references, tokenizer=lambda line: loud({"volume": 2})(line),
                                     max_order=2)["bleu"]
    ours = exactbleu.corpus_bleu(predictions, references, tokenizer="loud", volume=2, max_order=2, signature=True)
    assert ours["bleu"] == expected != exactbleu.corpus_bleu(predictions, references, tokenizer="loud", max_order=2)[
        "bleu"]
    assert "tok:loud-2" in ours["signature"]
    metric = evaluate.load(METRIC_PATH, tokenizer="loud", volume=2, max_order=2)
    assert metric.compute(predictions=predictions, references=references)["bleu"] == expected
    (tmp_path / "ref").write_text("".join(one[0] + "\n" for one in references), encoding="utf-8")
    (tmp_path / "hyp").write_text("".join(one + "\n" for one in predictions), encoding="utf-8")
    status, out, _ = run_cli(tmp_path / "ref", "-i", tmp_path / "hyp", "-tok", "loud", "--volume", "2",
                             "--max-order", "2", "--preset", "hf", "-w", "16")
    assert status == 0 and json.loads(out)["score"] == round(100 * expected, 16)
    with pytest.raises(ValueError, match="volume must be an int from 1 to 3, got 7"):
        exactbleu.corpus_bleu(predictions, references, tokenizer="loud", volume=7)
    assert "loud" in space.tokenizers()


def test_a_smoothing_method_is_read_from_its_registry():
    assert list(OPTIONS["smooth_method"].choices) == list(SMOOTHING)
    assert {name: method.default for name, method in SMOOTHING.items() if method.default is not None} == \
        {"floor": 0.1, "add-k": 1, "method1": 0.1}
    labels = space.smoothings()
    assert labels["floor (sacrebleu)"] == {"smooth_method": "floor"} and labels["method1 (NLTK)"] == {
        "smooth_method": "method1"}
    assert len(labels) == 2 + len(SMOOTHING) - 1  # none, add-one, and every method but sacrebleu's "none"
    for name, method in SMOOTHING.items():  # each one's formula is in its arithmetic's module
        settings = options.resolve_settings(smooth_method=name)
        assert name in scoring.arithmetic(settings).METHODS and scoring.arithmetic(settings).NAME == method.arithmetic
        assert f'| `"{name}"` | {method.arithmetic} |' in options.smoothing_table()
        assert name in evaluate.load(METRIC_PATH).inputs_description
        assert cli._parser(None).parse_args(["r", "-i", "h", "-s", name]).smooth_method == name


def test_a_preset_is_read_from_its_registry():
    PRESETS.register(Preset("smoothed-nltk", "NLTK's, smoothed", {**PRESETS["nltk"].options, "smooth_method": "method1"}))
    try:
        predictions, references = ["the cat sat"], [["the cat sat on the mat"]]
        expected = exactbleu.corpus_bleu(predictions, references, "nltk", smooth_method="method1")
        assert exactbleu.corpus_bleu(predictions, references, "smoothed-nltk") == expected
        assert evaluate.load(METRIC_PATH, "smoothed-nltk").compute(predictions=predictions,
                                                                    references=references) == expected
        assert cli._parser(None).parse_args(["r", "-i", "h", "--preset", "smoothed-nltk"]).preset == "smoothed-nltk"
        assert '"smoothed-nltk" (NLTK\'s, smoothed)' in evaluate.load(METRIC_PATH).inputs_description
    finally:
        PRESETS.unregister("smoothed-nltk")


MEASURED = json.loads((ROOT / "tests" / "data" / "space" / "measured.json").read_text(encoding="utf-8"))
MOST_OF_ESTIMATE = 3  # what scoring may take, in the declared price's estimates


def _lines(pattern, characters, line_length):
    text = (pattern * (characters // len(pattern) + 1))[:characters]
    return [text[start : start + line_length] for start in range(0, characters, line_length)]


def test_every_tokenizer_the_space_offers_was_measured():
    assert {row["tokenizer"] for row in MEASURED["tokenizers"]} == set(space.tokenizers()), \
        "run python benchmarks/load.py record"


@pytest.mark.parametrize("name", space.tokenizers())
def test_no_tokenizer_is_priced_below_what_it_costs(name):
    """On the inputs that cost tokenizers most, scoring as the Space does took (as `python
    benchmarks/load.py record` measured it on a quiet machine) at most three times what the
    tokenizer's declared price estimates."""
    worst = (0.0, "")
    for row in (row for row in MEASURED["tokenizers"] if row["tokenizer"] == name):
        lines = _lines(row["text"], row["characters"], row["line_length"])
        estimate = pricing.cost_of(lines, [[line] for line in lines], name, 4).seconds
        worst = max(worst, (row["seconds"] / estimate, f"{row['pattern']}, lines of {row['line_length']}"))
    assert worst[0] <= MOST_OF_ESTIMATE, worst


def test_the_docs_tables_come_from_the_declarations():
    page = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    sys.path.insert(0, str(ROOT / "docs"))
    import tables

    assert tables.rewritten(page) == page, "run python docs/tables.py"
    assert options.options_table() in page and options.presets_table() in page
    names = [option.name for option in options.DECLARED]
    assert len(set(names)) == len(names)  # one declaration per option
    # The declared defaults are HF's bleu: 13a, cased, not right-stripped, order 4, no smoothing,
    # the shortest reference's length.
    hf = options.resolve_settings()
    assert (hf.tokenize.tokenizer, hf.tokenize.lowercase, hf.tokenize.rstrip, hf.statistics.max_order,
            hf.statistics.ref_length, hf.scoring.smooth, hf.scoring.smooth_method) == \
        ("13a", False, False, 4, "shortest", False, None)
