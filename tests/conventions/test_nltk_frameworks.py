"""The presets of the frameworks that score with NLTK's ``sentence_bleu`` on ``word_tokenize``'s
tokens, against the frameworks themselves: DeepEval 4.3.1's ``Scorer.sentence_bleu_score``, HELM
0.5.16's ``bleu_1``/``bleu_4`` with its best over references and Azure AI Evaluation 1.18.10's
``BleuScoreEvaluator`` (its split: NIST's beyond ASCII), run as they are by
tests/data/nltk-frameworks/record_nltk_frameworks.py (the frameworks stay out of the test
environment). On 41 drawn corpora of prose and code (abbreviations, several sentences,
contractions, quotes, operators and camelCase, text beyond ASCII, empty predictions, a single
token, repeated words, several references): the frameworks' split of every text, token for token,
each example's score and the mean, float for float. The splits run offline, on the Punkt
parameters and Perl property lists that exactbleu carries, which are NLTK's own."""

import functools
import gzip
import hashlib
import json
import subprocess
import sys

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pytest
from conftest import ROOT

import exactbleu
from exactbleu.cli import main
from exactbleu.tokenizers import nltk_words
from exactbleu.tokenizers.nltk_words import tokenize_azure, tokenize_nltk_words

with gzip.open(ROOT / "tests" / "data" / "nltk-frameworks" / "recorded.json.gz", "rt", encoding="utf-8") as _file:
    RECORDED = json.load(_file)
CASES = RECORDED["cases"]
PRESETS = ["deepeval-bleu1", "deepeval-bleu2", "deepeval-bleu3", "deepeval-bleu4", "helm-bleu-1", "helm-bleu-4"]
FIRST_REFERENCES = {"azure"}  # Azure's evaluator takes one ground truth: each example's first reference
# The SHA-256 of each file of punkt_tab/english in NLTK's punkt_tab.zip: the archive nltk_data's
# index lists (4,319,076 bytes, SHA-256 e57f6418...0e0106), taken apart.
PUNKT_ENGLISH = {
    "abbrev_types.txt": "92a3e070f43d9b4c5534758ca40ad7343b04e7e29bfe0c2eb658a39445a4f779",
    "collocations.tab": "8e2da1225e4dd2cc9dba261ee231ccb134859e21b46006e7f472c5ee269af0cf",
    "ortho_context.tab": "4bbcca25ed3d3f06c02402abf8419b9f033b8adc06e7b482eca4e45f81a5dc4c",
    "sent_starters.txt": "f3f8535483e1dba487241b764945168123bca3209a9645e59acd1225dc76edac",
}


# And of Number.txt, Punctuation.txt and Symbol.txt in nltk_data's perluniprops.zip (100,266 bytes, MD5
# 721ecf41...ef9f2d, as nltk_data's index lists it; taken from nltk_data's repository).
PERLUNIPROPS = {
    "Number.txt": "bdd4091ffb857b47bb10e10c82f750e30419aa7a3ce6da39dae92f77efa28476",
    "Punctuation.txt": "e2f503ffac0d4c69620ff0ce22a6b4a28b328363602a74270efbbe92ed0efcac",
    "Symbol.txt": "d57b6f965049bb8a0b2f43e17bb32a71bd4ca82bc86766c059ca80273660c99e",
}


@pytest.mark.parametrize("folder, files", [("punkt_english", PUNKT_ENGLISH), ("perluniprops", PERLUNIPROPS)])
def test_the_data_carried_is_nltks(folder, files):
    folder = ROOT / "exactbleu" / "tokenizers" / folder
    assert {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in folder.iterdir() if path.suffix in (".txt", ".tab")} == files


def test_the_split_is_word_tokenizes_token_for_token():
    texts = {text: tokens for case in CASES for text, tokens in case["tokens"].items()}
    assert len(texts) > 400
    assert {text: tokenize_nltk_words(text) for text in texts} == texts


