"""The house's plan, kept true: the stages are folders on one-way layers, in the order the package
map in ``exactbleu/__init__.py`` gives them; no module imports from a later stage, and no import
circles back; the map and CONTRIBUTING name every stage; a name means one thing; a module's
opening says what it holds in a few lines, states no sentence another module states, and cites
only names that exist."""

import ast
import collections
import importlib
import importlib.util
import re


import exactbleu
from conftest import ROOT

PACKAGE = ROOT / "exactbleu"
MODULES = sorted(PACKAGE.rglob("*.py"))
ROOT_MODULES = {PACKAGE / "__init__.py", PACKAGE / "__main__.py"}  # the map and the entry, over every stage


def name_of(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage_of(module):
    """A module's stage: its folder or module right under the package (the package itself: "exactbleu")."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "exactbleu"


def is_package_module(name):
    return (PACKAGE.parent / name.replace(".", "/")).with_suffix(".py").exists() or \
        (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()


def imports(path):
    """Every module of the package that a module imports, anywhere in it (at the top, in a
    function, under TYPE_CHECKING): ``from . import x`` imports the module x where there is one."""
    module = name_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "exactbleu":
                continue
            submodules = [f"{source}.{alias.name}" for alias in node.names if is_package_module(f"{source}.{alias.name}")]
            found.update(submodules or [source])
            if len(submodules) < len(node.names):
                found.add(source)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "exactbleu")
    found.discard(module)
    return found


def package_map():
    """The stages, in the order the package map lists them: the names before each bullet's colon."""
    bullets = []
    for line in exactbleu.__doc__.splitlines():
        if line.startswith("- "):
            bullets.append(line)
        elif line.startswith("  ") and bullets:  # a bullet's next line
            bullets[-1] += " " + line.strip()
    return [name for line in bullets for name in re.findall(r"``(\w+)``", line.split(":")[0])]


STAGES = package_map()


def test_the_package_map_names_every_stage_and_contributing_too():
    stages = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    stages |= {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert sorted(STAGES) == sorted(stages)
    layout = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").split("## Layout", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`(\w+)(?:/|\.py)?`", layout))
    assert stages <= named, sorted(stages - named)
    assert len((exactbleu.__doc__ or "").strip().splitlines()) <= 20


def test_no_stage_imports_from_a_later_one():
    order = {stage: number for number, stage in enumerate(STAGES)}
    order["exactbleu"] = order["per_sentence"]  # the public names: the faces' way in
    wrong = []
    for path in MODULES:
        if path in ROOT_MODULES:
            continue
        here = stage_of(name_of(path))
        for target in imports(path):
            there = stage_of(target)
            if there != here and order[there] > order[here]:
                wrong.append(f"{name_of(path)} imports {target}")
            if there == "exactbleu" and order[here] <= order["per_sentence"]:
                wrong.append(f"{name_of(path)} imports the public names, which only the faces take")
    assert wrong == []


def test_no_import_circles_back():
    graph = {name_of(path): imports(path) for path in MODULES if path not in ROOT_MODULES}
    done, cycles = set(), []

    def visit(module, path):
        if module in path:
            cycles.append(path[path.index(module):] + [module])
            return
        if module in done or module not in graph:
            return
        for target in sorted(graph[module]):
            visit(target, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert cycles == []


def test_only_the_device_imports_torch():
    """And the faces whose clients deal in torch's tensors: torchmetrics' Metrics, mbrs's metrics,
    OpenRLHF's rewards."""
    wrong = []
    for path in MODULES:
        if path.is_relative_to(PACKAGE / "device") or path in (PACKAGE / "torchmetrics.py", PACKAGE / "mbrs.py",
                                                               PACKAGE / "rewards.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            wrong += [f"{name_of(path)}: {name}" for name in names if name.split(".")[0] == "torch"]
            if isinstance(node, ast.Name) and node.id in ("TensorIds", "TensorReferences"):
                wrong.append(f"{name_of(path)}: {node.id}")
    assert wrong == []


# Names that several modules define alike, on purpose: each arithmetic's and each tokenizer
# family's protocol, the functions that the host and the device each count for the dispatch (and
# the dispatch's own, which chooses between them), and compat's sacrebleu names.
PROTOCOLS = {"NAME", "METHODS", "DENOMINATORS", "score", "score_rows", "TOKENIZER", "TOKENIZERS",
             "corpus_statistics", "self_rows", "matrix", "returned", "checked_corpus", "checked_texts",
             "shard_statistics", "self_rows_against", "checked_groups", "pairwise_utilities", "aggregated_utilities"}
# The names of the peers that two faces stand in for: a peer's names mean the peer's things.
PEERS_NAMES = {PACKAGE / "compat.py": {"corpus_bleu", "sentence_bleu", "Signature", "BLEU", "BLEUScore"},
               PACKAGE / "torchmetrics.py": {"BLEUScore", "SacreBLEUScore"}, PACKAGE / "coco.py": {"Bleu"}}


def defined_names(path):
    """The public names a module defines at its top (functions, classes and assigned names), each
    with its definition (an assignment's value, as written)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield node.name, ast.dump(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    yield target.id, ast.dump(node.value) if node.value else ""


def test_a_name_means_one_thing():
    """No two modules define one name differently (a type alias written alike in two is one thing)."""
    where = collections.defaultdict(dict)
    for path in MODULES:
        for name, definition in defined_names(path):
            if not name.startswith("_") and name not in PROTOCOLS and name != "__all__":
                if name not in PEERS_NAMES.get(path, ()):
                    where[name][name_of(path)] = definition
    assert {name: sorted(modules) for name, modules in where.items() if len(set(modules.values())) > 1} == {}


def test_no_import_alias_works_around_a_clash():
    wrong = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("exactbleu")):
                wrong += [f"{name_of(path)}: {alias.name} as {alias.asname}" for alias in node.names
                          if alias.asname and alias.asname != alias.name
                          and alias.name not in PEERS_NAMES.get(path, ())]
    assert wrong == []


def module_docstrings():
    for path in MODULES:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        if docstring:
            yield path, docstring


def test_every_opening_says_what_the_module_holds_in_a_few_lines():
    wrong = [f"{name_of(path)}: {len(docstring.splitlines())} lines" for path, docstring in module_docstrings()
             if path != PACKAGE / "__init__.py" and len(docstring.splitlines()) > 12]
    missing = [name_of(path) for path in MODULES if path.stat().st_size and not ast.get_docstring(
        ast.parse(path.read_text(encoding="utf-8")))]
    assert wrong == [] and missing == []


def sentences(text):
    flat = " ".join(text.split())
    return [sentence for sentence in re.split(r"(?<=[.:;])\s+", flat) if len(sentence.split()) >= 10]


def test_no_sentence_of_an_opening_is_stated_in_two_modules():
    stated = collections.defaultdict(set)
    for path, docstring in module_docstrings():
        for sentence in sentences(docstring):
            stated[sentence].add(name_of(path))
    assert {sentence: modules for sentence, modules in stated.items() if len(modules) > 1} == {}


def docstrings(path):
    """Every docstring of a module (its own, its classes' and functions'), and its module's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node)
            if docstring:
                yield docstring


def resolves(dotted, module):
    """Whether a dotted name is there: in the module's namespace, in the package or one of its
    stages (``scoring.arithmetic``), or in an installed package (``torch.distributed.all_reduce``)."""
    parts = dotted.split(".")
    packages = module.__name__.split(".")
    starts = [module, *(importlib.import_module(".".join(packages[:length])) for length in range(len(packages), 0, -1))]
    for start in starts:
        value = start
        for part in parts:
            value = _attribute(value, part)
            if value is None:
                break
        else:
            return True
    for length in range(len(parts), 0, -1):
        for prefix in ("exactbleu.", ""):
            try:
                value = importlib.import_module(prefix + ".".join(parts[:length]))
            except ImportError:
                continue
            for part in parts[length:]:
                value = _attribute(value, part)
                if value is None:
                    break
            else:
                return True
    return False


def _attribute(value, part):
    if hasattr(value, part):
        return getattr(value, part)
    if hasattr(value, "__path__"):  # a package's submodule
        try:
            return importlib.import_module(f"{value.__name__}.{part}")
        except ImportError:
            return None
    fields = getattr(value, "__dataclass_fields__", None) or {}
    return fields.get(part)


CITED = re.compile(r"``([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?``")
FILES = re.compile(r"\.(py|md|json|txt)$")


def test_every_dotted_name_a_docstring_cites_exists():
    missing = []
    for path in MODULES:
        if path == PACKAGE / "__main__.py":
            continue
        if path.stem in ("lighteval", "mbrs", "verl") and importlib.util.find_spec(path.stem) is None:
            module = exactbleu  # the client lives in an environment of its own: its names are read from the package's
        else:
            module = importlib.import_module(name_of(path))
        for docstring in docstrings(path):
            for dotted in CITED.findall(docstring):
                if not resolves(dotted, module) and not FILES.search(dotted):
                    missing.append(f"{name_of(path)}: ``{dotted}``")
    assert missing == []
