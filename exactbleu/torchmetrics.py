"""torchmetrics' BLEU Metrics, exactly: ``BLEUScore`` and ``SacreBLEUScore`` take torchmetrics 1.9's
arguments, layouts and defaults, and give the number it documents in float64: NLTK's
``corpus_bleu`` arithmetic on whitespace tokens or on sacrebleu's, the closest reference length (a
tie goes to the shorter), and with ``smooth=True`` Lin and Och's add-one from the bigrams on
(NLTK's method2), also where some order has no match. ``update`` takes token-id tensors too,
counted on their device. The state is the summed statistics vector (``Statistics.vector``),
registered with ``dist_reduce_fx="sum"``, so torchmetrics' own synchronization sums it across
processes: ``from exactbleu.torchmetrics import BLEUScore`` is the switch.
"""

from collections.abc import Sequence
from typing import Any

try:
    import torch
    import torchmetrics
except ModuleNotFoundError as error:
    if error.name not in ("torch", "torchmetrics"):
        raise
    raise ImportError(f'exactbleu.torchmetrics needs torch and torchmetrics, which are not installed here ({error}): '
                      f'pip install "exactbleu[torchmetrics]"') from None

from . import (
    MAX_ORDER,
    PRESETS,
    TOKENIZERS,
    Settings,
    Statistics,
    checked_corpus,
    kind_of,
    resolve_settings,
    score,
    statistics,
)

# NLTK's corpus_bleu (the "nltk" preset) unsmoothed, or with Lin and Och's add-one from the bigrams on.
_SMOOTHED = "method2"
_TEXT, _IDS = 0, 1  # the kinds of batches a metric has counted, as its second state counts them
# torchmetrics' SacreBLEUScore tokenizes as sacrebleu by default; the whitespace tokens are NLTK's.
_SACREBLEUS, _WHITESPACE = str(PRESETS["sacrebleu"].options["tokenizer"]), str(PRESETS["nltk"].options["tokenizer"])


def _empty(batch: object) -> bool:
    """Whether a batch holds no segment: an empty list or tuple, or an array or tensor of no rows."""
    shape = getattr(batch, "shape", None)
    if shape is not None:
        return len(shape) > 0 and shape[0] == 0
    return isinstance(batch, (list, tuple)) and not batch


