"""The tokenizer registry: each tokenizer declared once, whole, by its own module.

A ``Tokenizer`` declares everything about itself: its function, its name and its name in a
signature, whether sacrebleu right-strips a segment before it, the settings it takes and how they
are checked, what it needs installed and the extra that installs it, whether threads may share
it, its fast paths, the target languages sacrebleu chooses it for, and its price in the Space.
The options, the signature, the counting engine, the command line, the metric's description, the
docs' table and the Space read these declarations; nothing else names a tokenizer.
"""

import dataclasses
import functools
import importlib.util
import re
import string
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, ClassVar, Optional

from ..registry import MissingExtra, Option, Registry, markdown_table

if TYPE_CHECKING:
    import regex

# A tokenizer's settings, checked: its options' values by name.
TokenizerSettings = Mapping[str, object]
Segmenter = Callable[[str], list[str]]


_ASCII_PUNCTUATION = string.punctuation.encode()  # every one of them Unicode's P* or S*


@dataclasses.dataclass(frozen=True)
class DearCharacters:
    """The characters that cost a tokenizer more than plain text does, in the docs' words, and how
    many a text holds (``count``): counted before any tokenizing, at a small part of what tokenizing
    the text costs (bytes.translate, 1 ns a character; a regex, tens)."""

    what: str
    count: Callable[[str], int]


def _ascii_punctuation(text: str) -> int:
    octets = text.encode("utf-8", "surrogatepass")  # in UTF-8 a byte below 0x80 is an ASCII character
    return len(octets) - len(octets.translate(None, _ASCII_PUNCTUATION))


def _non_ascii(text: str) -> int:
    return len(text) - len(text.encode("ascii", "ignore"))


def _not_plain_ascii(text: str) -> int:
    return len(text) - len(text.encode("ascii", "ignore").translate(None, _ASCII_PUNCTUATION))


@functools.cache
def _symbol_runs() -> "regex.Pattern[str]":
    import regex  # Unicode's categories; loaded when first priced, as the command line's --help needs none

    return regex.compile(r"[\p{P}\p{S}]+")


def _symbols(text: str) -> int:
    # A run at a time: one match a character would cost ten times as much on text of symbols.
    return _ascii_punctuation(text) if text.isascii() else len(text) - len(_symbol_runs().sub("", text))


def _punctuation_and_tenths(text: str) -> int:
    # A character beyond ASCII costs 13a's split a tenth of what a punctuation mark does.
    return _ascii_punctuation(text) + (_non_ascii(text) + 9) // 10


PUNCTUATION_AND_TENTHS = DearCharacters("ASCII punctuation and symbols, and a tenth of the characters beyond ASCII",
                                   _punctuation_and_tenths)
SYMBOLS = DearCharacters("Unicode punctuation and symbols", _symbols)
NON_ASCII = DearCharacters("characters beyond ASCII", _non_ascii)
NOT_PLAIN_ASCII = DearCharacters("characters beyond ASCII, and ASCII punctuation and symbols", _not_plain_ascii)


@dataclasses.dataclass(frozen=True)
class Price:
    """What a tokenizer costs, in seconds of one core of the Space's 2-core machine, as
    ``python benchmarks/load.py prices`` measures it on the dearest inputs found: per character (the
    dearest plain one), per line, and more (``dear``) per character of its ``dear_characters``, the
    class whose characters cost it most (a period or a symbol, a character beyond ASCII), so that
    the plain text most requests hold is priced at about what it costs and text of dear characters
    at what those cost; and for two known blow-ups: per period (sacremoses checks each token that
    ends in a period against its whole alphabet, up to 1 ms a token, as in "1.2.") and per squared
    length of each run of ``RUN_LENGTH`` or more characters without a space or line break (MeCab
    groups a run of unknown characters in quadratic time: 7 s for a run of 80,000).
    ``tokens``: where a tokenizer's tokens are bounded by its words (runs without whitespace) and its
    dear characters, the most tokens it makes of a word and of a dear character (the n-grams counted
    are priced per token); None: a token per character other than a space. ``distinct_tokens``: a
    bound on the distinct tokens of a text where one is cheaper than its tokens (``char``'s: its
    distinct characters), which decides how a segment's n-grams are counted."""

    character: float
    line: float
    dear: float = 0.0
    dear_characters: DearCharacters = SYMBOLS
    period: float = 0.0
    run: float = 0.0
    tokens: tuple[int, int] | None = None
    distinct_tokens: Callable[[str], int] | None = None

    RUN_LENGTH: ClassVar[int] = 256  # shorter runs cost MeCab at most RUN_LENGTH * run per character, in `character`


