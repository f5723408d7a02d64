"""Minimum Bayes risk (MBR) decoding with BLEU as the utility: for each source, each candidate's
expected sentence BLEU against the source's pseudo-references (samples of the model, by default the
candidates themselves), and the candidate that maximises it, for every source in one call.

A candidate's utility is the weighted mean of its sentence BLEU against each pseudo-reference,
added in the pseudo-references' order: with no weights, (s_1 + ... + s_R) / R; with weights
(probabilities, or log-probabilities made probabilities by a softmax), p_j = w_j / (w_1 + ... + w_R)
and the utility p_1 s_1 + ... + p_R s_R. Each s_j is ``sentence_bleu``'s number, bit for bit: the
pairs' statistics rows come from ``counting.by_source`` (or the device), a block of sources at a
time, and the one arithmetic scores them. With ``reference_aggregation``, a candidate is scored
once, against its source's expected pseudo-reference (DeNero et al., 2009).
"""

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..counting import PairRows, Run
from ..dispatch import aggregated_utilities, checked_groups, pairwise_utilities, returned, settings_for
from ..inputs import Groups, Texts, starts_of
from ..options import (
    PRESETS,
    PresetChoice,
    Settings,
    check_int,
    check_no_id_rules,
    check_no_output_options,
    check_whole_corpus,
    resolve_settings,
)
from ..scoring import expected_scores, scored_rows_of, scores_of_rows, several_weight_sets, takes_expected_rows
from ..scoring.common import exponentials


class MBR(NamedTuple):
    """What ``mbr`` returns. ``utilities``: each source's candidates' expected BLEU (a list of
    float64 arrays, one per source; for tensors, a float64 tensor (sources, candidates) on their
    device). ``best``: each source's best candidate's index (ties go to the first), an int64 array
    or tensor. ``n_best``: with ``n_best=k``, each source's k best indices, best first (a list of
    int64 arrays; for tensors, a tensor (sources, k)); else None."""

    utilities: Any
    best: Any
    n_best: Any = None


def mbr(candidates: Any, pseudo_references: Any = None, preset: PresetChoice = "sacrebleu", *,
        reference_weights: Any = None, reference_lprobs: Any = None, n_best: int | None = None,
        reference_aggregation: bool = False, ignore_ids: Sequence[int] | None = None, threads: int | None = None,
        own_scale: bool = False, **options: Any) -> MBR:
    """MBR decoding with sentence BLEU, every source at once.

    ``utilities[s][i]`` is candidate i's weighted mean of
    ``sentence_bleu(candidates[s][i], [pseudo_references[s][j]], preset, **options)["bleu"]`` over j,
    added in order (see the module's opening), bit for bit, under every preset and option (by
    default sacrebleu's sentence BLEU, with effective order, as mbrs's BLEU scores).

    Args:
        candidates: a list per source of its candidates (each source may have its own number), as
            texts or token ids; or a (sources, candidates, length) token-id tensor, padded with an
            id named in ``ignore_ids``, counted on its device.
        pseudo_references: the same layout; by default the candidates themselves (each candidate is
            then scored against itself too, as mbrs does).
        reference_weights: per source, a non-negative weight for each pseudo-reference (say, its
            probability), not all 0; the utility's weights are these over their sum.
        reference_lprobs: per source, a log-probability for each pseudo-reference (mbrs's
            ``reference_lprobs``), made weights by a softmax. At most one of the two.
        n_best: also return each source's ``n_best`` best candidates, best first.
        reference_aggregation: score each candidate once, against the expected n-gram counts and
            length of its source's pseudo-references (linear, not quadratic, per source): mbrs's
            aggregated BLEU. Not the pairwise utility: BLEU of an average is not the average of BLEU.
            In HF's and sacrebleu's arithmetic (NLTK's counts are whole numbers).
        threads: threads that work blocks of sources out (None: two where two cores are).
        own_scale: each pair's score (or aggregated score) on its arithmetic's own scale (``value``)
            rather than ``bleu``, as ``bleu_matrix``'s: under sacrebleu's, 0..100.
    Needs scipy for the pairwise utility (``pip install "exactbleu[matrix]"``).
    """
    settings = _checked_settings(preset, options, pseudo_references, reference_aggregation, n_best)
    threads = Run(threads=threads).checked().threads
    if not isinstance(own_scale, bool):
        raise TypeError(f"own_scale must be True or False, got {own_scale!r:.80}")
    mine, sizes = checked_groups(candidates, "candidates", ignore_ids)
    theirs: Texts | None = None
    their_sizes = sizes
    if pseudo_references is not None:
        theirs, their_sizes = checked_groups(pseudo_references, "pseudo_references", ignore_ids)
        if len(their_sizes) != len(sizes):
            raise ValueError(f"candidates and pseudo_references must have one group per source each, got "
                             f"{len(sizes)} and {len(their_sizes)}")
        if theirs.kind != mine.kind:
            raise TypeError(f"candidates and pseudo_references must be of one kind, got {mine.kind} and {theirs.kind}")
    groups = Groups(sizes, their_sizes, theirs is None)
    probabilities = _probabilities(reference_weights, reference_lprobs, their_sizes)
    settings = settings_for(mine.kind, settings)
    if reference_aggregation:
        flat = (np.repeat(1.0 / their_sizes, their_sizes) if probabilities is None
                else probabilities[np.arange(probabilities.shape[1]) < their_sizes[:, None]])
        score = functools.partial(expected_scores, settings=settings, own_scale=own_scale)
        utilities = aggregated_utilities(mine, theirs, groups, settings, flat, score, threads)
    else:
        reduce = functools.partial(_mean_utilities, settings=settings, groups=groups, probabilities=probabilities,
                                   own_scale=own_scale)
        utilities = pairwise_utilities(mine, theirs, groups, settings, reduce, threads)
    return _decided(utilities, sizes, n_best, mine)


