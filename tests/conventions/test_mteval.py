"""mteval-v13a.pl (Moses's copy), mteval-v14.pl and NIST's own v13a as presets: what they print of a
system (Moses's v13a, when it smooths, its length ratio first), and with -d 1 and -d 2 of each document
and segment, digit for digit, through the command line, on what they printed when run
(tests/data/mt-scripts): on plain text, on their own SGML and XML files (several documents, systems
and references, segment ids out of order, a source that names fewer documents, markup in capitals,
line breaks inside XML segments), and where they stop. NIST's v13a prints as v14 does here.
"""

import re

import pytest

import exactbleu
from recordings import DRAWN, command, mteval_files, mteval_flags, mteval_options, mteval_printed, recorded, written


def preset_of(script):
    """The preset of a recorded script: NIST's v13a prints no length ratio, as v14."""
    return "mteval-v13a" if script == "v13a" else "mteval-v14"


def aligned(case):
    return len({len(case["hyp"]), *map(len, case["refs"])}) == 1


@pytest.mark.parametrize("case", DRAWN, ids=[case["name"] for case in DRAWN])
def test_mteval_prints_its_systems_score_on_the_segments_text(case, tmp_path, capsys):
    """Plain files, read a segment a line: the system's lines and every segment's score
    (``sentence_scores``), under each of mteval's flags."""
    if any("</seg" in line.lower() for line in [*case["hyp"], *sum(case["refs"], [])]):
        return  # a text that holds </seg> ends its SGML segment there: mteval read other segments
    hypotheses, references = written(tmp_path, case)
    groups = [list(group) for group in zip(*case["refs"])]
    for run, expected in case["runs"].items():
        found = re.fullmatch(r"mteval-(v13a|v14|nist)/raw/(.*)", run)
        if not found or " -e " in f" {found[2]} " or not aligned(case) or "-b" not in found[2]:
            continue
        preset, arguments = preset_of(found[1]), found[2].split()
        flags = [flag for flag in mteval_flags(arguments) if flag not in ("-d", "2")]
        status, out, err = command(capsys, *references, "-i", hypotheses, "--preset", preset, *flags)
        if expected["rc"] != 0:  # v13a stops on hypotheses without a word
            assert status == 1 and "no words" in err, run
            continue
        assert (status, out) == (0, mteval_printed(expected["stdout"], 0)), run
        segments = re.findall(r"BLEU score using 4-grams = (\S+) for system", expected["stdout"])
        scores = exactbleu.sentence_scores(case["hyp"], groups, preset, **mteval_options(arguments))
        assert [f"{score:.4f}" for score in scores] == segments, run


@pytest.mark.parametrize("case", DRAWN, ids=[case["name"] for case in DRAWN])
def test_mteval_prints_each_segment_and_document_of_its_files(case, tmp_path, capsys):
    """The same lines written as mteval's SGML (as they are, and escaped as wrap-xml.perl escapes)
    and XML, read as mteval reads them, with -d 2: every line from the first segment's to the
    system's score."""
    if not aligned(case) or not case["hyp"]:
        return  # mteval stops where the files hold different numbers of segments
    files = {}
    for run, expected in case["runs"].items():
        found = re.fullmatch(r"mteval-(v13a|v14|nist)/(raw|wrapxml-escaped|xml)/(-b .*)", run)
        if not found or " -e " in f" {found[3]} ":
            continue
        if found[2] not in files:
            files[found[2]] = mteval_files(tmp_path, case, found[2])
        paths = files[found[2]]
        status, out, err = command(capsys, paths["ref"], "-i", paths["tst"], "--source", paths["src"], "--preset",
                                   preset_of(found[1]), *mteval_flags(found[3].split()))
        if expected["rc"] != 0:
            assert status == 1 and out == "", run
        elif "--international-tokenization" in run and found[2] == "xml" and any(
                re.search(r'<seg id="\d+">[\t\n\r\x0b\x0c\x85]', open(paths[kind], encoding="utf-8").read())
                for kind in ("ref", "tst")):  # an empty word counted before a tab or line break
            assert status == 1 and "empty word" in err, run
        else:
            assert (status, out) == (0, mteval_printed(expected["stdout"])), run


