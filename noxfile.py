"""The project's environments, and what runs in each: ``nox`` runs what CI runs, every test at once.

Four environments, each declared once by what it installs (pyproject.toml's extras and dependency
groups): ``core-env``, the library with every extra and the tests' oracles, tools and clients; and
one for each client that pins other versions than the core's (``lighteval-env``, ``mbrs-env``,
``verl-env``), where the tests run that client in a process of its own. The other sessions run in
those environments: ``tests`` (the default) everything on two workers, once ``environments`` has
made (or brought up to date) all four at once; ``fast`` the tier without the
slow tests; ``lighteval``, ``mbrs`` and ``verl`` one client's tests; ``lint`` the type checker and
the linter; ``docs`` the examples of the README and docs/; ``browser`` the Space in Chromium.
Arguments after ``--`` go to pytest: ``nox -s tests -- -k rewards``.
"""

import os
import subprocess
import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv"  # uv installs what pip would, several times faster
nox.options.reuse_venv = "yes"  # an environment is made once; a later run brings it up to date
nox.options.error_on_external_run = True

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
# pip reads a machine's local wheel folder (PIP_FIND_LINKS) by itself; uv reads a variable of its own.
if os.environ.get("PIP_FIND_LINKS") and not os.environ.get("UV_FIND_LINKS"):
    os.environ["UV_FIND_LINKS"] = os.environ["PIP_FIND_LINKS"]


def torch_from_the_machine() -> None:
    """Let uv choose torch's build by the machine, unless told otherwise: PyPI's torch is the CUDA
    build, gigabytes of nvidia-* packages that a machine without a GPU never uses. uv's "auto"
    backend takes the CPU build there, and the build for the driver where there is one. A wheel of
    the pinned release in a local wheel folder is taken as it is: the index "auto" reads may be out
    of reach there, as on the project's own machines, whose only registry is PyPI."""
    if os.environ.get("UV_TORCH_BACKEND"):
        return
    pinned = next(requirement.split("==")[1] for requirement in PYPROJECT["dependency-groups"]["test"]
                  if requirement.startswith("torch=="))
    wheels = [wheel for folder in os.environ.get("UV_FIND_LINKS", "").split()
              for wheel in Path(folder).glob(f"torch-{pinned}[+-]*.whl")]
    if not wheels:
        os.environ["UV_TORCH_BACKEND"] = "auto"


torch_from_the_machine()


# Each environment: the extra of the package it installs (editable), and the dependency group beside it.
ENVIRONMENTS = {"core": ("all", "test"), "lighteval": ("lighteval", "lighteval-env"), "mbrs": ("mbrs", "mbrs-env"),
                "verl": ("verl", "verl-env")}


def install(session: nox.Session, *requirements: str) -> None:
    """uv pip install, from uv's cache alone where it holds everything, from the index otherwise.

    Why: uv asks the index again for every package it has cached, and where the index's answer
    reads as changed (as this project's registry's always does), it downloads and builds each source
    distribution again: fast-bleu's C++ and the MeCab dictionaries, 20 s of the core environment's
    33 s on a machine whose cache holds them all, where the same environment takes 5 s offline. The
    packages are the same: what the cache holds is what the index gave it. A machine whose cache
    lacks something (a first run, a new requirement) asks the index, as uv always does."""
    try:
        from uv import find_uv_bin  # the uv beside nox, as nox itself finds it

        uv = find_uv_bin()
    except ImportError:
        uv = "uv"
    # Through run_install, which nox skips as it skips an install (--no-install on a reused environment):
    # the child prints uv's exit status, which nox would otherwise keep to itself.
    status = "import subprocess, sys; print(subprocess.run(sys.argv[1:], capture_output=True).returncode)"
    printed = session.run_install(sys.executable, "-c", status, uv, "pip", "install", "--offline", "--python",
                                  str(Path(session.bin) / "python"), *requirements, silent=True, log=False,
                                  external=True)
    if printed is None:
        return
    if str(printed).strip() == "0":
        session.log(f"made from uv's cache: {' '.join(requirements)}")
    else:
        session.install(*requirements)


