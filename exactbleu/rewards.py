"""BLEU as a reward, in the shape each RL trainer calls one: verl's ``compute_score`` (one sample)
and its batched form, OpenRLHF's ``reward_func``, TRL's ``bleu_reward``. Each returns a sample's
``sentence_bleu`` on 0..1, by default sacrebleu's (effective order): sacrebleu's sentence score
divided by 100, and at most 1 (sacrebleu gives a perfect match 100.00000000000004; here it is 1.0).

Every form takes the same choices: ``preset`` and any option; ``target_language``, which tokenizes
as sacrebleu's ``BLEU(trg_lang=...)`` does (zh, ja-mecab, ko-mecab, else 13a); and ``think``, the
tags of a reasoning section, removed before scoring (``("<think>", "</think>")`` by default; None
keeps the text whole). A completion's answer is what follows the last closing tag; one that opens a
section and never closes it gave no answer, and scores as an empty one (0). A reference is a string,
or a list of a sample's references; the batched forms count a reference that a group shares once.
None of these imports its trainer; verl's batching reward manager lives in `exactbleu/verl.py`.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from . import MissingExtra, Settings, resolve_settings_for_language, sentence_bleu, sentence_scores

THINK = ("<think>", "</think>")  # the tags of reasoning models' section, removed before scoring
DEFAULT_PRESET = "sacrebleu"
# The parts of sentence_bleu's result that verl's dict carries besides the score (and each order's precision).
PARTS = ("brevity_penalty", "length_ratio", "translation_length", "reference_length")


def answer_of(completion: str, think: Sequence[str] | None = THINK) -> str:
    """The completion without its reasoning section: what follows the last closing tag; "" where
    a section opens and never closes; the whole text where there is none (or ``think`` is None)."""
    if not isinstance(completion, str):
        raise TypeError(f"a completion must be a string, got {type(completion).__name__}: {completion!r:.80}")
    if think is None:
        return completion
    # Any sequence of two tags: verl hands its reward_kwargs' lists over as OmegaConf's ListConfig.
    if not (isinstance(think, Sequence) and not isinstance(think, str) and len(think) == 2
            and all(isinstance(tag, str) and tag for tag in think)):
        raise ValueError(f"think must be (opening tag, closing tag), two non-empty strings, or None; got {think!r}")
    opening, closing = think
    end = completion.rfind(closing)
    if end >= 0:
        return completion[end + len(closing):]
    return "" if opening in completion else completion


def _sample_references(reference: Any, name: str) -> list[str]:
    """A sample's references; a missing one (None: verl's legacy batch manager passes None where a
    sample's ``reward_model`` holds no ground truth) is refused by its argument's name."""
    references = None if reference is None else [reference] if isinstance(reference, str) else list(reference)
    if references is None or any(one is None for one in references):
        raise ValueError(f"{name} is missing (None, or a list holding None): every sample needs its reference(s); "
                         f"got {reference!r:.80}")
    return references


def _details(result: Mapping[str, Any]) -> dict[str, float]:
    """verl's dict: ``score``, and the result's parts as scalars, which verl logs key by key."""
    parts = {"score": float(result["bleu"]), **{part: result[part] for part in PARTS}}
    return parts | {f"precision_{n}": precision for n, precision in enumerate(result["precisions"], 1)}


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, *,
                  reward_router_address: Any = None, reward_model_tokenizer: Any = None, details: bool = False,
                  preset: str = DEFAULT_PRESET, target_language: str | None = None,
                  think: Sequence[str] | None = THINK, **options: Any) -> float | dict[str, float]:
    """verl's reward function, one sample (the reward loop's managers: naive, dapo, gdpo,
    rate_limited, remote): the sentence BLEU of the solution's answer against ``ground_truth`` (a
    reference, or a list of them), on 0..1: by default ``min(1, score / 100)`` of sacrebleu's
    ``BLEU(effective_order=True).sentence_score``, float for float. ``preset``,
    ``target_language``, ``think``, ``details`` and options come from verl's ``reward_kwargs``.
    ``data_source``, ``extra_info`` and, with a reward model, ``reward_router_address`` and
    ``reward_model_tokenizer`` are verl's, and not read. With ``details``, verl's dict: ``score``
    (the same float), ``brevity_penalty``, ``length_ratio``, ``translation_length``,
    ``reference_length`` and ``precision_1`` to ``precision_N``."""
    settings = resolve_settings_for_language(target_language, preset, **options)
    result = sentence_bleu(answer_of(solution_str, think), _sample_references(ground_truth, "ground_truth"), settings)
    return _details(result) if details else float(result["bleu"])


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, *, reward_router_address: Any = None,
                        reward_model_tokenizer: Any = None, details: bool = False, preset: str = DEFAULT_PRESET,
                        target_language: str | None = None, think: Sequence[str] | None = THINK,
                        **options: Any) -> list[float] | list[dict[str, float]]:
    """verl's batched reward function (the legacy ``BatchRewardManager``, and the reward loop's
    through ``exactbleu/verl.py``): one sentence BLEU per solution, all at once
    (``sentence_scores``); with ``details``, one of ``compute_score``'s dicts per solution (a
    ``sentence_bleu`` each). The other keywords are verl's, as for ``compute_score``."""
    settings = resolve_settings_for_language(target_language, preset, **options)
    if details:
        answers, references = _pairs(solution_strs, ground_truths, think, "ground_truths")
        return [_details(sentence_bleu(answer, group, settings)) for answer, group in zip(answers, references)]
    return _scores(solution_strs, ground_truths, settings, think, "ground_truths")


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], *,
                preset: str = DEFAULT_PRESET, target_language: str | None = None,
                think: Sequence[str] | None = THINK, **options: Any) -> dict[str, Any]:
    """OpenRLHF's reward function (``--remote_rm_url reward.py``): each query is its prompt followed
    by the response, and each label the reference(s). Returns OpenRLHF's dict of tensors:
    ``rewards`` and ``scores`` (the sentence BLEU of each response) and ``extra_logs``."""
    try:
        import torch
    except ModuleNotFoundError as error:
        raise MissingExtra("reward_func", "torch for the tensors it returns", "torch", name=error.name) from None

    if len(queries) != len(prompts):
        raise ValueError(f"queries and prompts must have the same length, got {len(queries)} and {len(prompts)}")
    responses = []
    for query, prompt in zip(queries, prompts):
        if not query.startswith(prompt):
            raise ValueError(f"a query must begin with its prompt (OpenRLHF's queries are prompt + response); "
                             f"got the query {query[:60]!r} for the prompt {prompt[:60]!r}")
        responses.append(query[len(prompt):])
    settings = resolve_settings_for_language(target_language, preset, **options)
    scores = torch.tensor(_scores(responses, labels, settings, think, "labels"), dtype=torch.float32)
    return {"rewards": scores, "scores": scores, "extra_logs": {"bleu": scores}}