RUN_LENGTH = Price.RUN_LENGTH


@dataclasses.dataclass(frozen=True)
class Needs:
    """What a tokenizer needs beyond the core install: the packages (their import names, and how
    the docs name them) and the pip command that installs them, as the error says it."""

    modules: tuple[str, ...]
    what: str
    install: str

    def missing(self) -> str:
        """The pip command that installs what is missing, or "" when everything is installed."""
        return "" if all(importlib.util.find_spec(module) for module in self.modules) else self.install

    def error(self, needer: str) -> MissingExtra:
        """The error for ``needer`` (``tokenizer='moses'``, say) where something needed is missing:
        it names the first missing module, and the extra where ``install`` is one of exactbleu's."""
        module = next((module for module in self.modules if importlib.util.find_spec(module) is None), None)
        named = re.fullmatch(r'pip install "exactbleu\[([\w.-]+)\]"', self.install)
        return MissingExtra(needer, self.what, named[1] if named else None, self.install, module)


@dataclasses.dataclass(frozen=True)
class Tokenizer:
    """A tokenizer, declared once.

    ``segmenter(settings)`` is the function of one segment under the tokenizer's checked
    settings (its ``settings`` options, by name); ``signature(settings)`` its name in a signature
    (by default ``name``). ``rstrip``: whether sacrebleu right-strips a segment before it.
    ``needs``: what it needs installed; ``available`` says whether it can run here with its
    default settings (a model file, say), and what to do if not. ``thread_safe``: whether
    several threads may count with it at once (else a corpus is counted in one). The fast
    paths: ``token_text`` writes a corpus's token text faster than a segment at a time, and
    ``uncut_text`` writes a text whose tokens the counting engine cuts out of its bytes itself,
    by ``cuts`` (each returns None where it cannot, such as a segment that holds a line break).
    ``lowercase``: how ``lowercase=True`` lowercases before it, as the tool it comes from does
    (Python's lower, or a Perl script's ``lc``). ``spaced_tokens``: whether its tokens may hold
    characters that Python's split splits on (a no-break space), which the token text escapes.
    ``lowercases_tokens``: lowercasing applies to its tokens, after it (as ``multi-bleu.perl -lc``
    does on tokenizer.perl's output), not to the text before it. ``script``: the script whose own
    split it is (its presets run it as the script does; "Which BLEU?" tries it only so).
    ``xml_text(text, script)``: a segment of the script's XML files, whose whitespace the script
    does not squeeze as this tokenizer does, as the text whose tokens here are the script's (a
    ValueError saying why where none is); None where the text is read as it is."""

    name: str
    segmenter: Callable[[TokenizerSettings], Segmenter]
    describe: str
    price: Price
    rstrip: bool = True
    signature: Callable[[TokenizerSettings], str] | None = None
    settings: tuple[Option, ...] = ()
    needs: Needs | None = None
    available: Callable[[], str] | None = None
    thread_safe: bool = True
    token_text: Callable[[list[str]], str | None] | None = None
    uncut_text: Callable[[list[str]], Optional["UncutText"]] | None = None
    languages: tuple[str, ...] = ()
    lowercase: Callable[[str], str] = str.lower
    spaced_tokens: bool = False
    lowercases_tokens: bool = False
    script: str = ""
    xml_text: Callable[[str, str], str] | None = None

    def missing(self) -> str:
        """What this tokenizer needs that is not here (a pip command, or a file), or "" when it
        runs here with its default settings."""
        missing = self.needs.missing() if self.needs is not None else ""
        if not missing and self.available is not None:
            missing = self.available()
        return missing

    def check_installed(self) -> None:
        """A ``MissingExtra`` where a package this tokenizer needs is not installed here (a model
        file it lacks is ``missing``'s to say)."""
        if self.needs is not None and self.needs.missing():
            raise self.needs.error(f"tokenizer={self.name!r}")

    def signature_name(self, settings: TokenizerSettings) -> str:
        """The tokenizer's name in a signature, under its settings."""
        return self.signature(settings) if self.signature is not None else self.name


