"""The docs' Lightning recipe in a real Trainer: two DDP processes (gloo, on the CPU) log the metric
in validation_step, torchmetrics sums their statistics, and the logged BLEU is exactly what one
process computes over the whole set, and NLTK's corpus_bleu."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu

from conftest import starting_with
from exactbleu.torchmetrics import BLEUScore
from oracles import nltk_quietly
from pages import recipe

LEAN_MACHINE = Path(__file__).with_name("lean_machine")  # its sitecustomize.py says why


@pytest.mark.slow
def test_two_ddp_processes_log_what_one_process_computes_on_the_whole_set(tmp_path):
    script = tmp_path / "lightning_ddp.py"
    script.write_text(recipe("lightning-ddp"), encoding="utf-8")
    # Both processes (Lightning starts the second with this environment) run as on a machine with only what
    # the recipe installs: torchmetrics would import transformers, matplotlib and scipy, none of which it uses.
    env = starting_with(LEAN_MACHINE, LEAN_MACHINE_ABSENT="transformers,matplotlib,scipy")
    completed = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                               timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    logged = json.loads(completed.stdout.strip().splitlines()[-1])["val_bleu"]
    # The script's data, from its random generator up to its LightningModule: run here without the
    # imports above it, since this process needs no Lightning (1 to 2 s to import on two cores).
    source = recipe("lightning-ddp")
    namespace = {"random": random}
    exec(compile(source[source.index("rng = "):source.index("class Translator")], "lightning-ddp", "exec"), namespace)
    pairs = namespace["EVAL_SET"]
    one_process = BLEUScore(smooth=True)([pair["prediction"] for pair in pairs],
                                         [[pair["reference"]] for pair in pairs])
    assert logged == one_process.item()
    assert logged == nltk_quietly(corpus_bleu, [[pair["reference"].split()] for pair in pairs],
                                  [pair["prediction"].split() for pair in pairs],
                                  smoothing_function=SmoothingFunction().method2)
