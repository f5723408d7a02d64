"""The Space's requests, without a server: the page's inputs checked once, scored by the functional
API (never evaluate), dear requests priced and refused before any tokenizing, and the workers."""

import contextlib
import json
import os
import random
import re
import subprocess
import sys
import time

import pytest

from conftest import ROOT

import exactbleu
from space import pricing
from space import requests as space
from space_helpers import PREDICTIONS, REFERENCES, REFERENCES_2, TRANSFORMERS_BLEU, metric_result


def test_score_is_the_metric_with_the_example_prefilled():
    result = space.score(PREDICTIONS, REFERENCES, REFERENCES_2, max_order=2)
    assert result["bleu"] == TRANSFORMERS_BLEU
    assert len(result["sentence_bleu"]) == 3 and result["signature"].startswith("nrefs:2|")


@pytest.mark.parametrize("arguments, words", [
    ((PREDICTIONS, "one line"), ["References has 1 lines", "Predictions has 3"]),
    (("", REFERENCES), ["Predictions is empty"]),
    (("x\n" * (space.MAX_LINES + 1), "x\n" * (space.MAX_LINES + 1)), ["at most 100,000"]),
    (("x" * (space.MAX_BYTES + 1), "x"), ["larger than 10 MB"]),
    (("ok\nbad \udc80", "ok\nbad"), ["predictions[1]", "not valid Unicode"]),
])
def test_input_errors_are_messages(arguments, words):
    with pytest.raises(pricing.InputError) as raised:
        space.score(*arguments)
    for word in words:
        assert word in str(raised.value)


def test_the_space_scores_the_coco_caption_evaluations_bleu():
    """The COCO caption evaluation's convention, as the page states it: its PTB tokens, its smoothing
    (its arithmetic) and the closest reference length: pycocoevalcap's Bleu_4, as the preset gives it."""
    from pycocoevalcap.bleu.bleu import Bleu

    import exactbleu

    captions = ["A man riding a wave on a surfboard.", "Two dogs (brown) play on the grass!"]
    references = ["A surfer rides a big wave.", "Two dogs play in the grass."]
    result = space.score("\n".join(captions), "\n".join(references), tokenizer="ptb", smoothing="coco (COCO)",
                         ref_length="closest")
    assert "ptb" in space.tokenizers() and "coco (COCO)" in space.smoothings()
    expected = exactbleu.corpus_bleu(captions, [[reference] for reference in references], "coco")["bleu"]
    gts = {n: [" ".join(exactbleu.ptb_tokens(r))] for n, r in enumerate(references)}
    res = {n: [" ".join(exactbleu.ptb_tokens(c))] for n, c in enumerate(captions)}
    assert result["bleu"] == expected == Bleu(4).compute_score(gts, res, verbose=0)[0][3]


def test_the_space_offers_korean_and_japanese():
    assert {"ko-mecab", "ja-mecab"} <= set(space.tokenizers())
    from sacrebleu.metrics import BLEU

    prediction = "私は毎朝電車で会社に行きます。"
    result = space.score(prediction, "私は毎朝、電車で会社へ行く。", tokenizer="ja-mecab", max_order=2)
    assert result["translation_length"] == len(BLEU(tokenize="ja-mecab")._preprocess_segment(prediction).split())
    assert "tok:ja-mecab-" in result["signature"]


def test_explaining_a_line_that_is_no_longer_there_is_a_message():
    with pytest.raises(pricing.InputError, match="no line 5"):
        space.explain_line(PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "shortest", False, 4)
    explained = space.explain_line(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, "none", "shortest", False, 1)
    assert explained["reference_tokens"] == [["Good", "Morning", "Transformers"], ["Morning", "Transformers"]]


