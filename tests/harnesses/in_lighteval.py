"""What tests/harnesses/test_lighteval.py runs inside LightEval's own environment (nox's lighteval-env),
in one process, so that LightEval starts once: python in_lighteval.py JOB.json REPORT.json.

1. The recipe of docs/harnesses.md, in the job's folder beside its data.jsonl, through LightEval's own
   `lighteval custom` command, with a model file that answers each prompt with a fixed generation.
2. LightEval's own corpus `bleu` (CorpusLevelTranslationMetric), called directly on the job's corpora.
3. What exactbleu.lighteval says of bad arguments.

The network is refused throughout: a socket may not connect beyond this machine. LightEval itself
downloads a file when it starts (its tinyBenchmarks task, at import); that GET is answered 404, which
LightEval takes in its stride, and is reported, so that the test sees which URLs were asked for.
"""

import glob
import json
import os
import socket
import sys

MODEL = r'''
import json
import os

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.utils.cache_management import SampleCache


class FixedGenerations(LightevalModel):
    """Answers each prompt with the generation that FIXED_GENERATIONS gives for it."""

    def __init__(self, config):
        self.config = config
        with open(os.environ["FIXED_GENERATIONS"], encoding="utf-8") as file:
            self.generations = json.load(file)
        self._cache = SampleCache(config)

    @property
    def tokenizer(self):
        return None

    @property
    def add_special_tokens(self):
        return False

    @property
    def max_length(self):
        return 4096

    def greedy_until(self, docs):
        # The prompts in the order asked, which is the order LightEval scores them in (it shuffles them).
        with open(os.environ["ASKED"], "a", encoding="utf-8") as file:
            file.writelines(json.dumps(doc.query) + "\n" for doc in docs)
        return [ModelResponse(text=[self.generations[doc.query]]) for doc in docs]

    def loglikelihood(self, docs):
        raise NotImplementedError("a generation task asks for no likelihood")

    def loglikelihood_rolling(self, docs):
        raise NotImplementedError("a generation task asks for no likelihood")
'''

REQUESTED = []  # the URLs that anything asked requests for


def refuse_the_network():
    connect = socket.socket.connect

    def local_only(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"the network is refused in this test: {address}")
        return connect(self, address)

    socket.socket.connect = local_only

    import requests

    def not_found(url, *arguments, **options):
        REQUESTED.append(url)
        response = requests.Response()
        response.status_code, response.url = 404, url
        return response

    requests.get = not_found


def run_the_recipe(job):
    from lighteval.main_custom import app

    model = os.path.join(job["scratch"], "fixed_model.py")
    with open(model, "w", encoding="utf-8") as file:
        file.write(MODEL)
    os.environ["FIXED_GENERATIONS"] = job["generations"]
    os.environ["ASKED"] = asked = os.path.join(job["scratch"], "asked.jsonl")
    here = os.getcwd()
    os.chdir(job["folder"])
    try:
        app(["fixed", model, "exactbleu_translation|0", "--custom-tasks", "exactbleu_translation.py",
             "--output-dir", ".results"], standalone_mode=False)
    finally:
        os.chdir(here)
    [path] = glob.glob(os.path.join(job["folder"], ".results", "results", "fixed", "results_*.json"))
    with open(path, encoding="utf-8") as file:
        results = json.load(file)["results"]
    with open(asked, encoding="utf-8") as file:
        return results, [json.loads(line) for line in file]


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
    assert set(got) == set(exactbleu.PRESETS) - {"lm-eval"}
    return got


def main(job_path, report_path):
    with open(job_path, encoding="utf-8") as file:
        job = json.load(file)
    refuse_the_network()
    results, asked = run_the_recipe(job)
    report = {"results": results, "asked": asked, "lightevals_own_bleu": lightevals_own_bleu(job), "errors": errors(),
              "every_preset": every_preset(job)}
    report["requested"] = REQUESTED
    with open(report_path, "w", encoding="utf-8") as file:
        json.dump(report, file)


if __name__ == "__main__":
    main(*sys.argv[1:])
