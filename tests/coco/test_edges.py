"""exactbleu.coco at pycocoevalcap 1.2's edges, each held to pycocoevalcap itself: no images at all,
an image with no captions, ``verbose=2``'s lines, ``Bleu(n)``'s ``n``; and its messages, which name
the user's own arguments and images (``gts``, ``res``, ``captions_for_image``, as pycocoevalcap
names them), not the positions of the lists the library counts."""

import contextlib
import io
import shutil

import pytest

from exactbleu import MAX_ORDER, coco

bleu_module = pytest.importorskip("pycocoevalcap.bleu.bleu")
tokenizer_module = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer")

GTS = {"park.jpg": ["two dogs play in a park", "dogs playing", "two dogs run"], 7: ["a cat"],
       "beach": ["a man riding a wave on top of a surfboard"]}
RES = {"park.jpg": ["two dogs playing"], 7: ["a cat sits on a mat"], "beach": ["a man riding a wave"]}


def printed_and_returned(call):
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        returned = call()
    return printed.getvalue(), returned


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("verbose", [0, 1, 2, 3, -1, True])
def test_what_it_prints_and_returns_at_each_verbose_is_pycocoevalcaps(n, verbose):
    ours = printed_and_returned(lambda: coco.Bleu(n).compute_score(GTS, RES, verbose=verbose))
    theirs = printed_and_returned(lambda: bleu_module.Bleu(n).compute_score(GTS, RES, verbose=verbose))
    assert ours == theirs


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_no_images_score_as_pycocoevalcap_scores_them(n, verbose):
    """pycocoevalcap's arithmetic gives no images zeros, and no image's scores: code that scores a
    split's share of images, or an empty batch, relies on that."""
    ours = printed_and_returned(lambda: coco.Bleu(n).compute_score({}, {}, verbose=verbose))
    theirs = printed_and_returned(lambda: bleu_module.Bleu(n).compute_score({}, {}, verbose=verbose))
    assert ours == theirs


@pytest.mark.slow  # pycocoevalcap's own tokenizer starts Java
def test_an_image_with_no_captions_is_left_out_as_pycocoevalcap_leaves_it_out():
    if shutil.which("java") is None:
        pytest.fail("Java is not on the PATH: this test runs pycocoevalcap's own PTBTokenizer")
    captions = {"beach": [{"caption": "A man riding a wave."}], "park.jpg": [], 7: [{"caption": "Two cats!"}],
                "empty": []}
    theirs = tokenizer_module.PTBTokenizer().tokenize(captions)
    assert coco.PTBTokenizer().tokenize(captions) == theirs
    assert list(coco.PTBTokenizer().tokenize(captions)) == list(theirs)
    assert coco.PTBTokenizer().tokenize({"park.jpg": []}) == tokenizer_module.PTBTokenizer().tokenize({"park.jpg": []})


def test_a_lone_surrogate_in_a_caption_is_refused_by_name_as_pycocoevalcap_refuses_it():
    """pycocoevalcap writes the captions to a file as UTF-8, which a lone surrogate cannot be: it
    raises (a UnicodeEncodeError, a ValueError) before Java starts."""
    captions = {"beach": [{"caption": "a wave"}], "park.jpg": [{"caption": "two dogs"}, {"caption": "a dog \udc80 runs"}]}
    with pytest.raises(UnicodeEncodeError):
        tokenizer_module.PTBTokenizer().tokenize(captions)
    with pytest.raises(ValueError, match=r"captions_for_image\['park.jpg'\]\[1\] is not valid Unicode: it holds the "
                                         r"lone surrogate '\\udc80' at position 6"):
        coco.PTBTokenizer().tokenize(captions)


def test_a_lone_surrogate_in_gts_or_res_is_refused_where_pycocoevalcap_would_score_it():
    """A departure docs/captions.md lists: pycocoevalcap's Bleu counts a lone surrogate as
    a token, which no caption its own tokenizer returned can hold."""
    gts = {"beach": ["a wave"], "park.jpg": ["two dogs", "a dog \udc80"]}
    res = {"beach": ["a wave"], "park.jpg": ["a dog \udc80"]}
    scores = bleu_module.Bleu(4).compute_score(gts, res, verbose=0)[1]
    assert scores[2][1] > 0.99  # park.jpg's Bleu_3: its one trigram, the surrogate its last token, matched
    with pytest.raises(ValueError, match=r"res\['park.jpg'\]\[0\] is not valid Unicode: it holds the lone surrogate "
                                         r"'\\udc80' at position 6"):
        coco.Bleu(4).compute_score(gts, res)
    with pytest.raises(ValueError, match=r"gts\['park.jpg'\]\[1\] is not valid Unicode"):
        coco.Bleu(4).compute_score(gts, {"beach": ["a wave"], "park.jpg": ["two dogs"]})


@pytest.mark.parametrize("gts, res, error, words", [
    ({"beach": ["a wave"], "park.jpg": ["two dogs", 3]}, {"beach": ["a wave"], "park.jpg": ["two dogs"]}, TypeError,
     r"gts\['park.jpg'\]\[1\] must be a string, got int: 3"),
    ({"beach": ["a wave"], "park.jpg": ["two dogs"]}, {"beach": ["a wave"], "park.jpg": [None]}, TypeError,
     r"res\['park.jpg'\]\[0\] must be a string, got NoneType: None"),
    ({"beach": ["a wave"], "park.jpg": ["two dogs"]}, {"beach": ["a wave"], "park.jpg": [b"two dogs"]}, TypeError,
     r"res\['park.jpg'\]\[0\] must be a string, got bytes"),
    ({"beach": ["a wave"], 7: ["two dogs", ["two", "dogs"]]}, {"beach": ["a wave"], 7: ["two dogs"]}, TypeError,
     r"gts\[7\]\[1\] must be a string, got list: \['two', 'dogs'\]; .*' '.join\(tokens\)"),
    ({"beach": ["a wave"], "park.jpg": ["two dogs"]}, {"beach": ["a wave"], "park.jpg": [{"caption": "Two dogs."}]},
     TypeError, r"res\['park.jpg'\]\[0\] must be a string, .*PTBTokenizer\(\).tokenize"),
])
def test_messages_name_the_users_images(gts, res, error, words):
    with pytest.raises(error, match=words) as raised:
        coco.Bleu(4).compute_score(gts, res)
    assert "references[" not in str(raised.value) and "predictions[" not in str(raised.value)
    assert "nltk" not in str(raised.value)  # the "nltk" preset is no choice of this face's


@pytest.mark.parametrize("n, error, words", [
    (4.0, TypeError, "got float: 4.0"),
    (True, TypeError, "got bool: True"),
    ("4", TypeError, "got str: '4'"),
    (None, TypeError, "got NoneType: None"),
    (0, ValueError, "got 0"),
    (-1, ValueError, "got -1"),
    (MAX_ORDER + 1, ValueError, f"got {MAX_ORDER + 1}"),
])
def test_n_is_checked_when_the_scorer_is_made(n, error, words):
    with pytest.raises(error, match=f"^n must be an int from 1 to {MAX_ORDER}, .*{words}$") as raised:
        coco.Bleu(n)
    assert "max_order" not in str(raised.value)


def test_n_up_to_the_librarys_bound_scores():
    assert len(coco.Bleu(MAX_ORDER).compute_score(GTS, RES, verbose=0)[0]) == MAX_ORDER
