"""exactbleu.rewards: each trainer's form gives sentence_bleu of the completion's answer, exactly,
with the reasoning section removed as documented (closed, never closed, none, other tags); a target
language tokenizes as sacrebleu's BLEU(trg_lang=); the 0..1 number is sacrebleu's score / 100, at
most 1; verl's dict of details, its keywords taken apart from BLEU's options, a missing ground
truth named; OpenRLHF's dict of tensors; TRL's columns are not options. And verl 0.9.1's own reward
loop, every manager of its registry that runs on a CPU and exactbleu.verl's batching manager,
loading the docs' recipe and overrides through verl's config path."""

import collections
import importlib
import json
import math
import os
import random
import re
import subprocess
import sys

import pytest
from sacrebleu.metrics import BLEU

import exactbleu
from conftest import ROOT, client_python
from exactbleu import rewards
from oracles import random_corpus
from pages import recipe

SACREBLEU = BLEU(effective_order=True)  # sacrebleu.sentence_bleu's BLEU, which the "sacrebleu" preset is
ROUTER = dict(reward_router_address="127.0.0.1:9", reward_model_tokenizer=object())  # a reward model's, unread


def reward(text, references, bleu=SACREBLEU):
    """The documented 0..1 number, restated: sacrebleu's sentence score / 100, at most 1."""
    return min(1.0, bleu.sentence_score(text, references).score / 100)


def details(text, references):
    """verl's dict, from sacrebleu's own parts of the score (its precisions are percentages)."""
    score = SACREBLEU.sentence_score(text, references)
    return {"score": min(1.0, score.score / 100), "brevity_penalty": score.bp, "length_ratio": score.ratio,
            "translation_length": score.sys_len, "reference_length": score.ref_len,
            **{f"precision_{n}": p / 100 for n, p in enumerate(score.precisions, 1)}}


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
    # verl's reward_kwargs hand a list over as OmegaConf's ListConfig, a sequence that is no list
    assert rewards.compute_score("d", completions[0], references[0], think=collections.UserList(tags), preset="nltk",
                                 smooth_method="method1") == expected[0]
    for language, hypothesis, reference in (("zh", "猫坐在垫子上。", "猫坐在那个垫子上。"),
                                            ("ja", "猫がマットの上に座った。", "猫はマットの上に座っていた。"),
                                            ("ko", "고양이가 매트 위에 앉았다.", "고양이는 매트 위에 앉아 있었다."),
                                            ("de", "Die Katze saß auf der Matte.", "Die Katze sitzt auf der Matte.")):
        got = rewards.compute_score("d", f"<think>…</think>{hypothesis}", reference, target_language=language)
        theirs = BLEU(trg_lang=language, effective_order=True).sentence_score(hypothesis, [reference]).score / 100
        assert math.isclose(got, theirs, rel_tol=1e-15), language


def perfect_and_random(count, seed):
    """Random completions and references, and perfect matches, which sacrebleu scores a few ulps over 100."""
    completions, references = completions_with_reasoning(count, seed)
    perfect = ["w1 w2 the w3 , w4 .", "a 3.5 b c d", "w7 w8 w9 w10"]
    return completions + perfect, references + [[text, "w0 w1"] for text in perfect]


def test_the_reward_is_sacrebleus_score_over_100_at_most_1():
    completions, references = perfect_and_random(200, seed=4)
    raw = [SACREBLEU.sentence_score(answer(c), r).score / 100 for c, r in zip(completions, references)]
    expected = [reward(answer(c), r) for c, r in zip(completions, references)]
    assert [rewards.compute_score("d", c, r) for c, r in zip(completions, references)] == expected
    assert rewards.compute_score_batch(["d"] * 203, completions, references) == expected
    assert raw[-3:] == [1.0000000000000004] * 3 and expected[-3:] == [1.0] * 3  # the cap, where it shows
    assert 0 < sum(value == 0 for value in expected) < 203 and all(a == b for a, b in zip(raw, expected) if a <= 1)


def test_the_openrlhf_recipe_scores_each_response_as_sacrebleu_in_german():
    """The page's reward_func.py, as OpenRLHF loads it: each query is its prompt and the response."""
    namespace = {}
    exec(compile(recipe("openrlhf/reward_func.py"), "docs/rewards.md:openrlhf/reward_func.py", "exec"), namespace)
    completions, references = completions_with_reasoning(12, seed=5)
    prompts = [f"Übersetze {i}: " for i in range(12)]
    got = namespace["reward_func"]([p + c for p, c in zip(prompts, completions)], prompts, references)
    scorer = BLEU(trg_lang="de", effective_order=True)
    expected = [min(1.0, scorer.sentence_score(answer(c), r).score / 100) for c, r in zip(completions, references)]
    import torch

    assert got["rewards"].tolist() == torch.tensor(expected, dtype=torch.float32).tolist()


