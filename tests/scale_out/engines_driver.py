"""One process (one per rank under torchrun) that runs, one after the other, the steps of a plan that
test_engines.py writes: README recipes, each as written, run as `python recipe.py ...` runs it
(its own `__main__`, argv and working directory), and the fresh-workers check. An engine's
processes start once, not once per test: this process imports the engine once, and the check runs
in the cluster of the recipe that follows it in the plan, on the workers that recipe started before
it loads the metric: Dask's as soon as the recipe's client starts, Ray's before the recipe's
`ray.shutdown()` ends its cluster.

Each step's lines follow a line `--- name`. Nothing here is imported at the top that a Dask
worker, which imports this file when it starts, would not need."""

import contextlib
import json
import os
import runpy
import socket
import sys

WAIT = 90  # seconds: a fresh worker imports evaluate first, slowly on a loaded machine


def read(path):
    with open(path, encoding="utf-8") as file:
        return [line.rstrip("\n") for line in file]


def fresh_workers(engine, path, hypotheses, references, client=None):
    """Regression: a metric from evaluate.load works on workers that started before it was loaded,
    like those of a cluster already running: a worker spawned after the load inherits the caller's
    sys.path, evaluate's module cache included, and would unpickle even a metric whose class lives
    there. Dask's workers are those of the recipe's ``client``, Ray's those of the recipe's cluster,
    both started (with the driver's sys.path) before any load."""
    predictions, references = read(hypotheses), read(references)
    parts = [(predictions[i:i + 100], references[i:i + 100]) for i in range(0, len(predictions), 100)]
    import evaluate

    bleu = evaluate.load(path)
    if engine == "dask":
        columns = [future.result(timeout=WAIT) for future in client.map(lambda part: bleu.statistics(*part), parts)]
        computed = client.submit(bleu.compute, predictions=predictions, references=references).result(timeout=WAIT)
    else:
        import ray

        assert ray.is_initialized()  # the recipe's cluster, whose workers started before the load

        def statistics_and_score(metric):
            """The metric both ways a task takes it: in the function's closure, and as its argument. One
            task, so that one worker, not each of the cluster's, imports evaluate to unpickle it."""
            return [bleu.statistics(*part) for part in parts], metric.compute(predictions=predictions,
                                                                              references=references)

        columns, computed = ray.get(ray.remote(statistics_and_score).remote(bleu), timeout=WAIT)
    print(bleu.score_statistics({name: [value for part in columns for value in part[name]] for name in columns[0]}))
    print(computed, flush=True)


def announce(name):
    if os.environ.get("RANK", "0") == "0":  # torchrun's ranks share one stdout
        print(f"--- {name}", flush=True)


@contextlib.contextmanager
def as_a_script(step, folder):
    """A step run as `python script` run there would be: its heading, its working directory, and
    ``folder`` first on sys.path. The caller's sys.path and folder come back after, so that no step's
    workers inherit what an earlier step added (evaluate's module cache)."""
    announce(step["name"])
    cwd, path = os.getcwd(), list(sys.path)
    os.chdir(step["cwd"])
    sys.path[0] = folder
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.path[:] = path
        os.chdir(cwd)


def run_recipe(step):
    """The recipe as `python script args` runs it."""
    sys.argv = list(step["argv"])
    with as_a_script(step, os.path.dirname(step["argv"][0])):
        runpy.run_path(step["argv"][0], run_name="__main__")


def check_before_ray_shutdown(step):
    """Run the fresh-workers check when the recipe calls ray.shutdown(), then shut down."""
    import ray

    shutdown = ray.shutdown

    def check_then_shutdown(*args, **kwargs):
        ray.shutdown = shutdown
        try:
            with as_a_script(step, sys.path[0]):  # inside the recipe, which put its own folder first
                fresh_workers("ray", *step["args"])
        finally:
            shutdown(*args, **kwargs)

    ray.shutdown = check_then_shutdown


def check_when_dask_client_starts(step, recipe):
    """Run the fresh-workers check as soon as the recipe's client has started (its cluster's workers
    are up, and the recipe has loaded no metric yet), then go on with the recipe under its heading."""
    from dask.distributed import Client

    enter = Client.__enter__

    def enter_then_check(client):
        Client.__enter__ = enter
        started = enter(client)
        with as_a_script(step, sys.path[0]):  # inside the recipe, which put its own folder first
            fresh_workers("dask", *step["args"], client=client)
        announce(recipe)
        return started

    Client.__enter__ = enter_then_check


def new_rendezvous(index):
    """A torchrun rank's next process group meets at a port of its own: a group destroyed leaves its
    keys in torchrun's store, where the next group of the same name would read them."""
    from torch.distributed import TCPStore

    store = TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False)  # torchrun's
    if os.environ["RANK"] == "0":
        with socket.socket() as probe:
            probe.bind((os.environ["MASTER_ADDR"], 0))
            store.set(f"exactbleu-step-{index}", str(probe.getsockname()[1]))
    os.environ["MASTER_PORT"] = store.get(f"exactbleu-step-{index}").decode()
    os.environ["TORCHELASTIC_USE_AGENT_STORE"] = "False"  # rank 0 serves the new store itself


def main(plan):
    for index, step in enumerate(plan):
        if step["kind"] == "fresh workers" and step["engine"] == "ray":
            check_before_ray_shutdown(step)
            continue
        if step["kind"] == "fresh workers":
            check_when_dask_client_starts(step, plan[index + 1]["name"])
            continue
        if index and "TORCHELASTIC_RUN_ID" in os.environ:
            new_rendezvous(index)
        run_recipe(step)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as file:
        main(json.load(file))
