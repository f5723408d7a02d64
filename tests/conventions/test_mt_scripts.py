"""The BLEU scripts of MT papers as presets: Moses's multi-bleu.perl and multi-bleu-detok.perl, and
tensor2tensor's t2t-bleu. Each preset prints the script's line digit for digit (t2t: gives its
float32) from the same statistics, through the command line, on what the scripts printed when run:
tests/data/mt-scripts holds the recordings, the recorder with its commands, and the scripts'
provenance (WMT17's 16 systems, and 46 drawn texts of capitals beyond ASCII, compounds, entities,
<skipped>, empty and very long lines, several references). "Which BLEU?" names each script first.
"""

import gzip
import json
import math

import pytest

import exactbleu
from conftest import ROOT, WMT17
from exactbleu.cli import main

RECORDED = ROOT / "tests" / "data" / "mt-scripts"


def recorded(name):
    with gzip.open(RECORDED / name, "rt", encoding="utf-8") as file:
        return json.load(file)


DRAWN = recorded("drawn.json.gz")["cases"]
# multi-bleu.perl and multi-bleu-detok.perl, each cased and with -lc: the recording's run, the preset, its flags.
MOSES = [("multi-bleu/raw/cased", "multi-bleu", []), ("multi-bleu/raw/lc", "multi-bleu", ["-lc"]),
         ("multi-bleu-detok/cased", "multi-bleu-detok", []), ("multi-bleu-detok/lc", "multi-bleu-detok", ["-lc"])]
T2T = [("t2t/ref.0/cased", ["--no-lowercase"], False), ("t2t/ref.0/uncased", [], True)]


def written(folder, case):
    """The drawn case's files, as the recorder wrote them: the hypothesis, then each reference."""
    paths = []
    for name, lines in (("hyp", case["hyp"]), *((f"ref.{n}", ref) for n, ref in enumerate(case["refs"]))):
        ending = case["trailing_newline"] and not (name == "hyp" and case["hyp_without_final_newline"])
        path = folder / name
        path.write_bytes((case["eol"].join(lines) + (case["eol"] if ending else "")).encode("utf-8"))
        paths.append(str(path))
    return paths[0], paths[1:]


