"""Tokenizers: a segment becomes a list of tokens, and a corpus becomes one token text.

Every tokenizer is its tool's, token for token. Each family lives in a module of its own that
declares its tokenizers whole (``registry.Tokenizer``): ``tokenizer_13a`` (HF's default and WMT's),
``simple`` (sacrebleu's intl, zh, char and none), ``moses``, ``mecab`` (Korean and Japanese),
``spm`` (SentencePiece, spBLEU), ``ptb`` (pycocoevalcap's), ``scripts`` (the MT scripts' splits),
``moses_perl`` (Moses's tokenizer.perl, tokenized BLEU's pipelines), ``frameworks``
(evaluation frameworks' own, CodeXGLUE's) and ``nltk_words`` (NLTK's ``word_tokenize``, and Azure
AI Evaluation's split). They are registered here, once, in ``TOKENIZERS``; ``tokenizing`` makes a
corpus's token text under any of them.

Adding a tokenizer: its module, its entry in ``_FAMILIES`` below, and its test.
"""

from collections.abc import Callable, Iterable

from . import frameworks, mecab, moses, moses_perl, nltk_words, ptb, scripts, simple, spm, tokenizer_13a
from .ptb import ptb_tokens
from .registry import (
    NON_ASCII,
    NOT_PLAIN_ASCII,
    PUNCTUATION_AND_TENTHS,
    RUN_LENGTH,
    SYMBOLS,
    TOKENIZERS,
    DearCharacters,
    Needs,
    Price,
    Tokenizer,
    TokenizerSettings,
    UncutText,
    register,
    setting_options,
    takers,
    tokenizers_table,
)
from .simple import WORDS
from .tokenizing import (
    OTHER_SPACES,
    OTHER_SPACES_TO_SPACE,
    Tokenizing,
    make_tokenizer,
    reader_text,
    signature_name,
    token_text,
)

__all__ = [
    "DEFAULT",
    "NON_ASCII",
    "NOT_PLAIN_ASCII",
    "OTHER_SPACES",
    "OTHER_SPACES_TO_SPACE",
    "PUNCTUATION_AND_TENTHS",
    "RUN_LENGTH",
    "SYMBOLS",
    "TOKENIZERS",
    "WORDS",
    "DearCharacters",
    "Needs",
    "Price",
    "Tokenizer",
    "TokenizerSettings",
    "Tokenizing",
    "UncutText",
    "make_tokenizer",
    "ptb_tokens",
    "reader_text",
    "register",
    "rstripped_by_default",
    "setting_options",
    "signature_name",
    "takers",
    "token_text",
    "tokenizer_for_language",
    "tokenizers_table",
]

_FAMILIES = ((tokenizer_13a.TOKENIZER,), simple.TOKENIZERS, (moses.TOKENIZER,), mecab.TOKENIZERS, spm.TOKENIZERS,
             ptb.TOKENIZERS, scripts.TOKENIZERS, moses_perl.TOKENIZERS, frameworks.TOKENIZERS,
             (nltk_words.TOKENIZER, nltk_words.AZURE))
for _family in _FAMILIES:
    for _tokenizer in _family:
        register(_tokenizer)

# HF's bleu and sacrebleu's BLEU tokenize with 13a unless told otherwise.
DEFAULT = tokenizer_13a.TOKENIZER.name


def tokenizer_for_language(language: str) -> str:
    """sacrebleu's tokenizer for a target language (its ``-l`` and ``BLEU(trg_lang=)``): the one
    declared for that language, else the default."""
    chosen = [name for name, tokenizer in TOKENIZERS.items() if language in tokenizer.languages]
    return chosen[0] if chosen else DEFAULT


def rstripped_by_default(tokenizer: str | Callable[[str], Iterable[str]]) -> bool:
    """Whether sacrebleu right-strips a segment before this tokenizer: its own ones, yes; HF's
    13a, sacremoses and a callable, no. (13a's tokens differ only for a segment that ends in a
    hyphen and a line break.)"""
    return not callable(tokenizer) and TOKENIZERS[tokenizer].rstrip
