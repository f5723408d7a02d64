"""The command line is a drop-in for sacrebleu 2.6.0's: the same flags print the same output,
checked against sacrebleu's own command line on generated files and on WMT17. Ours runs in this
process, as the `exactbleu` command calls it (``cli.main(argv)``); one test runs the installed
command itself."""

import contextlib
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import traceback
from typing import NamedTuple
from unittest import mock

import pytest

from conftest import METRIC_PATH, WMT17, without_transformers
from exactbleu import OPTIONS, cli
from oracles import hf_bleu

UEDIN = WMT17 / "systems" / "uedin-nmt.4722.de"
REFERENCE = WMT17 / "newstest2017.ref.de"
SYSTEMS = [WMT17 / "systems" / f"{name}.de" for name in ("KIT.4950", "FBK.4870", "LIUM-NMT.4900")]

WORDS = ["the", "cat", "sat", "on", "a", "mat", ",", ".", "U.S.", "3.5", "1,000", "don't", "well-known", "(", ")",
         '"', "Straße", "über", "€", "日本", "語", "--", "e.g.", "&amp;", "<skipped>", "x", "y", "z", "-"]


def generated_lines(rng, count):
    """Odd but ordinary lines: empty ones, trailing spaces, punctuation, Unicode, HTML entities."""
    lines = []
    for _ in range(count):
        length = rng.choice([0, 1, 2, 3, 5, 8, 13, 21])
        line = " ".join(rng.choice(WORDS) for _ in range(length))
        lines.append(line + rng.choice(["", "", " ", "  "]))
    return lines


# Enough lines for every flag to matter (a bootstrap, a paired test, several n-gram orders);
# sacrebleu, which each of some fifty comparisons runs, takes most of their time.
LINES = 500


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A hypothesis file, a second system and two reference files of ``LINES`` generated lines each,
    the references partly copying the hypotheses so that scores are neither 0 nor 100."""
    folder = tmp_path_factory.mktemp("cli")
    rng = random.Random(2026)
    hypotheses = generated_lines(rng, LINES)
    second = [line if rng.random() < 0.5 else other for line, other in zip(hypotheses, generated_lines(rng, LINES))]
    references = [[line if rng.random() < 0.4 else other
                   for line, other in zip(hypotheses, generated_lines(rng, LINES))] for _ in range(2)]
    paths = {}
    for name, lines in (("hyp", hypotheses), ("sys2", second), ("ref1", references[0]), ("ref2", references[1])):
        paths[name] = folder / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    # sacrebleu right-strips a line before it splits it at tabs: a last field of spaces is lost.
    paths["refs.tsv"] = folder / "refs.tsv"
    paths["refs.tsv"].write_text("".join(f"{a}\t{b.strip() or 'x'}\n" for a, b in zip(*references)), encoding="utf-8")
    paths["both.tsv"] = folder / "both.tsv"
    paths["both.tsv"].write_text("".join(f"{a}\t{b.strip() or 'x'}\n" for a, b in zip(hypotheses, second)),
                                 encoding="utf-8")
    return paths


class Completed(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


class StandardInput(io.TextIOWrapper):
    """Standard input in memory, with the descriptor that sacrebleu's main() reopens it by."""

    def fileno(self):
        return 0


class StandardOutput(io.StringIO):
    """Standard output in memory, with its descriptor: argparse writes to it (--help, --version)
    before sacrebleu's main() reopens it."""

    def fileno(self):
        return 1