def test_the_space_scores_without_evaluate():
    """evaluate.load costs 76 ms, against 2.8 ms of scoring a request: the Space calls the
    functional API, and never imports evaluate."""
    code = ("import sys; from space.requests import score; result = score('the cat sat on the mat', "
            "'the cat sat on a mat'); "
            "print(result['bleu'], sorted(name for name in sys.modules if name.split('.')[0] == 'evaluate'))")
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, GRADIO_ANALYTICS_ENABLED="False"))
    assert completed.returncode == 0, completed.stderr[-2000:]
    bleu, modules = completed.stdout.split(maxsplit=1)
    assert float(bleu) == metric_result("the cat sat on the mat", ["the cat sat on a mat"])["bleu"]
    assert modules.strip() == "[]"


DEAR_REQUESTS = {
    # sacremoses checks every token ending in a period against its whole alphabet: 1 ms a token.
    "moses periods": lambda: space.score("1.2. " * 32_000, "1.2. " * 32_000, tokenizer="moses", max_order=4),
    # MeCab groups a run of unknown characters in quadratic time.
    "mecab run": lambda: space.score("1" * 100_000, "1" * 100_000, tokenizer="ja-mecab", max_order=4),
    # every character a token, max order 8, too many distinct tokens for packed keys
    "char, order 8": lambda: space.score(*[_random_ascii(400_000)] * 2, tokenizer="char", max_order=8),
    "over a million tokens": lambda: space.score("x" * 600_000, "y" * 600_000, tokenizer="13a", max_order=1),
    "compare with moses": lambda: space.run_here(space.compare_job("1.2. " * 20_000, "1.2. " * 20_000, "1.2. " * 20_000,
                                                               "moses", "bootstrap")),
}


def _random_ascii(length):
    rng = random.Random(7)
    return "".join(chr(rng.randint(33, 126)) for _ in range(length))


@pytest.mark.parametrize("name", list(DEAR_REQUESTS))
def test_dear_requests_are_refused_before_any_tokenizing(monkeypatch, name):
    """A limit checked after tokenizing costs the work it should spare (160 KB of moses input takes
    26 s): every request is priced from its characters, lines, periods and runs before its work
    starts, and a refused one reaches no tokenizer."""
    import exactbleu.counting

    def tokenized(*arguments, **options):
        raise AssertionError("a request that must be refused was tokenized")

    monkeypatch.setattr(exactbleu.counting, "corpus_statistics", tokenized)
    started = time.perf_counter()
    with pytest.raises(pricing.InputError, match=r"would take up to [\d.]+ s with tokenizer|more than the 1,000,000"):
        DEAR_REQUESTS[name]()
    assert time.perf_counter() - started < 5  # priced, not worked out (generous: the pricing takes ~0.1 s)


def test_a_tokenizer_is_priced_by_what_it_costs():
    """The same text costs what its tokenizer makes of it: moses pays per period, MeCab per
    squared run, 13a neither; so 13a takes texts that moses and MeCab are refused."""
    periods, run = "1.2. " * 32_000, "1" * 100_000
    for tokenizer, text in (("moses", periods), ("ja-mecab", run)):
        with pytest.raises(pricing.InputError, match=f"tokenizer '{tokenizer}'"):
            space.score(text, text, tokenizer=tokenizer)
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        result = space.score(text, text, tokenizer="13a")
        assert result["translation_length"] == len(Tokenizer13a()(text).split())
    cheap, dear = (pricing.cost_of([periods], [[periods]], tokenizer, 4) for tokenizer in ("13a", "moses"))
    assert cheap.tokens == dear.tokens == 2 * len(periods.replace(" ", ""))
    assert dear.seconds > 10 * cheap.seconds


