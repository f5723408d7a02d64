"""Every face gives the same number for the same input and options, or a clear error.

Random small corpora and random option combinations, drawn from the declared options, go through
every face: the functional API, the evaluate metric (options at load, at compute, and both; add in
both keyword forms; add_batch), statistics summed over shards and scored, the summed vector, the
command line's JSON, the paired tests' original-sample scores, explain, and the Space's scoring
function. The expected value is the functional API's ``corpus_bleu``; it in turn is held to the
oracles by the convention tests.
"""

import argparse
import contextlib
import io
import json
import pathlib
import tempfile

import evaluate
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from space import requests as space
import exactbleu
from exactbleu import cli
from exactbleu import OPTIONS as DECLARED
from exactbleu import PRESETS, TOKENIZERS
from oracles import OPTIONS, outcome, segments
from conftest import METRIC_PATH, examples

DEFAULTS = {name: option.default for name, option in DECLARED.items()}
# Options that choose between alternatives, so that a later one replaces an earlier one as a whole:
# the metric's load-time and compute-time options are split without cutting through these (a
# tokenizer's own settings go with the tokenizer).
SETTINGS = {setting.name for tokenizer in TOKENIZERS.values() for setting in tokenizer.settings}
COUPLED = [{"smooth", "smooth_method", "smooth_value"}, {"tokenizer", *SETTINGS}, {"max_order", "weights"}]
OUTPUT = {name for name, option in DECLARED.items() if option.stage == "output"}
PREDICTIONS = ["the cat sat on the mat", "a dog ran", "x", ""]
REFERENCES = [["the cat sat on a mat", "there is a cat on the mat"], ["a dog ran home"], ["x y"], ["z"]]


# A line of a file or of one of the Space's text boxes: a segment without line breaks.
LINE = segments(max_words=8).map(lambda text: text.replace("\n", " ").replace("\r", " "))


@st.composite
def line_corpora(draw, max_segments=5, max_references=3):
    """(predictions, references) whose every segment fits on a line, with as many references each:
    what files and the Space's text boxes can hold."""
    size = draw(st.integers(1, max_segments))
    width = draw(st.integers(1, max_references))
    predictions = draw(st.lists(LINE, min_size=size, max_size=size))
    references = [draw(st.lists(LINE, min_size=width, max_size=width)) for _ in range(size)]
    return predictions, references


def split_options(options, sides):
    """The options in two parts, coupled ones on the same side: bit i of ``sides`` puts the i-th
    group at load time."""
    load, compute = {}, {}
    groups = [group & set(options) for group in COUPLED]
    groups += [{name} for name in options if not any(name in group for group in COUPLED)]
    for number, group in enumerate(group for group in groups if group):
        side = load if sides >> number & 1 else compute
        side.update({name: options[name] for name in group})
    return load, compute




def agree(expected, got, face):
    kind, value = got
    if expected[0] == "error":
        assert kind == "error", f"{face} gave a result where corpus_bleu raised {expected[1].__name__}"
    else:
        assert kind == "ok", f"{face} raised {value.__name__} where corpus_bleu gave a result"
        assert value == expected[1], face


def averaged(preset, options):
    """Whether the options score a mean of sentence scores (``average="macro"``)."""
    settings = outcome(lambda: exactbleu.resolve_settings(preset, **options))
    return settings[0] == "ok" and settings[1].scoring.average == "macro"


def keeps_the_best(preset, options):
    """Whether the options keep each prediction's best reference (HELM's rule), which ``explain``,
    showing a segment against the references it keeps, refuses rather than choose."""
    settings = outcome(lambda: exactbleu.resolve_settings(preset, **options))
    return settings[0] == "ok" and settings[1].statistics.keep_references == "best"


def agree_or_refuse(expected, got, face):
    """Statistics counted under other options: the score of the options asked for, or an error."""
    if got[0] == "ok":
        agree(expected, got, face)


def metric(preset, **options):
    return evaluate.load(METRIC_PATH, preset, **options)


