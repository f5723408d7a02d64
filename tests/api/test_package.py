"""The package exactbleu: its functional API and Statistics, its command line, and
bleu_metric.py as a thin evaluate adapter over it."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import evaluate
import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactbleu
from conftest import METRIC_PATH, ROOT, without_transformers
from exactbleu import options
from oracles import corpora, hf_bleu, plain_row

PREDICTIONS = ["the cat sat on the mat", "a dog ran", "x", ""]
REFERENCES = [["the cat sat on a mat", "there is a cat on the mat"], ["a dog ran home"], ["x y"], ["z"]]


def run(*command, cwd=ROOT, **kwargs):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.mark.parametrize("preset", ["default", "sacrebleu", "nltk"])
def test_the_functional_api_gives_the_metrics_numbers(preset):
    metric = evaluate.load(METRIC_PATH, preset)
    extra = {"sentence_level": True, "signature": True, "n_bootstrap": 30}
    expected = metric.compute(predictions=PREDICTIONS, references=REFERENCES, **extra)
    assert exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, preset, **extra) == expected
    assert exactbleu.score(exactbleu.statistics(PREDICTIONS, REFERENCES, preset), preset, **extra) == expected
    assert exactbleu.sentence_bleu(PREDICTIONS[0], REFERENCES[0], preset) == \
        metric.compute(predictions=PREDICTIONS[:1], references=REFERENCES[:1])
    assert exactbleu.explain(PREDICTIONS, REFERENCES, preset) == metric.explain(PREDICTIONS, REFERENCES)
    systems = {"a": PREDICTIONS, "b": PREDICTIONS[::-1]}
    assert exactbleu.paired_test(systems, REFERENCES, n_samples=50, preset=preset) == \
        metric.paired_test(systems, REFERENCES, n_samples=50)


@given(corpus=corpora(max_segments=12), cut=st.integers(0, 12), preset=st.sampled_from(["default", "sacrebleu", "nltk"]))
def test_statistics_add_up_to_the_whole(corpus, cut, preset):
    predictions, references = corpus
    cut = min(cut, len(predictions) - 1) or 1
    whole = exactbleu.statistics(predictions, references, preset)
    if cut < len(predictions):
        parts = exactbleu.statistics(predictions[:cut], references[:cut], preset) + \
            exactbleu.statistics(predictions[cut:], references[cut:], preset)
        assert parts == whole
        assert exactbleu.score(parts, preset, signature=True) == exactbleu.corpus_bleu(predictions, references, preset,
                                                                                     signature=True)
        assert whole[:cut] + whole[cut:] == whole
    if preset == "default":
        assert exactbleu.score(whole) == hf_bleu(predictions, references)


def test_statistics_name_their_columns():
    stats = exactbleu.statistics(["a b c", "a"], [["a b c d"], ["b"]])
    assert stats.prediction_length.tolist() == [3, 1] and stats.reference_length.tolist() == [4, 1]
    assert stats.matches.tolist() == [[3, 2, 1, 0], [0, 0, 0, 0]]
    assert stats.totals.tolist() == [[3, 2, 1, 0], [1, 0, 0, 0]]
    assert len(stats) == 2 and stats[1:].matches.tolist() == [[0, 0, 0, 0]]
    with pytest.raises(ValueError, match="orders"):
        exactbleu.score(stats, max_order=2)
    with pytest.raises(ValueError, match="different orders"):
        stats + exactbleu.statistics(["a"], ["a"], max_order=2)
    with pytest.raises(TypeError, match="statistics must be the Statistics"):
        exactbleu.score({"matches": []})


def test_the_api_checks_options_as_compute_does(bleu):
    for bad in ({"max_order": 0}, {"tokenizer": "13b"}, {"max_ordr": 2}):
        with pytest.raises(ValueError) as functional:
            exactbleu.corpus_bleu(["a"], ["a"], **bad)
        with pytest.raises(ValueError) as metric:
            bleu.compute(predictions=["a"], references=["a"], **bad)
        assert str(functional.value) == str(metric.value)


@pytest.mark.slow
def test_every_public_name_is_what_it_names_whatever_was_imported_first():
    """The package loads its names when first used; no submodule may shadow one of them."""
    code = ("import importlib, pkgutil, exactbleu, types; "
            "[importlib.import_module(m.name) for m in pkgutil.walk_packages(exactbleu.__path__, 'exactbleu.') "
            "if m.name != 'exactbleu.__main__']; "
            "print(sorted(n for n in exactbleu.__all__ if n != 'compat' and isinstance(getattr(exactbleu, n), types.ModuleType)))")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                               env=without_transformers())
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"
    assert "bleu_matrix" in dir(exactbleu) and callable(exactbleu.self_bleu)


def test_the_library_and_its_command_line_never_import_evaluate():
    code = ("import sys, exactbleu, exactbleu.cli; exactbleu.corpus_bleu(['a b'], ['a b']);"
            "print(sorted(m for m in ('evaluate', 'datasets', 'transformers', 'torch') if m in sys.modules))")
    completed = run(sys.executable, "-c", code)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


@pytest.mark.slow
def test_three_ways_to_the_command_line_print_the_same(tmp_path):
    reference, hypothesis = tmp_path / "ref", tmp_path / "hyp"
    reference.write_text("the cat sat on a mat\na dog ran home\n", encoding="utf-8")
    hypothesis.write_text("the cat sat on the mat\na dog ran\n", encoding="utf-8")
    console = shutil.which("exactbleu", path=os.path.dirname(sys.executable))
    assert console, "the exactbleu command is not installed"
    outputs = [run(*command, str(reference), "-i", str(hypothesis), "--preset", "sacrebleu", cwd=tmp_path,
                   env=without_transformers())
               for command in ([console], [sys.executable, "-m", "exactbleu"], [sys.executable, METRIC_PATH])]
    assert all(output.returncode == 0 for output in outputs), [output.stderr for output in outputs]
    assert len({output.stdout for output in outputs}) == 1
    assert json.loads(outputs[0].stdout)["version"] == "exactbleu-2.0.0"


@pytest.mark.slow
def test_the_metric_loads_by_its_path_or_a_folder_named_like_a_space_from_any_folder(tmp_path):
    """evaluate.load("bleu_metric.py") by its path from elsewhere, and evaluate.load("<folder>"),
    which looks for "<folder name>.py" as evaluate.load("<user>/<space>") does."""
    space = tmp_path / "bleu"
    space.mkdir()
    shutil.copy(METRIC_PATH, space / "bleu.py")
    code = ("import evaluate\n"
            f"for where in ({METRIC_PATH!r}, {str(space)!r}):\n"
            "    bleu = evaluate.load(where)\n"
            "    print(type(bleu).__module__, bleu.compute(predictions=['a b c d'], references=['a b c d'])['bleu'])")
    completed = run(sys.executable, "-c", code, cwd=tmp_path, env=without_transformers())
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split()[-4:] == ["exactbleu.metric.evaluate_metric", "1.0"] * 2


@pytest.mark.slow
def test_the_metric_loads_from_the_repository_folder_with_nothing_installed():
    """As a Space runs it: exactbleu/ is found on the path, not installed."""
    code = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)];"
            "import os, evaluate; os.environ['HF_EVALUATE_OFFLINE'] = '1';"
            "print(evaluate.load('bleu_metric.py').compute(predictions=['a b c d'], references=['a b c d'])['bleu']);"
            "import exactbleu; print(exactbleu.__file__)")
    completed = run(sys.executable, "-c", code, cwd=ROOT, env=without_transformers())
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["1.0", str(ROOT / "exactbleu" / "__init__.py")]


@pytest.mark.slow
def test_without_the_package_the_error_says_how_to_install_it(tmp_path):
    copy = tmp_path / "bleu_metric.py"
    shutil.copy(METRIC_PATH, copy)
    code = ("import sys, runpy; sys.modules['exactbleu'] = None;"  # as if it were not installed
            f"runpy.run_path({str(copy)!r})")
    completed = run(sys.executable, "-c", code, cwd=tmp_path, env=without_transformers())
    assert completed.returncode != 0
    assert "needs the exactbleu package" in completed.stderr and "pip install -e ." in completed.stderr


def test_bleu_metric_is_a_thin_adapter():
    assert len(pathlib.Path(METRIC_PATH).read_text(encoding="utf-8").splitlines()) <= 60


def test_the_package_is_installable_and_the_space_installs_only_requirements():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "exactbleu" and exactbleu.__version__ == "2.0.0"
    assert project["scripts"] == {"exactbleu": "exactbleu.cli:main"}
    assert {"evaluate", "moses", "ko", "ja", "spm", "matrix", "app", "torch", "dev"} <= \
        set(project["optional-dependencies"])
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert not [line for line in requirements if re.match(r"\s*(-e\s+)?\.(\s|$|\[)", line)]
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8")
    assert "/build/" in ignored and "*.egg-info/" in ignored


def test_the_docs_tables_come_from_the_declarations():
    page = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    sys.path.insert(0, str(ROOT / "docs"))
    import tables

    assert tables.rewritten(page) == page, "run python docs/tables.py"
    assert options.options_table() in page and options.presets_table() in page
    names = [option.name for option in options.DECLARED]
    assert len(set(names)) == len(names)  # one declaration per option
    # The declared defaults are HF's bleu: 13a, cased, not right-stripped, order 4, no smoothing,
    # the shortest reference's length.
    hf = options.resolve_settings()
    assert (hf.tokenize.tokenizer, hf.tokenize.lowercase, hf.tokenize.rstrip, hf.statistics.max_order,
            hf.statistics.ref_length, hf.scoring.smooth, hf.scoring.smooth_method) == \
        ("13a", False, False, 4, "shortest", False, None)


def test_a_command_line_flag_for_each_declared_flag():
    help_text = run(sys.executable, "-m", "exactbleu", "--help").stdout
    for option in options.OPTIONS.values():
        for flag in option.flags:
            assert flag in help_text


def test_statistics_rows_are_the_plain_definitions_on_every_path(monkeypatch):
    """The same corpus through the few-segments path and through the engine."""
    from exactbleu.counting import corpus as counting

    predictions = ["the the the cat", "a b a b a b", "x", ""] * 3
    references = [["the cat the", "the the"], ["a b a b"], ["x x"], ["y"]] * 3
    settings = options.resolve_settings()
    few = counting.count(predictions, references, settings, options.counted_with(settings))
    monkeypatch.setattr(counting, "_FEW_DOCUMENTS", 0)
    assert counting.count(predictions, references, settings, options.counted_with(settings)) == few
    assert few.array.tolist() == [plain_row(prediction.split(), [r.split() for r in segment], 4)
                                  for prediction, segment in zip(predictions, references)]