def run(*arguments, stdin=None):
    """sacrebleu's command line, as its console script calls it (``sacrebleu.sacrebleu.main``), in
    this process: some fifty comparisons would each start a process for it. Its main() reopens
    standard input and output by their descriptors; here those are text in memory. NO_COLOR keeps
    colorama, which would put back the process's own output, out of it (piped, it prints no colors)."""
    from sacrebleu import sacrebleu as command

    streams = {0: StandardInput(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8", newline="\n"),
               1: StandardOutput()}

    def reopen(file, *arguments, **options):
        return streams[file] if isinstance(file, int) else open(file, *arguments, **options)

    err = io.StringIO()
    with mock.patch.object(sys, "argv", ["sacrebleu", *map(str, arguments)]), \
            mock.patch.object(sys, "stdin", streams[0]), mock.patch.object(sys, "stdout", streams[1]), \
            mock.patch.object(command, "open", reopen, create=True), mock.patch.dict(os.environ, NO_COLOR="1"), \
            contextlib.redirect_stderr(err):
        # The status the process would end with: the interpreter prints an exit's message, or an
        # error's traceback, and ends with 1.
        try:
            command.main()
            status = 0
        except SystemExit as exit:
            if exit.code is None or isinstance(exit.code, int):
                status = exit.code or 0
            else:
                print(exit.code, file=err)
                status = 1
        except Exception:
            traceback.print_exc(file=err)
            status = 1
    return Completed(status, streams[1].getvalue(), err.getvalue())


def ours(*arguments, stdin=None):
    """Our command line, in this process: what it prints and the status it exits with. ``stdin`` is
    text, or bytes (a file in another encoding, piped in)."""
    out, err = io.StringIO(), io.StringIO()
    piped = stdin if isinstance(stdin, bytes) else (stdin or "").encode("utf-8")
    standard_input = io.TextIOWrapper(io.BytesIO(piped), encoding="utf-8")
    with mock.patch.object(sys, "stdin", standard_input), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            status = cli.main([str(argument) for argument in arguments])
        except SystemExit as exit:  # argparse's own errors and --help
            status = exit.code
    return Completed(status, out.getvalue(), err.getvalue())


def same_but_version(ours, theirs):
    """Both outputs, with each tool's version in its signature masked."""
    return (re.sub(r"(version|v)(\"?: ?\"?)exactbleu-[\d.]+", r"\1\2V", ours),
            re.sub(r"(version|v)(\"?: ?\"?)2\.6\.0", r"\1\2V", theirs))


def assert_same_output(arguments, stdin=None):
    mine, theirs = ours(*arguments, stdin=stdin), run(*arguments, stdin=stdin)
    assert theirs.returncode == 0, theirs.stderr
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.strip()
    masked, sacrebleus = same_but_version(mine.stdout, theirs.stdout)
    assert masked == sacrebleus
    return mine.stdout


FLAG_SETS = [
    [],  # JSON, sacrebleu's default format
    ["-f", "text"],
    ["-b"],
    ["-b", "-w", "4", "-f", "text"],
    ["-w", "3"],
    ["-sh", "-f", "text"],
    ["-lc"],
    ["-tok", "intl"],
    ["-tok", "char", "-f", "text"],
    ["-tok", "none"],
    ["-tok", "zh"],
    ["-s", "floor", "-sv", "0.2"],
    ["-s", "add-k"],
    ["-s", "none", "-f", "text"],
    ["-ci", "-cin", "200"],
    ["-ci", "-cin", "200", "-f", "text", "-w", "2"],
    ["-sl"],
    ["-sl", "-w", "2", "-lc"],
    ["-sl", "-b"],
    ["-sl", "-s", "floor"],
    ["-m", "bleu", "--force", "-nc"],
]


@pytest.mark.parametrize("flags", FLAG_SETS, ids=" ".join)
@pytest.mark.parametrize("references", [["ref1"], ["ref1", "ref2"]], ids=["1 ref", "2 refs"])
def test_the_same_flags_print_what_sacrebleu_prints(files, flags, references):
    assert_same_output([*(files[name] for name in references), "-i", files["hyp"], *flags])


@pytest.mark.slow  # seconds of work: the full suite runs it, the fast tier leaves it
def test_sentence_level_on_wmt17_is_sacrebleus_line_for_line():
    """sacrebleu's -sl turns on effective order: without it, 13.7% of lines differed."""
    output = assert_same_output([REFERENCE, "-i", UEDIN, "-sl", "-w", "4"])
    assert len(output.splitlines()) == 3004


def test_standard_input_one_system_and_tab_separated_systems(files):
    hypotheses = files["hyp"].read_text(encoding="utf-8")
    assert_same_output([files["ref1"]], stdin=hypotheses)
    assert_same_output([files["ref1"], files["ref2"], "-f", "text"], stdin=files["both.tsv"].read_text(encoding="utf-8"))


def test_tab_separated_references_with_num_refs(files):
    assert_same_output([files["refs.tsv"], "-nr", "2", "-i", files["hyp"], "-f", "text"])


@pytest.mark.parametrize("flags", [["-f", "text"], [], ["-w", "2", "-f", "text"]], ids=" ".join)
def test_several_systems(files, flags):
    assert_same_output([files["ref1"], "-i", files["hyp"], files["sys2"], *flags])


@pytest.mark.slow
@pytest.mark.parametrize("test", [["--paired-bs", "--paired-bs-n", "200"], ["--paired-ar", "--paired-ar-n", "300"]],
                         ids=["bootstrap", "randomization"])
def test_paired_tests_give_sacrebleus_json_and_table(test):
    arguments = [REFERENCE, "-i", *SYSTEMS, *test]
    assert_same_output(arguments)  # JSON: the scores, p-values, means and intervals, unrounded
    mine, theirs = ours(*arguments, "-f", "text"), run(*arguments, "-f", "text")
    table = mine.stdout.split("\n\n")[0]
    assert table == theirs.stdout.split("\n\n")[0] and f"Baseline: {SYSTEMS[0]}" in table
    masked, sacrebleus = same_but_version(mine.stdout.split("Metric signatures")[1],
                                          theirs.stdout.split("Metric signatures")[1])
    assert masked == sacrebleus


def test_presets_hf_and_nltk_print_their_numbers_in_sacrebleus_format(wmt17):
    expected = wmt17["expected"]["uedin-nmt.4722"]["hf_bleu"]
    for preset in ("hf", "default"):
        result = json.loads(ours(REFERENCE, "-i", UEDIN, "--preset", preset, "-w", "6").stdout)
        assert result["name"] == "BLEU" and result["score"] == round(100 * expected["bleu"], 6)
        assert result["reflen"] == "shortest" and result["smooth"] == "none" and result["rstrip"] == "no"
        assert result["verbose_score"].endswith(f"hyp_len = {expected['translation_length']} "
                                                f"ref_len = {expected['reference_length']})")


def test_the_hf_preset_at_sentence_level_matches_hf(tmp_path):
    hypotheses = ["the cat sat on the mat", "a dog ran", "hello there general kenobi"]
    references = ["the cat is on the mat", "a dog ran home", "hello there"]
    (tmp_path / "hyp").write_text("\n".join(hypotheses) + "\n", encoding="utf-8")
    (tmp_path / "ref").write_text("\n".join(references) + "\n", encoding="utf-8")
    completed = ours(tmp_path / "ref", "-i", tmp_path / "hyp", "--preset", "hf", "-sl", "-b", "-w", "8")
    expected = [hf_bleu([h], [[r]])["bleu"] for h, r in zip(hypotheses, references)]
    assert completed.stdout.split() == [f"{100 * score:.8f}" for score in expected]


def test_the_metric_script_is_the_same_command_line(files):
    script = subprocess.run([sys.executable, METRIC_PATH, str(files["ref1"]), "-i", str(files["hyp"]), "-f", "text"],
                            capture_output=True, text=True, timeout=300, env=without_transformers())
    assert script.returncode == 0, script.stderr
    assert script.stdout == ours(files["ref1"], "-i", files["hyp"], "-f", "text").stdout


@pytest.mark.parametrize("case, words", [
    ("missing", ["no such file"]),
    ("encoding", ["line 1 is not valid UTF-8", "-e/--encoding"]),
    ("mismatch", ["3 lines", "3004"]),
    ("option", ["smooth_method", "floor", "conflicts"]),
    ("baseline", ["paired test needs a baseline"]),
    ("paired-n", ["--paired-n", "0"]),
    ("sentence-level", ["-sl scores one system"]),
    ("num-refs", ["line 1", "--num-refs 3"]),
])
def test_errors_are_one_line_and_a_non_zero_exit(tmp_path, case, words):
    (tmp_path / "three").write_text("a\nb\nc\n", encoding="utf-8")
    (tmp_path / "latin1").write_bytes("caf\xe9\n".encode("latin-1"))
    arguments = {
        "missing": [tmp_path / "nope.txt", "-i", UEDIN],
        "encoding": [tmp_path / "latin1", "-i", tmp_path / "latin1"],
        "mismatch": [tmp_path / "three", "-i", UEDIN],
        "option": [REFERENCE, "-i", UEDIN, "--smooth", "-s", "floor"],
        "baseline": [REFERENCE, "-i", UEDIN, "--paired-bs"],
        "paired-n": [REFERENCE, "-i", *SYSTEMS[:2], "--paired-ar", "--paired-n", "0"],
        "sentence-level": [REFERENCE, "-i", *SYSTEMS[:2], "-sl"],
        "num-refs": [tmp_path / "three", "-nr", "3", "-i", tmp_path / "three"],
    }[case]
    completed = ours(*arguments)
    assert completed.returncode != 0
    assert completed.stdout == ""
    assert len(completed.stderr.strip().splitlines()) == 1 and "Traceback" not in completed.stderr
    for word in words:
        assert word in completed.stderr


# Its third line starts with 0xff, which no UTF-8 holds.
LATIN_1_TEXT = ["the cat sat on the mat", "a dog ran home fast", "ÿþ bad day for the cat"]
UTF_8_TEXT = ["the cat sat on the mat", "a dog ran home fast", "a bad day for the cat"]
LATIN_1_LINES = "".join(line + "\n" for line in LATIN_1_TEXT).encode("latin-1")


@pytest.mark.parametrize("side", ["hypotheses", "references", "standard input"])
def test_a_file_that_is_not_utf8_is_named_with_its_line_and_the_encoding_flag(tmp_path, side):
    (tmp_path / "bad").write_bytes(LATIN_1_LINES)
    (tmp_path / "good").write_text("".join(line + "\n" for line in UTF_8_TEXT), encoding="utf-8")
    bad, good = str(tmp_path / "bad"), str(tmp_path / "good")
    arguments, stdin = {"hypotheses": ([good, "-i", bad], None), "references": ([bad, "-i", good], None),
                        "standard input": ([good], LATIN_1_LINES)}[side]
    named = {"hypotheses": f"hypotheses {bad}", "references": f"references {bad}",
             "standard input": "hypotheses on standard input"}[side]
    completed = ours(*arguments, "-b", stdin=stdin)
    assert (completed.returncode, completed.stdout) == (1, "")
    assert completed.stderr == (f"exactbleu: error: {named}: line 3 is not valid UTF-8 (byte 0xff at column 1); give "
                                f"the file's encoding with -e/--encoding, such as -e latin-1\n")
    # With its encoding given, it is read.
    hypotheses, references = (UTF_8_TEXT, LATIN_1_TEXT) if side == "references" else (LATIN_1_TEXT, UTF_8_TEXT)
    expected = 100 * hf_bleu(hypotheses, [[reference] for reference in references])["bleu"]
    assert 0 < expected < 100
    read = ours(*arguments, "-b", "-w", "6", "-e", "latin-1", "--preset", "hf", stdin=stdin)
    assert read.returncode == 0, read.stderr
    assert float(read.stdout) == pytest.approx(expected, abs=1e-6)


def test_the_conventions_subcommand_reads_with_the_encoding_flag_too(tmp_path):
    (tmp_path / "bad").write_bytes(LATIN_1_LINES)
    completed = ours("conventions", tmp_path / "bad", "-i", tmp_path / "bad")
    assert completed.returncode == 1 and "line 3 is not valid UTF-8 (byte 0xff at column 1)" in completed.stderr
    assert len(completed.stderr.splitlines()) == 1
    assert ours("conventions", tmp_path / "bad", "-i", tmp_path / "bad", "-e", "latin-1").returncode == 0


@pytest.mark.parametrize("arguments, said", [
    (["--smoth"], "unrecognized arguments: --smoth; did you mean '--smooth'?"),
    (["--max-ordr", "3"], "unrecognized arguments: --max-ordr 3; did you mean '--max-order 3'?"),
    (["-tok", "13b"], "argument -tok/--tokenize: invalid choice: '13b' (choose from '13a', 'intl', "),
    (["-tok", "13b"], "); did you mean '13a'?"),
    (["--preset", "sacrebleau"], "); did you mean 'sacrebleu'?"),
    (["-s", "flor"], "argument -s/--smooth-method: invalid choice: 'flor' (choose from 'none', 'floor', "),
    (["-s", "flor"], "); did you mean 'floor'?"),
])
def test_a_misspelled_flag_or_choice_gets_the_nearest_one(arguments, said):
    completed = ours(REFERENCE, "-i", UEDIN, *arguments)
    assert completed.returncode == 2 and completed.stdout == ""
    assert said in completed.stderr.splitlines()[-1]


@pytest.mark.parametrize("arguments", [["--zzzz"], ["-tok", "qqq"], ["conventions", REFERENCE, "--zzzz"]])
def test_a_name_near_no_valid_one_gets_no_suggestion(arguments):
    completed = ours(*arguments) if arguments[0] == "conventions" else ours(REFERENCE, "-i", UEDIN, *arguments)
    assert completed.returncode == 2 and "did you mean" not in completed.stderr


def test_the_conventions_subcommand_suggests_too():
    completed = ours("conventions", REFERENCE, "-i", UEDIN, "--tokenizers", "13b")
    assert completed.returncode == 2 and completed.stderr.splitlines()[-1].endswith("; did you mean '13a'?")


def test_a_missing_extra_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "sacremoses", None)  # as where it is not installed
    (tmp_path / "ref").write_text("a b\n", encoding="utf-8")
    completed = ours(tmp_path / "ref", "-i", tmp_path / "ref", "-tok", "moses")
    assert (completed.returncode, completed.stdout) == (1, "")
    assert completed.stderr == ("exactbleu: error: tokenizer='moses' needs `sacremoses` (not installed here: no module "
                                "named 'sacremoses'): pip install \"exactbleu[moses]\"\n")