def _checked_settings(preset: PresetChoice, options: dict[str, Any], pseudo_references: Any,
                      reference_aggregation: object, n_best: int | None) -> Settings:
    """The settings, and every argument but the texts, the weights and the run, checked before any work."""
    if isinstance(pseudo_references, str):
        named = f"; to choose the preset, pass preset={pseudo_references!r}" if pseudo_references in PRESETS else ""
        raise TypeError(f"pseudo_references must be a list per source, got the string {pseudo_references!r:.80}{named}")
    settings = resolve_settings(preset, **options)
    check_no_output_options(settings, "mbr")
    check_no_id_rules(settings, "mbr")
    check_whole_corpus(settings, "mbr")
    if several_weight_sets(settings):
        raise ValueError("mbr takes one set of n-gram weights, got several: a utility needs one score per pair")
    if not isinstance(reference_aggregation, bool):
        raise TypeError(f"reference_aggregation must be True or False, got {reference_aggregation!r:.80}")
    if reference_aggregation and not takes_expected_rows(settings):
        raise ValueError(f"reference_aggregation=True takes HF's or sacrebleu's arithmetic, got smooth_method="
                         f"{settings.scoring.smooth_method!r}: NLTK's counts are whole numbers, and an aggregated "
                         f"reference's are expected counts")
    if n_best is not None:
        check_int("n_best", n_best, 1)
    return settings


def _mean_utilities(pairs: PairRows, first: int, stop: int, *, settings: Settings, groups: Groups,
                    probabilities: NDArray[np.float64] | None, own_scale: bool) -> NDArray[np.float64]:
    """The utilities of the candidates of sources ``first`` to ``stop`` from their pairs' rows:
    each pair's sentence BLEU (each distinct row scored once; on the arithmetic's own scale with
    ``own_scale``), laid out (candidate, pseudo-reference), then added in order."""
    row_scores = scored_rows_of(pairs.rows, settings).value if own_scale else scores_of_rows(pairs.rows, settings)
    scores = row_scores[pairs.inverse]
    candidates, references = groups.candidates[first:stop], groups.references[first:stop]
    owner = np.repeat(np.arange(len(candidates)), candidates)
    each = references[owner]  # each candidate's number of pseudo-references
    column = np.arange(len(scores)) - np.repeat(starts_of(each), each)
    laid_out = np.zeros((len(owner), int(references.max())))
    laid_out[np.repeat(np.arange(len(owner)), each), column] = scores
    if probabilities is None:
        # add.accumulate adds left to right: the running sum's last column is the sum in order.
        summed: NDArray[np.float64] = np.add.accumulate(laid_out, axis=1)[:, -1] / each
        return summed
    weights = probabilities[first:stop, : laid_out.shape[1]][owner]
    weighted: NDArray[np.float64] = np.add.accumulate(weights * laid_out, axis=1)[:, -1]
    return weighted


