"""Moses tokens, as sacremoses gives them with ``escape=False`` (no ``&amp;`` escapes), in the
language its ``lang`` setting names."""

from typing import TYPE_CHECKING

from ..registry import Option, install_command
from .registry import NOT_PLAIN_ASCII, Needs, Price, Tokenizer

if TYPE_CHECKING:
    from sacremoses import MosesTokenizer

_MOSES_TOKENIZERS: dict[str, "MosesTokenizer"] = {}


def tokenize_moses(line: str, lang: str = "en") -> list[str]:
    """sacremoses' ``MosesTokenizer(lang).tokenize(line, escape=False)``: no ``&amp;`` escapes."""
    if lang not in _MOSES_TOKENIZERS:
        from sacremoses import MosesTokenizer

        _MOSES_TOKENIZERS[lang] = MosesTokenizer(lang=lang)
    tokens: list[str] = _MOSES_TOKENIZERS[lang].tokenize(line, escape=False)
    return tokens


def _checked_lang(value: object, tokenizer: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"lang must be a language code such as 'en', got {value!r:.80}")
    return value


LANG = Option("lang", "tokenize", "en", 'the language of the `"moses"` tokenizer', ("--lang",), check=_checked_lang)


TOKENIZER = Tokenizer(
    "moses", lambda settings: lambda line: tokenize_moses(line, str(settings["lang"])),
    "sacremoses' `MosesTokenizer(lang)`, `escape=False`",
    Price(character=8.5e-6, line=64e-6, dear=8.5e-6, dear_characters=NOT_PLAIN_ASCII, period=1.1e-3),
    rstrip=False, signature=lambda settings: f"moses-{settings['lang']}", settings=(LANG,),
    needs=Needs(("sacremoses",), "`sacremoses`", install_command("moses")))