def bleu_reward(completions: Sequence[Any], reference: Sequence[Any], preset: str = DEFAULT_PRESET,
                target_language: str | None = None, think: Sequence[str] | None = THINK,
                options: Mapping[str, Any] | None = None, **columns: Any) -> list[float]:
    """TRL's reward function (``GRPOTrainer(reward_funcs=bleu_reward)``): one sentence BLEU per
    completion against the dataset's ``reference`` column. TRL passes every other column of the
    dataset too (``columns``): they are not options, and not read; options go in ``options``.
    Conversational completions (lists of messages) are scored by their last message's content."""
    texts = [completion[-1]["content"] if isinstance(completion, list) else completion for completion in completions]
    settings = resolve_settings_for_language(target_language, preset, **dict(options or {}))
    return _scores(texts, reference, settings, think, "reference")


def _pairs(completions: Sequence[str], references: Sequence[Any], think: Sequence[str] | None,
           name: str) -> tuple[list[str], list[list[str]]]:
    """Each completion's answer and its references, checked (``name``: the references' argument)."""
    if len(completions) != len(references):
        raise ValueError(f"every completion needs its reference(s): got {len(completions)} completions and "
                         f"{len(references)} references")
    return ([answer_of(completion, think) for completion in completions],
            [_sample_references(one, f"{name}[{i}]") for i, one in enumerate(references)])


def _scores(completions: Sequence[str], references: Sequence[Any], settings: Settings,
            think: Sequence[str] | None, name: str) -> list[float]:
    scores: list[float] = sentence_scores(*_pairs(completions, references, think, name), settings).tolist()
    return scores


__all__ = ["THINK", "answer_of", "bleu_reward", "compute_score", "compute_score_batch", "reward_func"]
