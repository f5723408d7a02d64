"""Python loads this module at start-up in a child process whose PYTHONPATH starts here; where that
child's LEAN_MACHINE_ABSENT names packages (comma-separated), they are absent from it, as on a machine
that installed only what its script needs: neither importable nor among the installed distributions
(importlib.metadata), so that a library that checks for an optional package skips it as it would there.

Why: torchmetrics imports transformers, matplotlib and scipy wherever they are installed, 4 to 5 s of
the Lightning recipe's start in each of its two processes on two cores, and the recipe uses none of
them. Without the variable (a test process that imports this file) nothing changes.
"""

import importlib.abc
import os
import sys
from importlib.machinery import PathFinder

ABSENT = {name.strip() for name in os.environ.get("LEAN_MACHINE_ABSENT", "").split(",") if name.strip()}


def _normalized(name):
    return name.lower().replace("-", "_").replace(".", "_")


class _Absent(importlib.abc.MetaPathFinder):
    """Refuses the absent packages and their submodules, as Python does a module it cannot find."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ABSENT:
            raise ModuleNotFoundError(f"No module named {name!r} (absent from this test's child process)", name=name)
        return None


def _without_absent(found):
    """importlib.metadata's search of sys.path, which finds no distribution of an absent package."""

    def find_distributions(*args, **kwargs):
        context = args[0] if args else kwargs.get("context")
        name = getattr(context, "name", None)
        if name and _normalized(name) in {_normalized(absent) for absent in ABSENT}:
            return iter(())
        return found(*args, **kwargs)

    return staticmethod(find_distributions)


if ABSENT:
    PathFinder.find_distributions = _without_absent(PathFinder.find_distributions)
    sys.meta_path.insert(0, _Absent())
