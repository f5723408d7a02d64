"""The "moses" tokenizer gives sacremoses' tokens (escape=False) for en, de and fr."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacremoses import MosesTokenizer

from exactbleu import options, tokenizers
from oracles import segments

SENTENCES = [
    "This isn't a test, it's \"real\" -- costs $3.50 & more...",
    "Das Haus (am See) kostet 1.000,50 € — oder?",
    "L'homme qu'il a vu: « bonjour » ; c'est ça !",
    "a&b <tag> 'quoted' [x] {y} |z| 5-6 U.S.A.",
]


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
def test_known_sentences(lang, wmt17):
    tokenize = tokenizers.make_tokenizer(options.resolve_settings(tokenizer="moses", lang=lang).tokenize)
    moses = MosesTokenizer(lang=lang)
    for line in SENTENCES + wmt17["reference"][:200]:
        assert tokenize(line) == moses.tokenize(line, escape=False)


@pytest.mark.parametrize("lang", ["en", "de", "fr"])
@given(line=st.one_of(segments(), st.text(max_size=30)))
def test_random_segments(lang, line):
    tokenize = tokenizers.make_tokenizer(options.resolve_settings(tokenizer="moses", lang=lang).tokenize)
    assert tokenize(line) == MosesTokenizer(lang=lang).tokenize(line, escape=False)


def test_moses_through_the_metric(bleu):
    result = bleu.compute(predictions=["It's 5 o'clock & I'm late."], references=[["It's 5 o'clock & I'm late."]],
                          tokenizer="moses", signature=True)
    assert result["bleu"] == 1.0
    assert "tok:moses-en" in result["signature"]
