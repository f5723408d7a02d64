"""exactbleu in the COCO caption evaluation (pycocoevalcap 1.2): ``PTBTokenizer`` and ``Bleu``, in
place of its own, with no Java.

pycocoevalcap tokenizes captions with Stanford CoreNLP's PTBTokenizer, run through Java, and scores
``Bleu_1`` to ``Bleu_n`` with an arithmetic of its own. ``PTBTokenizer().tokenize`` gives the same
strings from the ``ptb`` tokenizer (``ptb_tokens``), and ``Bleu(n).compute_score`` the same floats,
for the corpus and for each image, from the ``"coco"`` preset: pycocoevalcap's arguments, return
shapes, checks and printed lines, with the library's own messages, which name the images as the
caller keys them. It imports no pycocoevalcap: its ``COCOEvalCap``, its ROUGE-L and CIDEr take these
as its own. Where it departs from pycocoevalcap, docs/captions.md lists it, with the reason.
"""

import itertools
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np

from . import MAX_ORDER, Statistics, explain, ptb_tokens, scored, scored_rows, statistics

PRESET = "coco"
WHITESPACE = "none"  # pycocoevalcap's scorers split the tokenized captions on whitespace
IMAGE_ORDERS = 4  # pycocoevalcap counts each image's n-grams to 4 orders, whatever its n


class PTBTokenizer:
    """pycocoevalcap's ``PTBTokenizer``: ``tokenize`` takes each image's captions and returns their
    tokens, lowercased, pycocoevalcap's punctuation dropped, joined by spaces."""

    def tokenize(self, captions_for_image: Mapping[Any, Sequence[Mapping[str, Any]]]) -> dict[Any, list[str]]:
        """``{image id: [{"caption": text, ...}, ...]}`` (COCO's annotations, as pycocotools' COCO
        object holds them by image) to ``{image id: [tokens joined by spaces, ...]}``, in the same
        order. An image with no captions is left out, as pycocoevalcap, which keys its result by
        each caption's image, leaves it out."""
        if not isinstance(captions_for_image, Mapping):
            raise TypeError(f"captions_for_image must map each image id to its captions, as "
                            f"{{id: [{{'caption': text}}, ...]}}, got {type(captions_for_image).__name__}")
        tokenized: dict[Any, list[str]] = {}
        for image, captions in captions_for_image.items():
            if isinstance(captions, (str, Mapping)) or not isinstance(captions, Sequence):
                raise TypeError(f"captions_for_image[{image!r}] must be a list of captions ({{'caption': text}}), "
                                f"got {type(captions).__name__}: {captions!r:.80}")
            if captions:
                tokenized[image] = [" ".join(ptb_tokens(_caption(caption, image, number)))
                                    for number, caption in enumerate(captions)]
        return tokenized


def _caption(caption: Any, image: Any, number: int) -> str:
    text = caption.get("caption") if isinstance(caption, Mapping) else None
    if not isinstance(text, str):
        raise TypeError(f"captions_for_image[{image!r}][{number}] must be a dict with a 'caption' string, as COCO's "
                        f"annotations hold them, got {caption!r:.80}")
    return _unicode(text, "captions_for_image", image, number)


class Bleu:
    """pycocoevalcap's ``Bleu(n)``: ``compute_score(gts, res)`` gives ``Bleu_1`` to ``Bleu_n`` of the
    corpus, and each image's, as pycocoevalcap does. Past 4 orders, where pycocoevalcap's own fails,
    the same formula goes on, to the library's bound on orders."""

    def __init__(self, n: int = 4):
        self._n = _checked_n(n)

    def compute_score(self, gts: Mapping[Any, Sequence[str]], res: Mapping[Any, Sequence[str]],
                      verbose: int = 1) -> tuple[list[float], list[list[float]]]:
        """``gts``: each image's references, ``res``: each image's one caption, both tokenized (by
        ``PTBTokenizer``); the same images. Returns ``([Bleu_1, ..., Bleu_n], [[each image's Bleu_1],
        ..., [each image's Bleu_n]])``, the images in ``gts``'s order; no images score 0.0, as
        pycocoevalcap's arithmetic scores them. ``verbose`` prints what pycocoevalcap prints: above
        0 the summed counts and the length ratio, above 1 each image's counts first."""
        captions, references = _checked_images(gts, res)
        counted = _counted(captions, references, self._n)
        corpus, each = [], []
        for orders in range(1, self._n + 1):
            first = counted.first_orders(orders)
            whole = scored(first.sums(), PRESET, tokenizer=WHITESPACE, max_order=orders)
            corpus.append(whole.value)
            each.append(scored_rows(first, PRESET, tokenizer=WHITESPACE, max_order=orders).value.tolist()
                        if captions else [])
        if verbose > 1 and captions:
            _print_images(captions, references, max(self._n, IMAGE_ORDERS))
        if verbose > 0:  # the length ratio is the same at every order
            _print_totals(counted, whole.length_ratio)
        return corpus, each

    def method(self) -> str:
        """The scorer's name, as COCOEvalCap prints it."""
        return "Bleu"