# The characters where Python's re and the regex module part ways (\s, \w, \d, case folding), beside those
# NLTK's splits act on: the patterns exactbleu compiles again without NLTK's guard must split as NLTK's own.
ALPHABET = [*"aAbBcCnNtTsSdDmMlLrReEvV019 .,;:!?'\"`()[]{}<>-$%&@#*/\\_",
            "\x1c", "\x1d", "\x1f", "\x85", "\u0301", "\u203f", "\u00b2", "\u0660", "\u1680", "\u200b", "\u212a",
            "\u017f", "\u0130", "é", "ß", "«", "»", "“", "”", "‘", "’", "„", "—", "–", "…", "\u00a0", "\t", "\n", "日",
            "€", "²"]


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.example("x.\x1c")  # re's \s takes U+001C, regex's does not: on re, "x." would lose its period
@hypothesis.example("it's\x1c")
@hypothesis.example("\u0301gonna")  # a contraction's pattern is re's in NLTK: on regex, the accent would join "gonna"
@hypothesis.given(st.lists(st.sampled_from([*ALPHABET, "n't", "'s", "can", "not", "gonna", "Mr.", "U.S.", "..."]),
                           max_size=40).map("".join))
def test_the_splits_are_nltks_own_on_any_text(text):
    punkt, words, nist = nltks_own()
    assert tokenize_nltk_words(text) == [token for one in punkt.tokenize(text) for token in words.tokenize(one)]
    assert tokenize_azure(text) == (tokenize_nltk_words(text) if text.isascii() else nist.international_tokenize(text))


@functools.cache
def nltks_own():
    """NLTK's own splitters, their patterns under NLTK's guard, as they come."""
    from nltk.tokenize import NLTKWordTokenizer
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    tokenize_azure("é")  # NLTK's NIST module, loaded on the carried lists
    from nltk.tokenize.nist import NISTTokenizer

    return PunktSentenceTokenizer(nltk_words.punkt_english()), NLTKWordTokenizer(), NISTTokenizer()


@pytest.mark.slow  # a new process, which imports NLTK
def test_threads_that_first_split_at_once_leave_nltks_own_loader_in_place():
    """In a new process, where NLTK's NIST module is not loaded yet: eight threads split text beyond
    ASCII at once, as the counting threads may; each gets the tokens, and NLTK's loader is back."""
    program = (
        "import threading, nltk.corpus\n"
        "loader = nltk.corpus.perluniprops\n"
        "from exactbleu.tokenizers.nltk_words import tokenize_azure\n"
        "got = []\n"
        "threads = [threading.Thread(target=lambda: got.append(tokenize_azure('Ünï x-y'))) for _ in range(8)]\n"
        "[thread.start() for thread in threads]\n"
        "[thread.join() for thread in threads]\n"
        "assert got == [['Ü', 'n', 'ï', 'x', '-', 'y']] * 8, got\n"
        "assert nltk.corpus.perluniprops is loader\n")
    finished = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr


def test_azures_split_is_its_nltk_tokenize_token_for_token():
    import nltk.corpus

    texts = {text: tokens for case in CASES for text, tokens in case["azure_tokens"].items()}
    assert sum(not text.isascii() for text in texts) > 100
    loader = nltk.corpus.perluniprops
    assert {text: tokenize_azure(text) for text in texts} == texts
    assert nltk.corpus.perluniprops is loader  # NLTK's own loader is back in its place


def test_the_split_reads_no_nltk_data(monkeypatch):
    import nltk.data

    def refused(*arguments, **keywords):
        raise LookupError("no nltk_data here")

    monkeypatch.setattr(nltk.data, "find", refused)
    monkeypatch.setattr(nltk.data, "load", refused)
    nltk_words._splitters.cache_clear()
    assert tokenize_nltk_words("Mr. Smith arrived. He didn't stay.") == \
        ["Mr.", "Smith", "arrived", ".", "He", "did", "n't", "stay", "."]


@pytest.mark.parametrize("preset", PRESETS + sorted(FIRST_REFERENCES))
@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_example_and_the_mean_are_the_frameworks_float_for_float(case, preset):
    predictions, references = case["predictions"], case["references"]
    if preset in FIRST_REFERENCES:
        references = [group[:1] for group in references]
    assert exactbleu.sentence_scores(predictions, references, preset).tolist() == case["examples"][preset]
    assert exactbleu.corpus_bleu(predictions, references, preset)["bleu"] == case["means"][preset]
    if preset == "azure":  # its evaluate() takes a column's mean with pandas, in another order of additions
        assert exactbleu.corpus_bleu(predictions, references, preset)["bleu"] == \
            pytest.approx(case["azure_mean"], rel=1e-15, abs=1e-300)


