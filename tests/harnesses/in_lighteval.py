"""What tests/harnesses/test_lighteval.py runs inside LightEval's own environment (nox's lighteval-env),
in one process, so that LightEval starts once: python in_lighteval.py JOB.json REPORT.json.

1. The recipe of docs/harnesses.md, in the job's folder beside its data.jsonl, through LightEval's own
   `lighteval custom` command, with the page's model file (docs/examples/lighteval/fixed_model.py),
   which answers each prompt with the generation the job gives for it.
2. LightEval's own corpus `bleu` (CorpusLevelTranslationMetric), called directly on the job's corpora.
3. What exactbleu.lighteval says of bad arguments.

The network is refused throughout: a socket may not connect beyond this machine. LightEval itself
downloads a file when it starts (its tinyBenchmarks task, at import); that GET is answered 404, which
LightEval takes in its stride, and is reported, so that the test sees which URLs were asked for.
nltk's downloader, which LightEval calls for a tokenizer's data that nothing here reads, answers at
once, as it does offline, that it fetched nothing.
"""

import glob
import json
import os
import socket
import sys

REQUESTED = []  # the URLs that anything asked requests for


def refuse_the_sockets():
    """No socket reaches past this machine: a connection to any internet address raises."""
    connect = socket.socket.connect

    def local_only(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"the network is refused in this test: {address}")
        return connect(self, address)

    socket.socket.connect = local_only


def refuse_the_network():
    """No socket reaches past this machine, and a download through requests (LightEval's, at its
    start) is answered "not found" and noted."""
    refuse_the_sockets()
    import requests

    def not_found(url, *arguments, **options):
        REQUESTED.append(url)
        response = requests.Response()
        response.status_code, response.url = 404, url
        return response

    requests.get = not_found


def no_nltk_downloads():
    """nltk's downloader answered at once, as it answers offline (False, nothing fetched). LightEval's
    corpus `bleu` asks it for punkt_tab, which sacrebleu's BLEU never reads, on every call: each try
    builds an SSL context from the machine's certificates (about 60 ms of CPU) before its lookup fails,
    12 s over the preset corpora."""
    import nltk

    nltk.download = lambda *arguments, **options: False


def recording_the_order(asked):
    """LightEval's loader of a custom model, made to note the prompts in the order the model is asked
    for them, which is the order LightEval scores them in (it shuffles them)."""
    from lighteval.models import model_loader

    load = model_loader.load_custom_model

    def load_and_record(config):
        model = load(config)
        answer = model.greedy_until

        def greedy_until(docs):
            asked.extend(doc.query for doc in docs)
            return answer(docs)

        model.greedy_until = greedy_until
        return model

    model_loader.load_custom_model = load_and_record


def run_the_recipe(job):
    """LightEval's own command-line app, with the arguments of docs/harnesses.md's offline run, and its
    model file, docs/examples/lighteval/fixed_model.py, answering with the job's generations."""
    from lighteval.main_custom import app

    asked = []
    recording_the_order(asked)
    os.environ["FIXED_GENERATIONS"] = job["generations"]
    here = os.getcwd()
    os.chdir(job["folder"])
    try:
        app(["fixed", job["model"], "exactbleu_translation|0", "--custom-tasks", "exactbleu_translation.py",
             "--output-dir", ".results"], standalone_mode=False)
    finally:
        os.chdir(here)
    [path] = glob.glob(os.path.join(job["folder"], ".results", "results", "fixed", "results_*.json"))
    with open(path, encoding="utf-8") as file:
        results = json.load(file)["results"]
    return results, asked


def lightevals_own_bleu(job):
    from lighteval.metrics.metrics_corpus import CorpusLevelTranslationMetric
    from lighteval.metrics.sample_preparator import GenerativeCorpusMetricInput

    return [CorpusLevelTranslationMetric("bleu", language).compute_corpus(
        [GenerativeCorpusMetricInput(golds=group, preds=[prediction]) for prediction, group in zip(*corpus)])
        for language, corpus in job["corpora"]]


def errors():
    from exactbleu.lighteval import corpus_bleu_metric, sentence_bleu_metric

    calls = {"preset": lambda: corpus_bleu_metric(preset="light"),
             "both": lambda: sentence_bleu_metric(target_language="zh", tokenizer="13a"),
             "resamples": lambda: corpus_bleu_metric(n_bootstrap=1),
             "name": lambda: corpus_bleu_metric(""),
             "option": lambda: sentence_bleu_metric(smooth_method="sideways"),
             "fewest corpus": lambda: corpus_bleu_metric(preset="lm-eval"),
             "fewest sentence": lambda: sentence_bleu_metric(preset="lm-eval")}
    said = {}
    for name, call in calls.items():
        try:
            call()
        except (TypeError, ValueError) as error:
            said[name] = f"{type(error).__name__}: {error}"
    return said


def every_preset(job):
    """The corpus metric under each preset it takes, run as LightEval runs a metric (each sample's
    compute, then compute_corpus on their values), on uneven corpora of one to four references."""
    import exactbleu
    from lighteval.models.model_output import ModelResponse
    from lighteval.tasks.requests import Doc

    from exactbleu.lighteval import corpus_bleu_metric

    got = {}
    for preset, (predictions, references) in job["preset_corpora"].items():
        metric = corpus_bleu_metric(preset=preset, n_bootstrap=10)
        items = [metric.compute_sample(doc=Doc(query="q", choices=group, gold_index=list(range(len(group))),
                                               task_name="t"), model_response=ModelResponse(text=[prediction]))["bleu"]
                 for prediction, group in zip(predictions, references)]
        got[preset] = metric.corpus_level_fn.compute_corpus(items)["bleu"]
    assert set(got) == set(job["preset_corpora"]) and "lm-eval" not in got
    return got


def main(job_path, report_path):
    with open(job_path, encoding="utf-8") as file:
        job = json.load(file)
    refuse_the_network()
    no_nltk_downloads()
    results, asked = run_the_recipe(job)
    report = {"results": results, "asked": asked, "lightevals_own_bleu": lightevals_own_bleu(job), "errors": errors(),
              "every_preset": every_preset(job)}
    report["requested"] = REQUESTED
    with open(report_path, "w", encoding="utf-8") as file:
        json.dump(report, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
