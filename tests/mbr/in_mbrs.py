"""Run in mbrs's environment (nox's mbrs-env) by test_mbrs.py: mbrs's own decoders with mbrs's own
MetricBLEU and with exactbleu.mbrs.MetricBLEU, on the job's sources, and every method of both
metrics under the job's configs; the aggregated utility of exactbleu.mbr against mbrs's own
aggregation in float64; what each refuses, and with what message; what each reports to mbrs's
timer; then mbrs's own tests of its BLEU (mbrs/metrics/bleu_test.py) against exactbleu's, in this
process. mbrs's neural metrics, which it imports with its BLEU, are left out. Writes what each gave,
as JSON, for the test to compare."""

import concurrent.futures
import contextlib
import io
import json
import multiprocessing
import os
import sys
import types

# mbrs's neural metrics, each its module's and its class's name: none of them is BLEU, or read here.
NEURAL_METRICS = {"bertscore": "MetricBERTScore", "bleurt": "MetricBLEURT", "comet": "MetricCOMET",
                  "cometkiwi": "MetricCOMETkiwi", "metricx": "MetricMetricX", "xcomet": "MetricXCOMET"}


def without_neural_metrics():
    """mbrs's metrics package imports every metric it ships, and with its neural ones transformers,
    BERTScore, COMET and BLEURT: two thirds of this process's CPU, most of it imports that nothing here
    reads. Their modules are stood in for by modules that hold only their class's name, so that mbrs
    imports its BLEU, its bases, registry and decoders, as they are, and nothing of its neural metrics."""
    for module, name in NEURAL_METRICS.items():
        stand_in = types.ModuleType(f"mbrs.metrics.{module}", "stands in for mbrs's own; see in_mbrs.py")
        setattr(stand_in, name, type(name, (), {}))
        sys.modules[stand_in.__name__] = stand_in


def decoded(decoder_class, metric, hypotheses, lprobs):
    import torch

    output = decoder_class(decoder_class.Config(), metric).decode(
        hypotheses, hypotheses, nbest=3, reference_lprobs=None if lprobs is None else torch.tensor(lprobs))
    return {"idx": list(output.idx), "score": list(output.score)}


def their_aggregation_in_float64(metric, hypotheses, references):
    """mbrs's expected_scores_reference_aggregation, its own functions, with its scores kept in float64."""
    from sacrebleu.metrics.helpers import extract_all_word_ngrams

    aggregated = metric._aggregate_references(references)
    scores = []
    for hypothesis in hypotheses:
        ngrams, length = extract_all_word_ngrams(metric.scorer._preprocess_segment(hypothesis), 1,
                                                 metric.scorer.max_ngram_order)
        correct, total = [0.0] * metric.scorer.max_ngram_order, [0.0] * metric.scorer.max_ngram_order
        for ngram, count in ngrams.items():
            total[len(ngram) - 1] += float(count)
            if ngram in aggregated.ngrams:
                correct[len(ngram) - 1] += float(min(count, aggregated.ngrams[ngram]))
        scores.append(metric._compute_bleu(correct, total, float(length), aggregated.length,
                                           metric.scorer.smooth_method, metric.scorer.smooth_value,
                                           metric.scorer.effective_order, metric.scorer.max_ngram_order))
    return scores


def methods(metric, hypotheses, references, lprobs=None):
    """Every method's numbers on these texts (tensors as lists, with the pairwise matrix's dtype)."""
    import torch

    count = min(len(hypotheses), len(references))
    pairwise = metric.pairwise_scores(hypotheses, references)
    # A second stream with None for every other segment: sacrebleu drops a None where another stream has one.
    gappy = [reference if number % 2 else None for number, reference in enumerate(references[:count])]
    numbers = {"pairwise": pairwise.tolist(), "pairwise_dtype": str(pairwise.dtype),
               "expected": metric.expected_scores(hypotheses, references).tolist(),
               "scores": metric.scores(hypotheses[:count], references[:count]).tolist(),
               "score": metric.score(hypotheses[0], references[0]),
               "corpus": metric.corpus_score(hypotheses[:count], [references[:count]]),
               "corpus_streams": metric.corpus_score(hypotheses[:count], [references[:count], gappy]),
               "aggregated": metric.expected_scores_reference_aggregation(hypotheses, references).tolist()}
    if lprobs is not None:
        numbers["aggregated_weighted"] = metric.expected_scores_reference_aggregation(
            hypotheses, references, reference_lprobs=torch.tensor(lprobs)).tolist()
    return numbers


def refusal(call, *arguments):
    """What ``call(*arguments)`` raised, as [type, message], or None where it returned."""
    try:
        call(*arguments)
    except Exception as error:
        return [type(error).__name__, str(error)]
    return None


def timed(decoder_class, metric, hypotheses):
    """The rows of mbrs's timer (name: calls) after one decode, as mbrs-decode's table shows them."""
    from mbrs import timer

    timer.measure.clear()
    decoded(decoder_class, metric, hypotheses, None)
    return {row["name"]: row["acccalls"] for row in timer.aggregate().result()}


@contextlib.contextmanager
def pools_in_threads():
    """mbrs's BLEU scores its pairs with sacrebleu's sentence_score in a process pool that each call
    starts, about 80 ms here; the same calls in a pool of threads give the same numbers (the decoders
    above run in its processes)."""
    kept = concurrent.futures.ProcessPoolExecutor
    concurrent.futures.ProcessPoolExecutor = concurrent.futures.ThreadPoolExecutor
    try:
        yield
    finally:
        concurrent.futures.ProcessPoolExecutor = kept


