"""Every option kind is declared once, in a registry, and everything reads it: a tokenizer
registered here appears in the command line's choices, the Space's choices with its price, the
signature and the docs' table; and no registered tokenizer is priced below what it costs."""

import time

import pytest

import exactbleu
from exactbleu import cli, scoring, tokenizers
from exactbleu.options import OPTION, resolve_settings, signature
from exactbleu.tokenizers import TOKENIZERS, Price, Tokenizer, register
from space import pricing
from space import requests as space


@pytest.fixture
def shouting():
    """A tokenizer of upper-cased words, registered for one test."""
    declared = Tokenizer("shouting", lambda tokenize: lambda line: line.upper().split(), True,
                         lambda tokenize: "shouting", "upper-cased words", Price(character=0.2e-6, line=10e-6))
    register(declared)
    yield declared
    del TOKENIZERS["shouting"]


def test_a_registered_tokenizer_appears_everywhere(shouting):
    arguments = cli._parser(None).parse_args(["references.txt", "-i", "hypotheses.txt", "-tok", "shouting"])
    assert arguments.tokenizer == "shouting"
    assert "shouting" in OPTION["tokenizer"].choices
    assert "tok:shouting" in signature(resolve_settings(tokenizer="shouting"), 1)
    assert exactbleu.corpus_bleu(["the Cat sat"], ["THE CAT SAT"], tokenizer="shouting", max_order=3)["bleu"] == 1.0
    assert "shouting" in space.tokenizers()
    cost = pricing.cost_of(["the cat sat"], [["the cat sat"]], "shouting", 4)
    assert cost.seconds == pytest.approx(22 * 0.2e-6 + 2 * 10e-6 + 18 * pricing.PACKED_PRICE[3])
    assert "| `shouting` | upper-cased words | yes | - | 0.2 µs a character, 10 µs a line |" in tokenizers.markdown_table()


def test_a_smoothing_method_is_read_from_its_registry():
    assert list(OPTION["smooth_method"].choices) == list(scoring.SMOOTHING)
    assert {name: method.default for name, method in scoring.SMOOTHING.items() if method.default is not None} == \
        {"floor": 0.1, "add-k": 1, "method1": 0.1}
    labels = space.smoothings()
    assert labels["floor (sacrebleu)"] == {"smooth_method": "floor"} and labels["method1 (NLTK)"] == {
        "smooth_method": "method1"}
    assert len(labels) == 2 + len(scoring.SMOOTHING) - 1  # none, add-one, and every method but sacrebleu's "none"


PATTERNS = {
    "words": "hello ", "periods": "1.2. ", "abbreviations": "a.b. ", "punctuation": "!?,;:", "ampersand": "& ",
    "digits": "1" * 200 + " ", "ascii": "".join(chr(33 + (7 * i) % 94) for i in range(2000)),
    "cjk": "".join(chr(0x4E00 + (37 * i) % 20000) for i in range(2000)),
    "hangul": "".join(chr(0xAC00 + (41 * i) % 11000) for i in range(2000)),
    "kana": "".join(chr(0x3041 + (5 * i) % 85) for i in range(2000)),
}


def _lines(pattern, characters, line_length):
    text = (pattern * (characters // len(pattern) + 1))[:characters]
    return [text[start : start + line_length] for start in range(0, characters, line_length)]


# Each input has 10,000 characters, so that a call's fixed costs (milliseconds) are noise beside
# its price; one that its price says takes longer than half a second is cut to about that, as
# prices grow in proportion to the input (sacremoses on periods would take 3 s a call).
CHARACTERS, MOST_SECONDS = 10_000, 0.5


@pytest.mark.slow
@pytest.mark.parametrize("name", space.tokenizers())
def test_no_tokenizer_is_priced_below_what_it_costs(name):
    """On the inputs the price benchmark found dearest, scoring as the Space does takes at most
    three times what the tokenizer's declared price estimates."""
    settings = resolve_settings(tokenizer=name, max_order=4, sentence_level=True, signature=True)
    exactbleu.api.result_of(["warm up ."], [["warm up ."]], settings, exactbleu.api.Counting(None, 1, None))
    worst = (0.0, "")
    for pattern_name, pattern in PATTERNS.items():
        for line_length in (100, 4000):
            lines = _lines(pattern, CHARACTERS, line_length)
            estimate = pricing.cost_of(lines, [[line] for line in lines], name, 4).seconds
            if estimate > MOST_SECONDS:
                lines = _lines(pattern, int(CHARACTERS * MOST_SECONDS / estimate), line_length)
                estimate = pricing.cost_of(lines, [[line] for line in lines], name, 4).seconds
            best = float("inf")
            for _ in range(2):
                started = time.perf_counter()
                exactbleu.api.result_of(lines, [[line] for line in lines], settings,
                                        exactbleu.api.Counting(None, 1, None))
                best = min(best, time.perf_counter() - started)
            worst = max(worst, (best / estimate, f"{pattern_name}, lines of {line_length}"))
    print(f"{name}: at most {worst[0]:.2f} of its estimate ({worst[1]})")
    assert worst[0] <= 3, worst
