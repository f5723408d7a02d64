"""The Space's API through gradio_client, as existing clients call it: the metric's numbers, the
paired test, messages that name the argument and its choices (and no server path), and concurrent
clients each getting their own result."""

import concurrent.futures

import pytest

from space import requests as space
from space_helpers import (PREDICTIONS, REFERENCES, REFERENCES_2, TRANSFORMERS_BLEU, assert_no_server_path,
                           metric_paired_test, metric_result)

pytestmark = pytest.mark.slow  # a Space server process


def test_api_compute_is_the_metric(space_client):
    assert space_client.predict(PREDICTIONS, REFERENCES, api_name="/compute") == metric_result(PREDICTIONS, [REFERENCES])
    result = space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "intl", 3, "floor (sacrebleu)", "closest", True,
                            api_name="/compute")
    assert result == metric_result(PREDICTIONS, [REFERENCES, REFERENCES_2], 3, "intl", smooth_method="floor",
                                   ref_length="closest", lowercase=True)


def test_api_errors_are_messages_and_the_server_stays_up(space_client, space_server):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="References has 1 lines"):
        space_client.predict(PREDICTIONS, "just one line", api_name="/compute")
    with pytest.raises(AppError, match="at most 100,000"):
        space_client.predict("x\n" * (space.MAX_LINES + 1), "x\n" * (space.MAX_LINES + 1), api_name="/compute")
    with pytest.raises(AppError, match="larger than 10 MB"):
        space_client.predict("x" * (space.MAX_BYTES + 1), "x", api_name="/compute")
    with pytest.raises(AppError, match="larger than 10 MB together"):
        space_client.predict("x" * (space.MAX_BYTES // 2), "x" * (space.MAX_BYTES // 2 + 1), api_name="/compute")
    assert space_server[1].poll() is None
    assert space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


@pytest.mark.parametrize("max_order", [0, 9, 2.7, "x", 10**9, True])
def test_api_max_order_outside_the_page_range_is_a_message_at_once(space_client, space_server, max_order):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="max_order must be a whole number from 1 to 8"):
        space_client.predict(PREDICTIONS, REFERENCES, "", "", "13a", max_order, api_name="/compute")
    assert space_client.predict(PREDICTIONS, REFERENCES, REFERENCES_2, "", "13a", 2.0, api_name="/compute")["bleu"] == TRANSFORMERS_BLEU


def test_eight_concurrent_clients_get_their_own_results(space_server):
    """Eight clients, each a gradio_client of its own as separate users are. (Requests that share
    one gradio_client share its one event stream, whose closing can cancel a request submitted at
    that moment: a race in the client, not in the Space.)"""
    from gradio_client import Client

    def predict(*arguments):
        return Client(space_server[0], verbose=False).predict(*arguments, api_name="/compute")

    corpora = [(f"the cat sat on mat {i}\nsomething {i} else", f"the cat sat on the mat {i}\nsomething else") for i in range(8)]
    expected = [metric_result(p, [r], max_order=2 + i % 3) for i, (p, r) in enumerate(corpora)]
    with concurrent.futures.ThreadPoolExecutor(9) as pool:
        futures = [pool.submit(predict, p, r, "", "", "13a", 2 + i % 3) for i, (p, r) in enumerate(corpora)]
        failing = pool.submit(predict, "one\ntwo", "just one")  # among them
        results = [future.result(timeout=120) for future in futures]
        with pytest.raises(Exception, match="References has 1 lines"):
            failing.result(timeout=120)
    assert results == expected


def test_api_compare_is_the_metrics_paired_test(space_client):
    result = space_client.predict(PREDICTIONS, space.EXAMPLE_SYSTEM_B, REFERENCES, "13a", "randomization", api_name="/compare")
    assert result == metric_paired_test(PREDICTIONS, space.EXAMPLE_SYSTEM_B, REFERENCES, "randomization")
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match="Second system has 1 lines"):
        space_client.predict(PREDICTIONS, "one line", REFERENCES, api_name="/compare")


