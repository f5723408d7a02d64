"""The module's own 13a tokenizer gives sacrebleu's mteval-v13a tokens."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactbleu import options, tokenizers
from exactbleu.counting import reading
from exactbleu.tokenizers import tokenizer_13a
from oracles import WORDS, sacrebleu_13a, segments


# Characters the 13a rules treat specially, mixed with arbitrary Unicode.
TRICKY = st.lists(st.sampled_from(list("0123456789.,-&;<>\"' \n\ta") + ["&amp;", "&quot;", "<skipped>"])).map("".join)


@given(st.text())
def test_random_unicode(line):
    assert tokenizer_13a.tokenize_13a(line) == sacrebleu_13a(line)


@given(st.lists(TRICKY, max_size=6).map("".join))
def test_digits_periods_commas_hyphens_entities(line):
    assert tokenizer_13a.tokenize_13a(line) == sacrebleu_13a(line)


@given(segments(max_words=20))
def test_vocabulary_segments(line):
    assert tokenizer_13a.tokenize_13a(line) == sacrebleu_13a(line)


@pytest.mark.parametrize("line", WORDS + ["a..5", "5..a", "1.,2", "a...5", "x-\ny", "&amp;quot;", "<skip<skipped>ped>"])
def test_known_cases(line):
    assert tokenizer_13a.tokenize_13a(line) == sacrebleu_13a(line)


@pytest.mark.slow  # a big corpus: the 17 files of WMT17, 51k lines
def test_every_wmt17_line(wmt17):
    lines = list(wmt17["reference"])
    for system in wmt17["systems"].values():
        lines.extend(system)
    mismatches = [line for line in lines if tokenizer_13a.tokenize_13a(line) != sacrebleu_13a(line)]
    assert len(lines) == 17 * 3004
    assert mismatches == []


def read_13a(lines):
    """The tokens of each line as the statistics read them: 13a cut out of the text's bytes."""
    text = tokenizers.reader_text(lines, options.resolve_settings().tokenize)
    assert isinstance(text, tokenizers.UncutText) and text.cuts is tokenizer_13a.cuts_13a
    encoded, _, _, starts, ends = reading.token_bounds(text)
    tokens = [encoded[start:end].decode("utf-8", "surrogatepass") for start, end in zip(starts.tolist(), ends.tolist())]
    per_line = reading.token_table(text, {}, True).lengths.tolist()
    return [tokens[sum(per_line[:number]) : sum(per_line[: number + 1])] for number in range(len(lines))]


LINES = st.lists(st.text(alphabet=st.characters(exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")),
                 min_size=1, max_size=5)


@given(LINES)
def test_the_byte_reader_cuts_random_unicode_as_sacrebleu(lines):
    assert read_13a(lines) == [sacrebleu_13a(line) for line in lines]


@given(st.lists(st.lists(TRICKY.filter(lambda text: "\n" not in text), max_size=6).map("".join), min_size=1, max_size=5))
def test_the_byte_reader_cuts_digits_periods_commas_hyphens_entities_as_sacrebleu(lines):
    assert read_13a(lines) == [sacrebleu_13a(line) for line in lines]


@pytest.mark.slow  # a big corpus: the 17 files of WMT17, 51k lines
def test_the_byte_reader_cuts_every_wmt17_line_as_sacrebleu(wmt17):
    for lines in [wmt17["reference"], *wmt17["systems"].values()]:
        assert read_13a(lines) == [sacrebleu_13a(line) for line in lines]