def test_a_cheap_job_cancelled_midway_never_answers_the_next_one():
    """A worker that was still working when its request was cancelled would send that answer to
    whoever came next: the next job must get its own."""
    import asyncio

    from space.pricing import Cost
    from space.requests import Job
    from space.workers import Workers

    async def scenario():
        workers = Workers()
        workers.start()
        try:
            cheap = Cost(0, 0.01, "")
            slow = asyncio.ensure_future(workers.run(Job(time.sleep, (1.0,), cheap)))
            await asyncio.sleep(0.3)
            slow.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await slow
            answers = await asyncio.gather(*(workers.run(Job(len, ("x" * n,), cheap)) for n in range(1, 6)))
            return answers
        finally:
            workers.close()

    assert asyncio.run(scenario()) == [1, 2, 3, 4, 5]


WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"


def _wmt17(size, systems=None):
    """A realistic "Which BLEU?" request: WMT17 system output (the first system's, or the first
    of ``systems``) and reference lines. Further reference sets are the other systems' outputs, as a
    page with more reference sets would hold."""
    systems = systems or [sorted(path.name for path in (WMT17 / "systems").iterdir())[0]]
    lines = [(WMT17 / "systems" / name).read_text(encoding="utf-8").splitlines()[:size] for name in systems]
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[:size]
    boxes = ["\n".join(these) for these in (lines[0], reference, *lines[1:])]
    return boxes + [""] * (4 - len(boxes))


MEASURED = json.loads((ROOT / "tests" / "data" / "space" / "measured.json").read_text(encoding="utf-8"))


# The price may be at most 2.25 times the work, and at least half of it; the work is what
# `python benchmarks/load.py record` measured on a quiet machine (tests never time anything). Each
# tokenizer's price bounds any text with a margin, so on WMT17's plain lines it is about twice the work.
@pytest.mark.parametrize("request_", MEASURED["which_bleu"], ids=lambda row: f"{row['lines']}x{len(row['systems'])}")
def test_which_bleu_is_priced_at_about_what_it_takes(request_):
    """One reference set or three (the first reference alone and the fewest are conventions too, so
    the conventions double): the price follows the work measured."""
    boxes = _wmt17(request_["lines"], request_["systems"])  # the request as it was recorded
    price = space.conventions_job(space.PageInputs.checked(*boxes), None, "").cost.seconds
    assert 1 / 2 <= price / request_["seconds"] <= 2.25, \
        f"{request_['lines']} lines: priced {price:.2f} s, took {request_['seconds']:.2f} s"


def test_the_price_counts_every_convention_the_library_scores():
    """The price reads the conventions off the library's run with one tokenizer: every tokenizer,
    and the language's, gets those same conventions; and the scripts' presets, read off its run too."""
    predictions, references = ["the cat sat", "a dog"], [["the cat sat", "a cat sat"], ["a dog ran", "dogs"]]
    for language in ("", "zh"):
        names = exactbleu.convention_tokenizers(language or None)
        rows = exactbleu.conventions(predictions, references, language=language or None)
        # A convention is its settings (a tool may name it otherwise on the other scale), or a script's.
        scored = {(row.signature, row.arithmetic, exactbleu.PRESETS[row.preset].script) for row in rows
                  if row.aggregate == "corpus"}
        assert len(scored) == (len(names) * pricing.convention_work(names[0], (2,)).conventions
                               + sum(pricing.script_work((2,), language or None).values()))


def test_the_lines_the_docs_say_fit_are_those_the_price_takes():
    """docs/space.md states how many WMT17 lines "Which BLEU?" takes: as many are priced within the
    limit, and a tenth more are refused."""
    stated = re.search(r"about ([\d,]+) WMT17 lines fit in the 5 s", (ROOT / "docs" / "space.md").read_text())
    assert stated, "docs/space.md no longer states the lines that fit"
    lines = int(stated.group(1).replace(",", ""))
    assert space.conventions_job(space.PageInputs.checked(*_wmt17(lines)), None, "").cost.seconds <= pricing.MAX_SECONDS
    with pytest.raises(pricing.InputError, match="every convention of the texts would take up to"):
        space.conventions_job(space.PageInputs.checked(*_wmt17(lines * 11 // 10)), None, "")
