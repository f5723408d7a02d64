"""Shared fixtures: offline environment, the metric loaded by path, the WMT17 data, hypothesis profiles,
a runner for evaluate's distributed mode, and the Space served as a user starts it."""

import contextlib
import fcntl
import json
import os
import pathlib
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import time

# No hub is reachable here; a test that tried one would hang. Set before evaluate is imported.
for variable in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
    os.environ[variable] = "1"
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# The set-up installs without compiling (uv's default, several times faster than pip's compiling
# everything): each module is compiled when first imported, and kept for every later process. Where
# PYTHONDONTWRITEBYTECODE is set, each of the tests' processes would compile evaluate, torch and the
# rest again, seconds each.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
METRIC_PATH = str(ROOT / "bleu_metric.py")
WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"

# Python runs these in the child processes that ask for them; the test processes must not import them.
collect_ignore = ["without_transformers", "torchmetrics/lean_machine"]


def starting_with(folder, **variables):
    """The environment for a child process whose Python runs ``folder``'s sitecustomize.py at its
    start: this one, plus ``variables``, with ``folder`` first on its path."""
    paths = [str(folder), *filter(None, [os.environ.get("PYTHONPATH")])]
    return dict(os.environ, **variables, PYTHONPATH=os.pathsep.join(paths))


def without_transformers(**variables):
    """The environment for a child process that loads the metric but no model: this one, plus
    ``variables``, with transformers and scipy.stats refused (see tests/without_transformers/sitecustomize.py)."""
    return starting_with(ROOT / "tests" / "without_transformers", **variables)

# CI runs a fixed, derandomized profile so a failure reproduces; locally, hypothesis explores. A
# property runs hypothesis's own default of 100 examples unless it sets its count (examples()).
settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
# The fast tier (-m "not slow") is a quick look while working: each property on a fifth of the
# examples. The full run, which CI makes, keeps them all.
FAST_TIER_SHARE = 5
fast_tier = False