FILES = recorded("mteval_files.json.gz")["cases"]


@pytest.mark.parametrize("case", FILES, ids=[case["name"] for case in FILES])
def test_mteval_reads_its_files_as_it_does(case, tmp_path, capsys):
    """WMT's shapes of mteval's files: documents, systems and references in one file each, and
    what mteval refuses (a segment id 0, a missing document, a document with fewer segments,
    another setid, a document twice), with -d 1 and 2 and each flag."""
    for name, text in case["files"].items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    for run, expected in case["runs"].items():
        script, arguments = run.split(":", 1)
        status, out, err = command(capsys, tmp_path / case["ref"], "-i", tmp_path / case["tst"], "--source",
                                   tmp_path / case["src"], "--preset", preset_of(script),
                                   *mteval_flags(arguments.split()))
        if expected["rc"] != 0:
            assert status == 1 and out == "" and err.startswith("exactbleu: error: "), run
        elif case["name"] == "xml" and "--international-tokenization" in arguments:
            # Its segments that start with a tab or a line break count an empty word there.
            assert status == 1 and "empty word" in err, run
        else:
            assert (status, out) == (0, mteval_printed(expected["stdout"])), run


def test_mteval_takes_the_first_systems_documents_without_a_source(tmp_path, capsys):
    case = FILES[0]
    for name, text in case["files"].items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    expected = mteval_printed(case["runs"]["v14:-b -d 2"]["stdout"])
    argv = (tmp_path / "ref.sgm", "-i", tmp_path / "tst.sgm", "--preset", "mteval-v14", "-d", "2")
    assert command(capsys, *argv) == (0, expected, "")


def test_mteval_files_refuse_what_they_cannot_mean(tmp_path, capsys):
    """-d and --source need mteval's files under its presets; its files cannot mix with plain ones."""
    case = FILES[0]
    for name, text in case["files"].items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    (tmp_path / "plain").write_text("a b c\n")
    refused = [
        ((tmp_path / "plain", "-i", tmp_path / "plain", "--preset", "mteval-v14", "-d", "2"), "-d/--detail"),
        ((tmp_path / "ref.sgm", "-i", tmp_path / "tst.sgm", "-d", "2"), "-d/--detail"),
        ((tmp_path / "plain", "-i", tmp_path / "plain", "--preset", "mteval-v14", "--source", tmp_path / "src.sgm"),
         "--source"),
        ((tmp_path / "plain", "-i", tmp_path / "tst.sgm", "--preset", "mteval-v14"), "all as SGML"),
    ]
    for argv, said in refused:
        status, out, err = command(capsys, *argv)
        assert status == 1 and out == "" and said in err, argv
    with pytest.raises(SystemExit):  # mteval's -d 3 prints its n-grams: not here
        command(capsys, tmp_path / "ref.sgm", "-i", tmp_path / "tst.sgm", "--preset", "mteval-v14", "-d", "3")
    assert "invalid choice: 3" in capsys.readouterr().err


@pytest.mark.slow  # one system each way, two others by default
def test_mteval_prints_its_system_score_on_wmt17(wmt17):
    variants, cache = recorded("wmt17_mteval.json.gz")["variants"], exactbleu.ReferenceCache()
    for system in ("uedin-nmt.4722", "SYSTRAN.4847", "online-A.0"):  # the last two hold capital umlauts
        for variant in variants if system == "uedin-nmt.4722" else variants[:1]:
            options = mteval_options(variant["args"])
            counted = exactbleu.statistics(wmt17["systems"][system], wmt17["reference"], "mteval-v14", cache=cache,
                                           **options)
            expected = re.search(r"BLEU score = (\S+) for system", variant["systems"][system]["stdout"])[1]
            assert f"{exactbleu.score(counted, 'mteval-v14', **options)['bleu']:.4f}" == expected, variant["args"]