def environment(name: str, extra: str, group: str) -> None:
    """Declare the session that makes (or brings up to date) one environment, and nothing else."""

    @nox.session(name=f"{name}-env", default=False)
    def build(session: nox.Session) -> None:
        install(session, "-e", f".[{extra}]", *nox.project.dependency_groups(PYPROJECT, group))

    build.__doc__ = f"The {name} environment: exactbleu[{extra}], editable, and the {group!r} group of pyproject.toml."


for _name, (_extra, _group) in ENVIRONMENTS.items():
    environment(_name, _extra, _group)


@nox.session(venv_backend="none", default=False)
def environments(session: nox.Session) -> None:
    """Every environment at once: making one mostly waits on the package index or on one core."""
    builds = {name: subprocess.Popen([sys.executable, "-m", "nox", "-s", f"{name}-env"], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
              for name in ENVIRONMENTS}
    failed = []
    try:
        for name, build in builds.items():
            output = build.communicate()[0]
            session.log(f"{name}-env:\n{output.rstrip()}")
            if build.returncode:
                failed.append(f"{name}-env")
    finally:
        for build in builds.values():
            if build.poll() is None:  # interrupted: no build outlives the session that started it
                build.kill()
                build.wait()
    if failed:
        session.error(f"could not make {', '.join(failed)}")


def pytest(session: nox.Session, *arguments: str) -> None:
    """pytest in the core environment (the clients' tests start their client in its own)."""
    python = ROOT / ".nox" / "core-env" / "bin" / "python"
    session.run(str(python), "-m", "pytest", *arguments, *session.posargs, external=True)


@nox.session(venv_backend="none", requires=["environments"])
def tests(session: nox.Session) -> None:
    """Every test, on two workers: what CI runs (the README's test command)."""
    pytest(session, "-n", "2")


@nox.session(venv_backend="none", requires=["core-env"], default=False)
def fast(session: nox.Session) -> None:
    """The fast tier: every test not marked slow, on two workers."""
    pytest(session, "-n", "2", "-m", "not slow")


@nox.session(venv_backend="none", requires=["core-env", "lighteval-env"], default=False)
def lighteval(session: nox.Session) -> None:
    """exactbleu.lighteval inside LightEval, and the "lighteval" preset against LightEval's own BLEU."""
    pytest(session, "tests/harnesses/test_lighteval.py")


@nox.session(venv_backend="none", requires=["core-env", "mbrs-env"], default=False)
def mbrs(session: nox.Session) -> None:
    """exactbleu.mbrs inside mbrs's decoders, and mbrs's own BLEU tests against it."""
    pytest(session, "tests/mbr/test_mbrs.py")


@nox.session(venv_backend="none", requires=["core-env", "verl-env"], default=False)
def verl(session: nox.Session) -> None:
    """The rewards and exactbleu.verl inside verl's reward loop."""
    pytest(session, "tests/recipes/test_rewards.py")


@nox.session(venv_backend="none", requires=["core-env"], default=False)
def lint(session: nox.Session) -> None:
    """mypy (strict) and ruff, configured in pyproject.toml."""
    python = str(ROOT / ".nox" / "core-env" / "bin" / "python")
    session.run(python, "-m", "mypy", external=True)
    session.run(python, "-m", "ruff", "check", external=True)


@nox.session(venv_backend="none", requires=["core-env"], default=False)
def docs(session: nox.Session) -> None:
    """Every example of the README and docs/, as written: the Python ones as doctests, the shell ones run."""
    pytest(session, "-n", "2", "README.md", "docs", "tests/docs")


@nox.session(venv_backend="none", requires=["core-env"], default=False)
def browser(session: nox.Session) -> None:
    """The Space in Debian's Chromium (apt-get install chromium), driven by Playwright."""
    pytest(session, "tests/space/test_space_browser.py")
