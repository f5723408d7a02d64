"""torchmetrics' BLEU Metrics, exactly: ``BLEUScore`` and ``SacreBLEUScore`` take torchmetrics 1.9's
arguments, layouts and defaults, and give the number it documents in float64: NLTK's
``corpus_bleu`` arithmetic on whitespace tokens or on sacrebleu's, the closest reference length (a
tie goes to the shorter), and with ``smooth=True`` Lin and Och's add-one from the bigrams on
(NLTK's method2), also where some order has no match. ``update`` takes token-id tensors too,
counted on their device. The state is the summed statistics vector (``Statistics.vector``),
registered with ``dist_reduce_fx="sum"``, so torchmetrics' own synchronization sums it across
processes: ``from exactbleu.torchmetrics import BLEUScore`` is the switch. ``bleu_score`` and
``sacre_bleu_score`` are the functional forms.
"""

import importlib.util
from collections.abc import Sequence
from typing import Any

from . import MissingExtra

try:
    import torch
    import torchmetrics
except ModuleNotFoundError as error:
    if error.name not in ("torch", "torchmetrics"):
        raise
    raise MissingExtra("exactbleu.torchmetrics", "torch and torchmetrics", "torchmetrics", name=error.name) from None

from . import (
    MAX_ORDER,
    PRESETS,
    TOKENIZERS,
    Settings,
    Statistics,
    checked_corpus,
    did_you_mean,
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
        self._result_dtype = torch.float64

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
        synced), a tensor on the metric's device: float64, or the dtype that ``set_dtype`` or
        ``.to(dtype)`` chose; 0.0 where nothing was added."""
        text, ids = self.kinds.tolist()
        if text and ids:
            raise ValueError("this metric's state sums text and token ids (from another process): one metric "
                             "scores one kind, counted alike")
        vector = self.statistics.cpu().numpy()
        value = score(vector, self._counted_settings(_IDS if ids else _TEXT))["bleu"] if vector[0] else 0.0
        # Scored in float64, then given in the chosen dtype: the state itself is never cast.
        return torch.tensor(value, dtype=torch.float64, device=self.statistics.device).to(self._result_dtype)

    def set_dtype(self, dst_type: "str | torch.dtype") -> "BLEUScore":
        """The dtype of what ``compute`` returns (torchmetrics' ``set_dtype``). The state stays int64
        counts, whatever the dtype: a cast would lose them."""
        dtype = _floating_dtype(dst_type)
        self._result_dtype = self._dtype = dtype
        self._computed = None  # a cast of the number kept would round it twice: compute it again
        cached: Any = self._forward_cache  # the last batch's number, as torchmetrics casts it
        if isinstance(cached, torch.Tensor):
            self._forward_cache = cached.to(dtype)  # type: ignore[assignment]  # torchmetrics types it None
        return self

    def bfloat16(self) -> "BLEUScore":
        """No change, as torchmetrics' ``half``, ``float`` and ``double`` make none: ``set_dtype``
        chooses the dtype."""
        return self

    def _apply(self, fn: Any, exclude_state: Sequence[str] = "") -> torch.nn.Module:
        """torchmetrics' ``_apply`` (``.to``, ``.cuda``), which moves the int64 state and casts only
        floating-point tensors; a dtype that ``.to(dtype)`` gives a float becomes the result's."""
        super()._apply(fn, exclude_state)
        probes = [fn(torch.zeros((), dtype=dtype)) for dtype in (torch.float64, torch.float32)]
        if all(isinstance(probe, torch.Tensor) and probe.dtype.is_floating_point for probe in probes) and \
                (probes[0].dtype, probes[1].dtype) != (torch.float64, torch.float32):
            self._result_dtype, self._computed = probes[0].dtype, None
        return self

    def plot(self, val: "torch.Tensor | Sequence[torch.Tensor] | None" = None, ax: Any = None) -> Any:
        """torchmetrics' ``plot``: a figure and its axes of one value or of a sequence of values
        (``compute()`` where none is given), between 0 and 1, higher being better."""
        if importlib.util.find_spec("matplotlib") is None:
            raise MissingExtra("plot", "matplotlib to draw", "plot", name="matplotlib")
        return self._plot(val, ax)

    def merge_state(self, incoming_state: "dict[str, Any] | torchmetrics.Metric") -> None:
        """torchmetrics' ``merge_state``, of a metric (or its state) counted under these arguments
        and of the same kind, text or token ids; else a ValueError, with this metric unchanged."""
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
        if isinstance(incoming_state, (dict, BLEUScore)):
            state = incoming_state if isinstance(incoming_state, dict) else incoming_state.metric_state
            self._check_mergeable(state["statistics"], state["kinds"])
        super().merge_state(incoming_state)

    def _check_mergeable(self, statistics: Any, kinds: Any) -> None:
        """Refuse a state that this metric could not score once summed with its own: the other kind
        of batches, or statistics counted under other arguments (a ``SacreBLEUScore``'s, say)."""
        text, ids = (kinds.cpu() + self.kinds.cpu()).tolist()
        if text and ids:
            counted, incoming = ("text" if self.kinds[0] else "token ids"), ("token ids" if self.kinds[0] else "text")
            raise ValueError(f"merge_state: this metric has counted {counted}, and the incoming state {incoming}: one "
                             f"metric scores one kind, counted alike")
        summed = statistics.cpu() + self.statistics.cpu()
        if int(statistics[0]) and int(summed[0]):
            try:
                score(summed.numpy(), self._counted_settings(_IDS if ids else _TEXT))
            except ValueError as error:
                raise ValueError(f"merge_state: the incoming state was not counted under this "
                                 f"{type(self).__name__}'s arguments ({error})") from None


class SacreBLEUScore(BLEUScore):
    """torchmetrics' ``SacreBLEUScore``: as ``BLEUScore``, on sacrebleu's tokens: ``tokenize``, one of
    the tokenizers (``exactbleu.TOKENIZERS``: sacrebleu's "13a", "intl", "zh", "char", "none",
    "ja-mecab", "ko-mecab", "flores101", "flores200", and more), after sacrebleu's right-strip and,
    with ``lowercase``, lowercasing. ``spm_model``: the SentencePiece model file of a "flores101",
    "flores200", "spBLEU-1K" or "spm" tokenizer, where it is not where sacrebleu keeps it."""

    def __init__(self, n_gram: int = 4, smooth: bool = False, tokenize: str = _SACREBLEUS, lowercase: bool = False,
                 weights: Sequence[float] | None = None, *, ignore_ids: Sequence[int] | None = None,
                 spm_model: str | None = None, **kwargs: Any) -> None:
        if tokenize not in TOKENIZERS:
            raise ValueError(f"tokenize must be one of {list(TOKENIZERS)}, got {tokenize!r:.80}"
                             f"{did_you_mean(tokenize, TOKENIZERS)}")
        self.tokenize, self.lowercase, self.spm_model = tokenize, lowercase, spm_model
        super().__init__(n_gram, smooth, weights, ignore_ids=ignore_ids, **kwargs)

    def _tokenizing(self) -> dict[str, Any]:
        model = {} if self.spm_model is None else {"spm_model": self.spm_model}
        return {"tokenizer": self.tokenize, "lowercase": self.lowercase, **model}

    def _counted_settings(self, kind: int) -> Settings:
        if kind == _IDS and self.tokenize in (_SACREBLEUS, _WHITESPACE) and self.lowercase is False:
            return self._ids_settings  # no tokenizing asked for but the default: token ids are tokens already
        return super()._counted_settings(kind)


def _floating_dtype(dst_type: object) -> torch.dtype:
    """The floating-point dtype that ``dst_type`` names (as torch.Tensor.type reads it), or a
    ValueError naming the choices."""
    choices = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
    dtype: torch.dtype | None
    try:
        dtype = torch.zeros(()).type(dst_type).dtype  # type: ignore[call-overload]
    except (TypeError, ValueError, RuntimeError):
        dtype = None
    if dtype is None or dtype not in choices:
        raise ValueError(f"set_dtype takes a floating-point dtype, one of {choices}, got {dst_type!r:.80}")
    return dtype


def bleu_score(preds: str | Sequence[Any], target: Sequence[Any], n_gram: int = 4, smooth: bool = False,
               weights: Sequence[float] | None = None, *, ignore_ids: Sequence[int] | None = None) -> torch.Tensor:
    """torchmetrics' functional ``bleu_score``: ``BLEUScore``'s number on one corpus, a float64
    tensor. As torchmetrics' function, ``preds`` may be one string, and each target one string."""
    metric = BLEUScore(n_gram, smooth, weights, ignore_ids=ignore_ids)
    metric.update(*_as_batch(preds, target))
    return metric.compute()


def sacre_bleu_score(preds: str | Sequence[Any], target: Sequence[Any], n_gram: int = 4, smooth: bool = False,
                     tokenize: str = _SACREBLEUS, lowercase: bool = False, weights: Sequence[float] | None = None, *,
                     ignore_ids: Sequence[int] | None = None, spm_model: str | None = None) -> torch.Tensor:
    """torchmetrics' functional ``sacre_bleu_score``: ``SacreBLEUScore``'s number on one corpus, a
    float64 tensor."""
    metric = SacreBLEUScore(n_gram, smooth, tokenize, lowercase, weights, ignore_ids=ignore_ids, spm_model=spm_model)
    metric.update(*_as_batch(preds, target))
    return metric.compute()


def _as_batch(preds: str | Sequence[Any], target: Sequence[Any]) -> tuple[Any, Any]:
    """torchmetrics' functional forms take one prediction as a string (and, as ``update`` does,
    a target's one reference as a string)."""
    return ([preds] if isinstance(preds, str) else preds), target


__all__ = ["BLEUScore", "SacreBLEUScore", "bleu_score", "sacre_bleu_score"]
