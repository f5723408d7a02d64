"""Why this score? explain() gives each segment's n-gram evidence, consistent with statistics() and
compute(sentence_level=True) under every convention and option."""

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from oracles import corpora

CAT_REFERENCES = ["the cat is on the mat", "there is a cat on the mat"]

OPTION_SETS = [
    {},
    {"smooth": True, "max_order": 3},
    {"ref_length": "closest", "smooth_method": "exp", "rstrip": True},
    {"tokenizer": "intl", "lowercase": True, "smooth_method": "floor"},
    {"tokenizer": "char", "max_order": 6},
    {"tokenizer": "none", "ref_length": "closest", "smooth_method": "method5", "max_order": 2},
    {"tokenizer": "none", "smooth_method": "method1", "weights": [(0.5, 0.5), (0.25, 0.25, 0.25, 0.25)]},
    {"tokenizer": str.split, "weights": [0.7, 0.3]},
    {"tokenizer": "moses", "lang": "de", "effective_order": True, "smooth_method": "exp"},
]


def test_the_classic_clipping_example():
    """Seven "the" against two references: "the" occurs at most twice in one reference, so 2/7."""
    import evaluate

    from conftest import METRIC_PATH

    explained = evaluate.load(METRIC_PATH).explain(["the the the the the the the"], [CAT_REFERENCES], max_order=1)
    assert len(explained) == 1
    segment = explained[0]
    assert segment["prediction_tokens"] == ["the"] * 7
    assert segment["reference_tokens"] == [reference.split() for reference in CAT_REFERENCES]
    assert segment["orders"] == [{"n": 1, "matches": 2, "total": 7,
                                  "ngrams": [{"ngram": ["the"], "count": 7, "max_reference_count": 2}]}]
    assert segment["reference_length"] == 6 and segment["brevity_penalty"] == 1.0
    assert segment["sentence_bleu"] == 2 / 7


@settings(max_examples=examples(60))
@given(corpus=corpora(max_segments=6, max_references=3), options=st.sampled_from(OPTION_SETS))
def test_explain_is_consistent_with_statistics_and_sentence_scores(bleu, corpus, options):
    predictions, references = corpus
    explained = bleu.explain(predictions, references, **options)
    rows = bleu.statistics(predictions, references, **options)
    sentences = bleu.compute(predictions=predictions, references=references, sentence_level=True,
                             **options)["sentence_bleu"]
    if isinstance(sentences[0], list):  # several weight sets: one list per set
        sentences = [list(scores) for scores in zip(*sentences)]
    assert len(explained) == len(predictions)
    for number, segment in enumerate(explained):
        assert len(segment["prediction_tokens"]) == rows["prediction_length"][number]
        assert segment["reference_length"] == rows["reference_length"][number]
        assert len(segment["reference_tokens"]) == len(references[number])
        assert segment["sentence_bleu"] == sentences[number]
        for order in segment["orders"]:
            n = order["n"]
            assert order["total"] == sum(g["count"] for g in order["ngrams"]) == rows["totals"][number][n - 1]
            assert order["matches"] == sum(min(g["count"], g["max_reference_count"]) for g in order["ngrams"])
            assert order["matches"] == rows["matches"][number][n - 1]
            assert all(len(g["ngram"]) == n for g in order["ngrams"])
