"""exactbleu in the COCO caption evaluation (pycocoevalcap 1.2): ``PTBTokenizer`` and ``Bleu``, in
place of its own, with no Java.

pycocoevalcap tokenizes captions with Stanford CoreNLP's PTBTokenizer, run through Java, and scores
``Bleu_1`` to ``Bleu_n`` with an arithmetic of its own. ``PTBTokenizer().tokenize`` gives the same
strings from the ``ptb`` tokenizer (``ptb_tokens``), and ``Bleu(n).compute_score`` the same floats,
for the corpus and for each image, from the ``"coco"`` preset: pycocoevalcap's arguments, return
shapes and checks, with the library's own messages. It imports no pycocoevalcap: its ``COCOEvalCap``,
its ROUGE-L and CIDEr take these as its own (docs/captions.md).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from . import Statistics, ptb_tokens, scored, scored_rows, statistics

PRESET = "coco"
WHITESPACE = "none"  # pycocoevalcap's scorers split the tokenized captions on whitespace


class PTBTokenizer:
    """pycocoevalcap's ``PTBTokenizer``: ``tokenize`` takes each image's captions and returns their
    tokens, lowercased, pycocoevalcap's punctuation dropped, joined by spaces."""

    def tokenize(self, captions_for_image: Mapping[Any, Sequence[Mapping[str, Any]]]) -> dict[Any, list[str]]:
        """``{image id: [{"caption": text, ...}, ...]}`` (COCO's annotations, as pycocotools' COCO
        object holds them by image) to ``{image id: [tokens joined by spaces, ...]}``, in the same order."""
        if not isinstance(captions_for_image, Mapping):
            raise TypeError(f"captions_for_image must map each image id to its captions, as "
                            f"{{id: [{{'caption': text}}, ...]}}, got {type(captions_for_image).__name__}")
        tokenized: dict[Any, list[str]] = {}
        for image, captions in captions_for_image.items():
            if isinstance(captions, (str, Mapping)) or not isinstance(captions, Sequence):
                raise TypeError(f"captions_for_image[{image!r}] must be a list of captions ({{'caption': text}}), "
                                f"got {type(captions).__name__}: {captions!r:.80}")
            tokenized[image] = [" ".join(ptb_tokens(_caption(caption, image, number)))
                                for number, caption in enumerate(captions)]
        return tokenized


def _caption(caption: Any, image: Any, number: int) -> str:
    text = caption.get("caption") if isinstance(caption, Mapping) else None
    if not isinstance(text, str):
        raise TypeError(f"captions_for_image[{image!r}][{number}] must be a dict with a 'caption' string, as COCO's "
                        f"annotations hold them, got {caption!r:.80}")
    return text


class Bleu:
    """pycocoevalcap's ``Bleu(n)``: ``compute_score(gts, res)`` gives ``Bleu_1`` to ``Bleu_n`` of the
    corpus, and each image's, as pycocoevalcap does. Past 4 orders, where pycocoevalcap's own fails,
    the same formula goes on."""

    def __init__(self, n: int = 4):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be the number of orders, a positive int, got {n!r:.80}")
        self._n = n

    def compute_score(self, gts: Mapping[Any, Sequence[str]], res: Mapping[Any, Sequence[str]],
                      verbose: int = 1) -> tuple[list[float], list[list[float]]]:
        """``gts``: each image's references, ``res``: each image's one caption, both tokenized (by
        ``PTBTokenizer``); the same images. Returns ``([Bleu_1, ..., Bleu_n], [[each image's Bleu_1],
        ..., [each image's Bleu_n]])``, the images in ``gts``'s order. ``verbose`` prints the summed
        counts and the length ratio, as pycocoevalcap prints them."""
        images = _checked_images(gts, res)
        counted = statistics([res[image][0] for image in images], [list(gts[image]) for image in images], PRESET,
                             tokenizer=WHITESPACE, max_order=self._n)
        corpus, each = [], []
        for orders in range(1, self._n + 1):
            first = counted.first_orders(orders)
            whole = scored(first, PRESET, tokenizer=WHITESPACE, max_order=orders)
            corpus.append(whole.value)
            each.append(scored_rows(first, PRESET, tokenizer=WHITESPACE, max_order=orders).value.tolist())
        if verbose:  # the length ratio is the same at every order
            _print_totals(counted, whole.length_ratio)
        return corpus, each

    def method(self) -> str:
        """The scorer's name, as COCOEvalCap prints it."""
        return "Bleu"


def _checked_images(gts: Mapping[Any, Sequence[str]], res: Mapping[Any, Sequence[str]]) -> list[Any]:
    """The images of ``gts``, in its order, each checked as pycocoevalcap asserts it: the same ids in
    both, one caption each in ``res``, at least one reference each in ``gts``."""
    if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
        raise TypeError(f"gts and res must map image ids to captions, got {type(gts).__name__} and "
                        f"{type(res).__name__}")
    if gts.keys() != res.keys():
        only = sorted(gts.keys() ^ res.keys(), key=repr)[:5]
        raise ValueError(f"gts and res must hold the same images: {only} are in one and not the other")
    for image in gts:
        caption, references = res[image], gts[image]
        if isinstance(caption, str) or not isinstance(caption, Sequence) or len(caption) != 1:
            raise ValueError(f"res[{image!r}] must be a list of one caption, got {caption!r:.80}")
        if isinstance(references, str) or not isinstance(references, Sequence) or not references:
            raise ValueError(f"gts[{image!r}] must be a list of at least one reference, got {references!r:.80}")
    return list(gts)


def _print_totals(counted: Statistics, ratio: float) -> None:
    """pycocoevalcap's verbose lines: the summed counts, then the length ratio of its arithmetic."""
    sums = counted.sums()
    print({"testlen": int(sums.prediction_length), "reflen": int(sums.reference_length),
           "guess": [int(total) for total in sums.totals], "correct": [int(match) for match in sums.matches]})
    print("ratio:", ratio)


__all__ = ["Bleu", "PTBTokenizer"]
