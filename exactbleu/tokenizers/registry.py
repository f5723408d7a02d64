"""The tokenizer registry: each tokenizer declared once, whole, by its own module.

A ``Tokenizer`` declares everything about itself: its function, its name and its name in a
signature, whether sacrebleu right-strips a segment before it, the settings it takes and how they
are checked, what it needs installed and the extra that installs it, whether threads may share
it, its fast paths, the target languages sacrebleu chooses it for, and its price in the Space.
The options, the signature, the counting engine, the command line, the metric's description, the
docs' table and the Space read these declarations; nothing else names a tokenizer.
"""

import dataclasses
import importlib.util
import re
from collections.abc import Callable, Mapping
from typing import ClassVar, Optional

from ..registry import MissingExtra, Option, Registry, markdown_table

# A tokenizer's settings, checked: its options' values by name.
TokenizerSettings = Mapping[str, object]
Segmenter = Callable[[str], list[str]]


@dataclasses.dataclass(frozen=True)
class Price:
    """What a tokenizer costs, in seconds of one core of the Space's 2-core machine, as
    ``python benchmarks/load.py prices`` measures it on the dearest inputs found: per character,
    per line, and for two known blow-ups: per period (sacremoses checks each token that ends in a
    period against its whole alphabet, up to 1 ms a token, as in "1.2.") and per squared length
    of each run of ``RUN_LENGTH`` or more characters without a space or line break (MeCab groups
    a run of unknown characters in quadratic time: 7 s for a run of 80,000)."""

    character: float
    line: float
    period: float = 0.0
    run: float = 0.0

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
    by ``cuts`` (each returns None where it cannot, such as a segment that holds a line break)."""

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


def tokenizers_table() -> str:
    """The docs' table of the registered tokenizers."""
    rows = []
    for tokenizer in TOKENIZERS.values():
        price = tokenizer.price
        text = f"{price.character * 1e6:.2g} µs a character, {price.line * 1e6:.2g} µs a line"
        if price.period:
            text += f", {price.period * 1e3:.2g} ms a period"
        if price.run:
            text += f", {price.run * 1e9:.2g} ns per squared run of {RUN_LENGTH}+ characters without a space"
        settings = ", ".join(f"`{setting.name}`" for setting in tokenizer.settings) or "-"
        needs = f"{tokenizer.needs.what} (`{tokenizer.needs.install}`)" if tokenizer.needs else "-"
        rows.append([f"`{tokenizer.name}`", tokenizer.describe, "yes" if tokenizer.rstrip else "no", settings, needs,
                     text])
    return markdown_table(["tokenizer", "what it gives", "right-strips", "settings", "needs", "the Space's price"],
                          rows)