def test_details_are_verls_dict_of_the_results_parts():
    completions, references = perfect_and_random(40, seed=5)
    expected = [details(answer(c), r) for c, r in zip(completions, references)]
    got = [rewards.compute_score("d", c, r, details=True) for c, r in zip(completions, references)]
    assert got == expected
    assert [list(one) for one in got] == [list(one) for one in expected]  # verl logs the keys in this order
    assert rewards.compute_score_batch(["d"] * 43, completions, references, details=True) == expected
    assert [one["score"] for one in got] == [rewards.compute_score("d", c, r) for c, r in zip(completions, references)]
    assert all(type(value) in (float, int) for one in got for value in one.values())  # scalars, as verl logs them
    assert any(one["brevity_penalty"] < 1 for one in got) and any(one["precision_4"] > 0 for one in got)


def test_verls_keywords_are_taken_and_not_read_as_options():
    completions, references = completions_with_reasoning(20, seed=6)
    expected = [reward(answer(c), r) for c, r in zip(completions, references)]
    assert [rewards.compute_score(data_source="d", solution_str=c, ground_truth=r, extra_info={}, **ROUTER)
            for c, r in zip(completions, references)] == expected
    assert rewards.compute_score_batch(data_sources=["d"] * 20, solution_strs=completions, ground_truths=references,
                                       extra_infos=[{}] * 20, **ROUTER) == expected
    with pytest.raises(ValueError, match=re.escape("unknown option(s) ['smoth_method']")):
        rewards.compute_score(data_source="d", solution_str="a", ground_truth="a", extra_info={}, smoth_method="exp",
                              **ROUTER)
    with pytest.raises(ValueError, match=re.escape("unknown option(s) ['smoth_method']")):
        rewards.compute_score_batch(["d"], ["a"], ["a"], smoth_method="exp", **ROUTER)


@pytest.mark.parametrize("call, words", [
    (lambda: rewards.compute_score("d", "a", None), ["ground_truth is missing", "None"]),
    (lambda: rewards.compute_score("d", "a", ["a", None]), ["ground_truth is missing", "['a', None]"]),
    (lambda: rewards.compute_score("d", "a", None, details=True), ["ground_truth is missing"]),
    (lambda: rewards.compute_score_batch(["d"] * 3, ["a", "b", "c"], ["a", "b", None]), ["ground_truths[2] is missing"]),
    (lambda: rewards.compute_score_batch(["d"] * 2, ["a", "b"], [["a"], ["b", None]], details=True),
     ["ground_truths[1] is missing", "['b', None]"]),
    (lambda: rewards.bleu_reward(["a"], [None]), ["reference[0] is missing"]),
])
def test_a_missing_ground_truth_is_named(call, words):
    with pytest.raises(ValueError) as raised:  # not a TypeError from inside
        call()
    for word in words:
        assert word in str(raised.value)


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


def test_without_verl_its_face_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "verl", None)  # as where verl is not installed, which this environment is
    monkeypatch.delitem(sys.modules, "exactbleu.verl", raising=False)
    with pytest.raises(ImportError, match=re.escape('pip install "exactbleu[verl]"')):
        importlib.import_module("exactbleu.verl")


def verl_overrides():
    """The docs' verl overrides, as written in the recipe's comments: one sample a call, and the
    batched form (the same, with its own lines over them)."""
    per_sample, batched = recipe("verl/reward.py").split("\n# or ")

    def found(text):
        return dict(re.findall(r"^#\s+\+?([\w.]+)=(\S+)$", text, re.MULTILINE))
    return found(per_sample), {**found(per_sample), **found(batched)}


REGISTRY = ("naive", "dapo", "gdpo", "rate_limited", "remote")
THEIR_KEYWORDS = ["data_source", "extra_info", "ground_truth", "solution_str"]
BATCH_KEYWORDS = ["data_sources", "extra_infos", "ground_truths", "solution_strs"]
ROUTER_KEYWORDS = ["reward_model_tokenizer", "reward_router_address"]


