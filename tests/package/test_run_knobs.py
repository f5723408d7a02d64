"""How counting runs (threads, the token bound, the reference cache, progress) changes no score,
and travels as one value, ``counting.Run``: only a public entry point takes two or more of those
knobs as keywords of its own; every function below it takes the ``Run``."""

import ast

import exactbleu
from conftest import ROOT

KNOBS = {"threads", "max_tokens", "cache", "progress"}
# Public entry points beyond exactbleu.__all__'s functions: the evaluate metric's load-time options.
FACES = {("exactbleu/metric/evaluate_metric.py", "Bleu.__init__")}


def functions(tree):
    """(qualified name, node) of every function of a module, methods as Class.method."""
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + child.name, child
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
    yield from walk(tree, "")


def test_only_public_entry_points_take_the_run_knobs_loose():
    loose = []
    for path in sorted((ROOT / "exactbleu").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for name, node in functions(ast.parse(path.read_text(encoding="utf-8"))):
            arguments = node.args
            taken = {one.arg for one in arguments.posonlyargs + arguments.args + arguments.kwonlyargs} & KNOBS
            public = name in exactbleu.__all__ or (where, name) in FACES
            if len(taken) >= 2 and not public:
                loose.append(f"{where}: {name} takes {sorted(taken)}")
    assert loose == []


def test_the_public_entry_points_keep_their_keywords():
    """The knobs keep their names and defaults where users pass them."""
    import inspect

    for function, knobs in ((exactbleu.corpus_bleu, ("threads", "max_tokens", "cache")),
                            (exactbleu.statistics, ("threads", "max_tokens", "cache", "progress")),
                            (exactbleu.paired_test, ("threads", "max_tokens", "cache")),
                            (exactbleu.sentence_scores, ("threads", "max_tokens", "cache"))):
        parameters = inspect.signature(function).parameters
        assert all(parameters[knob].default is None for knob in knobs), function.__name__


def test_the_knobs_are_checked_in_one_place():
    """``counting.Run.checked`` is the one check of the knobs: no other module checks one of them
    itself (``check_int("threads", ...)``) or words a message about one (``"threads must ..."``)."""
    own = ROOT / "exactbleu" / "counting" / "run.py"
    elsewhere = []
    for path in sorted((ROOT / "exactbleu").rglob("*.py")):
        if path == own:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = getattr(node.func, "id", getattr(node.func, "attr", None)) if isinstance(node, ast.Call) else None
            if called == "check_int" and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value in KNOBS:
                elsewhere.append(f"{path.relative_to(ROOT)}:{node.lineno} checks {node.args[0].value}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and any(node.value.startswith(f"{knob} must") for knob in KNOBS):
                elsewhere.append(f"{path.relative_to(ROOT)}:{node.lineno} words {node.value!r}")
    assert elsewhere == []
