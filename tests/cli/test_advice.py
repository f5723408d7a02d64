"""What the command says is true and what it advises works: ``--help`` names the command's real
default, the presets come in a table of their own (``--list-presets``), an option that cannot do
what another flag asks names the flags typed, a misspelled flag's suggestion takes its value, and
a compressed file is read (gzip, as sacrebleu reads a ``.gz``) or named for what it is, with a
command that decompresses it."""

import bz2
import gzip
import lzma
import re
import shutil
import subprocess

import pytest

import exactbleu
from test_cli import REFERENCE, SYSTEMS, UEDIN, assert_same_output, ours

LINES = ["the cat sat on the mat", "a dog ran home fast", "hello there general kenobi"]
REFERENCES = ["the cat is on the mat", "a dog ran home", "hello there"]


def one_line(text):
    """argparse's help, its wrapping undone."""
    return " ".join(text.split())


def test_help_states_that_the_default_is_sacrebleus_not_the_preset_named_default():
    # With no --preset, the command prints what sacrebleu's own command line prints (test_cli's
    # first flag set); --help must say so, and not read "default" as Hugging Face's preset.
    helped = one_line(ours("--help").stdout)
    assert "default: sacrebleu" in helped
    assert "whose numbers: default," not in helped
    preset_help = helped.split("--preset NAME", 1)[1].split(" -sl", 1)[0]
    assert '"default" is' in preset_help and "not this command's" in preset_help


def test_help_lists_no_preset_but_names_the_flag_that_lists_them():
    helped = one_line(ours("--help").stdout)
    assert "pycocoevalcap" not in helped and "lm-evaluation-harness" not in helped
    assert "--list-presets" in helped


def listed_presets(text):
    """--list-presets' rows after its heading, as {name: what it reproduces}, wrapping undone."""
    rows: dict[str, str] = {}
    for row in text.splitlines()[2:]:
        if row[:1] != " ":
            name, _, row = row.partition(" ")
            rows[name] = ""
        rows[name] = one_line(rows[name] + " " + row)
    return rows


def test_list_presets_prints_a_table_of_every_preset_new_ones_included():
    exactbleu.PRESETS.register(exactbleu.Preset("for-one-test", "a `preset` of this test", {"max_order": 2}))
    try:
        listed = ours("--list-presets")
    finally:
        exactbleu.PRESETS.unregister("for-one-test")
    assert listed.returncode == 0 and listed.stderr == ""
    assert listed.stdout.splitlines()[0].split() == ["preset", "what", "it", "reproduces"]
    rows = listed_presets(listed.stdout)
    assert list(rows) == ["default", "hf", "sacrebleu", "nltk", "lm-eval", "lighteval", "coco", "nlg-eval",
                          "vlmevalkit", "codexglue", "ignite", "deepeval-bleu1", "deepeval-bleu2", "deepeval-bleu3",
                          "deepeval-bleu4", "helm-bleu-1", "helm-bleu-4", "azure", "fairseq", "torchmetrics", "torchmetrics-sacrebleu", "multi-bleu", "multi-bleu-detok",
                          "t2t-bleu", "tokenized-bleu", "t2t-ende", "mteval-v13a", "mteval-v14", "for-one-test"]
    assert rows["for-one-test"] == "a preset of this test"  # the docs' markup dropped
    assert rows["sacrebleu"].startswith("sacrebleu's BLEU().corpus_score defaults")
    assert rows["sacrebleu"].endswith("(this command's default)")
    assert rows["nltk"].startswith("NLTK's corpus_bleu") and "default" not in rows["nltk"]


@pytest.mark.parametrize("arguments, said, typed", [
    (["--preset", "lm-eval", "-sl"], "--preset lm-eval", "-sl/--sentence-level"),
    (["--preset", "lm-eval", "--sentence-level"], "--preset lm-eval", "-sl/--sentence-level"),
    (["--keep-references", "fewest", "-sl"], "--keep-references fewest", "-sl/--sentence-level"),
    (["--preset", "lm-eval", "-ci"], "--preset lm-eval", "-ci/--confidence"),
    (["--preset", "lm-eval", "--n-bootstrap", "10"], "--preset lm-eval", "--n-bootstrap"),
    (["--preset", "lm-eval", "--paired-bs", "-i", *SYSTEMS[:2]], "--preset lm-eval", "-pbs/--paired-bs"),
])
def test_a_whole_corpus_rule_names_the_flags_typed_and_what_works(arguments, said, typed):
    completed = ours(REFERENCE, "-i", UEDIN, *arguments)
    assert (completed.returncode, completed.stdout) == (1, "")
    message = completed.stderr
    assert len(message.splitlines()) == 1
    assert said in message and typed in message
    assert "scored_rows" not in message and "keep_references=" not in message and "compare:" not in message
    # What it advises works: the same flags, keeping every reference.
    assert "--keep-references all" in message
    fixed = ([word if word != "fewest" else "all" for word in arguments] if "fewest" in arguments
             else [*arguments, "--keep-references", "all"])
    assert ours(REFERENCE, "-i", UEDIN, *fixed, "-b", "-pbsn", "20", "-cin", "20").returncode == 0


