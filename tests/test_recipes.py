"""Every recipe in the README runs as written: its code block is taken from README.md by marker."""

import os
import re
import socket
import subprocess
import sys
import time

import numpy as np

from conftest import ROOT
from oracles import hf_bleu

README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [README] + [page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs").glob("*.md"))]


def recipe(name):
    """A recipe's code block, found by its marker in README.md or a page of docs/."""
    for page in PAGES:
        match = re.search(rf"<!-- recipe: {name} -->\n```(\w+)\n(.*?)```", page, re.DOTALL)
        if match:
            return match.group(2)
    raise AssertionError(f"no page holds a recipe {name!r}")


def as_here(command):
    """A shell recipe as this interpreter runs it: the README's `.venv/bin/` is the venv its
    set-up commands create, which holds this interpreter when the README's test command runs."""
    assert ".venv/bin/python " in command or ".venv/bin/exactbleu " in command
    return command.strip().replace(".venv/bin/python", sys.executable).replace(
        ".venv/bin/exactbleu", os.path.join(os.path.dirname(sys.executable), "exactbleu"))


def run_python(name):
    namespace = {}
    cwd = os.getcwd()
    os.chdir(ROOT)  # the recipes load "bleu_metric.py" from the repository root
    try:
        exec(compile(recipe(name), f"README.md:{name}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace


def test_training_loop():
    namespace = run_python("training-loop")
    eval_set, translate = namespace["eval_set"], namespace["translate"]
    assert namespace["result"] == hf_bleu(translate(eval_set["source"]), list(eval_set["references"]))


class StubTokenizer:
    """Just what compute_metrics uses: ids are word positions; 0 is padding; -100 cannot be decoded."""

    pad_token_id = 0
    words = ["<pad>", "the", "cat", "sat", "on", "mat", "a", "dog", "ran"]

    def batch_decode(self, sequences, skip_special_tokens=False):
        texts = []
        for sequence in sequences:
            if any(token < 0 for token in sequence):
                raise ValueError("cannot decode a negative id")
            words = [self.words[token] for token in sequence if not (skip_special_tokens and token == 0)]
            texts.append(" ".join(words) + " ")
        return texts


def test_seq2seq_compute_metrics():
    namespace = run_python("seq2seq")
    predictions = np.array([[1, 2, 3, 4, 1, 5], [6, 7, 8, 0, 0, 0]])
    labels = np.array([[1, 2, 3, 4, 6, 5], [6, 7, 8, -100, -100, -100]])
    metrics = namespace["compute_metrics"]((predictions, labels), StubTokenizer())
    expected = hf_bleu(["the cat sat on the mat", "a dog ran"], [["the cat sat on a mat"], ["a dog ran"]])
    assert metrics == {"bleu": expected["bleu"], "brevity_penalty": expected["brevity_penalty"]}


def test_scale_out_with_datasets_map():
    run_python("scale-out")  # the recipe asserts its own result against compute()


def test_command_line_on_wmt17():
    command = as_here(recipe("cli"))
    completed = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, PYTHON=sys.executable, PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"))
    assert completed.returncode == 0, completed.stderr
    page = next(page for page in PAGES if "<!-- recipe: cli -->" in page)
    printed = re.search(r"prints\n\n```\n(.*?)```", page[page.index("<!-- recipe: cli -->"):], re.DOTALL).group(1)
    assert completed.stdout == printed
    # The quick start's command, after the README's set-up command, prints the score alone.
    completed = subprocess.run(as_here(recipe("quick-cli")), shell=True, cwd=ROOT, capture_output=True, text=True,
                               timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "28.3\n" and "prints `28.3`" in README


def test_deploying_the_space_serves_the_api():
    from gradio_client import Client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = as_here(recipe("space")).replace("0.0.0.0", "127.0.0.1").replace("7860", str(port))
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False",
               PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}")
    process = subprocess.Popen(command, shell=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        result = Client(f"http://127.0.0.1:{port}/", verbose=False).predict("a b c d", "a b c d", api_name="/compute")
        assert result["bleu"] == 1.0
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)
