"""Moses tokens, as sacremoses gives them with ``escape=False`` (no ``&amp;`` escapes)."""

from typing import List

_MOSES_TOKENIZERS = {}


def tokenize_moses(line: str, lang: str = "en") -> List[str]:
    """sacremoses' ``MosesTokenizer(lang).tokenize(line, escape=False)``: no ``&amp;`` escapes."""
    if lang not in _MOSES_TOKENIZERS:
        from sacremoses import MosesTokenizer

        _MOSES_TOKENIZERS[lang] = MosesTokenizer(lang=lang)
    return _MOSES_TOKENIZERS[lang].tokenize(line, escape=False)




def signature_name(lang: str) -> str:
    """The tokenizer's name in a signature: its language too, as the tokens depend on it."""
    return f"moses-{lang}"
