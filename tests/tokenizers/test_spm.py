"""spBLEU: tokenizer="flores101", "flores200", "spBLEU-1K" and "spm" give sacrebleu's pieces and scores with the
same model file, found where sacrebleu keeps it or given by spm_model=, and nothing is downloaded.
The model is a small one that tests/conftest.py trains with sentencepiece."""

import contextlib
import io
import math
import socket

import pytest
import sacrebleu.tokenizers.tokenizer_spm as sacrebleu_spm
from sacrebleu.metrics import BLEU

from exactbleu import options, tokenizers


@pytest.fixture()
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("tokenizer", ["flores101", "flores200", "spBLEU-1K", "spm"])
def test_pieces_scores_and_signature_are_sacrebleus(sacrebleu_preset, sacrebleu_folder, monkeypatch, no_network,
                                                     wmt17, tokenizer):
    monkeypatch.setenv("SACREBLEU", str(sacrebleu_folder))
    monkeypatch.setattr(sacrebleu_spm, "SACREBLEU_DIR", str(sacrebleu_folder))  # read at its import
    hypotheses, references = wmt17["systems"]["uedin-nmt.4722"][:300], wmt17["reference"][:300]
    theirs = BLEU(tokenize=tokenizer)
    ours_tokenize = tokenizers.make_tokenizer(options.resolve_settings("sacrebleu", tokenizer=tokenizer).tokenize)
    for line in hypotheses[:50] + ["", "  Grüße aus Köln!  ", "日本語 ✓"]:
        assert ours_tokenize(line) == theirs._preprocess_segment(line).split(), line
    expected = theirs.corpus_score(hypotheses, [references])
    ours = sacrebleu_preset.compute(predictions=hypotheses, references=references, tokenizer=tokenizer,
                                    sentence_level=True, signature=True)
    assert math.isclose(ours["bleu"], expected.score / 100, rel_tol=1e-9)
    assert (ours["translation_length"], ours["reference_length"]) == (expected.sys_len, expected.ref_len)
    for hypothesis, reference, sentence in list(zip(hypotheses, references, ours["sentence_bleu"]))[:40]:
        assert math.isclose(sentence, theirs.sentence_score(hypothesis, [reference]).score / 100, rel_tol=1e-9,
                            abs_tol=1e-15)
    theirs_tok = dict(field.split(":", 1) for field in theirs.get_signature().format().split("|"))["tok"]
    assert f"|tok:{theirs_tok}|" in ours["signature"]


def test_the_model_can_be_any_file(bleu, sacrebleu_folder, monkeypatch, tmp_path):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))  # nothing there
    model = sacrebleu_folder / "small.model"
    result = bleu.compute(predictions=["Guten Morgen, Köln."], references=[["Guten Morgen, Köln!"]],
                          tokenizer="flores200", spm_model=str(model), signature=True)
    import sentencepiece

    pieces = sentencepiece.SentencePieceProcessor(model_file=str(model)).encode("Guten Morgen, Köln.", out_type=str)
    assert result["translation_length"] == len(pieces)
    assert "|tok:flores200[small.model]|" in result["signature"]


def test_a_missing_model_says_where_to_put_it_and_downloads_nothing(bleu, monkeypatch, no_network, tmp_path):
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    with pytest.raises(ValueError) as raised:
        bleu.compute(predictions=["a"], references=["a"], tokenizer="flores200")
    message = str(raised.value)
    assert str(tmp_path / "models" / "flores200sacrebleuspm") in message and "spm_model=" in message
    assert "downloads nothing" in message
    with pytest.raises(ValueError, match="no file"):
        bleu.compute(predictions=["a"], references=["a"], tokenizer="flores101", spm_model=str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="spm_model applies only"):
        bleu.compute(predictions=["a"], references=["a"], spm_model=str(tmp_path / "nope"))


def test_spbleu_1k_is_sacrebleus_through_every_face(sacrebleu_folder, monkeypatch, no_network, wmt17, tmp_path):
    """sacrebleu 2.6's spBLEU-1K, which exactbleu.compat names: the library, compat, the command line
    and the torchmetrics face all take it from the model in sacrebleu's folder, and agree with sacrebleu."""
    import exactbleu
    from exactbleu import cli, compat
    from exactbleu.torchmetrics import SacreBLEUScore

    monkeypatch.setenv("SACREBLEU", str(sacrebleu_folder))
    monkeypatch.setattr(sacrebleu_spm, "SACREBLEU_DIR", str(sacrebleu_folder))
    hypotheses, references = wmt17["systems"]["online-A.0"][:200], wmt17["reference"][:200]
    theirs = BLEU(tokenize="spBLEU-1K")
    expected = theirs.corpus_score(hypotheses, [references])
    assert "|tok:spBLEU-1K|" in theirs.get_signature().format()
    result = exactbleu.corpus_bleu(hypotheses, references, "sacrebleu", tokenizer="spBLEU-1K", signature=True)
    assert math.isclose(result["bleu"], expected.score / 100, rel_tol=1e-12)
    assert "|tok:spBLEU-1K|" in result["signature"]
    assert compat.corpus_bleu(hypotheses, [references], tokenize="spBLEU-1K").score == expected.score
    files = {"hyp": tmp_path / "hyp.txt", "ref": tmp_path / "ref.txt"}
    for name, lines in (("hyp", hypotheses), ("ref", references)):
        files[name].write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert cli.main([str(files["ref"]), "-i", str(files["hyp"]), "-tok", "spBLEU-1K", "-b"]) == 0
    assert printed.getvalue().strip() == f"{expected.score:.1f}"
    metric = SacreBLEUScore(tokenize="spBLEU-1K")
    metric.update(hypotheses, [[reference] for reference in references])
    assert math.isclose(float(metric.compute()), expected.score / 100, rel_tol=1e-9)
