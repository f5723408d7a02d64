"""Tokenizing a corpus at once gives exactly what tokenizing it one segment at a time gives:
the 13a closed form of mteval's substitutions, the corpus token text, and a custom tokenizer's
tokens escaped one to one, whatever they hold."""

import itertools
import random
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactbleu import options, tokenizers
from exactbleu.counting import reading
from exactbleu.tokenizers import tokenizer_13a, tokenizing
from oracles import hf_bleu, sacrebleu_13a, segments

DEFAULT = options.resolve_settings()
pytestmark = pytest.mark.usefixtures("chunked_path")


def test_token_texts_split_on_exactly_what_str_split_splits_on():
    whitespace = {chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()}
    assert set(tokenizing._WHITESPACE) == whitespace
    rng = random.Random(17)
    pieces = sorted(whitespace) + ["a", "é", "日本", "\x00", "\U0001f600", "abcdefghijklmnopq"]
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))).replace("\n", " ") for _ in range(200)]
    per_line, line, _, _, _ = reading.token_table("\n".join(lines), {}, grow=True)
    assert per_line.tolist() == [len(text.split()) for text in lines]
    assert line.tolist() == [number for number, text in enumerate(lines) for _ in text.split()]


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


@pytest.mark.parametrize("line", ["a.\ue000, 5.,3 x\ue001y 1..2", "\ue000. \ue001, a..5", "e.g. 3,5-7"])
def test_private_use_characters_beside_periods_and_commas(line):
    """Text of any characters beside the marks, the private-use area's too, tokenizes as sacrebleu's 13a."""
    text = tokenizers.token_text([line, "x. y"], DEFAULT.tokenize)
    assert [tokens.split() for tokens in text.split("\n")] == [sacrebleu_13a(line), sacrebleu_13a("x. y")]


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