def run_cli(argv):
    """The command line's exit status and standard output, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(argv)
    return status, out.getvalue()


def cli_flags(options):
    """The command-line flags for these options, or None where the command line cannot say them."""
    argv = []
    for name, value in options.items():
        option = DECLARED[name]
        if name in ("sentence_level", "signature"):
            continue  # -sl is its own run; the JSON always holds the signature
        if not option.flags:
            return None
        flag = option.flags[-1]
        if option.cli.get("action") is argparse.BooleanOptionalAction:
            if not isinstance(value, bool):
                return None
            argv.append(flag if value else f"--no-{flag.removeprefix('--')}")
            continue
        if option.cli.get("action") == "store_const":
            if value:
                argv.append(flag)
            elif value is not False:
                return None
            continue
        if value is None:
            return None  # None as a choice (HF's arithmetic) has no flag
        if name == "weights":
            if not value or isinstance(value[0], list):
                return None  # the command line takes one weight set
            argv += [flag, *map(repr, value)]
            continue
        argv += [flag, repr(value) if isinstance(value, float) else str(value)]
    return argv


def space_arguments(options):
    """The Space's arguments for these options, or None where the page cannot say them."""
    page = {"tokenizer": DEFAULTS["tokenizer"], "max_order": DEFAULTS["max_order"], "smoothing": "none",
            "ref_length": DEFAULTS["ref_length"], "lowercase": False}
    smoothing = {name: options[name] for name in ("smooth", "smooth_method") if name in options}
    smoothing = {name: value for name, value in smoothing.items() if value not in (False, None)}
    labels = [label for label, chosen in space.smoothings().items() if chosen == smoothing]
    if not labels:
        return None
    page["smoothing"] = labels[0]
    for name, value in options.items():
        if name in ("smooth", "smooth_method", "sentence_level", "signature"):
            continue
        if name == "tokenizer" and value in space.tokenizers() or name == "max_order" and value <= space.MAX_ORDER \
                or name in ("ref_length", "lowercase"):
            page[name] = value
        else:
            return None
    return page


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=line_corpora(), preset=st.sampled_from(sorted(PRESETS)), options=OPTIONS,
       counting=st.tuples(st.sampled_from(sorted(PRESETS)), OPTIONS), cut=st.integers(0, 5),
       sides=st.integers(0, 2**16))
# Seed examples: effective order with no n-gram at all; a sentence score under sacrebleu's preset;
# statistics counted lowercased; NLTK's weights with sacrebleu's smoothing; an explicit None at
# compute time, which is the default there as everywhere (effective order at load, under NLTK's
# preset, with smooth_method=None at compute: an error from every face, as from corpus_bleu).
@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
@example(corpus=([""], [[""]]), preset="default", options={"effective_order": True, "sentence_level": True},
         counting=("default", {}), cut=0, sides=0)
@example(corpus=(["Cat"], [["Cat"]]), preset="sacrebleu", options={"sentence_level": True},
         counting=("sacrebleu", {}), cut=0, sides=0)
@example(corpus=(["Cat ae.g."], [["cat", "ae.g."]]), preset="default", options={},
         counting=("default", {"lowercase": True}), cut=0, sides=0)
@example(corpus=(["the Straße"], [["the naïve Straße"]]), preset="sacrebleu", options={"weights": [0.6, 0.4]},
         counting=("sacrebleu", {}), cut=0, sides=0)
@example(corpus=([""], [[""]]), preset="nltk", options={"effective_order": True, "smooth_method": None},
         counting=("nltk", {}), cut=0, sides=2)
