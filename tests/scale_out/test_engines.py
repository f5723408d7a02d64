"""Scale-out on real engines: each README recipe runs as written, with two processes, and prints
exactly (`==`) what one process computes; a metric from evaluate.load works on fresh Dask and Ray
workers.

Every engine runs in a child process of its own session, so that whatever it starts (torchrun's
ranks, Dask's nannies and workers, Ray's daemons) can be found afterwards: the tests fail if any
of it outlives the run, and kill it. An engine's recipes and checks share that child
(engines_driver.py), which each engine's fixture starts once for the whole run, on whichever worker
asks first: the engine is imported once, and the fresh-workers check runs in a recipe's own cluster,
which starts once for both."""

import ast
import contextlib
import importlib.util
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import exactbleu
from conftest import METRIC_PATH, ROOT, once_for_the_run, without_transformers
from pages import recipe

pytestmark = pytest.mark.slow  # distributed engines in processes of their own

LINES = 251  # odd, so that ranks and partitions get unequal shares
TIMEOUT = 240  # a step of a run; far above the seconds each takes, for a loaded machine
DRIVER = Path(__file__).with_name("engines_driver.py")


@pytest.fixture(scope="module")
def corpus(wmt17):
    return wmt17["systems"]["online-B.0"][:LINES], wmt17["reference"][:LINES]


@contextlib.contextmanager
def scratch_folder():
    """TMPDIR and RAY_TMPDIR of a run, removed after it. Short and under /tmp, not pytest's tmp_path:
    Ray's sockets live there, and a Unix socket's path may not pass 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="engines-", dir="/tmp" if os.path.isdir("/tmp") else None))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def session_members(session):
    """The live processes of a session: (pid, command line)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        state, _, _, sid = stat[stat.rindex(")") + 2:].split()[:4]
        if int(sid) == session and state != "Z":
            members.append((int(entry), command.strip()))
    return members


