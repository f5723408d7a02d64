"""NLTK's ``word_tokenize``, as HELM, DeepEval and Azure AI Evaluation split text before NLTK's
``sentence_bleu``: Punkt's English sentences, each split by NLTK's improved Treebank tokenizer
(which parts a period from a word only at the end of its text, so "world. How" keeps "world." whole
unless Punkt ends a sentence there). The installed NLTK splits (the ``nltk`` extra); Punkt's English
parameters, which NLTK downloads as ``punkt_tab``, are carried here (``punkt_english/``, MIT): the
split runs offline, and never downloads. Azure's ``nltk_tokenize`` takes ``word_tokenize`` on an
ASCII string, and NLTK's NIST ``international_tokenize`` on any other (one "é" switches it), which
reads Perl's Unicode property lists (NLTK's ``perluniprops``, Unicode 7.0), carried here too
(``perluniprops/``) and handed to NLTK as it first loads that tokenizer.
"""

import functools
import importlib.resources
import re
import sys
import threading
import warnings
from typing import TYPE_CHECKING, TypeVar

from ..registry import install_command
from .registry import DearCharacters, Needs, Price, Tokenizer, fixed

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

    return PunktSentenceTokenizer(punkt_english()), _unguarded(NLTKWordTokenizer())


def tokenize_nltk_words(line: str) -> list[str]:
    """NLTK's ``word_tokenize(line)``: Punkt's English sentences, each split by NLTK's Treebank tokenizer."""
    sentences, words = _splitters()
    return [token for sentence in sentences.tokenize(line) for token in words.tokenize(sentence)]


class _PerlUniProps:
    """What NLTK's NIST tokenizer reads of ``nltk.corpus.perluniprops``: a category's characters,
    as NLTK's reader gives them (the file's text, stripped, character by character)."""

    def chars(self, category: str) -> list[str]:
        return list(_carried("perluniprops", f"{category}.txt").strip())


_LOADING = threading.Lock()  # the counting threads may each first split with Azure's tokenizer at once


@functools.cache
def _nist() -> "NISTTokenizer":
    """NLTK's NIST tokenizer, its class built on the carried property lists: NLTK's module reads
    them as it is first imported, from ``nltk.corpus.perluniprops``, which stands for the carried
    lists only while it imports (an NLTK that loaded it already keeps its own, the same lists)."""
    import nltk.corpus

    with _LOADING:  # one swap at a time, so that each puts back NLTK's own loader
        if "nltk.tokenize.nist" not in sys.modules:
            downloaded = nltk.corpus.perluniprops
            nltk.corpus.perluniprops = _PerlUniProps()
            try:
                import nltk.tokenize.nist
            finally:
                nltk.corpus.perluniprops = downloaded
    from nltk.tokenize.nist import NISTTokenizer

    return _unguarded(NISTTokenizer())


# What Python's re and the regex module read differently: \w, \s, \d and \b (their Unicode tables
# differ: re's \s takes U+001C, regex's \w a combining accent) and case folding.
_ENGINE_BOUND = re.compile(r"\\[wWsSdDbB]|\(\?[a-zA-Z]*i")
Splitter = TypeVar("Splitter")


def _unguarded(tokenizer: Splitter) -> Splitter:
    """The tokenizer, its patterns compiled again without NLTK's guard: NLTK runs each pattern
    through the regex module under a timeout (against patterns that backtrack without end, which
    its tokenizers' own do not), which costs the Treebank split half its time, and regex takes 40
    times as long as Python's re on the NIST tokenizer's classes of thousands of characters. Each
    guarded pattern that re reads as regex does goes to re, every other to regex itself, with its
    flags, and those NLTK compiles with re stay: the same matches. Set on this instance alone; its
    own methods run them."""
    for name in dir(type(tokenizer)):
        if name.isupper():
            setattr(tokenizer, name, _compiled(getattr(tokenizer, name)))
    return tokenizer


def _compiled(value: object) -> object:
    """A pattern (or a list or tuple of them, with their replacements) compiled as ``_unguarded`` says."""
    import regex  # loaded with NLTK's tokenizers, as the command line's --help needs none

    if isinstance(value, (list, tuple)):
        return type(value)(_compiled(one) for one in value)
    pattern, flags = getattr(value, "pattern", None), getattr(value, "flags", None)
    if isinstance(value, re.Pattern) or not isinstance(pattern, str) or not isinstance(flags, int):
        return value  # one of re's already (the Treebank split's contractions), or no pattern
    if not flags & re.I and not _ENGINE_BOUND.search(pattern):
        try:
            with warnings.catch_warnings():  # a class that lists "[" and ":" side by side warns of sets to come
                warnings.simplefilter("ignore", FutureWarning)
                return re.compile(pattern, flags & (re.M | re.S | re.X | re.U))
        except re.error:  # a construct re lacks (a possessive quantifier before Python 3.11)
            pass
    return regex.compile(pattern, flags)


def tokenize_azure(line: str) -> list[str]:
    """Azure AI Evaluation's ``nltk_tokenize(line)``: ``word_tokenize`` where the line is ASCII, else
    NLTK's NIST ``international_tokenize``."""
    if line.isascii():
        return tokenize_nltk_words(line)
    tokens: list[str] = _nist().international_tokenize(line)
    return tokens


# Each sentence that Punkt ends costs about 150 µs: the Treebank split's forty passes over it, and
# Punkt's own. Azure's split costs no more: beyond ASCII, NLTK's NIST tokenizer costs less.
SENTENCE_ENDS = DearCharacters("sentence ends (. ? !)",
                               lambda text: text.count(".") + text.count("?") + text.count("!"))
_PRICE = Price(character=1.2e-6, line=80e-6, dear=150e-6, dear_characters=SENTENCE_ENDS)
_NEEDS = Needs(("nltk",), "NLTK", install_command("nltk"))

TOKENIZER = Tokenizer(
    "nltk-words", fixed(tokenize_nltk_words),
    "NLTK's `word_tokenize` (English Punkt sentences, then its Treebank split), as HELM, DeepEval and Azure AI "
    "Evaluation tokenize", _PRICE, rstrip=False, needs=_NEEDS, script="NLTK word_tokenize")
AZURE = Tokenizer(
    "azure", fixed(tokenize_azure),
    "Azure AI Evaluation's `nltk_tokenize`: NLTK's `word_tokenize` on an ASCII string, its NIST "
    "`international_tokenize` on any other", _PRICE, rstrip=False, needs=_NEEDS,
    script="Azure AI Evaluation nltk_tokenize")