def test_every_face_gives_corpus_bleus_number_or_a_clear_error(corpus, preset, options, counting, cut, sides):
    predictions, references = corpus
    expected = outcome(lambda: exactbleu.corpus_bleu(predictions, references, preset, **options))
    event(f"corpus_bleu: {'a result' if expected[0] == 'ok' else 'an error'}")

    # The evaluate metric: options at load, at compute, and split between the two.
    agree(expected, outcome(lambda: metric(preset, **options).compute(predictions=predictions,
                                                                         references=references)), "load")
    agree(expected, outcome(lambda: metric(preset).compute(predictions=predictions, references=references,
                                                           **options)), "compute")
    load, compute = split_options(options, sides)
    agree(expected, outcome(lambda: metric(preset, **load).compute(predictions=predictions, references=references,
                                                                   **compute)), "load and compute")

    def added(form):
        one = metric(preset)
        for prediction, segment_references in zip(predictions, references):
            if form == "evaluate":
                one.add(predictions=prediction, references=segment_references)
            else:
                one.add(prediction=prediction, reference=segment_references)
        return one.compute(**options)

    agree(expected, outcome(lambda: added("evaluate")), "add(predictions=, references=)")
    agree(expected, outcome(lambda: added("hf")), "add(prediction=, reference=)")

    def batches():
        one, cut = metric(preset), len(predictions) // 2
        for part in (slice(None, cut), slice(cut, None)):
            if predictions[part]:
                one.add_batch(predictions=predictions[part], references=references[part])
        return one.compute(**options)

    agree(expected, outcome(batches), "add_batch")

    # Statistics counted in two shards, summed, scored: with the same options, and with others,
    # where the score must be the same or an error.
    shards = [slice(None, cut), slice(cut, None)]
    summable = {name: value for name, value in options.items() if name not in ("sentence_level", "n_bootstrap")}
    expected_sum = outcome(lambda: exactbleu.corpus_bleu(predictions, references, preset, **summable))
    for counted_preset, counted_options in ((preset, options), counting):
        def counted():
            return [exactbleu.statistics(predictions[part], references[part], counted_preset, **counted_options)
                    for part in shards if predictions[part]]

        if outcome(counted)[0] == "error":
            continue
        same = counted_options is options and counted_preset == preset
        check = agree if same else agree_or_refuse
        # Kept as many references as the segment with the fewest: the statistics of one whole corpus,
        # which neither add up with others nor sum as vectors.
        whole = exactbleu.resolve_settings(counted_preset, **counted_options).statistics.keep_references == "fewest"
        if whole and len(counted()) > 1:
            assert outcome(lambda: sum(counted()))[0] == "error"
        else:
            check(expected, outcome(lambda: exactbleu.score(sum(counted()), preset, **options)), "statistics + score")
        check(expected, outcome(lambda: metric(preset).score_statistics(
            metric(counted_preset).statistics(predictions, references, **counted_options), **options)),
            "metric statistics")
        summed = outcome(lambda: exactbleu.score(sum(part.vector() for part in counted()), preset, **summable))
        if whole or averaged(preset, summable):  # a mean of sentence scores needs each segment's row too
            assert summed[0] == "error"
        else:
            check(expected_sum, summed, "summed vector")

    if expected[0] == "ok":
        check_command_line(predictions, references, preset, options, expected[1])
        check_space(predictions, references, preset, options)
    check_per_sentence_faces(predictions, references, preset, options)


def check_command_line(predictions, references, preset, options, expected):
    flags = cli_flags(options)
    if flags is None or "rstrip" in options:
        return  # the command line reads lines right-stripped and has no rstrip flag
    event("the command line")
    with tempfile.TemporaryDirectory() as folder:
        folder = pathlib.Path(folder)
        (folder / "hyp").write_text("".join(line + "\n" for line in predictions), encoding="utf-8")
        files = []
        for number in range(len(references[0])):
            files.append(str(folder / f"ref{number}"))
            pathlib.Path(files[-1]).write_text("".join(segment[number] + "\n" for segment in references),
                                               encoding="utf-8")
        argv = [*files, "-i", str(folder / "hyp"), "--preset", preset, "-w", "16", "-f", "json", *flags]
        # The command line reads lines right-stripped, as sacrebleu does, or as a script reads them.
        read = str.rstrip if exactbleu.PRESETS[preset].reads == "rstrip" else str
        stripped = outcome(lambda: exactbleu.corpus_bleu(list(map(read, predictions)),
                                                         [list(map(read, segment)) for segment in references],
                                                         preset, **options))
        status, out = run_cli(argv)
        if stripped[0] == "error":
            assert status == 1
            return
        stripped = stripped[1]
        assert status == 0
        assert json.loads(out)["score"] / 100 == pytest.approx(stripped["bleu"], rel=1e-12, abs=1e-15)
        if options.get("sentence_level"):
            status, out = run_cli([*argv, "-sl", "-b"])
            assert status == 0
            assert [float(line) / 100 for line in out.split()] == pytest.approx(stripped["sentence_bleu"], rel=1e-12,
                                                                               abs=1e-15)


