"""NLTK's ``word_tokenize``, as HELM, DeepEval and Azure AI Evaluation split text before NLTK's
``sentence_bleu``.

``word_tokenize(text)`` first splits the text into sentences with Punkt, trained on English, then
splits each sentence with NLTK's improved Treebank tokenizer. The sentence split matters: the
Treebank split parts a period from a word only at the end of its text, so "world. How" keeps
"world." whole unless Punkt has ended a sentence after it. The installed NLTK does both splits
(the ``nltk`` extra). Punkt's English parameters, which NLTK downloads as ``punkt_tab``, are
carried here (``punkt_english/``, MIT, as nltk_data publishes them): the tokenizer runs offline,
and never downloads.

Azure AI Evaluation's ``nltk_tokenize`` splits a string with ``word_tokenize`` where it is ASCII,
and with NLTK's NIST tokenizer (``international_tokenize``) where it is not: one "é" or curly quote
switches that string. The NIST tokenizer reads Perl's Unicode property lists (NLTK's
``perluniprops``, Unicode 7.0), carried here too (``perluniprops/``) and handed to NLTK as it first
loads the tokenizer.
"""

import functools
import importlib.resources
import re
import sys
import warnings
from typing import TYPE_CHECKING

from ..registry import install_command
from .registry import DearCharacters, Needs, Price, Tokenizer

if TYPE_CHECKING:
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.nist import NISTTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

_PARAMETERS = "punkt_english"


def _carried(folder: str, name: str) -> str:
    """The text of a data file carried in the package."""
    return (importlib.resources.files(__package__) / folder / name).read_text(encoding="utf-8")


def _lines(name: str) -> list[str]:
    """A parameter file's lines, each without its line break, as NLTK reads its ``punkt_tab`` files."""
    text = _carried(_PARAMETERS, name)
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def punkt_english() -> "PunktParameters":
    """Punkt's English parameters (NLTK's ``punkt_tab/english``), read from the package."""
    from nltk.tokenize.punkt import PunktParameters

    parameters = PunktParameters()
    parameters.abbrev_types = set(_lines("abbrev_types.txt"))
    parameters.collocations = {tuple(line.split("\t")) for line in _lines("collocations.tab")}
    parameters.sent_starters = set(_lines("sent_starters.txt"))
    for line in _lines("ortho_context.tab"):
        word, flags = line.split("\t")
        parameters.ortho_context[word] = int(flags)
    return parameters


@functools.cache
def _splitters() -> "tuple[PunktSentenceTokenizer, NLTKWordTokenizer]":
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer(punkt_english()), NLTKWordTokenizer()


def tokenize_nltk_words(line: str) -> list[str]:
    """NLTK's ``word_tokenize(line)``: Punkt's English sentences, each split by NLTK's Treebank tokenizer."""
    sentences, words = _splitters()
    return [token for sentence in sentences.tokenize(line) for token in words.tokenize(sentence)]


# Each sentence that Punkt ends costs about 150 µs: the Treebank split's forty passes over it, and Punkt's own.
SENTENCE_ENDS = DearCharacters("sentence ends (. ? !)",
                               lambda text: text.count(".") + text.count("?") + text.count("!"))

class _PerlUniProps:
    """What NLTK's NIST tokenizer reads of ``nltk.corpus.perluniprops``: a category's characters,
    as NLTK's reader gives them (the file's text, stripped, character by character)."""

    def chars(self, category: str) -> list[str]:
        return list(_carried("perluniprops", f"{category}.txt").strip())


@functools.cache
def _nist() -> "NISTTokenizer":
    """NLTK's NIST tokenizer, its class built on the carried property lists: NLTK's module reads
    them as it is first imported, from ``nltk.corpus.perluniprops``, which stands for the carried
    lists only while it imports (an NLTK that loaded it already keeps its own, the same lists)."""
    import nltk.corpus

    if "nltk.tokenize.nist" not in sys.modules:
        downloaded = nltk.corpus.perluniprops
        nltk.corpus.perluniprops = _PerlUniProps()
        try:
            import nltk.tokenize.nist
        finally:
            nltk.corpus.perluniprops = downloaded
    from nltk.tokenize.nist import NISTTokenizer

    return _on_python_re(NISTTokenizer())


# What Python's re and the regex module read differently: \w, \s, \d and \b (their Unicode tables
# differ: re's \s takes U+001C, regex's \w a combining accent) and case folding.
_ENGINE_BOUND = re.compile(r"\\[wWsSdDbB]|\(\?[a-zA-Z]*i")


def _on_python_re(tokenizer: "NISTTokenizer") -> "NISTTokenizer":
    """The tokenizer, its patterns that Python's re reads as the regex module does compiled by re:
    NLTK runs each of its patterns through regex under a timeout (its guard against patterns that
    backtrack without end, which these do not), 40 times slower on the NIST tokenizer's classes of
    thousands of characters. Set on this instance alone; its own methods run them."""
    for name in dir(type(tokenizer)):
        if name.isupper():
            setattr(tokenizer, name, _plain(getattr(tokenizer, name)))
    return tokenizer


def _plain(value: object) -> object:
    """A pattern (or a list or tuple of them, with their replacements) on Python's re, where it reads alike."""
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(one) for one in value)
    pattern, flags = getattr(value, "pattern", None), getattr(value, "flags", None)
    if not isinstance(pattern, str) or not isinstance(flags, int) or flags & re.I or _ENGINE_BOUND.search(pattern):
        return value
    try:
        with warnings.catch_warnings():  # a class that lists "[" and ":" side by side warns of nested sets to come
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(pattern, flags & (re.M | re.S | re.X | re.U))
    except re.error:
        return value


def tokenize_azure(line: str) -> list[str]:
    """Azure AI Evaluation's ``nltk_tokenize(line)``: ``word_tokenize`` where the line is ASCII, else
    NLTK's NIST ``international_tokenize``."""
    if line.isascii():
        return tokenize_nltk_words(line)
    tokens: list[str] = _nist().international_tokenize(line)
    return tokens


TOKENIZER = Tokenizer(
    "nltk-words", lambda settings: tokenize_nltk_words,
    "NLTK's `word_tokenize` (English Punkt sentences, then its Treebank split), as HELM, DeepEval and Azure AI "
    "Evaluation tokenize",
    Price(character=1.2e-6, line=80e-6, dear=150e-6, dear_characters=SENTENCE_ENDS),
    rstrip=False, needs=Needs(("nltk",), "NLTK", install_command("nltk")), script="NLTK word_tokenize")
AZURE = Tokenizer(
    "azure", lambda settings: tokenize_azure,
    "Azure AI Evaluation's `nltk_tokenize`: NLTK's `word_tokenize` on an ASCII string, its NIST "
    "`international_tokenize` on any other",
    Price(character=1.2e-6, line=80e-6, dear=150e-6, dear_characters=SENTENCE_ENDS),
    rstrip=False, needs=Needs(("nltk",), "NLTK", install_command("nltk")), script="Azure AI Evaluation nltk_tokenize")