@pytest.mark.parametrize("tokenizer", ["spm", "flores101", "flores200", "spBLEU-1K", "nonsense"])
def test_the_api_takes_only_the_pages_tokenizers_and_says_so_without_paths(space_client, tokenizer):
    """The API takes only the tokenizers the dropdown shows (not flores101 or spm, whose model files
    live on the server): the message names the argument, the value and the page's choices, and
    nothing of the server, such as a path under ~/.sacrebleu/models."""
    from gradio_client.exceptions import AppError

    for endpoint, arguments in (("/compute", (PREDICTIONS, REFERENCES, "", "", tokenizer, 2)),
                                ("/compare", (PREDICTIONS, space.EXAMPLE_SYSTEM_B, REFERENCES, tokenizer))):
        with pytest.raises(AppError) as raised:
            space_client.predict(*arguments, api_name=endpoint)
        message = str(raised.value)
        assert f"tokenizer must be one of {space.tokenizers()}, got '{tokenizer}'" in message
        assert_no_server_path(message)


@pytest.mark.parametrize("arguments, words", [
    ((PREDICTIONS, REFERENCES, "", "", "13a", 2, "laplace"), ["smoothing must be one of", "'laplace'"]),
    ((PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "longest"), ["ref_length must be one of", "'longest'"]),
    ((PREDICTIONS, REFERENCES, "", "", "13a", 2, "none", "shortest", "yes"), ["lowercase must be True or False"]),
])
def test_option_errors_name_the_choices_without_paths(space_client, arguments, words):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as raised:
        space_client.predict(*arguments, api_name="/compute")
    for word in words:
        assert word in str(raised.value)
    assert_no_server_path(str(raised.value))


def as_rows(table):
    """Conventions as the API answers them: dicts, their options and tuples as JSON gives them back."""
    import json

    return [json.loads(json.dumps(row._asdict())) for row in table]


def test_api_conventions_is_the_librarys_every_convention_and_what_gives_a_score(space_client):
    import exactbleu

    predictions, references = PREDICTIONS.split("\n"), REFERENCES.split("\n")
    result = space_client.predict(PREDICTIONS, REFERENCES, "", "", api_name="/conventions")
    assert result == {"reported": None, "conventions": as_rows(exactbleu.conventions(predictions, references)),
                      "matches": []}
    reported = f"{100 * exactbleu.corpus_bleu(predictions, references, 'sacrebleu')['bleu']:.2f}"
    result = space_client.predict(PREDICTIONS, REFERENCES, reported, "zh", api_name="/conventions")
    found = exactbleu.identify(predictions, references, reported, language="zh")
    assert result["reported"] == reported and result["conventions"] == as_rows(found.conventions)
    assert [result["conventions"][number] for number in result["matches"]] == as_rows(found.matches)
    assert result["matches"] and result["conventions"][result["matches"][0]]["preset"] == "sacrebleu"


@pytest.mark.parametrize("arguments, words", [
    ((PREDICTIONS, REFERENCES, "27,3", ""), "reported must be a score"),
    ((PREDICTIONS, REFERENCES, "", "fr"), "language must be one of"),
    ((PREDICTIONS, "one line", "", ""), "References has 1 lines"),
    # Its price: each tokenizer's, and every convention's scores, over the 5 s a request may take.
    (("the cat sat on the mat\n" * 10_000, "the cat sat on a mat\n" * 10_000, "", ""),
     r"every convention of the texts would take up to \d+\.\d s with tokenizers 13a, intl, char, none, ptb, "
     r"codexglue, nltk-words, azure, ascii-whitespace, 13a-perl, t2t, mteval-13a \(420,000 characters in 20,000 lines, "
     r"\d+ conventions\); "
     r"the Space takes "
     "requests of up to 5 s: send fewer lines, or ask the command line"),
])
def test_api_conventions_errors_are_messages(space_client, arguments, words):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match=words):
        space_client.predict(*arguments, api_name="/conventions")
