#!/usr/bin/env python3
"""Record what DeepEval's, HELM's and Azure AI Evaluation's BLEU functions give, as ground truth
for exactbleu's "nltk-words" and "azure" tokenizers and its "deepeval-bleu1" to "deepeval-bleu4",
"helm-bleu-1", "helm-bleu-4" and "azure" presets.

Neither framework is part of this repository or its test environment (each brings a large tree of
packages). Install them yourself beside NLTK, and give NLTK its data: Punkt's English parameters
and Perl's Unicode property lists (``nltk.download("punkt_tab")``, ``nltk.download("perluniprops")``,
or NLTK_DATA naming a folder that holds tokenizers/punkt_tab and misc/perluniprops; Azure's
evaluator also looks for corpora/wordnet.zip and tokenizers/punkt.zip, which it does not read for
BLEU). This recording used deepeval 4.3.1, crfm-helm 0.5.16 (installed with --no-deps, then what
its metrics module imports), azure-ai-evaluation 1.18.10 and nltk 3.10.4:
    NLTK_DATA=DIR python3 tests/data/nltk-frameworks/record_nltk_frameworks.py

It calls DeepEval's ``Scorer.sentence_bleu_score(references, prediction, bleu_type)`` and HELM's
``bleu_1``/``bleu_4`` as they are, HELM's best over references as its metric takes it
(``max(score_func(gold, pred) for gold in golds)``), Azure's ``BleuScoreEvaluator`` on each
example's first reference (its ``ground_truth``, one string), and the frameworks' splits for the
tokens (NLTK's ``word_tokenize``, Azure's ``nltk_tokenize``). Each example's score is kept, and each
corpus's mean as a framework's loop adds them, one after another (Azure's ``evaluate`` takes the
mean of a column with pandas: ``azure_mean``).
"""

import argparse
import gzip
import json
import os
import random
import warnings

SEED = 20261129
WORDS = ["The", "the", "cat", "sat", "on", "mat", ".", "Mr.", "Smith", "U.S.", "p.m.", "e.g.", "Dr.", "St.", "it's",
         "isn't", "can't", "won't", "I'm", "they'll", "\"", "'", "``", "(", ")", "[", "]", "{", "}", ",", ";", ":",
         "!", "?", "...", "--", "—", "3.5", "1,000", "$5", "50%", "2-3", "a", "a", "a", "b", "Hello", "world.",
         "How", "are", "you?", "x", "==", "!=", "<=", "->", "foo.bar()", "camelCase", "snake_case", "a+b", "x*y",
         "#include", "@param", "é", "Straße", "naïve", "日本語", "“quoted”", "«", "»", "\u00a0", "\t", "\n", "A.",
         "No.", "Jan.", "Inc.", "etc.", "vs.", "i.e.", "ok", "OK", "end."]


def draw(rng, most=24):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, most)))


def cases():
    rng = random.Random(SEED)
    made = []
    for number in range(40):
        size = rng.choice([1, 2, 3, 5, 8, 20])
        references = [[draw(rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))] for _ in range(size)]
        predictions = [rng.choice([draw(rng), " ".join(group[0].split(" ")[:rng.randint(0, 16)]), "", group[-1]])
                       for group in references]
        made.append({"name": f"random-{number:02d}", "predictions": predictions, "references": references})
    made.append({"name": "by-hand",
                 "predictions": ["The cat sat on the mat.", "Hello there, Mr. Smith. How's it going?", "", "a",
                                 "the the the the", "It's 3.5 p.m. in the U.S. Isn't it?", "if (x == y) { return a+b; }",
                                 "Ünïcödé «quotes» — dash. Next one."],
                 "references": [["The cat is on the mat.", "There is a cat on the mat."],
                                ["Hello, Mr. Smith! How is it going?"], ["Nothing here."], ["a"], ["the cat"],
                                ["It is 3.5 p.m. in the U.S. now."], ["if (x == y) return a + b;"],
                                ["Unicode «quotes» — a dash. The next one."]]})
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded.json.gz"))
    arguments = parser.parse_args()
    import deepeval
    import nltk
    from deepeval.scorer import Scorer
    import pandas
    from azure.ai.evaluation import BleuScoreEvaluator
    from azure.ai.evaluation._common.utils import nltk_tokenize
    from helm.benchmark.metrics.evaluate_reference_metrics import bleu_1, bleu_4
    from importlib.metadata import version

    warnings.simplefilter("ignore")  # NLTK warns of each precision of 0
    made = []
    for case in cases():
        predictions, references = case["predictions"], case["references"]
        tokens = {text: nltk.word_tokenize(text) for group in references for text in group}
        tokens.update({text: nltk.word_tokenize(text) for text in predictions})
        azure_tokens = {text: nltk_tokenize(text) for text in predictions + [group[0] for group in references]}
        examples = {}
        for order in (1, 2, 3, 4):
            examples[f"deepeval-bleu{order}"] = [Scorer.sentence_bleu_score(group, prediction, f"bleu{order}")
                                                 for prediction, group in zip(predictions, references)]
        for name, function in (("helm-bleu-1", bleu_1), ("helm-bleu-4", bleu_4)):
            examples[name] = [max(function(gold, prediction) for gold in group)
                              for prediction, group in zip(predictions, references)]
        evaluator = BleuScoreEvaluator()
        examples["azure"] = [evaluator(response=prediction, ground_truth=group[0])["bleu_score"]
                             for prediction, group in zip(predictions, references)]
        means = {}
        for name, scores in examples.items():
            total = 0.0
            for score in scores:
                total += score
            means[name] = total / len(scores)
        made.append({**case, "tokens": tokens, "azure_tokens": azure_tokens, "examples": examples, "means": means,
                     "azure_mean": float(pandas.Series(examples["azure"]).mean())})
    versions = {package: version(package) for package in ("deepeval", "crfm-helm", "azure-ai-evaluation", "nltk")}
    with gzip.open(arguments.out, "wt", encoding="utf-8") as file:
        json.dump({"seed": SEED, "versions": versions, "cases": made}, file, ensure_ascii=False)
    print(f"wrote {len(made)} cases to {arguments.out} ({versions}; deepeval {deepeval.__version__})")


if __name__ == "__main__":
    main()
