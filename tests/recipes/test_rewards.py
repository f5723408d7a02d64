"""exactbleu.rewards: each trainer's form gives sentence_bleu of the completion's answer, exactly,
with the reasoning section removed as documented (closed, never closed, none, other tags); a target
language tokenizes as sacrebleu's BLEU(trg_lang=); OpenRLHF's dict of tensors; TRL's columns are not
options. And verl's own reward managers, loading the docs' recipe through verl's config path."""

import json
import math
import os
import random
import subprocess

import pytest
from sacrebleu.metrics import BLEU

import exactbleu
from conftest import ROOT, client_python
from exactbleu import rewards
from oracles import random_corpus
from pages import recipe


def answer(text, opening="<think>", closing="</think>"):
    """The documented rule, restated: after the last closing tag; nothing if a section never closes."""
    if closing in text:
        return text.split(closing)[-1]
    return "" if opening in text else text


def completions_with_reasoning(count, seed, opening="<think>", closing="</think>"):
    predictions, references = random_corpus(count, seed, references=2)
    rng = random.Random(seed)
    made = []
    for prediction, group in zip(predictions, references):
        shape = rng.randrange(4)
        thought = " ".join(group[0].split()[:5])  # reasoning that shares words with the reference
        made.append([prediction, f"{opening}{thought}{closing} {prediction}", f"{opening}{thought} {prediction}",
                     f"{opening}a{closing}{opening}{thought}{closing}{prediction}"][shape])
    return made, references


def test_every_form_is_sentence_bleu_of_the_answer():
    completions, references = completions_with_reasoning(60, seed=1)
    expected = [exactbleu.sentence_bleu(answer(c), r, "sacrebleu")["bleu"] for c, r in zip(completions, references)]
    assert [rewards.compute_score("d", c, r, {}) for c, r in zip(completions, references)] == expected
    assert rewards.compute_score_batch(["d"] * 60, completions, references, [{}] * 60) == expected
    prompts = [f"Translate {i}: " for i in range(60)]
    got = rewards.reward_func([p + c for p, c in zip(prompts, completions)], prompts, references)
    assert got["rewards"].tolist() == [float(f) for f in __import__("torch").tensor(expected).tolist()]
    assert got["rewards"].dtype == __import__("torch").float32 and set(got) == {"rewards", "scores", "extra_logs"}
    assert rewards.bleu_reward(completions, references, prompts=prompts, completion_ids=[[1]] * 60) == expected
    conversational = [[{"role": "assistant", "content": c}] for c in completions]
    assert rewards.bleu_reward(conversational, references) == expected
    # One reference as a string is a list of one
    assert rewards.compute_score("d", completions[0], references[0][0]) == exactbleu.sentence_bleu(
        answer(completions[0]), [references[0][0]], "sacrebleu")["bleu"]
    assert any(a != b for a, b in zip(expected, [exactbleu.sentence_bleu(c, r, "sacrebleu")["bleu"]
                                                 for c, r in zip(completions, references)]))


def test_options_languages_and_tags():
    completions, references = completions_with_reasoning(20, seed=2, opening="<reason>", closing="</reason>")
    tags = ("<reason>", "</reason>")
    expected = [exactbleu.sentence_bleu(answer(c, *tags), r, "nltk", smooth_method="method1")["bleu"]
                for c, r in zip(completions, references)]
    assert rewards.compute_score_batch([None] * 20, completions, references, None, preset="nltk",
                                       smooth_method="method1", think=tags) == expected
    assert rewards.bleu_reward(completions, references, preset="nltk", think=tags,
                               options={"smooth_method": "method1"}) == expected
    assert rewards.compute_score("d", "<think>x</think> y", "x", think=None) == exactbleu.sentence_bleu(
        "<think>x</think> y", ["x"], "sacrebleu")["bleu"]
    for language, hypothesis, reference in (("zh", "猫坐在垫子上。", "猫坐在那个垫子上。"),
                                            ("ja", "猫がマットの上に座った。", "猫はマットの上に座っていた。"),
                                            ("ko", "고양이가 매트 위에 앉았다.", "고양이는 매트 위에 앉아 있었다."),
                                            ("de", "Die Katze saß auf der Matte.", "Die Katze sitzt auf der Matte.")):
        got = rewards.compute_score("d", f"<think>…</think>{hypothesis}", reference, target_language=language)
        theirs = BLEU(trg_lang=language, effective_order=True).sentence_score(hypothesis, [reference]).score / 100
        assert math.isclose(got, theirs, rel_tol=1e-15), language


@pytest.mark.parametrize("call, words", [
    (lambda: rewards.compute_score("d", "a", "a", think=("<think>",)), ["think must be", "('<think>',)"]),
    (lambda: rewards.compute_score("d", 3, "a"), ["completion must be a string", "int"]),
    (lambda: rewards.compute_score("d", "a", "a", smooth_method="nope"), ["smooth_method", "nope"]),
    # the same option resolved before as an int: a float is still refused
    (lambda: [rewards.compute_score("d", "a", "a", max_order=4), rewards.compute_score("d", "a", "a", max_order=4.0)],
     ["max_order must be a positive int", "4.0"]),
    (lambda: rewards.compute_score_batch(["d"], ["a", "b"], ["a"]), ["2 completions and 1 references"]),
    (lambda: rewards.reward_func(["xa"], ["y"], ["a"]), ["must begin with its prompt"]),
    (lambda: rewards.bleu_reward(["a"], ["a"], options={"tokenizer": "nope"}), ["tokenizer", "nope"]),
])
def test_bad_input_gets_a_message_that_names_it(call, words):
    with pytest.raises((TypeError, ValueError)) as raised:
        call()
    for word in words:
        assert word in str(raised.value)


@pytest.mark.slow  # verl's start, in a process of its own
def test_verls_own_reward_managers_give_each_response_its_bleu(tmp_path):
    verl = client_python(".venv-verl")
    completions, references = completions_with_reasoning(12, seed=3)
    (tmp_path / "reward.py").write_text(recipe("verl/reward.py"), encoding="utf-8")
    job = {"prompts": [f"translate sentence {i}" for i in range(12)], "responses": completions,
           "ground_truths": references, "recipe_path": str(tmp_path / "reward.py"),
           "reward_kwargs": {"target_language": "de"}}
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    completed = subprocess.run([str(verl), str(ROOT / "tests" / "recipes" / "in_verl.py"), str(tmp_path / "job.json"),
                                str(tmp_path / "report.json")], capture_output=True, text=True, timeout=300,
                               env={**os.environ, "TMPDIR": str(tmp_path)}, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr[-6000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    import torch

    expected = torch.tensor([exactbleu.sentence_bleu(answer(text), group, "sacrebleu")["bleu"]
                             for text, group in zip(report["decoded"], references)], dtype=torch.float32).tolist()
    assert report["compute_score"] == expected
    assert report["compute_score_batch"] == expected
    assert report["compute_score_elsewhere"] == 0 and report["compute_score_batch_elsewhere"] == 0
    assert any(value > 0 for value in expected)
