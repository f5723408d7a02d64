"""The environments the README's test command makes (noxfile.py): all four at once, from uv's cache
where it holds everything, and torch's build chosen by the machine, with nothing set first. A machine
without a GPU gets the CPU build, never PyPI's CUDA build and its gigabytes of nvidia-* packages; a
local wheel folder that pip is given (PIP_FIND_LINKS) is still used."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import tomllib

from conftest import ROOT

NOX_PYTHON = ROOT / ".venv" / "bin" / "python"  # where the README's test command installs nox


def a_gpu_is_here():
    return pathlib.Path("/proc/driver/nvidia").exists() or shutil.which("nvidia-smi") is not None


def test_no_environment_of_the_test_command_holds_cuda_packages_on_a_machine_without_a_gpu():
    environments = sorted(path for path in (ROOT / ".nox").glob("*-env") if path.is_dir())
    assert pathlib.Path(sys.prefix).resolve() in [path.resolve() for path in environments], sys.prefix
    for environment in environments:
        installed = [path.name for path in environment.glob("lib/python*/site-packages/*.dist-info")]
        assert any(name.startswith("torch-") for name in installed), environment
        cuda = [name for name in installed if name.lower().startswith("nvidia")]
        assert not cuda or a_gpu_is_here(), (environment.name, cuda)


def backend_chosen(tmp_path, **variables):
    """UV_TORCH_BACKEND as noxfile.py leaves it, read in a process of its own under ``variables``."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("PIP_FIND_LINKS", "UV_FIND_LINKS", "UV_TORCH_BACKEND")}
    code = ("import os, runpy; runpy.run_path('noxfile.py'); "
            "print(os.environ.get('UV_TORCH_BACKEND', 'unset'), os.environ.get('UV_FIND_LINKS', 'unset'))")
    completed = subprocess.run([str(NOX_PYTHON), "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                               env=dict(environment, **variables))
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.split()


def test_uv_chooses_torch_by_the_machine_unless_a_local_folder_holds_the_pinned_wheel(tmp_path):
    assert backend_chosen(tmp_path) == ["auto", "unset"]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "torch-2.0.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl").touch()
    assert backend_chosen(tmp_path, PIP_FIND_LINKS=str(tmp_path / "other")) == ["auto", str(tmp_path / "other")]
    (tmp_path / "wheels").mkdir()
    pinned = next(requirement for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
                  ["dependency-groups"]["test"] if requirement.startswith("torch==")).removeprefix("torch==")
    (tmp_path / "wheels" / f"torch-{pinned}+cpu-cp311-cp311-manylinux_2_28_x86_64.whl").touch()
    assert backend_chosen(tmp_path, PIP_FIND_LINKS=str(tmp_path / "wheels")) == ["unset", str(tmp_path / "wheels")]
    assert backend_chosen(tmp_path, UV_TORCH_BACKEND="cu126") == ["cu126", "unset"]


MADE_AT_ONCE = """
import json, runpy, subprocess
import nox.registry

runpy.run_path("noxfile.py")
sessions = nox.registry.get()
events = []


class Build:
    def __init__(self, command, **options):
        events.append(("start", command[-1]))
        self.name, self.returncode = command[-1], 1 if command[-1] == "mbrs-env" else 0

    def communicate(self):
        events.append(("end", self.name))
        return f"{self.name} made", None

    def poll(self):
        return self.returncode


class Session:
    def log(self, message):
        events.append(("log", message))

    def error(self, message):
        raise SystemExit(message)


subprocess.Popen = Build
try:
    sessions["environments"].func(Session())
except SystemExit as error:
    events.append(("error", str(error)))
print(json.dumps([sessions["tests"].requires, sorted(name for name in sessions if name.endswith("-env")), events]))
"""


def test_the_test_command_makes_every_environment_at_once_and_fails_if_one_fails():
    completed = subprocess.run([str(NOX_PYTHON), "-c", MADE_AT_ONCE], capture_output=True, text=True, timeout=60,
                               cwd=ROOT)
    assert completed.returncode == 0, completed.stderr
    requires, environments, events = json.loads(completed.stdout)
    assert requires == ["environments"]
    assert environments == ["core-env", "lighteval-env", "mbrs-env", "verl-env"]
    started = [name for kind, name in events if kind == "start"]
    assert sorted(started) == environments
    assert [kind for kind, _ in events[:4]] == ["start"] * 4  # every build starts before any is waited on
    assert ["log", "mbrs-env:\nmbrs-env made"] in events  # each build's output is shown
    assert events[-1] == ["error", "could not make mbrs-env"]


MADE_FROM_THE_CACHE = """
import json, runpy, subprocess, sys

install = runpy.run_path("noxfile.py")["install"]


class Session:
    bin, installed, logged = sys.argv[1], [], []

    def run_install(self, *command, silent, log, external):  # as nox runs it: its output, or None if skipped
        return None if sys.argv[2] == "--no-install" else subprocess.run(command, capture_output=True, text=True).stdout

    def install(self, *requirements):
        self.installed.append(list(requirements))

    def log(self, message):
        self.logged.append(message)


install(Session(), *sys.argv[3:])
print(json.dumps([Session.installed, Session.logged]))
"""


def test_an_environment_is_made_from_uvs_cache_where_it_holds_everything_and_from_the_index_otherwise(tmp_path):
    """What uv's cache holds (regex: uv made the test environments) is installed offline; a package the
    cache lacks goes to nox's own install, which asks the index; and nox's --no-install on a reused
    environment skips both."""
    uv = ROOT / ".venv" / "bin" / "uv"
    subprocess.run([str(uv), "venv", "--quiet", "--python", sys.executable, str(tmp_path / "venv")], check=True,
                   cwd=tmp_path, timeout=60)

    def made(*requirements, nox_installs="--install"):
        completed = subprocess.run([str(NOX_PYTHON), "-c", MADE_FROM_THE_CACHE, str(tmp_path / "venv" / "bin"),
                                    nox_installs, *requirements], capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert completed.returncode == 0, completed.stderr
        return json.loads(completed.stdout)

    def installed(name):
        return bool(list((tmp_path / "venv").glob(f"lib/python*/site-packages/{name}-*.dist-info")))

    assert made("tqdm", nox_installs="--no-install") == [[], []] and not installed("tqdm")  # nox -R: nothing
    assert made("regex") == [[], ["made from uv's cache: regex"]] and installed("regex")
    assert made("exactbleu-no-such-package") == [[["exactbleu-no-such-package"]], []]


def test_the_readmes_commands_are_short_and_ask_for_no_variable_first():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for marker in ("install", "main-job", "test-command"):
        command = re.search(rf"<!-- {marker} -->\n```bash\n(.*?)\n```", readme, re.DOTALL)
        assert command, marker
        assert len(command.group(1)) <= 200 and "\n" not in command.group(1), (marker, command.group(1))
        assert not re.match(r"\s*(export\s+)?[A-Z_]+=", command.group(1)), (marker, command.group(1))
    assert not re.search(r"\bexport [A-Z_]+=", readme), "the README asks for a variable to be set first"
