"""NLTK's ``word_tokenize``, as HELM, DeepEval and Azure AI Evaluation split text before NLTK's
``sentence_bleu``.

``word_tokenize(text)`` first splits the text into sentences with Punkt, trained on English, then
splits each sentence with NLTK's improved Treebank tokenizer. The sentence split matters: the
Treebank split parts a period from a word only at the end of its text, so "world. How" keeps
"world." whole unless Punkt has ended a sentence after it. The installed NLTK does both splits
(the ``nltk`` extra). Punkt's English parameters, which NLTK downloads as ``punkt_tab``, are
carried here (``punkt_english/``, MIT, as nltk_data publishes them): the tokenizer runs offline,
and never downloads.
"""

import functools
import importlib.resources
from typing import TYPE_CHECKING

from ..registry import install_command
from .registry import DearCharacters, Needs, Price, Tokenizer

if TYPE_CHECKING:
    from nltk.tokenize.destructive import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

_PARAMETERS = "punkt_english"


def _lines(name: str) -> list[str]:
    """A parameter file's lines, each without its line break, as NLTK reads its ``punkt_tab`` files."""
    text = (importlib.resources.files(__package__) / _PARAMETERS / name).read_text(encoding="utf-8")
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

TOKENIZER = Tokenizer(
    "nltk-words", lambda settings: tokenize_nltk_words,
    "NLTK's `word_tokenize` (English Punkt sentences, then its Treebank split), as HELM, DeepEval and Azure AI "
    "Evaluation tokenize",
    Price(character=1.2e-6, line=80e-6, dear=150e-6, dear_characters=SENTENCE_ENDS),
    rstrip=False, needs=Needs(("nltk",), "NLTK", install_command("nltk")), script="NLTK word_tokenize")