def test_other_metrics_are_refused_by_name():
    completed = ours(REFERENCE, "-i", UEDIN, "-m", "chrf")
    assert completed.returncode == 2 and "invalid choice: 'chrf'" in completed.stderr and "Traceback" not in completed.stderr


def test_the_command_line_and_the_functional_api_never_import_evaluate_datasets_or_transformers():
    code = """if True:
        import contextlib, io, sys
        import exactbleu, exactbleu.cli
        exactbleu.corpus_bleu(["a b c d"], [["a b c d"]])
        exactbleu.score(exactbleu.statistics(["a b"], ["a b"]).vector())
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exactbleu.cli.main(["--help"])
            except SystemExit:
                pass
        print(sorted(m for m in ("evaluate", "datasets", "transformers", "torch", "pyarrow") if m in sys.modules))
    """
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_with_no_input_and_a_terminal_on_stdin_it_prints_its_usage_and_exits_2():
    """Nothing to read but a terminal: a user would wait for ever, so the usage is printed."""
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = io.StringIO()
    with mock.patch.object(sys, "stdin", Terminal()), contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        assert cli.main([]) == 2
    assert err.getvalue().startswith("usage: exactbleu") and "--help" in err.getvalue()


@pytest.mark.slow  # processes of their own
@pytest.mark.parametrize("arguments", [["REFERENCE", "-i", "UEDIN", "-sl", "-f", "text"],
                                       ["conventions", "REFERENCE", "-i", "UEDIN", "-f", "json"]],
                         ids=["bleu", "conventions"])
