"""The command line's parser: argparse's, whose errors name the nearest valid flag for a misspelled
one and the nearest choice for a value that is none of a flag's choices, as the library's own
messages do (``exactbleu.did_you_mean``). A misspelled flag with a value gets the nearest flag that
takes that value, with it: ``--smoth exp`` is sacrebleu's ``-s exp``, not HF's ``--smooth``, which
takes none. argparse's ``suggest_on_error`` (Python 3.14) covers only the choices; a message that
has argparse's own suggestion gets none more."""

import argparse
import ast
import difflib
import itertools
import re
from typing import NoReturn

from .. import did_you_mean

# argparse's messages, as every version from 3.10 on words them: the value is its repr.
_INVALID_CHOICE = re.compile(r"argument (?P<flags>[^:]+): invalid choice: "
                             r"(?P<value>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
_UNRECOGNIZED = "unrecognized arguments: "


class SuggestingParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose errors end with the nearest valid flag or choice."""

    def error(self, message: str) -> NoReturn:
        """argparse's usage and message, with "; did you mean ...?" where a name is near a valid one."""
        super().error(message + self._suggestion(message))

    def _suggestion(self, message: str) -> str:
        if "maybe you meant" in message:  # argparse's own
            return ""
        if message.startswith(_UNRECOGNIZED):
            return self._flags_suggested(message[len(_UNRECOGNIZED):].split())
        invalid = _INVALID_CHOICE.match(message)
        if invalid is None:
            return ""
        named = set(invalid["flags"].split("/"))
        choices = next((action.choices for action in self._actions if named & set(action.option_strings)), None)
        return did_you_mean(ast.literal_eval(invalid["value"]), choices or [])

    def _flags_suggested(self, words: list[str]) -> str:
        """For each unknown flag among argparse's leftover words, the nearest flag that takes the
        words after it (or that after ``=``), shown with them; with none after it, or none that
        takes them (a file, say), the nearest flag."""
        # The parser's actions: argparse keeps them in _actions, and has no public way to list them.
        actions = {flag: action for action in self._actions for flag in action.option_strings}
        suggested = []
        for number, word in enumerate(words):
            if not _is_flag(word):
                continue
            name, equals, value = word.partition("=")
            values = [value] if equals else list(itertools.takewhile(lambda after: not _is_flag(after),
                                                                     words[number + 1:]))
            near = difflib.get_close_matches(name, list(actions), n=len(actions))  # nearest first, as did_you_mean
            taking = next(((flag, taken) for flag in (near if values else [])
                           if (taken := _values_taken(actions[flag], values)) is not None), None)
            if taking is not None:
                flag, shown = taking[0], " ".join(taking[1])
                first, *others = actions[flag].option_strings
                suggested.append((name, f"'{first} {shown}'" + "".join(f" ({other} {shown})" for other in others)))
            elif near:
                suggested.append((name, repr(near[0])))
        if len(suggested) < 2:
            return f"; did you mean {suggested[0][1]}?" if suggested else ""
        return "; did you mean " + ", ".join(f"{flag} for {name!r}" for name, flag in suggested) + "?"


def _is_flag(word: str) -> bool:
    """Whether an argument is a flag, rather than a value (a negative number is a value)."""
    return word.startswith("-") and not word.lstrip("-").replace(".", "", 1).isdigit()


def _values_taken(action: argparse.Action, values: list[str]) -> list[str] | None:
    """The first of ``values`` that ``action`` would take, as argparse converts and checks them, or
    None where it takes none, or refuses one of them."""
    if action.nargs == 0:
        return None
    count = len(values) if action.nargs in ("*", "+", argparse.REMAINDER) else \
        action.nargs if isinstance(action.nargs, int) else 1
    taken = values[:count]
    if len(taken) < count:
        return None
    for value in taken:
        try:
            converted = action.type(value) if callable(action.type) else value
        except (TypeError, ValueError, argparse.ArgumentTypeError):
            return None
        if action.choices is not None and converted not in action.choices:
            return None
    return taken