def pytest_configure(config):
    global fast_tier
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        import_evaluate_without_its_evaluators()
    if config.getoption("markexpr", "").replace(" ", "") == "notslow":
        fast_tier = True
        profile = settings.get_profile("ci" if os.environ.get("CI") else "dev")
        settings.register_profile("fast", profile, max_examples=profile.max_examples // FAST_TIER_SHARE)
        settings.load_profile("fast")


def import_evaluate_without_its_evaluators():
    """Import evaluate with transformers refused for as long as that takes, in a process that runs
    tests (pytest-xdist's controller runs none).

    Why: evaluate imports transformers' pipelines for its evaluators, about 8 s a process on two
    cores, and scipy.stats for their bootstrap, about 1.4 s more, before a test module is even
    collected; no test here runs an evaluator. Both are then imported as usual by the tests that use
    them (transformers by the trainer's and the RL trainers' recipes).
    """
    if "evaluate" in sys.modules:
        return
    refused = [name for name in ("transformers", "scipy.stats") if name not in sys.modules]
    for name in refused:
        sys.modules[name] = None  # what Python reads as "not installed"
    try:
        import evaluate  # noqa: F401
    finally:
        for name in refused:
            del sys.modules[name]


# The docs whose examples run the MT scripts' own tokenizers, or every convention on a corpus:
# seconds each, so the slow tier runs them.
SLOW_DOCS = {"mt-scripts.md", "which-bleu.md"}


def pytest_collection_modifyitems(items):
    """The slow tests first, each file's in their order: pytest-xdist's workers then take the long
    ones while there is other work beside them, and end on short ones, so that neither worker is left
    waiting on one long test at the end."""
    for item in items:
        if item.path.parent.name == "docs" and item.path.name in SLOW_DOCS:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def examples(count):
    """How many examples a property that sets its own count runs: ``count`` in the full run, a
    fifth of them in the fast tier."""
    return max(1, count // FAST_TIER_SHARE) if fast_tier else count


def load_metric(*configuration):
    """The metric, loaded by path as a user loads it."""
    # Imported here, not at the top: pytest-xdist's controller, which runs no test, loads this
    # module too, and importing evaluate takes it about 5 s.
    import evaluate

    return evaluate.load(METRIC_PATH, *configuration)


@pytest.fixture(scope="session")
def bleu():
    return load_metric()


@pytest.fixture(scope="session")
def sacrebleu_preset():
    return load_metric("sacrebleu")


@pytest.fixture(scope="session")
def nltk_preset():
    return load_metric("nltk")


@pytest.fixture()
def fresh():
    """A metric of its own for one test: its reference cache starts empty."""
    return load_metric()


@pytest.fixture()
def chunked_path():
    """No corpus is counted as a few segments, so that the numpy engine counts even the small ones
    (tests/counting/test_few_segments.py holds the few segments' path to the same definitions)."""
    from exactbleu.counting import corpus

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(corpus, "_FEW_DOCUMENTS", 0)
        yield


@pytest.fixture
def one_torch_thread():
    """On these shared two-core machines, two threads on a model this small train several times slower."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def once_for_the_run(tmp_path_factory, name, make):
    """What ``make()`` returns, made once for the whole test run: by whichever of pytest-xdist's
    workers asks first, while the others wait on a lock, then read it back. For a module fixture that
    runs a client or an engine in processes of its own (tens of seconds of CPU), which each worker
    that takes one of the module's tests would otherwise make again."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return make()
    shared = tmp_path_factory.getbasetemp().parent  # this run's folder, above each worker's own
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, even where make() fails
        made = shared / f"{name}.pickle"
        if made.exists():
            return pickle.loads(made.read_bytes())
        result = make()
        made.write_bytes(pickle.dumps(result))
        return result


def client_python(client):
    """The Python of a client's own environment (``lighteval``, ``mbrs``, ``verl``), which nox builds
    (``nox -s lighteval-env``; ``nox`` builds all): missing, the test fails under CI and is skipped
    elsewhere."""
    python = ROOT / ".nox" / f"{client}-env" / "bin" / "python"
    if not python.exists():
        message = f"the environment {python.parent.parent} is missing: `nox -s {client}-env` builds it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return python


def read_lines(path):
    return pathlib.Path(path).read_text(encoding="utf-8").split("\n")[:-1]


@pytest.fixture(scope="session")
def wmt17():
    """{"reference": [...], "systems": {name: [...]}, "expected": {name: {...}}}."""
    if not WMT17.is_dir():
        pytest.fail(f"the WMT17 data is missing at {WMT17}")
    expected = json.loads((WMT17 / "expected.json").read_text(encoding="utf-8"))["systems"]
    return {
        "reference": read_lines(WMT17 / "newstest2017.ref.de"),
        "systems": {name: read_lines(WMT17 / "systems" / f"{name}.de") for name in expected},
        "expected": expected,
    }


_DISTRIBUTED = """
import json, sys, evaluate
path, rank, world, cache, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], json.load(open(sys.argv[5]))
results = []
for experiment, predictions, references, options in jobs:
    metric = evaluate.load(path, num_process=world, process_id=rank, experiment_id=experiment, cache_dir=cache)
    share = slice(rank, None, world)
    if predictions[share]:
        metric.add_batch(predictions=predictions[share], references=references[share])
    results.append(metric.compute(**options))
print(json.dumps(results))
"""


def run_distributed(jobs, world, work):
    """Run each job, (experiment_id, predictions, references, options), in evaluate's distributed
    mode with ``world`` real processes sharing the cache directory ``work``: rank r adds the
    segments r, r + world, ... Returns each rank's list of results, one per job."""
    (work / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    processes = [subprocess.Popen([sys.executable, "-c", _DISTRIBUTED, METRIC_PATH, str(rank), str(world), str(work),
                                   str(work / "jobs.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=without_transformers()) for rank in range(world)]
    outputs = [process.communicate(timeout=300) for process in processes]
    assert all(process.returncode == 0 for process in processes), [err[-2000:] for _, err in outputs]
    return [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]


# --- The Space, served on a free local port ----------------------------------------------------

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def start_space(uploads, command=None):
    """The Space served as a user starts it, on a free local port: ``python app.py``, or a shell
    ``command`` given the port as $PORT. Yields (url, process); the server and everything it
    started end after."""
    port = free_port()
    env = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port), PORT=str(port),
               GRADIO_TEMP_DIR=str(uploads), PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}")
    log = tempfile.TemporaryFile("w+")  # not a pipe, which a chatty server could fill and block on
    process = subprocess.Popen(command or [sys.executable, str(ROOT / "app.py")], shell=command is not None, env=env,
                               cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None:
                    log.seek(0)
                    pytest.fail(f"the Space exited: {log.read()[-3000:]}")
                time.sleep(0.1)
        else:
            pytest.fail("the Space did not start listening within 120 s")
        yield f"http://127.0.0.1:{port}/", process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def space_uploads(tmp_path_factory):
    return tmp_path_factory.mktemp("gradio-uploads")


@pytest.fixture(scope="session")
def space_server(space_uploads):
    """The Space, (url, process), started once a session (once for each pytest-xdist worker): a
    start is mostly Gradio's import, 6-7 s. Every test that uses it leaves it as it found it: the
    connections it opened closed, its requests answered or dropped, the server idle; a test that
    must harm the server (kill it) starts one of its own."""
    with start_space(space_uploads) as served:
        yield served


@pytest.fixture(scope="session")
def space_client(space_server):
    from gradio_client import Client

    client = Client(space_server[0], verbose=False)
    yield client
    client.close()


@pytest.fixture(scope="session")
def sacrebleu_folder(tmp_path_factory):
    """A $SACREBLEU folder whose models/ holds a small SentencePiece model (trained here, on WMT17's
    reference) under each of sacrebleu's file names, and as small.model."""
    import sentencepiece

    folder = tmp_path_factory.mktemp("sacrebleu")
    (folder / "models").mkdir()
    text = folder / "train.txt"
    text.write_text("\n".join(read_lines(WMT17 / "newstest2017.ref.de")[:2000]) + "\n", encoding="utf-8")
    sentencepiece.SentencePieceTrainer.train(input=str(text), model_prefix=str(folder / "small"), vocab_size=1000,
                                             hard_vocab_limit=False, character_coverage=0.9995,
                                             minloglevel=2)
    for name in ("sacrebleu_tokenizer_spm.model", "flores200sacrebleuspm", "spbleu-1k_tokenizer_spm.model"):
        (folder / "models" / name).write_bytes((folder / "small.model").read_bytes())
    return folder