def check_space(predictions, references, preset, options):
    page = space_arguments(options)
    if page is None or PRESETS[preset].options != PRESETS["default"].options or options.get("n_bootstrap"):
        return
    boxes = ["".join(segment[number] + "\n" for segment in references) for number in range(len(references[0]))]
    if any(not box.strip() for box in boxes[1:]):
        return  # a reference set of blank lines is left out by the page
    event("the Space")
    expected = outcome(lambda: exactbleu.corpus_bleu(
        predictions, references, preset, **{**options, "sentence_level": True, "signature": True}))
    text = "".join(line + "\n" for line in predictions)
    agree(expected, outcome(lambda: space.score(text, *(boxes + ["", ""])[:3], **page)), "the Space")


def check_per_sentence_faces(predictions, references, preset, options):
    """sentence_bleu, the sentence_level list, explain and the paired tests' original-sample scores."""
    per_corpus = {name: value for name, value in options.items() if name not in OUTPUT}
    listed = outcome(lambda: exactbleu.corpus_bleu(predictions, references, preset, sentence_level=True,
                                                   **per_corpus))
    if listed[0] == "error" or keeps_the_best(preset, per_corpus):
        assert outcome(lambda: exactbleu.explain(predictions, references, preset, **per_corpus)[0])[0] == "error"
    if listed[0] == "error":
        return
    scores = listed[1]["sentence_bleu"]
    several = isinstance(listed[1]["bleu"], list)
    for index, (prediction, segment_references) in enumerate(zip(predictions, references)):
        one = exactbleu.sentence_bleu(prediction, segment_references, preset, **per_corpus)["bleu"]
        mine = [column[index] for column in scores] if several else scores[index]
        if not keeps_the_best(preset, per_corpus):
            assert one == exactbleu.explain(predictions, references, preset, **per_corpus)[index]["sentence_bleu"]
        assert one == mine
    if several:
        return
    other = [segment[0] for segment in references]
    tested = exactbleu.paired_test({"a": predictions, "b": other}, references, n_samples=3, preset=preset,
                                   **per_corpus)
    assert tested["a"]["bleu"] == listed[1]["bleu"]
    assert tested["b"]["bleu"] == exactbleu.corpus_bleu(other, references, preset, **per_corpus)["bleu"]


@pytest.mark.parametrize("preset", ["default", "sacrebleu", "nltk"])
def test_the_functional_api_gives_the_metrics_numbers(preset):
    """The metric's every method, against the functions it calls, on a few segments with an empty one."""
    metric = evaluate.load(METRIC_PATH, preset)
    extra = {"sentence_level": True, "signature": True, "n_bootstrap": 30}
    expected = metric.compute(predictions=PREDICTIONS, references=REFERENCES, **extra)
    assert exactbleu.corpus_bleu(PREDICTIONS, REFERENCES, preset, **extra) == expected
    assert exactbleu.score(exactbleu.statistics(PREDICTIONS, REFERENCES, preset), preset, **extra) == expected
    assert exactbleu.sentence_bleu(PREDICTIONS[0], REFERENCES[0], preset) == \
        metric.compute(predictions=PREDICTIONS[:1], references=REFERENCES[:1])
    assert exactbleu.explain(PREDICTIONS, REFERENCES, preset) == metric.explain(PREDICTIONS, REFERENCES)
    systems = {"a": PREDICTIONS, "b": PREDICTIONS[::-1]}
    assert exactbleu.paired_test(systems, REFERENCES, n_samples=50, preset=preset) == \
        metric.paired_test(systems, REFERENCES, n_samples=50)


def test_the_api_checks_options_as_compute_does(bleu):
    for bad in ({"max_order": 0}, {"tokenizer": "13b"}, {"max_ordr": 2}):
        with pytest.raises(ValueError) as functional:
            exactbleu.corpus_bleu(["a"], ["a"], **bad)
        with pytest.raises(ValueError) as metric:
            bleu.compute(predictions=["a"], references=["a"], **bad)
        assert str(functional.value) == str(metric.value)
