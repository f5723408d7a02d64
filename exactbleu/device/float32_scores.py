"""torchmetrics' arithmetic, which is torch's: ``_bleu_score_compute`` of torchmetrics 1.9, its
float32 operations in its order on the CPU (``scoring.arithmetic_torchmetrics`` states the rule and
calls this). torch's float32 log and exp are not correctly rounded, so only torch gives its floats.
"""

from collections.abc import Sequence

import torch


def torchmetrics_bleu(counts: Sequence[int], orders: int, weights: Sequence[float],
                      smooth: bool) -> tuple[float, list[float], float]:
    """The score, the precisions and the brevity penalty of counts laid out as a statistics row
    (lengths, matches, totals), every order with a match; ``smooth``: ``smooth=True``."""
    numerator = torch.tensor([float(count) for count in counts[2 : 2 + orders]])
    denominator = torch.tensor([float(count) for count in counts[2 + orders :]])
    if smooth:
        precision = torch.div(torch.add(numerator, torch.ones(orders)), torch.add(denominator, torch.ones(orders)))
        precision[0] = numerator[0] / denominator[0]
    else:
        precision = numerator / denominator
    geometric_mean = torch.exp(torch.sum(torch.tensor(list(weights)) * torch.log(precision)))
    brevity_penalty = _brevity(counts[0], counts[1])
    return float(brevity_penalty * geometric_mean), precision.tolist(), float(brevity_penalty)


def torchmetrics_brevity(prediction_length: int, reference_length: int) -> float:
    """torchmetrics' brevity penalty, in float32: 1 where c > r, else exp(1 - r / c)."""
    return float(_brevity(prediction_length, reference_length))


def _brevity(prediction_length: int, reference_length: int) -> torch.Tensor:
    length, reference = torch.tensor(float(prediction_length)), torch.tensor(float(reference_length))
    return torch.tensor(1.0) if length > reference else torch.exp(1 - (reference / length))
