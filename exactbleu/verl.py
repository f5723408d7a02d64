"""A batched reward in verl's reward loop: ``BatchRewardManager``, which verl 0.9 loads with
``reward.reward_manager.source=importlib``, ``module.path=pkg://exactbleu.verl`` and
``name=BatchRewardManager``. The reward loop has no batch manager of its own: its worker asks for
each sample's reward in a task of its own (``run_single``). Here the samples that one chunk's tasks
hand in together are scored in one call of the configured batched function, such as
``compute_score_batch`` (one ``sentence_scores`` for the chunk, where a reference that a group of
completions shares is counted once). The only module that imports verl.
"""

import asyncio
import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

from . import MissingExtra

try:
    from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase
except ModuleNotFoundError as error:
    if not (error.name or "").startswith("verl"):
        raise
    raise MissingExtra("exactbleu.verl", "verl", "verl", name=error.name) from None

Waiting = list[tuple[Any, asyncio.Future[Any]]]  # a flush's samples (verl's DataProtoItem), each with its future


class BatchRewardManager(RewardManagerBase):
    """verl's reward-loop manager for a batched reward function: it takes the registry managers'
    arguments and returns each sample's reward as verl's naive manager does (``reward_score``, and
    in ``reward_extra_info`` a dict result's keys, or a float as ``acc``). The function is called as
    verl's legacy batch manager calls one, with ``data_sources``, ``solution_strs``,
    ``ground_truths`` (None where a sample has none) and ``extra_infos``, and the reward model's
    ``reward_router_address`` and ``reward_model_tokenizer`` where a router is configured."""

    def __init__(self, config: Any, tokenizer: Any, compute_score: Callable[..., Any] | None,
                 reward_router_address: Any = None, reward_model_tokenizer: Any = None) -> None:
        super().__init__(config, tokenizer, compute_score)
        # load_reward_manager hands verl's per-sample default over when the config names no function.
        if not (config.reward.get("custom_reward_function") or {}).get("path"):
            raise ValueError("BatchRewardManager calls a batched reward function: set reward.custom_reward_function"
                             ".path and .name (exactbleu.rewards' compute_score_batch, say)")
        if inspect.iscoroutinefunction(compute_score):
            raise TypeError("BatchRewardManager calls its reward function in an executor: give a plain function, "
                            "not a coroutine function")
        self.router = {} if reward_router_address is None else {
            "reward_router_address": reward_router_address, "reward_model_tokenizer": reward_model_tokenizer}
        self.waiting: tuple[asyncio.AbstractEventLoop, Waiting] | None = None

    async def run_single(self, data: Any) -> dict[str, Any]:
        """One sample's reward, scored with the samples that join it before the loop's next turn:
        the worker starts every task of a chunk before any of them runs, and none waits here before
        joining, so the flush that the first one schedules finds them all."""
        loop = asyncio.get_running_loop()
        if self.waiting is None or self.waiting[0] is not loop:
            self.waiting = (loop, [])
            loop.call_soon(self._flush, self.waiting)
        future = loop.create_future()
        self.waiting[1].append((data[-1:][0], future))  # the last sequence, as verl's managers score
        result = await future
        if isinstance(result, dict):
            return {"reward_score": result["score"], "reward_extra_info": dict(result)}
        return {"reward_score": result, "reward_extra_info": {"acc": result}}

    def _flush(self, waiting: tuple[asyncio.AbstractEventLoop, Waiting]) -> None:
        if self.waiting is waiting:
            self.waiting = None
        loop, samples = waiting
        samples = [(item, future) for item, future in samples if not future.done()]  # not those cancelled meanwhile
        if not samples:
            return
        try:
            job = loop.run_in_executor(None, self._scores, [item for item, _ in samples])
        except Exception as error:  # an executor shut down: the samples' tasks get the error, not a hang
            job = loop.create_future()
            job.set_exception(error)
        job.add_done_callback(partial(_settle, [future for _, future in samples]))

    def _scores(self, items: list[Any]) -> list[Any]:
        """The batched function's results for these samples, decoded as verl's managers decode."""
        solutions = []
        for item in items:
            responses = item.batch["responses"]
            length = item.batch["attention_mask"][-responses.shape[-1]:].sum()
            solutions.append(self.tokenizer.decode(responses[:length], skip_special_tokens=True))
        fields = [item.non_tensor_batch for item in items]
        results = list(self.compute_score(
            data_sources=[one["data_source"] for one in fields], solution_strs=solutions,
            ground_truths=[one["reward_model"].get("ground_truth") for one in fields],
            extra_infos=[one.get("extra_info", {}) for one in fields], **self.router))
        if len(results) != len(items):
            raise ValueError(f"the batched reward function returned {len(results)} results for {len(items)} samples")
        return results


def _settle(futures: list[asyncio.Future[Any]], job: asyncio.Future[list[Any]]) -> None:
    """Hand each waiting sample its result, or every one of them the flush's error."""
    error = None if job.cancelled() else job.exception()
    for i, future in enumerate(futures):
        if future.done():  # its task was cancelled meanwhile
            continue
        if job.cancelled():
            future.cancel()
        elif error is not None:
            future.set_exception(error)
        else:
            future.set_result(job.result()[i])


__all__ = ["BatchRewardManager"]