def compared(job, their_class, our_class):
    """Both metrics' numbers under each config, on each case's texts, and what each refuses."""
    from mbrs.decoders import DecoderAggregateMBR, DecoderMBR

    cases = []
    for case in job["cases"]:
        config = case["config"]
        # One worker for mbrs's: a second one only slows its pool's start.
        theirs = their_class(their_class.Config(**{**config, "num_workers": 1}))
        ours = our_class(our_class.Config(**config))
        cases.append({**case, **{who: methods(metric, case["hypotheses"], case["references"], case.get("lprobs"))
                                 for who, metric in (("theirs", theirs), ("ours", ours))}})
    ours = our_class(our_class.Config())
    hypotheses = job["cases"][0]["hypotheses"]
    return {"cases": cases,
            "smoothing_refused": {method: {"ours": refusal(our_class, our_class.Config(smooth_method=method)),
                                           "theirs": refusal(their_class, their_class.Config(smooth_method=method))}
                                  for method in job["nltk_methods"]},
            "num_workers_refused": [[value, refusal(our_class, our_class.Config(num_workers=value))]
                                    for value in job["num_workers_refused"]],
            "streams": [[name, refusal(ours.corpus_score, given, streams)]
                        for name, given, streams in job["bad_streams"]],
            "timer": {decoder.__name__: {who: timed(decoder, metric, hypotheses)
                                         for who, metric in (("theirs", their_class(their_class.Config(num_workers=1))),
                                                             ("ours", ours))}
                      for decoder in (DecoderMBR, DecoderAggregateMBR)}}


def mbrs_own_tests(scratch):
    """mbrs's tests of its BLEU, run here against exactbleu's (tests/mbr/mbrs_conftest.py swaps it in)."""
    import mbrs.metrics
    import pytest

    import mbrs_conftest

    ini = os.path.join(scratch, "mbrs-tests.ini")  # none of this repository's pytest.ini
    with open(ini, "w", encoding="utf-8") as file:
        file.write("[pytest]\n")
    suite = os.path.join(os.path.dirname(mbrs.metrics.__file__), "bleu_test.py")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = pytest.main(["-q", "-p", "no:cacheprovider", "-c", ini, "--rootdir", scratch, suite],
                           plugins=[mbrs_conftest])
    return {"exit": int(code), "outcomes": dict(mbrs_conftest.OUTCOMES), "printed": printed.getvalue()[-4000:]}


def main(job_path, report_path):
    without_neural_metrics()
    # Imported here: pytest collects this file (for doctests) in the dev environment, which has no mbrs.
    from mbrs.decoders import DecoderAggregateMBR, DecoderMBR
    from mbrs.metrics import MetricBLEU as TheirMetric
    from mbrs.metrics import get_metric

    import exactbleu
    import exactbleu.mbrs
    from exactbleu.mbrs import MetricBLEU as OurMetric

    job = json.loads(open(job_path, encoding="utf-8").read())
    report = {"registered": get_metric(exactbleu.mbrs.NAME) is OurMetric, "decoders": [], "aggregation": []}
    namespace = {"hypotheses": job["sources"][0]}
    exec(job["recipe"], namespace)  # the docs' recipe, as a user runs it
    report["recipe"] = list(namespace["output"].idx)
    for number, config in enumerate(job["configs"]):
        # One worker: mbrs starts a pool for every call, and a second one only slows its start.
        theirs, ours = TheirMetric(TheirMetric.Config(num_workers=1, **config)), OurMetric(OurMetric.Config(**config))
        # The decoders on every source under the first config; the aggregation under every one.
        sources = job["sources"] if number == 0 else []
        for hypotheses, lprobs in zip(sources, job["lprobs"]):
            for weights in (None, lprobs):
                report["decoders"].append({"config": config, "weighted": weights is not None, **{
                    f"{kind}_{who}": decoded(decoder, metric, hypotheses, weights)
                    for kind, decoder in (("pairwise", DecoderMBR), ("aggregate", DecoderAggregateMBR))
                    for who, metric in (("theirs", theirs), ("ours", ours))}})
        for hypotheses, references in zip(job["sources"], job["sources"][1:]):
            ours_core = exactbleu.mbr([hypotheses], [references], ours.settings, reference_aggregation=True)
            report["aggregation"].append({"config": config,
                                          "theirs": their_aggregation_in_float64(theirs, hypotheses, references),
                                          "ours": (ours_core.utilities[0] * 100).tolist()})
    with pools_in_threads():
        report.update(compared(job, TheirMetric, OurMetric))
    report["children_after"] = len(multiprocessing.active_children())

    def refused(*args, **kwargs):
        raise AssertionError("exactbleu.mbrs started a process pool")

    concurrent.futures.ProcessPoolExecutor = refused
    ours = OurMetric(OurMetric.Config())
    report["no_pool"] = decoded(DecoderMBR, ours, job["sources"][0], None)["idx"]
    report["mbrs_own_tests"] = mbrs_own_tests(os.path.dirname(os.path.abspath(report_path)))
    with open(report_path, "w", encoding="utf-8") as file:
        json.dump(report, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
