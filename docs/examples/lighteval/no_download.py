"""Let LightEval start without a network. LightEval 0.13 downloads tinyBenchmarks.pkl when it loads
its list of tasks, whatever the task run, unless the file is already where it keeps it (beside its
tiny_benchmarks task); with no network, the download raises and LightEval stops before it starts.
Only its tiny benchmarks read the file, so an empty one in its place is enough for any other task.
Run it with LightEval's Python, once."""

import importlib.util
import pathlib

spec = importlib.util.find_spec("lighteval")
assert spec is not None and spec.origin is not None, "LightEval is not installed in this Python"
placeholder = pathlib.Path(spec.origin).parent / "tasks" / "tasks" / "tinyBenchmarks.pkl"
if not placeholder.exists():
    placeholder.touch()
