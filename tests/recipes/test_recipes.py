"""Every recipe in the README and docs/ runs as written: its code block is taken from its page by marker."""

import pytest

import os
import re
import subprocess
import sys

import numpy as np

from conftest import ROOT, start_space
from pages import PAGES, README, as_here, recipe, run_python
from oracles import hf_bleu


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


@pytest.mark.slow
def test_scale_out_with_datasets_map():
    run_python("scale-out")  # the recipe asserts its own result against compute()


@pytest.mark.slow
def test_command_line_on_wmt17():
    command = as_here(recipe("cli"))
    completed = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, PYTHON=sys.executable, PATH=f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"))
    assert completed.returncode == 0, completed.stderr
    page = next(page for page in PAGES if "<!-- recipe: cli -->" in page)
    printed = re.search(r"prints\n\n```text\n(.*?)```", page[page.index("<!-- recipe: cli -->"):], re.DOTALL).group(1)
    assert completed.stdout == printed
    # The quick start's command, after the README's set-up command, prints the score alone.
    completed = subprocess.run(as_here(recipe("quick-cli")), shell=True, cwd=ROOT, capture_output=True, text=True,
                               timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "28.3\n" and "prints `28.3`" in README


@pytest.mark.slow
def test_deploying_the_space_serves_the_api(tmp_path):
    from gradio_client import Client

    command = as_here(recipe("space")).replace("0.0.0.0", "127.0.0.1").replace("7860", "$PORT")
    with start_space(tmp_path, command) as (url, _):
        assert Client(url, verbose=False).predict("a b c d", "a b c d", api_name="/compute")["bleu"] == 1.0


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
def test_a_custom_rl_loop_keeps_its_rewards_on_the_device(monkeypatch, capsys):
    """The RL loop's rewards: each step's, a float64 tensor on the completions' device, bit for bit
    the scores of the same ids as numpy arrays; and the policy learns, as the page says it prints."""
    import exactbleu

    scored = exactbleu.sentence_scores
    calls = []

    def recorded(predictions, references, *args, **kwargs):
        rewards = scored(predictions, references, *args, **kwargs)
        calls.append((predictions.cpu().numpy(), references.cpu().numpy(), args, kwargs, rewards))
        return rewards

    monkeypatch.setattr(exactbleu, "sentence_scores", recorded)
    namespace = run_python("rl-loop")
    assert len(calls) == 50
    for predictions, references, args, kwargs, rewards in calls:
        assert rewards.dtype == namespace["torch"].float64 and rewards.device.type == namespace["device"]
        assert rewards.cpu().numpy().tolist() == scored(predictions, references, *args, **kwargs).tolist()
    printed = capsys.readouterr().out.strip()
    assert f"It prints `{printed}` on the CPU." in "".join(page for page in PAGES if "recipe: rl-loop" in page)
    assert namespace["means"][-1] > namespace["means"][0] + 0.3
