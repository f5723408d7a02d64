"""Refusals: where settings meet a function that cannot honour them, a ValueError that says why,
rather than a number that no corpus has: output options given where no result is returned,
references kept by the whole corpus (lm-eval's rule), fewer than all or the best, a mean of sentence scores
where only sums are, statistics counted under other settings, fairseq's rules for ids where texts meet.
"""

from typing import TYPE_CHECKING, Optional

from .declared import OPTIONS, Settings, stage_of
from .resolution import counted_with

if TYPE_CHECKING:
    from ..sufficient_statistics import CountedWith


def check_no_output_options(settings: Settings, function: str) -> None:
    """A ValueError when a function that returns no corpus result is given the options that shape
    one (``sentence_level``, ``signature``, ``n_bootstrap``, ``bootstrap_seed``): they would be
    ignored without a word."""
    given = sorted(name for name in settings.given if name in OPTIONS and stage_of(name) == "output")
    if given:
        raise ValueError(f"{function} does not take {given}: they shape corpus_bleu's result, and {function} "
                         f"returns none")


def check_all_references(settings: Settings, function: str) -> None:
    """A ValueError where the settings keep fewer than all references, or take the first of the
    closest, and ``function`` compares texts with each other (Self-BLEU), which have no references
    of their own to keep or to put first."""
    keep = settings.statistics.keep_references
    if keep != "all":
        raise ValueError(f"{function} scores texts against each other, which have no references of their own to "
                         f"keep: keep_references={keep!r} does not apply (a harness preset sets it); use a preset "
                         f"or keep_references that keeps 'all'")
    if settings.statistics.ref_length == "closest-first":
        raise ValueError(f"{function} scores texts against each other, which have no references of their own, nor "
                         f"a first of them: ref_length='closest-first' (torchmetrics') does not apply; use "
                         f"ref_length='closest'")


def check_no_id_rules(settings: Settings, function: str) -> None:
    """A ValueError where fairseq's rules for token ids (``pad``, ``eos``, ``unk``) meet a function
    that compares texts with each other, which fairseq's scorer never reads."""
    if settings.tokenize.id_rules:
        raise ValueError(f"{function} compares texts with each other, which fairseq's scorer never reads: leave out "
                         f"fairseq's rules for token ids ({settings.tokenize.id_rules_named()}; the \"fairseq\" "
                         f"preset sets them)")


def check_whole_corpus(settings: Settings, what: str) -> None:
    """A ValueError where the settings keep as many references as the prediction with the fewest
    has, and ``what`` (a function, or an option) scores less or other than the corpus as a whole:
    its number would depend on which segments it saw."""
    if settings.statistics.keep_references == "fewest":
        raise ValueError(f"{what}: keep_references='fewest' (the \"lm-eval\" preset's) does not apply, since how "
                         f"many references count depends on the whole corpus, so only a corpus score takes it; use "
                         f"keep_references='all' or 'first'")


def check_references_shown(settings: Settings, what: str) -> None:
    """A ValueError where ``what`` shows each segment against the references it keeps, and the
    settings keep the one that scores best (HELM's rule), which it does not choose."""
    if settings.statistics.keep_references == "best":
        raise ValueError(f"{what} shows each segment against the references it keeps, but keep_references='best' "
                         f"keeps the one that scores best: {what} the prediction with that reference alone")


def check_micro(settings: Settings, what: str) -> None:
    """A ValueError where a mean of sentence scores (``average="macro"``) meets ``what``, which has
    only summed statistics: it would give the corpus's BLEU instead."""
    if settings.scoring.average != "micro":
        raise ValueError(f"{what}: average={settings.scoring.average!r} is the mean of each segment's own score, "
                         f"which needs each segment's statistics; score the Statistics that exactbleu.statistics() "
                         f"returns, or use average='micro'")


def check_corpus_result(settings: Settings) -> None:
    """A ValueError where a corpus result's per-sentence scores or resamples are asked for under a rule
    that keeps references by the whole corpus (see ``check_whole_corpus``)."""
    if settings.output.sentence_level:
        check_whole_corpus(settings, "sentence_level=True")
    if settings.output.n_bootstrap:
        check_whole_corpus(settings, "n_bootstrap")


def check_counted_with(counted: Optional["CountedWith"], settings: Settings) -> None:
    """A ValueError unless statistics counted with ``counted`` (None: made by hand) are what these
    settings count: scoring them under other settings would give a number that no corpus has."""
    if counted is None:
        return
    scoring = counted_with(settings)
    if counted.settings_alone() != scoring:
        was, now = counted.settings_alone().difference(scoring)
        raise ValueError(f"these statistics were counted with {was}, and are scored with {now}: count and score "
                         f"with the same options (statistics(..., preset, **options), then score(..., preset, "
                         f"**options))")
