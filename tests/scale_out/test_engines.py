"""Scale-out on real engines: each README recipe runs as written, with two processes, and prints
exactly (`==`) what one process computes; a metric from evaluate.load works on fresh Dask and Ray
workers.

Every engine runs in a child process of its own session, so that whatever it starts (torchrun's
ranks, Dask's nannies and workers, Ray's daemons) can be found afterwards: the tests fail if any
of it outlives the run, and kill it."""

import ast
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
from conftest import METRIC_PATH, ROOT, without_transformers
from pages import recipe

pytestmark = pytest.mark.slow  # distributed engines in processes of their own

LINES = 251  # odd, so that ranks and partitions get unequal shares
TIMEOUT = 240  # a whole run; far above the seconds each takes, for a loaded machine


@pytest.fixture(scope="module")
def corpus(wmt17):
    return wmt17["systems"]["online-B.0"][:LINES], wmt17["reference"][:LINES]


@pytest.fixture
def scratch():
    """TMPDIR and RAY_TMPDIR of a run, removed after it. Short and under /tmp, not pytest's tmp_path:
    Ray's sockets live there, and a Unix socket's path may not pass 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="engines-", dir="/tmp" if os.path.isdir("/tmp") else None))
    yield path
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
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run(command, scratch, cwd=ROOT):
    """Run ``command`` offline in a new session; return its stdout once it and everything it
    started are gone. Fails (after killing them) if it runs over TIMEOUT, fails, or leaves processes."""
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
        process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        kill(session_members(process.pid))
        process.wait()
        pytest.fail(f"still running after {TIMEOUT} s: {command}\n{tail(err)}")
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


def run_recipe(name, scratch, predictions, references):
    """Run the README recipe by the command its first line gives, on these segments."""
    script = recipe(name)
    words = shlex.split(re.match(r"# Run: (.*)\n", script).group(1))
    files = write_corpus(scratch, predictions, references)
    launchers = {"torchrun": [sys.executable, "-m", "torch.distributed.run"], "python": [sys.executable]}
    command = list(launchers[words[0]])
    for word in words[1:]:
        if word.endswith(".py"):
            (scratch / word).write_text(script, encoding="utf-8")
        command.append(str(scratch / word) if word.endswith(".py") or word in files else word)
    return printed_results(run(command, scratch))


def test_torch_distributed_recipe(scratch, corpus):
    pytest.importorskip("torch.distributed")
    expected = exactbleu.corpus_bleu(*corpus, "nltk", smooth_method="method3")
    assert run_recipe("torch-distributed", scratch, *corpus) == [expected]  # printed by rank 0 alone


def test_accelerate_recipe(scratch, corpus):
    """One line printed: had the two processes not joined, each would print a whole-corpus score."""
    pytest.importorskip("torch.distributed")
    pytest.importorskip("accelerate")
    assert run_recipe("accelerate", scratch, *corpus) == [exactbleu.corpus_bleu(*corpus, "sacrebleu")]


def test_dask_recipe(scratch, corpus, bleu):
    pytest.importorskip("dask.distributed")
    predictions, references = corpus
    expected = [exactbleu.corpus_bleu(predictions, references, tokenizer="intl"),
                bleu.compute(predictions=predictions, references=references)]
    assert run_recipe("dask", scratch, *corpus) == expected


def test_ray_recipe(scratch, corpus):
    pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    expected = exactbleu.corpus_bleu(*corpus, "nltk", smooth_method="method3")
    assert run_recipe("ray", scratch, *corpus) == [expected, expected]  # tasks, then ray.data


def test_self_bleu_from_shards_on_dask(scratch, corpus):
    pytest.importorskip("dask.distributed")
    texts = corpus[0][:250]
    expected = exactbleu.self_bleu(texts, "nltk", smooth_method="method1")
    [printed] = run_recipe("self-bleu-dask", scratch, texts, texts)
    assert printed == {"self_bleu": expected["self_bleu"], "scores": expected["scores"].tolist()}


def test_bleu_matrix_by_blocks_on_dask(scratch, corpus):
    pytest.importorskip("dask.distributed")
    predictions, references = corpus[0][:120], corpus[1][:40]
    files = write_corpus(scratch, predictions, references)
    (scratch / "matrix_dask.py").write_text(recipe("matrix-dask"), encoding="utf-8")
    printed = printed_results(run([sys.executable, str(scratch / "matrix_dask.py"),
                                   *(str(scratch / name) for name in files)], scratch))
    assert printed == [{"matrix": exactbleu.bleu_matrix(predictions, references).tolist()}]


_FRESH_WORKERS = '''
import sys

WAIT = 90  # seconds: a fresh worker imports evaluate first, slowly on a loaded machine


def main(engine, path, hypotheses, references):
    with open(hypotheses, encoding="utf-8") as file:
        predictions = [line.rstrip("\\n") for line in file]
    with open(references, encoding="utf-8") as file:
        references = [line.rstrip("\\n") for line in file]
    parts = [(predictions[i:i + 100], references[i:i + 100]) for i in range(0, len(predictions), 100)]
    if engine == "dask":
        from dask.distributed import Client, LocalCluster

        # The workers start before evaluate is even imported here, like those of a cluster already
        # running: a worker spawned after the load inherits the caller's sys.path, evaluate's module
        # cache included, and would unpickle even a metric whose class lives there.
        with LocalCluster(n_workers=1, threads_per_worker=1) as cluster, Client(cluster) as client:
            import evaluate

            bleu = evaluate.load(path)
            columns = [future.result(timeout=WAIT)
                       for future in client.map(lambda part: bleu.statistics(*part), parts)]
            computed = client.submit(bleu.compute, predictions=predictions,
                                     references=references).result(timeout=WAIT)
    else:
        import ray

        ray.init(num_cpus=1, include_dashboard=False)  # one fresh worker is enough to show it
        try:
            import evaluate

            bleu = evaluate.load(path)
            statistics = ray.remote(lambda part: bleu.statistics(*part))
            columns = ray.get([statistics.remote(part) for part in parts], timeout=WAIT)
            compute = ray.remote(lambda metric: metric.compute(predictions=predictions, references=references))
            computed = ray.get(compute.remote(bleu), timeout=WAIT)
        finally:
            ray.shutdown()
    print(bleu.score_statistics({name: [value for part in columns for value in part[name]] for name in columns[0]}))
    print(computed)


if __name__ == "__main__":
    main(*sys.argv[1:])
'''


@pytest.mark.parametrize("engine", ["dask", "ray"])
def test_a_loaded_metric_works_on_fresh_workers(engine, scratch, corpus, bleu):
    """Regression: the metric's class lived in evaluate's dynamic module, which fresh workers cannot
    import. Dask's workers logged `No module named 'evaluate_modules'` and left the futures pending
    (the caller waited forever; here, WAIT fails it); Ray's tasks failed."""
    pytest.importorskip("dask.distributed" if engine == "dask" else "ray")
    predictions, references = corpus
    files = write_corpus(scratch, predictions, references)
    (scratch / "fresh_workers.py").write_text(_FRESH_WORKERS, encoding="utf-8")
    # Run from the scratch folder: the workers find exactbleu installed, not in a working directory.
    stdout = run([sys.executable, str(scratch / "fresh_workers.py"), engine, METRIC_PATH,
                  *(str(scratch / name) for name in files)], scratch, cwd=scratch)
    expected = bleu.compute(predictions=predictions, references=references)
    assert printed_results(stdout) == [expected, expected]