def test_a_reader_that_goes_away_ends_it_quietly_as_sacrebleu(arguments, tmp_path):
    """`exactbleu ... | head -1`, with more than a pipe holds: no traceback, and SIGPIPE's status,
    as sacrebleu's own. WMT17's first 1,000 lines: their sentence scores (150 KB), or every
    convention's row (440 KB), are more than twice what a pipe holds (64 KB)."""
    files = {}
    for name, path in (("REFERENCE", REFERENCE), ("UEDIN", UEDIN)):
        files[name] = tmp_path / path.name
        files[name].write_text("".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[:1000]),
                               encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "exactbleu", *(str(files.get(word, word)) for word in arguments)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=without_transformers())
    process.stdout.readline()
    process.stdout.close()  # the reader goes away after one line
    _, err = process.communicate(timeout=120)
    assert (process.returncode, err) == (141, b"")


@pytest.mark.parametrize("arguments", [["-t", "wmt17", "-l", "en-de", "-i", UEDIN],
                                       ["--test-set", "wmt17", "--language-pair", "en-de", "-i", UEDIN]],
                         ids=["short", "long"])
def test_sacrebleus_test_set_flags_say_that_nothing_is_downloaded(arguments):
    completed = ours(*arguments)
    assert completed.returncode == 1 and completed.stdout == ""
    assert "not downloaded" in completed.stderr and "reference files" in completed.stderr