class BLEUScore(torchmetrics.Metric):
    """torchmetrics' ``BLEUScore``: corpus BLEU of ``preds`` (a sequence of strings, or token ids)
    against ``target`` (a sequence of sequences of reference strings, or token ids), on whitespace
    tokens, as NLTK's ``corpus_bleu`` computes it.

    Args:
        n_gram: the largest n-gram order, from 1 to ``MAX_ORDER``.
        smooth: Lin and Och's add-one from the bigrams on (NLTK's ``SmoothingFunction().method2``).
        weights: one weight per order, ``n_gram`` of them; by default uniform.
        ignore_ids: for token ids, the ids to drop first, such as the padding of a padded tensor.
        kwargs: torchmetrics' ``Metric`` keyword arguments.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    statistics: torch.Tensor
    kinds: torch.Tensor

    def __init__(self, n_gram: int = 4, smooth: bool = False, weights: Sequence[float] | None = None, *,
                 ignore_ids: Sequence[int] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n_gram, self.smooth, self.ignore_ids = n_gram, smooth, ignore_ids
        self.weights = self._checked_arguments(weights)
        self._text_settings = self._settings(text=True)
        self._ids_settings = self._settings(text=False)
        length = Statistics.vector_length(self.n_gram)
        self.add_state("statistics", default=torch.zeros(length, dtype=torch.int64), dist_reduce_fx="sum")
        self.add_state("kinds", default=torch.zeros(2, dtype=torch.int64), dist_reduce_fx="sum")

    def _checked_arguments(self, weights: Sequence[float] | None) -> tuple[float, ...] | None:
        """n_gram, smooth and ignore_ids checked, here where the metric is made, and the weights as
        one set of n_gram of them (their values checked as the options check them)."""
        if isinstance(self.n_gram, bool) or not isinstance(self.n_gram, int) or not 1 <= self.n_gram <= MAX_ORDER:
            raise ValueError(f"n_gram must be an int from 1 to {MAX_ORDER}, got {self.n_gram!r:.80}")
        if not isinstance(self.smooth, bool):
            raise TypeError(f"smooth must be True or False, got {self.smooth!r:.80}")
        if self.ignore_ids is not None:
            checked_corpus([[1]], [[1]], self.ignore_ids)  # refuses ignore_ids that are no token ids, by name
        if weights is None:
            return None
        checked = resolve_settings("nltk", weights=weights).scoring.weights
        if checked is None or isinstance(checked[0], tuple):
            raise ValueError(f"weights must be one weight set, n_gram={self.n_gram} numbers, got {weights!r:.80}")
        if len(checked) != self.n_gram:
            raise ValueError(f"weights must hold n_gram={self.n_gram} numbers, one per order, got {len(checked)}: "
                             f"{list(checked)!r:.80}")
        return tuple(float(weight) for weight in checked)

    def _tokenizing(self) -> dict[str, Any]:
        """The options that tokenize text: the "nltk" preset's whitespace tokens."""
        return {}

    def _settings(self, text: bool) -> Settings:
        """NLTK's corpus_bleu under this metric's arguments, for text or for token ids."""
        order = {"max_order": self.n_gram} if self.weights is None else {"weights": self.weights}
        return resolve_settings("nltk", smooth_method=_SMOOTHED if self.smooth else None, **order,
                                **(self._tokenizing() if text else {}))

    def _counted_settings(self, kind: int) -> Settings:
        if kind == _IDS and self._tokenizing():
            raise ValueError(f"{type(self).__name__}(tokenize={self._tokenizing()['tokenizer']!r}, lowercase="
                             f"{self._tokenizing()['lowercase']!r}) tokenizes text, but preds are token ids, which are "
                             f"tokens already: count them with the default tokenize and lowercase, or decode them")
        return self._ids_settings if kind == _IDS else self._text_settings

    def update(self, preds: Any, target: Any) -> None:
        """Add a batch: ``preds`` a sequence of strings (or token ids: lists of ints, arrays, a padded
        tensor with ``ignore_ids``), ``target`` the references of each prediction. What was added
        before is kept when a batch is refused."""
        if _empty(preds) and _empty(target):
            return  # an empty batch (a rank's share of a short epoch, say): nothing to count
        corpus = checked_corpus(preds, target, None if kind_of(preds) == "text" else self.ignore_ids)
        kind = _TEXT if corpus.kind == "text" else _IDS
        if int(self.kinds[1 - kind]):
            raise ValueError(f"this batch's preds are {['text', 'token ids'][kind]}, but this metric has counted "
                             f"{['text', 'token ids'][1 - kind]}: one metric scores one kind, counted alike")
        counted = statistics(corpus, None, self._counted_settings(kind))
        self.statistics = self.statistics + torch.as_tensor(counted.vector(), device=self.statistics.device)
        self.kinds = self.kinds + torch.as_tensor([kind == _TEXT, kind == _IDS], device=self.kinds.device)

    def compute(self) -> torch.Tensor:
        """The corpus BLEU of every batch added since the last reset (across processes, once
        synced), a float64 tensor on the metric's device; 0.0 where nothing was added."""
        device = self.statistics.device
        text, ids = self.kinds.tolist()
        if text and ids:
            raise ValueError("this metric's state sums text and token ids (from merge_state, or another process): "
                             "one metric scores one kind, counted alike")
        vector = self.statistics.cpu().numpy()
        if not vector[0]:
            return torch.tensor(0.0, dtype=torch.float64, device=device)
        return torch.tensor(score(vector, self._counted_settings(_IDS if ids else _TEXT))["bleu"], dtype=torch.float64,
                            device=device)

    def merge_state(self, incoming_state: "dict[str, Any] | torchmetrics.Metric") -> None:
        """torchmetrics' ``merge_state``, of a metric (or its state) counted under these arguments."""
        if isinstance(incoming_state, BLEUScore) and (
                type(incoming_state) is not type(self) or incoming_state._settings(True) != self._settings(True)):
            raise ValueError(f"merge_state takes a {type(self).__name__} with the same arguments: its statistics "
                             f"must be counted alike")
        if isinstance(incoming_state, dict):
            for name, default in (("statistics", self.statistics), ("kinds", self.kinds)):
                given = incoming_state.get(name)
                if not isinstance(given, torch.Tensor) or given.shape != default.shape or given.dtype != default.dtype:
                    raise ValueError(f"merge_state takes this metric's state, {{'statistics': an int64 tensor of shape "
                                     f"{tuple(self.statistics.shape)}, 'kinds': of shape (2,)}}, got {name}: "
                                     f"{given!r:.80}")
        super().merge_state(incoming_state)


class SacreBLEUScore(BLEUScore):
    """torchmetrics' ``SacreBLEUScore``: as ``BLEUScore``, on sacrebleu's tokens: ``tokenize``, one of
    the tokenizers (``exactbleu.TOKENIZERS``: sacrebleu's "13a", "intl", "zh", "char", "none",
    "ja-mecab", "ko-mecab", "flores101", "flores200", and more), after sacrebleu's right-strip and,
    with ``lowercase``, lowercasing."""

    def __init__(self, n_gram: int = 4, smooth: bool = False, tokenize: str = _SACREBLEUS, lowercase: bool = False,
                 weights: Sequence[float] | None = None, *, ignore_ids: Sequence[int] | None = None,
                 **kwargs: Any) -> None:
        if tokenize not in TOKENIZERS:
            raise ValueError(f"tokenize must be one of {list(TOKENIZERS)}, got {tokenize!r:.80}")
        self.tokenize, self.lowercase = tokenize, lowercase
        super().__init__(n_gram, smooth, weights, ignore_ids=ignore_ids, **kwargs)

    def _tokenizing(self) -> dict[str, Any]:
        return {"tokenizer": self.tokenize, "lowercase": self.lowercase}

    def _counted_settings(self, kind: int) -> Settings:
        if kind == _IDS and self.tokenize in (_SACREBLEUS, _WHITESPACE) and self.lowercase is False:
            return self._ids_settings  # no tokenizing asked for but the default: token ids are tokens already
        return super()._counted_settings(kind)


__all__ = ["BLEUScore", "SacreBLEUScore"]
