"""Run in verl's environment (nox's verl-env) by test_rewards.py: the docs' verl recipe (a reward.py that
names exactbleu's functions, and the overrides it gives) loaded through verl's own paths. verl 0.9.1's
trainer scores in its reward loop: a RewardLoopWorker loads its manager with load_reward_manager
(reward.reward_manager, reward.custom_reward_function: path, name, reward_kwargs) and runs the
manager's run_single on each sample of its chunk, a task each. Each registry manager that runs on a
CPU (naive, dapo, gdpo, rate_limited, and remote on a local Ray, whose two managers share one actor)
runs so, with and without a reward model's router (an address that nothing is called at, and its
tokenizer); so does exactbleu.verl's BatchRewardManager (importlib source), cancelled mid-call too; and
the legacy NaiveRewardManager and BatchRewardManager. Writes every reward, each call's keywords and
size, the decoded responses, the errors, and what was left behind, as JSON."""

import json
import sys

ROUTER = "127.0.0.1:9"  # the discard port: a reward model's router, which BLEU never calls
THINK = ["<think>", "</think>"]  # a list in reward_kwargs reaches the function as OmegaConf's ListConfig


def main(job_path, report_path):
    # Imported here: pytest collects this file (for doctests) in the dev environment, which has no verl.
    import asyncio
    import itertools
    import shutil
    import tempfile
    import threading

    import ray
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    job = json.loads(open(job_path, encoding="utf-8").read())
    tokenizer = trained_tokenizer(job)
    tokenizer.save_pretrained(job["tokenizer_path"])  # the worker loads its tokenizers by path, as in training
    data = data_of(tokenizer, job, job["ground_truths"])
    responses = data.batch["responses"]
    lengths = data.batch["attention_mask"][:, data.batch["prompts"].shape[1]:].sum(dim=1)
    report = {"decoded": [tokenizer.decode(row[:length], skip_special_tokens=True)
                          for row, length in zip(responses, lengths)],
              "legacy": legacy(tokenizer, data, job), "calls": {}, "errors": {}}

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # verl's managers take the loop that is set when they are made
    problems = []  # what the loop would log: a callback's error, an exception never retrieved
    loop.set_exception_handler(lambda _, context: problems.append(str(context.get("message"))))

    def worker(overrides, router=None, record=True, **reward_kwargs):
        """A RewardLoopWorker, made as the trainer makes it, its manager's function recorded: the
        keywords of each call and how many samples it scored."""
        made = RewardLoopWorker(config(job, overrides, router is not None, **reward_kwargs), router)
        if record:
            function, calls = made.reward_manager.compute_score, []

            def recorded(**keywords):
                calls.append([sorted(keywords), len(keywords.get("solution_strs", [None]))])
                return function(**keywords)
            made.reward_manager.compute_score, made.calls = recorded, calls
        return made

    def run(name, made, chunks=1, data=data):
        """The worker's rewards for the data, a chunk at a time, as the reward loop hands them out."""
        try:
            report[name] = [output for chunk in data.chunk(chunks)
                            for output in loop.run_until_complete(made.compute_score_batch(chunk))]
        except Exception as error:
            report["errors"][name] = f"{type(error).__name__}: {error}"
        report["calls"][name] = getattr(made, "calls", None)
        return made

    per_sample, batched = job["per_sample"], job["batched"]
    for manager in ("naive", "dapo", "gdpo", "rate_limited"):
        for router in (None, ROUTER):
            named = {**per_sample, "reward.reward_manager.name": manager}
            run(manager + ("+router" if router else ""), worker(named, router, think=THINK))
    run("naive+details", worker(per_sample, details=True))
    run("rate_limited+misspelled", worker({**per_sample, "reward.reward_manager.name": "rate_limited"},
                                          smoth_method="exp"))
    for router in (None, ROUTER):
        run("batch" + ("+router" if router else ""), worker(batched, router, think=THINK), chunks=2)
    run("batch+details", worker(batched, details=True))
    missing = list(job["ground_truths"])
    missing[job["missing"]] = None
    run("batch+missing", worker(batched), data=data_of(tokenizer, job, missing))
    cancelled(loop, run, worker(batched), data, report)
    refused(tokenizer, job, report)

    # Ray's sockets live in its temporary folder, whose path must be short (AF_UNIX: 107 bytes). One CPU,
    # the one actor's: a second one would start a worker process that nothing uses.
    ray_folder = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, _temp_dir=ray_folder)
    try:  # one Ray actor (a process, which imports verl: 10 s of CPU) scores for both remote managers
        named = {**per_sample, "reward.reward_manager.name": "remote"}
        alone = worker(named, record=False)
        routed = worker({**named, "reward.num_workers": 0}, ROUTER, record=False)  # a manager with no actor of its own
        routed.reward_manager.reward_worker_pool = itertools.cycle(alone.reward_manager.reward_worker)
        for name, made in (("remote", alone), ("remote+router", routed)):
            run(name, made)
    finally:
        ray.shutdown()
        shutil.rmtree(ray_folder, ignore_errors=True)

    loop.run_until_complete(loop.shutdown_default_executor())  # joins the executor's threads
    run("batch+shut", worker(batched))  # no executor now: every task gets the error, and none hangs
    report["left"] = {"tasks": len(asyncio.all_tasks(loop)), "problems": problems,
                      "threads": [t.name for t in threading.enumerate() if t.name.startswith("asyncio")]}
    loop.close()
    with open(report_path, "w", encoding="utf-8") as file:
        json.dump(report, file)


