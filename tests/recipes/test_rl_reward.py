"""The RL recipe in a real trainer: TRL's GRPOTrainer trains a tiny, randomly initialised causal LM
for two steps with the recipe's BLEU rewards, from text and from token ids, offline on the CPU.
The rewards it logs are the mean of sentence_scores of the completions it generated, and the
rewards each call returned are sentence_scores of its inputs, recomputed here."""

import random

import numpy as np
import pytest

import exactbleu
from pages import recipe

pytestmark = pytest.mark.slow  # a real RL trainer

WORDS = "the a cat dog sat ran on in mat home big small red".split()


def test_grpo_rewards_are_sentence_scores(tmp_path, one_torch_thread):
    pytest.importorskip("trl")
    import datasets
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast, set_seed
    from trl import GRPOConfig

    set_seed(0)
    rng = random.Random(0)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))) for _ in range(200)]
    word_level = Tokenizer(models.WordLevel(unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    word_level.train_from_iterator(lines, trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<eos>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=word_level, pad_token="<pad>", unk_token="<unk>",
                                        eos_token="<eos>")
    model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, n_positions=64,
                                       vocab_size=len(tokenizer), eos_token_id=tokenizer.eos_token_id,
                                       pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.eos_token_id))
    references = lines[:16]
    dataset = datasets.Dataset.from_dict({
        "prompt": [" ".join(line.split()[:2]) for line in references],
        "reference": references,
        "reference_ids": [tokenizer(line)["input_ids"] for line in references],
    })
    config = GRPOConfig(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=4, num_generations=4,
                        max_completion_length=8, use_cpu=True, bf16=False, gradient_checkpointing=False,
                        report_to="none", save_strategy="no", logging_steps=1, disable_tqdm=True, seed=0)

    namespace = {"model": model, "tokenizer": tokenizer, "config": config, "dataset": dataset}
    script = recipe("grpo")
    definitions, training = script.split("trainer = GRPOTrainer", 1)
    exec(definitions, namespace)
    calls = {"bleu_reward": [], "bleu_reward_from_ids": []}
    for name, calls_of in calls.items():
        function = namespace[name]

        def recorded(*args, function=function, calls_of=calls_of, **kwargs):
            rewards = function(*args, **kwargs)
            calls_of.append((kwargs, rewards))
            return rewards

        recorded.__name__ = name  # TRL logs a reward under its function's name
        namespace[name] = recorded
    exec("trainer = GRPOTrainer" + training, namespace)

    logged = [entry for entry in namespace["trainer"].state.log_history if "rewards/bleu_reward/mean" in entry]
    assert len(logged) == 2 and len(calls["bleu_reward"]) == 2
    for entry, (text_call, text_rewards), (ids_call, ids_rewards) in zip(logged, calls["bleu_reward"],
                                                                         calls["bleu_reward_from_ids"]):
        expected = exactbleu.sentence_scores(text_call["completions"], text_call["reference"], "sacrebleu").tolist()
        assert text_rewards == expected
        assert entry["rewards/bleu_reward/mean"] == pytest.approx(np.mean(expected), rel=1e-6)
        ends = [tokenizer.eos_token_id, tokenizer.pad_token_id]
        from_ids = exactbleu.sentence_scores(ids_call["completion_ids"], ids_call["reference_ids"], "sacrebleu",
                                             ignore_ids=ends).tolist()
        assert ids_rewards == from_ids
        assert entry["rewards/bleu_reward_from_ids/mean"] == pytest.approx(np.mean(from_ids), rel=1e-6)
        # The ids' reward is the text reward of the same tokens, written as words.
        as_words = [" ".join(map(str, [t for t in ids if t not in ends])) for ids in ids_call["completion_ids"]]
        reference_words = [" ".join(map(str, ids)) for ids in ids_call["reference_ids"]]
        assert from_ids == exactbleu.sentence_scores(as_words, reference_words, "sacrebleu", tokenizer="none").tolist()
    assert any(value > 0 for _, rewards in calls["bleu_reward"] for value in rewards)