@pytest.mark.parametrize("preset", ["deepeval-bleu3", "helm-bleu-4"])
def test_token_ids_score_as_their_tokens(preset):
    case = next(case for case in CASES if len(case["predictions"]) == 20 and max(map(len, case["references"])) > 1)
    vocabulary: dict[str, int] = {}

    def ids(text):
        return [vocabulary.setdefault(token, len(vocabulary)) for token in case["tokens"][text]]

    predictions = [ids(text) for text in case["predictions"]]
    references = [[ids(text) for text in group] for group in case["references"]]
    assert exactbleu.sentence_scores(predictions, references, preset).tolist() == case["examples"][preset]
    assert exactbleu.corpus_bleu([np.array(one) for one in predictions], references, preset)["bleu"] == \
        case["means"][preset]


def test_helms_best_reference_is_chosen_per_instance_and_carried():
    case = CASES[-1]  # by hand: the first instance's second reference scores better than its first
    predictions, references = case["predictions"], case["references"]
    counted = exactbleu.statistics(predictions, references, "helm-bleu-1")
    assert exactbleu.score(counted, "helm-bleu-1")["bleu"] == case["means"]["helm-bleu-1"]
    assert exactbleu.score(counted[:3] + counted[3:], "helm-bleu-1")["bleu"] == case["means"]["helm-bleu-1"]
    with pytest.raises(ValueError, match=r"keep_references='best:weights=.1.0, 0.0, 0.0, 0.0."):
        exactbleu.score(counted, "helm-bleu-4")  # chosen by bleu_1's score: another reference may be bleu_4's best
    one = exactbleu.sentence_bleu(predictions[0], references[0], "helm-bleu-1")
    assert one["bleu"] == case["examples"]["helm-bleu-1"][0]
    result = exactbleu.corpus_bleu(predictions, references, "helm-bleu-4", signature=True)
    assert "keep:best" in result["signature"] and "avg:macro" in result["signature"]


def test_what_cannot_keep_the_best_reference_refuses():
    case = CASES[-1]
    with pytest.raises(ValueError, match="explain shows each segment against the references it keeps"):
        exactbleu.explain(case["predictions"], case["references"], "helm-bleu-1")
    with pytest.raises(ValueError, match="one weight set"):
        exactbleu.corpus_bleu(case["predictions"], case["references"], "helm-bleu-1",
                              weights=[(1, 0, 0, 0), (0, 1, 0, 0)])
    import torch

    with pytest.raises(ValueError, match=r"keep_references='best' applies to text and to token ids as lists"):
        exactbleu.corpus_bleu(torch.tensor([[1, 2]]), torch.tensor([[[1, 2], [1, 3]]]), "helm-bleu-1")
    with pytest.raises(ValueError, match=r"references\[1\] is empty"):
        exactbleu.corpus_bleu([[1, 2], [3]], [[[1, 2]], []], "helm-bleu-1")


@pytest.mark.parametrize("preset", ["deepeval-bleu2", "helm-bleu-1", "azure"] + [  # the rest: the slow tier
    pytest.param(preset, marks=pytest.mark.slow) for preset in ("deepeval-bleu1", "deepeval-bleu3", "deepeval-bleu4",
                                                                "helm-bleu-4")])
def test_which_bleu_names_the_framework_for_its_number(preset):
    case = next(case for case in CASES if len(case["predictions"]) == 20 and max(map(len, case["references"])) > 1)
    references = [group[:1] for group in case["references"]] if preset in FIRST_REFERENCES else case["references"]
    found = exactbleu.identify(case["predictions"], references, f"{case['means'][preset]:.4f}")
    assert (found.matches[0].preset, found.matches[0].options, found.matches[0].scale) == (preset, {}, 1)


def test_the_command_line_prints_the_frameworks_number(tmp_path, capsys):
    case = max((case for case in CASES if max(map(len, case["references"])) == 1
                and not any("\n" in text for text in case["predictions"] + [g[0] for g in case["references"]])),
               key=lambda case: len(case["predictions"]))
    (tmp_path / "hyp").write_text("".join(line + "\n" for line in case["predictions"]), encoding="utf-8")
    (tmp_path / "ref").write_text("".join(group[0] + "\n" for group in case["references"]), encoding="utf-8")
    status = main([str(tmp_path / "ref"), "-i", str(tmp_path / "hyp"), "--preset", "deepeval-bleu1",
                                 "-b", "-w", "16"])
    assert status == 0  # on sacrebleu's 0-100, as the command prints every preset's number
    assert float(capsys.readouterr().out) == pytest.approx(case["means"]["deepeval-bleu1"] * 100, rel=1e-15)