def cancelled(loop, run, made, data, report):
    """A chunk cancelled while its one batched call runs: every task ends, the call's result is
    dropped, and the manager scores the next chunk as before."""
    import asyncio
    import threading

    entered, release = threading.Event(), threading.Event()
    function = made.reward_manager.compute_score

    def held(**keywords):
        entered.set()
        release.wait()
        return function(**keywords)
    made.reward_manager.compute_score = held
    task = loop.create_task(made.compute_score_batch(data))
    loop.run_until_complete(loop.run_in_executor(None, entered.wait))
    task.cancel()
    loop.run_until_complete(asyncio.gather(task, return_exceptions=True))
    report["cancelled"] = {"task": task.cancelled(), "waiting": made.reward_manager.waiting is not None}
    release.set()
    run("batch+after_cancel", made)


def refused(tokenizer, job, report):
    """BatchRewardManager without a batched function (verl then hands over its per-sample default),
    and with a coroutine function, which it cannot run in an executor."""
    from exactbleu.verl import BatchRewardManager

    async def coroutine(**keywords):
        return [0.0] * len(keywords["solution_strs"])

    unnamed = config(job, job["batched"], False)
    unnamed.reward.custom_reward_function.path = None
    for name, made, function in (("batch+no_function", unnamed, None),
                                 ("batch+coroutine", config(job, job["batched"], False), coroutine)):
        try:
            BatchRewardManager(made, tokenizer, function)
        except Exception as error:
            report["errors"][name] = f"{type(error).__name__}: {error}"


def trained_tokenizer(job):
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    word_level = Tokenizer(models.WordLevel(unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    word_level.train_from_iterator(job["prompts"] + job["responses"],
                                   trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<eos>"]))
    return PreTrainedTokenizerFast(tokenizer_object=word_level, pad_token="<pad>", unk_token="<unk>", eos_token="<eos>")


def data_of(tokenizer, job, ground_truths):
    """verl's DataProto of tokenized prompts (padded left) and responses (padded right); a sample
    whose ground truth is None has none in its reward_model."""
    import numpy as np
    import torch
    from verl import DataProto

    def padded(texts, left):
        rows = [tokenizer(text)["input_ids"] for text in texts]
        width = max(map(len, rows))
        ids = torch.full((len(rows), width), tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            place = slice(width - len(row), width) if left else slice(0, len(row))
            ids[i, place], mask[i, place] = torch.tensor(row), 1
        return ids, mask

    prompts, prompt_mask = padded(job["prompts"], left=True)
    responses, response_mask = padded(job["responses"], left=False)
    count = len(ground_truths)
    return DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses,
                 "attention_mask": torch.cat([prompt_mask, response_mask], dim=1)},
        non_tensors={"data_source": np.array(["wmt17"] * count, dtype=object),
                     "reward_model": np.array([{} if truth is None else {"ground_truth": truth}
                                               for truth in ground_truths], dtype=object),
                     "extra_info": np.array([{} for _ in range(count)], dtype=object)})


def config(job, overrides, router, **reward_kwargs):
    """The docs' overrides over what else the worker and each manager read, this case's
    reward_kwargs added."""
    from omegaconf import OmegaConf

    made = OmegaConf.merge(OmegaConf.create({
        "actor_rollout_ref": {"model": {"path": job["tokenizer_path"], "tokenizer_path": job["tokenizer_path"]}},
        "trainer": {"experiment_name": "bleu"},  # gdpo's
        "reward": {"num_workers": 1, "max_concurrent": 4, "timeout": 60.0,  # remote's; rate_limited's
                   "reward_model": {"enable": router, "model_path": job["tokenizer_path"]},
                   "reward_manager": {"source": "register", "name": "naive", "module": {"path": None}},
                   "custom_reward_function": {"reward_kwargs": {}}}}),
        OmegaConf.from_dotlist([f"{key}={value}" for key, value in overrides.items()]))
    made.reward.custom_reward_function.path = job["recipe_path"]  # the docs' reward.py, written out
    made.reward.custom_reward_function.reward_kwargs.update(reward_kwargs)
    return made


def legacy(tokenizer, data, job):
    """verl's legacy managers, which verl 0.9 still ships: each reward on its response's last token."""
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager import BatchRewardManager, NaiveRewardManager

    report = {}
    for name, overrides, manager_class in (("compute_score", job["per_sample"], NaiveRewardManager),
                                           ("compute_score_batch", job["batched"], BatchRewardManager)):
        function = get_custom_reward_fn(config(job, overrides, False))
        rewards = manager_class(tokenizer=tokenizer, num_examine=0, compute_score=function)(
            data, return_dict=True)["reward_tensor"]
        lengths = data.batch["attention_mask"][:, data.batch["prompts"].shape[1]:].sum(dim=1)
        report[name] = [float(rewards[i, int(lengths[i]) - 1]) for i in range(len(data))]
        rewards[range(len(data)), lengths - 1] = 0  # what is left: a reward anywhere but the last token
        report[name + "_elsewhere"] = float(rewards.abs().max())
    return report


if __name__ == "__main__":
    main(*sys.argv[1:])
