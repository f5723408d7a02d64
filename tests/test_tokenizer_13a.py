"""The module's own 13a tokenizer gives sacrebleu's mteval-v13a tokens."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oracles import WORDS, load_module, sacrebleu_13a, segments

bleu_metric = load_module()

# Characters the 13a rules treat specially, mixed with arbitrary Unicode.
TRICKY = st.lists(st.sampled_from(list("0123456789.,-&;<>\"' \n\ta") + ["&amp;", "&quot;", "<skipped>"])).map("".join)


@given(st.text())
def test_random_unicode(line):
    assert bleu_metric.tokenize_13a(line) == sacrebleu_13a(line)


@given(st.lists(TRICKY, max_size=6).map("".join))
def test_digits_periods_commas_hyphens_entities(line):
    assert bleu_metric.tokenize_13a(line) == sacrebleu_13a(line)


@given(segments(max_words=20))
def test_vocabulary_segments(line):
    assert bleu_metric.tokenize_13a(line) == sacrebleu_13a(line)


@pytest.mark.parametrize("line", WORDS + ["a..5", "5..a", "1.,2", "a...5", "x-\ny", "&amp;quot;", "<skip<skipped>ped>"])
def test_known_cases(line):
    assert bleu_metric.tokenize_13a(line) == sacrebleu_13a(line)


def test_every_wmt17_line(wmt17):
    lines = list(wmt17["reference"])
    for system in wmt17["systems"].values():
        lines.extend(system)
    mismatches = [line for line in lines if bleu_metric.tokenize_13a(line) != sacrebleu_13a(line)]
    assert len(lines) == 17 * 3004
    assert mismatches == []
