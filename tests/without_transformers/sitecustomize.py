"""Python loads this module at start-up in the tests' child processes that are given
``conftest.without_transformers()`` as their environment: in them transformers, and scipy.stats,
cannot be imported, as on a machine without them (a Space, or a Dask or Ray worker that only scores).

Why: evaluate imports transformers for its evaluators whenever it is installed, which takes about
5 s a process on two cores, and scipy.stats for their bootstrap, about 1 s more; no child process of
these tests uses a model or an evaluator. The test processes themselves keep both, for the trainer
and RL recipes.
"""

import importlib.abc
import importlib.machinery
import sys

REFUSED = ("transformers", "scipy.stats")


class _Absent(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the refused modules and their submodules, and fails to load them. A spec is returned
    rather than an error raised, so that ``importlib.util.find_spec`` callers still get an answer."""

    def find_spec(self, name, path=None, target=None):
        if any(name == refused or name.startswith(refused + ".") for refused in REFUSED):
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec):
        raise ModuleNotFoundError(f"No module named {spec.name!r} (refused in this test's child process)",
                                  name=spec.name)

    def exec_module(self, module):  # never reached: create_module refuses first
        raise AssertionError(module)


sys.meta_path.insert(0, _Absent())