def _checked_n(n: object) -> int:
    """``Bleu``'s ``n``, checked when the scorer is made, as the library checks ``max_order``, rather
    than where pycocoevalcap's would fail, at the first ``compute_score``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"n must be an int from 1 to {MAX_ORDER}, the number of orders, got {type(n).__name__}: "
                        f"{n!r:.80}")
    if not 1 <= int(n) <= MAX_ORDER:
        raise ValueError(f"n must be an int from 1 to {MAX_ORDER}, the number of orders, got {n!r}")
    return int(n)


def _checked_images(gts: Mapping[Any, Sequence[str]], res: Mapping[Any, Sequence[str]]
                    ) -> tuple[list[str], list[list[str]]]:
    """Each image's caption and references, in ``gts``'s order, checked as pycocoevalcap asserts
    them: the same ids in both, one caption each in ``res``, at least one reference each in ``gts``;
    and each a string of valid Unicode, named as the caller keys it."""
    if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
        raise TypeError(f"gts and res must map image ids to captions, got {type(gts).__name__} and "
                        f"{type(res).__name__}")
    if gts.keys() != res.keys():
        only = sorted(gts.keys() ^ res.keys(), key=repr)[:5]
        raise ValueError(f"gts and res must hold the same images: {only} are in one and not the other")
    captions, references = [], []
    for image in gts:
        caption, group = res[image], gts[image]
        if isinstance(caption, str) or not isinstance(caption, Sequence) or len(caption) != 1:
            raise ValueError(f"res[{image!r}] must be a list of one caption, got {caption!r:.80}")
        if isinstance(group, str) or not isinstance(group, Sequence) or not group:
            raise ValueError(f"gts[{image!r}] must be a list of at least one reference, got {group!r:.80}")
        captions.append(caption[0])
        references.append(list(group))
    try:  # all the texts at once, in C; one at a time only to name the one refused
        "".join(itertools.chain(captions, itertools.chain.from_iterable(references))).encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        for image, caption, group in zip(gts, captions, references):
            _tokenized_caption(caption, "res", image, 0)
            for number, reference in enumerate(group):
                _tokenized_caption(reference, "gts", image, number)
        raise
    return captions, references


def _tokenized_caption(text: Any, argument: str, image: Any, number: int) -> str:
    """One tokenized caption of ``gts`` or ``res``: a string, as pycocoevalcap's scorer splits it."""
    if not isinstance(text, str):
        raise TypeError(f"{argument}[{image!r}][{number}] must be a string, got {type(text).__name__}: "
                        f"{text!r:.80}{_not_text_hint(text)}")
    return _unicode(text, argument, image, number)


def _not_text_hint(value: Any) -> str:
    """The way to a tokenized caption, from what is often passed in its place."""
    if isinstance(value, Mapping):
        return ("; this looks like a COCO annotation: tokenize the captions first, as COCOEvalCap does "
                "(PTBTokenizer().tokenize(...)), and pass what it returns")
    if isinstance(value, (list, tuple)) and all(isinstance(token, str) for token in value):
        return ("; this looks like a list of tokens: join them with spaces (' '.join(tokens)), as "
                "PTBTokenizer().tokenize returns each caption")
    return ""


def _unicode(text: str, argument: str, image: Any, number: int) -> str:
    """``text``, refused if it holds a lone surrogate (from bytes decoded with
    errors="surrogateescape", say), as the library refuses it: pycocoevalcap's tokenizer cannot
    write one to its file, and its scorer would count one as a token."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(f"{argument}[{image!r}][{number}] is not valid Unicode: it holds the lone surrogate "
                             f"{text[error.start]!r} at position {error.start}; decode its bytes with "
                             f"errors='replace' (or 'strict' to find the bad input)") from None
    return text


def _counted(captions: list[str], references: list[list[str]], orders: int) -> Statistics:
    """Each image's statistics row; for no images, no rows, whose sums pycocoevalcap's arithmetic
    scores (the library's functions refuse an empty corpus)."""
    if not captions:
        none = np.zeros(0, dtype=np.int64)
        return Statistics.of_lengths(none, none, np.zeros((0, orders), dtype=np.int64))
    return statistics(captions, references, PRESET, tokenizer=WHITESPACE, max_order=orders)


def _print_images(captions: list[str], references: list[list[str]], orders: int) -> None:
    """pycocoevalcap's verbose line for each image: its reference lengths, its length, its n-grams
    and matches at each order, then the reference length it takes."""
    for image in explain(captions, references, PRESET, tokenizer=WHITESPACE, max_order=orders):
        counts = cast(list[dict[str, int]], image["orders"])
        print({"reflen": [len(tokens) for tokens in cast(list[list[str]], image["reference_tokens"])],
               "testlen": len(cast(list[str], image["prediction_tokens"])),
               "guess": [order["total"] for order in counts], "correct": [order["matches"] for order in counts]},
              image["reference_length"])


def _print_totals(counted: Statistics, ratio: float) -> None:
    """pycocoevalcap's verbose lines: the summed counts, then the length ratio of its arithmetic."""
    sums = counted.sums()
    print({"testlen": int(sums.prediction_length), "reflen": int(sums.reference_length),
           "guess": [int(total) for total in sums.totals], "correct": [int(match) for match in sums.matches]})
    print("ratio:", ratio)


__all__ = ["Bleu", "PTBTokenizer"]
