"""The command line's parser: argparse's, whose errors name the nearest valid flag for a misspelled
one and the nearest choice for a value that is none of a flag's choices, as the library's own
messages do (``exactbleu.did_you_mean``). argparse's ``suggest_on_error`` (Python 3.14) covers only
the choices; a message that has argparse's own suggestion gets none more."""

import argparse
import ast
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
        # The parser's actions: argparse keeps them in _actions, and has no public way to list them.
        flags = [flag for action in self._actions for flag in action.option_strings]
        if message.startswith(_UNRECOGNIZED):
            given = [word.split("=", 1)[0] for word in message[len(_UNRECOGNIZED):].split()
                     if word.startswith("-") and not word.lstrip("-").replace(".", "", 1).isdigit()]
            return did_you_mean(given, flags, each=True)
        invalid = _INVALID_CHOICE.match(message)
        if invalid is None:
            return ""
        named = set(invalid["flags"].split("/"))
        choices = next((action.choices for action in self._actions if named & set(action.option_strings)), None)
        return did_you_mean(ast.literal_eval(invalid["value"]), choices or [])
