"""Run in verl's environment (.venv-verl) by test_rewards.py: the docs' verl recipe (a reward.py that
names exactbleu's functions) loaded through verl's own config path for a custom reward function
(``reward.custom_reward_function``: path, name, reward_kwargs), and called by verl's own
NaiveRewardManager and BatchRewardManager on a DataProto of tokenized prompts and responses. Writes
each manager's rewards and the responses it decoded, as JSON, for the test to check."""

import json
import sys


def main(job_path, report_path):
    # Imported here: pytest collects this file (for doctests) in the dev environment, which has no verl.
    import numpy as np
    import torch
    from omegaconf import OmegaConf
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from verl import DataProto
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager import BatchRewardManager, NaiveRewardManager

    job = json.loads(open(job_path, encoding="utf-8").read())
    word_level = Tokenizer(models.WordLevel(unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    word_level.train_from_iterator(job["prompts"] + job["responses"],
                                   trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<eos>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=word_level, pad_token="<pad>", unk_token="<unk>",
                                        eos_token="<eos>")
    pad = tokenizer.pad_token_id

    def padded(texts, left):
        rows = [tokenizer(text)["input_ids"] for text in texts]
        width = max(map(len, rows))
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            place = slice(width - len(row), width) if left else slice(0, len(row))
            ids[i, place], mask[i, place] = torch.tensor(row), 1
        return ids, mask

    prompts, prompt_mask = padded(job["prompts"], left=True)
    responses, response_mask = padded(job["responses"], left=False)
    count = len(job["prompts"])
    data = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses,
                 "attention_mask": torch.cat([prompt_mask, response_mask], dim=1)},
        non_tensors={"data_source": np.array(["wmt17"] * count, dtype=object),
                     "reward_model": np.array([{"ground_truth": truth} for truth in job["ground_truths"]],
                                              dtype=object),
                     "extra_info": np.array([{} for _ in range(count)], dtype=object)})
    report = {"decoded": [tokenizer.decode(row[:int(mask.sum())], skip_special_tokens=True)
                          for row, mask in zip(responses, response_mask)]}
    for name, manager_class in (("compute_score", NaiveRewardManager), ("compute_score_batch", BatchRewardManager)):
        config = OmegaConf.create({"reward": {"custom_reward_function": {
            "path": job["recipe_path"], "name": name, "reward_kwargs": job["reward_kwargs"]}}})
        manager = manager_class(tokenizer=tokenizer, num_examine=0, compute_score=get_custom_reward_fn(config))
        rewards = manager(data, return_dict=True)["reward_tensor"]
        lengths = response_mask.sum(dim=1)
        report[name] = [float(rewards[i, int(lengths[i]) - 1]) for i in range(count)]
        rewards[torch.arange(count), lengths - 1] = 0  # what is left: a reward anywhere but the last token
        report[name + "_elsewhere"] = float(rewards.abs().max())
    with open(report_path, "w", encoding="utf-8") as file:
        json.dump(report, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