def command(capsys, *argv):
    """The command line's exit status, standard output and standard error."""
    status = main([str(one) for one in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("case", DRAWN, ids=[case["name"] for case in DRAWN])
def test_each_moses_script_prints_its_line_on_drawn_texts(case, tmp_path, capsys):
    hypotheses, references = written(tmp_path, case)
    aligned = len({len(case["hyp"]), *map(len, case["refs"])}) == 1
    for run, preset, flags in MOSES:
        expected = case["runs"][run]
        status, out, err = command(capsys, *references, "-i", hypotheses, "--preset", preset, *flags)
        refused = status == 1 and out == "" and err.startswith("exactbleu: error: ")
        if not aligned:  # the script pairs what it can; exactbleu refuses files that do not align
            assert refused and "lines" in err, run
        elif expected["rc"] == 255:  # the script divides by zero on hypotheses without a word
            assert refused and "no words" in err, run
        elif run.endswith("/lc") and preset == "multi-bleu-detok" and case["name"] in ("sgml-entities", "skipped-tags"):
            # It lowercases a hypothesis before tokenizing and a reference after: <SKIPPED> is
            # deleted from the one and kept in the other.
            assert refused and "<skipped>" in err, run
        else:
            assert (status, out) == (0, expected["stdout"]), run


@pytest.mark.parametrize("case", DRAWN, ids=[case["name"] for case in DRAWN])
def test_t2t_bleu_gives_its_float32_and_prints_its_line_on_drawn_texts(case, tmp_path, capsys):
    hypotheses, references = written(tmp_path, case)
    for run, flags, lowercase in T2T:
        expected = case["runs"][run]
        status, out, err = command(capsys, references[0], "-i", hypotheses, "--preset", "t2t-bleu", *flags)
        if "value" not in expected:  # bleu_wrapper asserts that the files have as many lines
            assert status == 1 and out == "" and "lines" in err, run
            continue
        assert (status, out) == (0, expected["t2t_bleu_line"] + "\n"), run
        # bleu_wrapper's lines: split at each line break, a carriage return kept.
        lines = [path_text.split("\n") for path_text in (open(hypotheses, encoding="utf-8", newline="").read(),
                                                        open(references[0], encoding="utf-8", newline="").read())]
        counted = exactbleu.statistics(lines[0], [[line] for line in lines[1]], "t2t-bleu", lowercase=lowercase)
        sums, stats = counted.sums(), expected["stats"]
        assert [int(sums.prediction_length), int(sums.reference_length)] == [stats["hyp_len"], stats["ref_len"]]
        assert list(map(int, sums.matches)) == stats["matches"] and list(map(int, sums.totals)) == stats["totals"]
        assert exactbleu.score(counted, "t2t-bleu", lowercase=lowercase)["bleu"] == expected["value"], run


@pytest.mark.slow  # 16 systems of 3,004 lines, six ways each
def test_each_script_prints_its_line_on_every_wmt17_system(capsys):
    moses = {"multi-bleu": recorded("wmt17_multi_bleu.json.gz")["variants"]["raw"]["systems"],
             "multi-bleu-detok": recorded("wmt17_multi_bleu_detok.json.gz")["systems"]}
    t2t = recorded("wmt17_t2t.json.gz")["systems"]
    reference = WMT17 / "newstest2017.ref.de"
    assert len(t2t) == 16
    for system in t2t:
        hypotheses = WMT17 / "systems" / f"{system}.de"
        for run, preset, flags in MOSES:
            expected = moses[preset][system][run.rsplit("/", 1)[1]]["stdout"]
            assert command(capsys, reference, "-i", hypotheses, "--preset", preset, *flags) == (0, expected, ""), run
        for run, flags, _ in T2T:
            expected = t2t[system][run.rsplit("/", 1)[1]]["t2t_bleu_line"] + "\n"
            assert command(capsys, reference, "-i", hypotheses, "--preset", "t2t-bleu", *flags) == (0, expected, "")


@pytest.mark.slow  # every convention on a WMT17 system, about 4 s
def test_which_bleu_names_each_scripts_number_first(wmt17):
    """uedin-nmt's multi-bleu.perl -lc prints 23.98, which NLTK's arithmetic on lowercased text also
    rounds to: identify names the script. Then every number the scripts printed for that system, from
    the same table: the script's convention comes first, or after presets' own numbers that are the
    same float (multi-bleu-detok.perl's statistics are sacrebleu's on this text)."""
    system = "uedin-nmt.4722"
    hypotheses, reference = wmt17["systems"][system], wmt17["reference"]
    found = exactbleu.identify(hypotheses, reference, "23.98")
    assert (found.matches[0].preset, found.matches[0].options) == ("multi-bleu", {"lowercase": True})
    table = found.conventions
    moses = {"multi-bleu": recorded("wmt17_multi_bleu.json.gz")["variants"]["raw"]["systems"][system],
             "multi-bleu-detok": recorded("wmt17_multi_bleu_detok.json.gz")["systems"][system]}
    printed = [(preset, case == "lc", runs[case]["parsed"]["bleu"]) for preset, runs in moses.items() for case in runs]
    t2t = recorded("wmt17_t2t.json.gz")["systems"][system]
    printed += [("t2t-bleu", case == "uncased", t2t[case]["t2t_bleu_line"].split("=")[1].strip()) for case in t2t]
    printed += [("t2t-bleu", case == "uncased", f"{t2t[case]['value']:.4f}") for case in t2t]  # bleu_wrapper's float
    assert len(printed) == 8
    for preset, lowercase, number in printed:
        decimals = len(number.split(".")[1])
        matches = [row for row in table if f"{row.score:.{decimals}f}" == number]
        script = next(row for row in matches
                      if row.preset == preset and row.options.get("lowercase", preset == "t2t-bleu") == lowercase)
        ahead = matches[:matches.index(script)]
        assert all(row.departures == 0 and row.score == script.score for row in ahead), (number, ahead)
        assert math.isclose(script.score, float(number), abs_tol=0.5 * 10**-decimals)