@pytest.mark.parametrize("before, typed, said", [
    ([], ["--smoth", "exp"], "unrecognized arguments: --smoth exp; did you mean '-s exp' (--smooth-method exp)?"),
    ([], ["--smoth", "floor"], "did you mean '-s floor' (--smooth-method floor)?"),
    ([], ["--smoth"], "unrecognized arguments: --smoth; did you mean '--smooth'?"),
    (["-s", "floor"], ["--smooth-valu", "0.1"], "did you mean '-sv 0.1' (--smooth-value 0.1)?"),
    ([], ["--tokenise", "intl"], "did you mean '-tok intl' (--tokenize intl)?"),
    ([], ["--max-ordr", "3"], "unrecognized arguments: --max-ordr 3; did you mean '--max-order 3'?"),
    ([], ["--weigths", "0.5", "0.5"], "did you mean '--weights 0.5 0.5'?"),
])
def test_a_misspelled_flag_gets_a_flag_that_takes_its_value(before, typed, said):
    completed = ours(REFERENCE, "-i", UEDIN, *before, *typed)
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[-1].endswith(said)
    advised = re.search(r"did you mean '([^']+)'", said)[1].split()
    assert ours(REFERENCE, "-i", UEDIN, *before, *advised, "-b").returncode == 0


def test_a_gzip_file_is_read_as_sacrebleu_reads_a_gz(tmp_path):
    """sacrebleu opens a name ending in .gz with gzip; gzip's own bytes say the same of any name."""
    (tmp_path / "ref.gz").write_bytes(gzip.compress(REFERENCE.read_bytes()))
    (tmp_path / "hyp.gz").write_bytes(gzip.compress(UEDIN.read_bytes()))
    shown = assert_same_output([tmp_path / "ref.gz", "-i", tmp_path / "hyp.gz", "-f", "text"])
    (tmp_path / "ref-gzipped").write_bytes(gzip.compress(REFERENCE.read_bytes()))
    assert ours(tmp_path / "ref-gzipped", "-i", UEDIN, "-f", "text").stdout == shown
    assert ours(REFERENCE, "-f", "text", stdin=gzip.compress(UEDIN.read_bytes())).stdout == shown


COMPRESSED = {"bzip2": (bz2.compress, "bz2", "bunzip2 -k", "bzcat"),
              "xz": (lzma.compress, "xz", "unxz -k", "xzcat"),
              "zstd": (None, "zst", "unzstd", "zstdcat")}


@pytest.mark.parametrize("kind", list(COMPRESSED))
@pytest.mark.parametrize("named", [True, False], ids=["suffix", "no suffix"])
def test_another_compressed_file_is_named_with_a_command_that_decompresses_it(tmp_path, kind, named):
    compress, suffix, unpack, cat = COMPRESSED[kind]
    if shutil.which(cat) is None or shutil.which(unpack.split()[0]) is None:
        pytest.skip(f"{cat} is not installed here")
    (tmp_path / "hyp").write_text("".join(line + "\n" for line in LINES), encoding="utf-8")
    plain = "".join(line + "\n" for line in REFERENCES).encode("utf-8")
    packed = tmp_path / (f"ref.{suffix}" if named else "ref-packed")
    if compress is None:
        subprocess.run([*kind.split(), "-q", "-o", str(packed)], input=plain, check=True)
    else:
        packed.write_bytes(compress(plain))
    for encoding in ([], ["-e", "latin-1"]):
        completed = ours(packed, "-i", tmp_path / "hyp", *encoding)
        assert (completed.returncode, completed.stdout) == (1, "")
        assert len(completed.stderr.splitlines()) == 1 and "not valid" not in completed.stderr
        written = tmp_path / "ref" if named else tmp_path / "ref-packed.txt"
        command = f"{unpack} {packed}" if named else f"{cat} {packed} > {written}"
        assert completed.stderr == (f"exactbleu: error: references {packed} is {kind}-compressed, not text: decompress "
                                    f"it first ({command}) and give {written}\n")
    subprocess.run(["bash", "-c", command], check=True)
    (tmp_path / "ref-plain").write_bytes(plain)
    scored = ours(written, "-i", tmp_path / "hyp", "-b", "-w", "6")
    assert scored.returncode == 0 and scored.stdout == ours(tmp_path / "ref-plain", "-i", tmp_path / "hyp", "-b",
                                                            "-w", "6").stdout


def test_compressed_hypotheses_on_standard_input_get_the_pipe_that_decompresses_them(tmp_path):
    (tmp_path / "ref").write_text("".join(line + "\n" for line in REFERENCES), encoding="utf-8")
    completed = ours(tmp_path / "ref", stdin=bz2.compress("".join(line + "\n" for line in LINES).encode("utf-8")))
    assert (completed.returncode, completed.stdout) == (1, "")
    assert completed.stderr == ("exactbleu: error: hypotheses on standard input are bzip2-compressed, not text: "
                                "decompress them on the way in (bzcat FILE | exactbleu ...)\n")


def test_a_file_in_another_encoding_still_gets_the_encoding_flag(tmp_path):
    (tmp_path / "latin1").write_bytes("caf\xe9\n".encode("latin-1"))
    completed = ours(tmp_path / "latin1", "-i", tmp_path / "latin1")
    assert completed.stderr.endswith("give the file's encoding with -e/--encoding, such as -e latin-1\n")
    assert ours(tmp_path / "latin1", "-i", tmp_path / "latin1", "-e", "latin-1", "-b").returncode == 0