@pytest.mark.slow  # verl's start, in a process of its own, and a local Ray
def test_verls_reward_loop_gives_each_response_its_bleu(tmp_path):
    verl = client_python("verl")
    per_sample, batched = verl_overrides()
    assert per_sample["reward.custom_reward_function.name"] == "compute_score"
    assert batched["reward.custom_reward_function.name"] == "compute_score_batch"
    assert batched["reward.reward_manager.module.path"] == "pkg://exactbleu.verl"
    completions, references = completions_with_reasoning(11, seed=3)
    completions, references = completions + ["<think>w1 w2</think> w1 w2 the w3 , w4 ."], \
        references + [["w1 w2 the w3 , w4 .", "w0"]]  # a perfect match, which sacrebleu scores over 100
    (tmp_path / "reward.py").write_text(recipe("verl/reward.py"), encoding="utf-8")
    job = {"prompts": [f"translate sentence {i}" for i in range(12)], "responses": completions,
           "ground_truths": references, "recipe_path": str(tmp_path / "reward.py"),
           "tokenizer_path": str(tmp_path / "tokenizer"), "per_sample": per_sample, "batched": batched, "missing": 4}
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    completed = subprocess.run([str(verl), str(ROOT / "tests" / "recipes" / "in_verl.py"), str(tmp_path / "job.json"),
                                str(tmp_path / "report.json")], capture_output=True, text=True, timeout=300,
                               env={**os.environ, "TMPDIR": str(tmp_path), "RAY_USAGE_STATS_ENABLED": "0",
                                    "RAY_AUTH_MODE": "disabled"},
                               cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr[-6000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    import torch

    expected = [reward(answer(text), group, BLEU(trg_lang="de", effective_order=True))
                for text, group in zip(report["decoded"], references)]
    assert expected[-1] == 1.0 and SACREBLEU.sentence_score(answer(report["decoded"][-1]), references[-1]).score > 100
    assert 0 < sum(value > 0 for value in expected) < 12
    for name in [manager + router for manager in REGISTRY for router in ("", "+router")] + \
            ["batch", "batch+router", "batch+after_cancel"]:
        assert [output["reward_score"] for output in report[name]] == expected, name
        assert [output["reward_extra_info"] for output in report[name]] == [{"acc": value} for value in expected], name
    for manager in REGISTRY[:-1]:  # remote's function runs in a Ray actor, where nothing records its calls
        assert report["calls"][manager] == [[THEIR_KEYWORDS, 1]] * 12, manager
        assert report["calls"][manager + "+router"] == [[sorted(THEIR_KEYWORDS + ROUTER_KEYWORDS), 1]] * 12, manager
    # The batch manager: one call per chunk of the worker's, however many tasks the chunk's samples had
    assert report["calls"]["batch"] == [[BATCH_KEYWORDS, 6]] * 2
    assert report["calls"]["batch+router"] == [[sorted(BATCH_KEYWORDS + ROUTER_KEYWORDS), 6]] * 2
    assert report["calls"]["batch+details"] == [[BATCH_KEYWORDS, 12]]
    for name in ("naive+details", "batch+details"):
        dicts = [details(answer(text), group) for text, group in zip(report["decoded"], references)]
        assert [output["reward_score"] for output in report[name]] == expected, name
        assert [output["reward_extra_info"] for output in report[name]] == dicts, name
    # verl's rate_limited manager turns a function's error into a 0 reward: the misspelling is in its log
    assert [output["reward_score"] for output in report["rate_limited+misspelled"]] == [0.0] * 12
    assert all("unknown option(s) ['smoth_method']" in output["reward_extra_info"]["error"]
               for output in report["rate_limited+misspelled"])
    assert report["errors"]["batch+missing"].startswith("ValueError: ground_truths[4] is missing")
    # Cancelled mid-call: the chunk's tasks ended, nothing waits, and the next chunk is scored as before
    assert report["cancelled"] == {"task": True, "waiting": False}
    assert report["calls"]["batch+after_cancel"] == [[BATCH_KEYWORDS, 12]] * 2
    assert report["errors"]["batch+shut"].startswith("RuntimeError")
    assert report["errors"]["batch+no_function"].startswith("ValueError: BatchRewardManager calls a batched")
    assert report["errors"]["batch+coroutine"].startswith("TypeError: BatchRewardManager calls its reward function")
    assert set(report["errors"]) == {"batch+missing", "batch+shut", "batch+no_function", "batch+coroutine"}
    assert report["left"] == {"tasks": 0, "problems": [], "threads": []}
    legacy = report["legacy"]
    assert legacy["compute_score"] == legacy["compute_score_batch"] == torch.tensor(expected, dtype=torch.float32).tolist()
    assert legacy["compute_score_elsewhere"] == 0 and legacy["compute_score_batch_elsewhere"] == 0