def _probabilities(weights: Any, lprobs: Any, sizes: NDArray[np.int64]) -> NDArray[np.float64] | None:
    """Each pseudo-reference's weight in its source's utility, laid out (sources, most
    pseudo-references) with zeros after each source's own; None for the plain mean."""
    if weights is not None and lprobs is not None:
        raise ValueError("give reference_weights or reference_lprobs, not both")
    given, name = (weights, "reference_weights") if weights is not None else (lprobs, "reference_lprobs")
    if given is None:
        return None
    laid_out = _laid_out(given, name, sizes, -np.inf if lprobs is not None else 0.0)
    inside = np.arange(laid_out.shape[1]) < sizes[:, None]
    if weights is not None:
        bad = inside & ~(np.isfinite(laid_out) & (laid_out >= 0))
        if bad.any():
            raise ValueError(f"{name} must be finite and non-negative, got {float(laid_out[bad][0])!r}")
        if not (laid_out > 0).any(axis=1).all():
            raise ValueError(f"{name}[{int(np.flatnonzero(~(laid_out > 0).any(axis=1))[0])}] is all 0: a source's "
                             f"weights need one above 0")
        values = laid_out
    else:
        bad = np.isnan(laid_out) | (laid_out == np.inf)
        if bad.any():
            raise ValueError(f"{name} must be log-probabilities (finite, or -inf for none), got "
                             f"{float(laid_out[bad][0])!r}")
        top = laid_out.max(axis=1)
        if not np.isfinite(top).all():
            raise ValueError(f"{name}[{int(np.flatnonzero(~np.isfinite(top))[0])}] is all -inf: a source needs a "
                             f"pseudo-reference of some probability")
        values = np.zeros(laid_out.shape)
        values[inside] = exponentials(laid_out[inside] - np.repeat(top, sizes))  # math.exp, as the softmax
    total = np.add.accumulate(values, axis=1)[:, -1]
    probabilities: NDArray[np.float64] = values / total[:, None]
    return probabilities


def _laid_out(value: Any, name: str, sizes: NDArray[np.int64], fill: float) -> NDArray[np.float64]:
    """Per-source numbers (a list per source, or a 2-D array or tensor) laid out (sources, most)."""
    if hasattr(value, "tolist") and not isinstance(value, list):
        value = value.tolist()  # arrays and tensors, wherever they lie
    if not isinstance(value, (list, tuple)) or len(value) != len(sizes):
        raise ValueError(f"{name} must hold one list per source ({len(sizes)}), got {value!r:.80}")
    laid_out = np.full((len(sizes), int(sizes.max())), fill)
    for source, (group, size) in enumerate(zip(value, sizes.tolist())):
        if not isinstance(group, (list, tuple)) or len(group) != size:
            raise ValueError(f"{name}[{source}] must hold one number per pseudo-reference ({size}), got {group!r:.80}")
        try:
            laid_out[source, :size] = np.asarray(group, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name}[{source}] must hold numbers, got {group!r:.80}") from None
    return laid_out


def _decided(utilities: NDArray[np.float64], sizes: NDArray[np.int64], n_best: int | None, mine: Texts) -> MBR:
    """Each source's utilities, its best candidate and its n best, in the input's kind."""
    laid_out = np.full((len(sizes), int(sizes.max())), -np.inf)
    laid_out[np.arange(laid_out.shape[1]) < sizes[:, None]] = utilities
    ranked = np.argsort(-laid_out, axis=1, kind="stable")  # ties keep the first candidate first
    best = ranked[:, 0]
    if mine.kind == "tensor":
        top = ranked[:, : min(n_best, laid_out.shape[1])] if n_best is not None else None
        return MBR(returned(laid_out, mine), returned(best, mine).long(),
                   None if top is None else returned(top, mine).long())
    kept = None if n_best is None else [row[: min(n_best, size)] for row, size in zip(ranked, sizes.tolist())]
    return MBR(np.split(utilities, np.cumsum(sizes)[:-1]), best, kept)