@pytest.mark.parametrize("flag, value", [("--smooth-m", "floor"), ("--token", "intl"), ("--pre", "hf")])
def test_abbreviated_options_are_refused(flag, value):
    completed = ours(REFERENCE, "-i", UEDIN, flag, value)
    assert completed.returncode == 2 and "unrecognized arguments" in completed.stderr


def test_help_loads_no_numpy():
    """`exactbleu --help` is as quick as sacrebleu's: nothing heavy is imported before the
    arguments are read (numpy alone takes about 90 ms)."""
    code = """if True:
        import contextlib, io, sys
        import exactbleu.cli
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exactbleu.cli.main(["--help"])
            except SystemExit:
                pass
        print(sorted(m for m in ("numpy", "scipy", "regex", "sacremoses") if m in sys.modules))
    """
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


@pytest.mark.slow
def test_three_ways_to_the_command_line_print_the_same(tmp_path):
    reference, hypothesis = tmp_path / "ref", tmp_path / "hyp"
    reference.write_text("the cat sat on a mat\na dog ran home\n", encoding="utf-8")
    hypothesis.write_text("the cat sat on the mat\na dog ran\n", encoding="utf-8")
    console = shutil.which("exactbleu", path=os.path.dirname(sys.executable))
    assert console, "the exactbleu command is not installed"
    outputs = [subprocess.run([*command, str(reference), "-i", str(hypothesis), "--preset", "sacrebleu"], cwd=tmp_path,
                              env=without_transformers(), capture_output=True, text=True, timeout=300)
               for command in ([console], [sys.executable, "-m", "exactbleu"], [sys.executable, METRIC_PATH])]
    assert all(output.returncode == 0 for output in outputs), [output.stderr for output in outputs]
    assert len({output.stdout for output in outputs}) == 1
    assert json.loads(outputs[0].stdout)["version"] == "exactbleu-2.1.0"


def test_a_command_line_flag_for_each_declared_flag():
    help_text = subprocess.run([sys.executable, "-m", "exactbleu", "--help"], capture_output=True, text=True,
                               timeout=300).stdout
    for option in OPTIONS.values():
        for flag in option.flags:
            assert flag in help_text
