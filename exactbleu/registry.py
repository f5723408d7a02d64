"""How a choice is declared: every option is an ``Option``, and every kind of named choice
(tokenizers, smoothing methods, presets) is a ``Registry`` of entries that each declare all there
is to know about themselves. Everything else (the checks, the signature, the command line's
flags, the docs' tables, the metric's description, the Space's choices) reads the declarations.
A name that is none of the choices gets the nearest one suggested (``did_you_mean``); something
optional that is not installed is a ``MissingExtra``, which names the extra that installs it.

This module imports nothing heavy: the command line reads the declarations before numpy loads.
"""

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar


@dataclasses.dataclass(frozen=True)
class Option:
    """One option: its name, the stage it changes (``tokenize``, ``statistics``, ``scoring`` or
    ``output``), its default, what it chooses (the docs' words), and its command-line flags with
    argparse's keywords (none: not on the command line).

    A tokenizer's own settings (the ``moses`` language, the SentencePiece model) are options too,
    declared by the tokenizer; their ``check`` takes the value and the tokenizer's name, and
    returns the value checked or raises a ValueError that names the option."""

    name: str
    stage: str
    default: object
    help: str
    flags: tuple[str, ...] = ()
    cli: Mapping[str, object] = dataclasses.field(default_factory=dict)
    shown_default: str | None = None  # the docs' default, where the value alone would mislead
    registry: Mapping[str, object] | None = None  # where the choices are declared, read when asked
    check: Callable[[object, str], object] | None = None

    @property
    def choices(self) -> list[object] | None:
        """The choices, as they stand now: a registry's names, or the declared list."""
        if self.registry is not None:
            return list(self.registry)
        declared = self.cli.get("choices")
        return list(declared) if isinstance(declared, (list, tuple)) else None

    def argparse_keywords(self) -> dict[str, Any]:
        """argparse's keywords for the option's flag, with the choices as they stand now."""
        return {**self.cli, "choices": self.choices} if self.choices is not None else dict(self.cli)


Entry = TypeVar("Entry")


# How many times any registry has changed: what was worked out from the registries (resolved
# settings) is stale once this moves.
_changes = [0]


def registry_changes() -> int:
    """How many times an entry was registered or removed, in any registry, so far."""
    return _changes[0]


class Registry(Mapping[str, Entry], Generic[Entry]):
    """The entries of one kind of choice, by name, in the order they were registered. ``kind`` is
    the option that chooses among them, as error messages name it."""

    def __init__(self, kind: str, name_of: Callable[[Entry], str], check: Callable[[Entry], None] | None = None):
        self.kind = kind
        self._name_of, self._check = name_of, check
        self._entries: dict[str, Entry] = {}

    def register(self, entry: Entry) -> Entry:
        """Add an entry under its name (replacing one of the same name), checked first, and return it."""
        if self._check is not None:
            self._check(entry)
        self._entries[self._name_of(entry)] = entry
        _changes[0] += 1
        return entry

    def unregister(self, name: str) -> None:
        """Remove the entry of this name."""
        del self._entries[name]
        _changes[0] += 1

    def choice(self, value: object) -> Entry:
        """The entry that ``value`` names, or a ValueError naming the option, the value and the choices."""
        if isinstance(value, str) and value in self._entries:
            return self._entries[value]
        raise ValueError(f"{self.kind} must be one of {list(self._entries)}, got {value!r:.80}"
                         f"{did_you_mean(value, self._entries)}")

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind}: {list(self._entries)})"


# Past this length a name is no typo of a choice, and comparing it would cost more than it tells.
_LONGEST_TYPO = 100


def did_you_mean(value: object, choices: Iterable[object], *, each: bool = False) -> str:
    """The end of a message about a value that is none of the choices: "; did you mean 'smooth'?"
    with the nearest valid choice (difflib's, ignoring case) where one is near, else "". With
    ``each``, ``value`` is several names (unknown options, say), and each near one gets its own:
    "; did you mean 'smooth' for 'smoth', 'max_order' for 'max_ordr'?". Append it after the
    choices: ``f"... got {value!r}{did_you_mean(value, choices)}"``."""
    names = list(value) if each and isinstance(value, Iterable) and not isinstance(value, str) else [value]
    valid = {choice.lower(): choice for choice in reversed(list(choices)) if isinstance(choice, str)}
    nearest = []
    for name in names:
        if isinstance(name, str) and len(name) <= _LONGEST_TYPO and name not in valid.values():
            found = difflib.get_close_matches(name.lower(), list(valid), n=1)
            nearest += [(name, valid[found[0]])] if found else []
    if not nearest:
        return ""
    if len(names) == 1:
        return f"; did you mean {nearest[0][1]!r}?"
    return "; did you mean " + ", ".join(f"{choice!r} for {name!r}" for name, choice in nearest) + "?"


def install_command(extra: str) -> str:
    """The pip command that installs one of exactbleu's extras."""
    return f'pip install "exactbleu[{extra}]"'


class MissingExtra(ImportError):  # noqa: N818 -- named for what is missing, as Python's ModuleNotFoundError
    """Something optional is not installed here: ``needer`` (what the user asked for) needs
    ``what`` (the packages, as the docs name them), which exactbleu's extra ``extra`` installs.
    The message ends with the pip command, ``install`` (``pip install "exactbleu[<extra>]"``, or
    the command of a package outside exactbleu's extras, whose ``extra`` is then None); ``name``
    is the module found missing, where one is known. Being an ImportError, ``except ImportError``
    catches it, as it catches Python's own."""

    def __init__(self, needer: str, what: str, extra: str | None, install: str | None = None,
                 name: str | None = None):
        self.needer, self.what, self.extra = needer, what, extra
        self.install = install or install_command(str(extra))
        module = f": no module named {name!r}" if name else ""
        super().__init__(f"{needer} needs {what} (not installed here{module}): {self.install}", name=name)

    def __reduce__(self) -> tuple[type["MissingExtra"], tuple[str, str, str | None, str, str | None]]:
        return type(self), (self.needer, self.what, self.extra, self.install, self.name)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table in the docs' Markdown: a header, its rule, and a line per row."""
    rule = "|" + "---|" * len(header)
    return "\n".join(["| " + " | ".join(header) + " |", rule, *("| " + " | ".join(cells) + " |" for cells in rows)])