class UncutText(str):
    """Segments, one per line, whose tokens the counting engine cuts out of the UTF-8 bytes
    itself, where ``cuts(octets)`` marks a token boundary inside a run of non-space bytes: a token
    text of a kind, without the tokenizer's passes over the string."""

    cuts: Callable[..., object]

    def __new__(cls, text: str, cuts: Callable[..., object]) -> "UncutText":
        made = super().__new__(cls, text)
        made.cuts = cuts
        return made


def fixed(function: Segmenter) -> Callable[[TokenizerSettings], Segmenter]:
    """The segmenter of a tokenizer that takes no settings."""
    return lambda settings: function


def _checked(tokenizer: Tokenizer) -> None:
    """A tokenizer fit to register: a ``Tokenizer``, whose settings are options of the tokenize
    stage that no option or other tokenizer declares differently."""
    if not isinstance(tokenizer, Tokenizer):
        raise TypeError(f"TOKENIZERS.register takes a Tokenizer, got {type(tokenizer).__name__}")
    for setting in tokenizer.settings:
        if setting.stage != "tokenize" or setting.check is None:
            raise ValueError(f"tokenizer {tokenizer.name!r}'s setting {setting.name!r} must be an Option of the "
                             f"tokenize stage with a check")
        declared = {one.name: one for other in TOKENIZERS.values() if other.name != tokenizer.name
                    for one in other.settings}.get(setting.name)
        if declared is not None and declared is not setting:
            raise ValueError(f"tokenizer {tokenizer.name!r} declares a setting {setting.name!r} that another tokenizer "
                             f"declares differently; share one Option")


TOKENIZERS: Registry[Tokenizer] = Registry("tokenizer", lambda tokenizer: tokenizer.name, _checked)


def register(tokenizer: Tokenizer) -> Tokenizer:
    """Add a tokenizer to the registry, under its name (``TOKENIZERS.register``)."""
    return TOKENIZERS.register(tokenizer)


def setting_options() -> "dict[str, Option]":
    """Every registered tokenizer's settings, as options, by name."""
    return {setting.name: setting for tokenizer in TOKENIZERS.values() for setting in tokenizer.settings}


def takers(setting: str) -> list[str]:
    """The registered tokenizers that take a setting."""
    return [name for name, tokenizer in TOKENIZERS.items() if any(one.name == setting for one in tokenizer.settings)]


def _price_text(price: Price) -> str:
    """A price in the docs' words."""
    text = f"{price.character * 1e6:.2g} µs a character, {price.line * 1e6:.2g} µs a line"
    if price.dear:
        text += f", {price.dear * 1e6:.2g} µs more for each of its {price.dear_characters.what}"
    if price.period:
        text += f", {price.period * 1e3:.2g} ms a period"
    if price.run:
        text += f", {price.run * 1e9:.2g} ns per squared run of {RUN_LENGTH}+ characters without a space"
    return text


def tokenizers_table() -> str:
    """The docs' table of the registered tokenizers."""
    rows = []
    for tokenizer in TOKENIZERS.values():
        settings = ", ".join(f"`{setting.name}`" for setting in tokenizer.settings) or "-"
        needs = f"{tokenizer.needs.what} (`{tokenizer.needs.install}`)" if tokenizer.needs else "-"
        rows.append([f"`{tokenizer.name}`", tokenizer.describe, "yes" if tokenizer.rstrip else "no", settings, needs,
                     _price_text(tokenizer.price)])
    return markdown_table(["tokenizer", "what it gives", "right-strips", "settings", "needs", "the Space's price"],
                          rows)