def kill(members):
    for pid, _ in members:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def run(command, scratch, cwd=ROOT, timeout=TIMEOUT):
    """Run ``command`` offline in a new session; return its stdout once it and everything it
    started are gone. Fails (after killing them) if it runs over ``timeout``, fails, or leaves processes."""
    env = without_transformers(HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1",
                               GRADIO_ANALYTICS_ENABLED="False", RAY_USAGE_STATS_ENABLED="0", TMPDIR=str(scratch),
                               RAY_TMPDIR=str(scratch),
                               # A token of this run's own: without one, ray.init writes a new one to ~/.ray/auth_token.
                               RAY_AUTH_TOKEN=secrets.token_hex(32))
    # Files, not pipes: a process left behind would hold a pipe open, and reading it would wait for that.
    out, err = scratch / "run.out", scratch / "run.err"
    with out.open("w", encoding="utf-8") as stdout, err.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill(session_members(process.pid))
        process.wait()
        pytest.fail(f"still running after {timeout} s: {command}\n{tail(err)}")
    # A cluster's last processes may take a moment to exit after the driver does.
    deadline = time.monotonic() + 15
    while (leftovers := session_members(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.2)
    kill(leftovers)
    assert process.returncode == 0, tail(err)
    assert not leftovers, f"processes outlived the run: {leftovers}"
    return out.read_text(encoding="utf-8")


def tail(path):
    return path.read_text(encoding="utf-8")[-4000:]


def printed_results(stdout):
    """The result dicts a script printed, one a line: their repr reads back to the same floats."""
    return [ast.literal_eval(line) for line in stdout.splitlines() if line.startswith("{")]


def write_corpus(scratch, predictions, references):
    """The two files the scripts read, a segment per line; returns their names."""
    files = {"hypotheses.txt": predictions, "references.txt": references}
    for name, lines in files.items():
        (scratch / name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return list(files)


def recipe_step(name, scratch, predictions, references, cwd=ROOT):
    """The README recipe as the command its first line gives runs it, on these segments, in a folder
    of its own: the command's launcher and options, and the driver's step."""
    script = recipe(name)
    words = shlex.split(re.match(r"# Run: (.*)\n", script).group(1))
    folder = scratch / name
    folder.mkdir()
    files = write_corpus(folder, predictions, references)
    launcher, argv = [words[0]], []
    for word in words[1:]:
        if word.endswith(".py"):
            (folder / word).write_text(script, encoding="utf-8")
        if word.endswith(".py") or word in files:
            argv.append(str(folder / word))
        else:
            (argv if argv else launcher).append(word)
    return launcher, {"kind": "recipe", "name": name, "cwd": str(cwd), "argv": argv}


def fresh_workers_step(engine, scratch, predictions, references):
    """The fresh-workers check, reading from a folder of its own; Ray's recipe runs there too, as its
    workers import from the driver's working directory: they find exactbleu installed, not there.
    (Dask's workers import from the driver's sys.path alone.)"""
    folder = scratch / "fresh-workers"
    folder.mkdir()
    files = write_corpus(folder, predictions, references)
    return ["python"], {"kind": "fresh workers", "name": "fresh workers", "engine": engine, "cwd": str(folder),
                        "args": [METRIC_PATH, *(str(folder / name) for name in files)]}


def run_steps(steps, scratch, cwd=ROOT):
    """Run the steps, (launcher, step), in one driver that the launcher they all share starts: the
    engine's imports and processes once for them all. Returns each step's printed results by the
    heading the driver printed before them."""
    commands = {tuple(launcher) for launcher, _ in steps}
    assert len(commands) == 1, f"the recipes' commands differ: {commands}"
    [launcher] = commands
    launchers = {"torchrun": [sys.executable, "-m", "torch.distributed.run"], "python": [sys.executable]}
    (scratch / "plan.json").write_text(json.dumps([step for _, step in steps]), encoding="utf-8")
    stdout = run([*launchers[launcher[0]], *launcher[1:], str(DRIVER), str(scratch / "plan.json")], scratch, cwd,
                 timeout=TIMEOUT * len(steps))
    sections = {"": []}
    lines = sections[""]
    for line in stdout.splitlines():
        if line.startswith("--- "):
            lines = sections.setdefault(line[4:], [])
        else:
            lines.append(line)
    assert not printed_results("\n".join(sections.pop(""))), f"results before any step's heading:\n{stdout}"
    return {name: printed_results("\n".join(lines)) for name, lines in sections.items()}


@pytest.fixture(scope="module")
def torch_runs(corpus, tmp_path_factory):
    """Both recipes in one torchrun, whose launcher and ranks import torch once (their commands are
    the same but for the script); accelerate's, where it is installed."""
    pytest.importorskip("torch.distributed")

    def make():
        with scratch_folder() as scratch:
            steps = [recipe_step("torch-distributed", scratch, *corpus)]
            if importlib.util.find_spec("accelerate"):
                steps.append(recipe_step("accelerate", scratch, *corpus))
            return run_steps(steps, scratch)

    return once_for_the_run(tmp_path_factory, "torch-runs", make)


@pytest.fixture(scope="module")
def dask_runs(corpus, tmp_path_factory):
    """The recipes; the fresh-workers check in the first one's cluster, as soon as its client starts
    (engines_driver.py), before the recipe loads the metric."""
    pytest.importorskip("dask.distributed")
    predictions, references = corpus

    def make():
        with scratch_folder() as scratch:
            return run_steps([fresh_workers_step("dask", scratch, *corpus),
                              recipe_step("dask", scratch, *corpus),
                              recipe_step("self-bleu-dask", scratch, predictions[:250], predictions[:250]),
                              recipe_step("matrix-dask", scratch, predictions[:120], references[:40])], scratch)

    return once_for_the_run(tmp_path_factory, "dask-runs", make)


@pytest.fixture(scope="module")
def ray_runs(corpus, tmp_path_factory):
    """The recipe, from a folder of its own, in whose cluster the fresh-workers check runs before
    the recipe's ray.shutdown() (engines_driver.py)."""
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")

    def make():
        with scratch_folder() as scratch:
            fresh = fresh_workers_step("ray", scratch, *corpus)
            return run_steps([fresh, recipe_step("ray", scratch, *corpus, cwd=fresh[1]["cwd"])], scratch,
                             cwd=fresh[1]["cwd"])

    return once_for_the_run(tmp_path_factory, "ray-runs", make)


def test_torch_distributed_recipe(torch_runs, corpus):
    expected = exactbleu.corpus_bleu(*corpus, "nltk", smooth_method="method3")
    assert torch_runs.get("torch-distributed") == [expected]  # printed by rank 0 alone


def test_accelerate_recipe(torch_runs, corpus):
    """One line printed: had the two processes not joined, each would print a whole-corpus score."""
    pytest.importorskip("accelerate")
    assert torch_runs.get("accelerate") == [exactbleu.corpus_bleu(*corpus, "sacrebleu")]


def test_dask_recipe(dask_runs, corpus, bleu):
    predictions, references = corpus
    expected = [exactbleu.corpus_bleu(predictions, references, tokenizer="intl"),
                bleu.compute(predictions=predictions, references=references)]
    assert dask_runs.get("dask") == expected


def test_self_bleu_from_shards_on_dask(dask_runs, corpus):
    texts = corpus[0][:250]
    expected = exactbleu.self_bleu(texts, "nltk", smooth_method="method1")
    printed = {"self_bleu": expected["self_bleu"], "scores": expected["scores"].tolist()}
    assert dask_runs.get("self-bleu-dask") == [printed]


def test_bleu_matrix_by_blocks_on_dask(dask_runs, corpus):
    predictions, references = corpus[0][:120], corpus[1][:40]
    assert dask_runs.get("matrix-dask") == [{"matrix": exactbleu.bleu_matrix(predictions, references).tolist()}]


@pytest.mark.parametrize("engine", ["dask", "ray"])
def test_a_loaded_metric_works_on_fresh_workers(engine, request, corpus, bleu):
    """Regression: the metric's class lived in evaluate's dynamic module, which fresh workers cannot
    import. Dask's workers logged `No module named 'evaluate_modules'` and left the futures pending
    (the caller waited forever; here, the driver's WAIT fails it); Ray's tasks failed. Each engine's
    check runs in a recipe's cluster, on workers started before any metric was loaded."""
    runs = request.getfixturevalue(f"{engine}_runs")
    expected = bleu.compute(predictions=corpus[0], references=corpus[1])
    assert runs.get("fresh workers") == [expected, expected]


def test_ray_recipe(ray_runs, corpus):
    expected = exactbleu.corpus_bleu(*corpus, "nltk", smooth_method="method3")
    assert ray_runs.get("ray") == [expected, expected]  # tasks, then ray.data
