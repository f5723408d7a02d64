"""Run in mbrs's environment (.venv-mbrs) by test_mbrs.py: mbrs's own decoders with mbrs's own
MetricBLEU and with exactbleu.mbrs.MetricBLEU, on the job's sources, and every method of both
metrics; the aggregated utility of exactbleu.mbr against mbrs's own aggregation in float64. Writes
what each gave, as JSON, for the test to compare."""

import concurrent.futures
import json
import multiprocessing
import sys


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


def main(job_path, report_path):
    # Imported here: pytest collects this file (for doctests) in the dev environment, which has no mbrs.
    from mbrs.decoders import DecoderAggregateMBR, DecoderMBR
    from mbrs.metrics import MetricBLEU as TheirMetric
    from mbrs.metrics import get_metric

    import exactbleu
    import exactbleu.mbrs
    from exactbleu.mbrs import MetricBLEU as OurMetric

    job = json.loads(open(job_path, encoding="utf-8").read())
    report = {"registered": get_metric(exactbleu.mbrs.NAME) is OurMetric, "decoders": [], "methods": [],
              "aggregation": []}
    namespace = {"hypotheses": job["sources"][0]}
    exec(job["recipe"], namespace)  # the docs' recipe, as a user runs it
    report["recipe"] = list(namespace["output"].idx)
    for number, config in enumerate(job["configs"]):
        # One worker: mbrs starts a pool for every call, and a second one only slows its start.
        theirs, ours = TheirMetric(TheirMetric.Config(num_workers=1, **config)), OurMetric(OurMetric.Config(**config))
        # The decoders on every source under the first config; the methods below under every one.
        sources = job["sources"] if number == 0 else []
        for hypotheses, lprobs in zip(sources, job["lprobs"]):
            for weights in (None, lprobs):
                report["decoders"].append({"config": config, "weighted": weights is not None, **{
                    f"{kind}_{who}": decoded(decoder, metric, hypotheses, weights)
                    for kind, decoder in (("pairwise", DecoderMBR), ("aggregate", DecoderAggregateMBR))
                    for who, metric in (("theirs", theirs), ("ours", ours))}})
        hypotheses, references = job["sources"][0], job["sources"][1]
        count = min(len(hypotheses), len(references))
        report["methods"].append({"config": config, **{f"{name}_{who}": value for who, metric in (("theirs", theirs),
                                                                                                    ("ours", ours))
            for pairwise in [metric.pairwise_scores(hypotheses, references)]
            for name, value in (
                ("pairwise", pairwise.tolist()),
                ("pairwise_dtype", str(pairwise.dtype)),
                ("expected", metric.expected_scores(hypotheses, references).tolist()),
                ("scores", metric.scores(hypotheses[:count], references[:count]).tolist()),
                ("score", metric.score(hypotheses[0], references[0])),
                ("corpus", metric.corpus_score(hypotheses[:count], [references[:count]])))}})
        for hypotheses, references in zip(job["sources"], job["sources"][1:]):
            ours_core = exactbleu.mbr([hypotheses], [references], ours.settings, reference_aggregation=True)
            report["aggregation"].append({"config": config,
                                          "theirs": their_aggregation_in_float64(theirs, hypotheses, references),
                                          "ours": (ours_core.utilities[0] * 100).tolist()})
    report["children_after"] = len(multiprocessing.active_children())

    def refused(*args, **kwargs):
        raise AssertionError("exactbleu.mbrs started a process pool")

    concurrent.futures.ProcessPoolExecutor = refused
    ours = OurMetric(OurMetric.Config())
    report["no_pool"] = decoded(DecoderMBR, ours, job["sources"][0], None)["idx"]
    with open(report_path, "w", encoding="utf-8") as file:
        json.dump(report, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
