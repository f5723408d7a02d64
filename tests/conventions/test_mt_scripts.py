"""The BLEU scripts of MT papers as presets: Moses's multi-bleu.perl and multi-bleu-detok.perl,
tensor2tensor's t2t-bleu, and tokenized BLEU (tokenizer.perl, then multi-bleu.perl; tensor2tensor's
get_ende_bleu.sh); mteval's in test_mteval.py. Each preset prints the script's line digit for digit
(t2t: gives its float32) from the same statistics, through the command line, on what the scripts
printed when run:
tests/data/mt-scripts holds the recordings, the recorder with its commands, and the scripts'
provenance (WMT17's 16 systems, and 46 drawn texts of capitals beyond ASCII, compounds, entities,
<skipped>, empty and very long lines, several references). "Which BLEU?" names each script first.
"""

import math
import re

import pytest

import exactbleu
from conftest import WMT17
from exactbleu.cli.printing import LINES
from exactbleu.tokenizers.moses_perl import tokenize_perl
from recordings import DRAWN, command, lines_of, recorded, written

# multi-bleu.perl and multi-bleu-detok.perl, each cased and with -lc: the recording's run, the preset, its flags.
MOSES = [("multi-bleu/raw/cased", "multi-bleu", []), ("multi-bleu/raw/lc", "multi-bleu", ["-lc"]),
         ("multi-bleu-detok/cased", "multi-bleu-detok", []), ("multi-bleu-detok/lc", "multi-bleu-detok", ["-lc"])]
T2T = [("t2t/ref.0/cased", ["--no-lowercase"], False), ("t2t/ref.0/uncased", [], True)]
# tokenizer.perl's runs: its flags as the tokenizer's settings.
TOKENIZED = {"tok-l-en": ("en", False, True), "tok-l-en-a": ("en", True, True), "tok-l-de": ("de", False, True),
             "tok-l-de-a": ("de", True, True), "tok-l-de-no-escape": ("de", False, False),
             "tok-l-en-no-escape-a": ("en", True, False)}
# multi-bleu.perl on tokenizer.perl's tokens (-no-escape changes no count), and get_ende_bleu.sh's pipeline.
PIPELINES = {"tok-l-de": ["--preset", "tokenized-bleu", "--lang", "de"],
             "tok-l-de-a": ["--preset", "tokenized-bleu", "--lang", "de", "--aggressive-dash-splits"],
             "tok-l-de-no-escape": ["--preset", "tokenized-bleu", "--lang", "de"],
             "t2t-get_ende_bleu": ["--preset", "t2t-ende"]}


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
def test_tokenized_bleu_is_tokenizer_perl_then_multi_bleu_on_drawn_texts(case, tmp_path, capsys):
    """tokenizer.perl's tokens of each line (English and German, with -a and without, escaped and
    not), then multi-bleu.perl on them, and get_ende_bleu.sh's whole pipeline."""
    for run, (language, aggressive, escape) in TOKENIZED.items():
        for side in ["hyp", *(f"ref.{number}" for number in range(len(case["refs"])))]:
            recorded_lines = case["runs"][f"tokenize/{run}/{side}"]["output"].split("\n")[:-1]
            assert [tokenize_perl(line, language, aggressive, escape) for line in lines_of(case, side)] == \
                [line.split() for line in recorded_lines], (run, side)
    hypotheses, references = written(tmp_path, case)
    aligned = len({len(case["hyp"]), *map(len, case["refs"])}) == 1
    for run, flags in PIPELINES.items():
        for case_flags, name in (([], "cased"), (["-lc"], "lc")):
            expected = case["runs"][f"multi-bleu/{run}/{name}"]
            status, out, err = command(capsys, *references, "-i", hypotheses, *flags, *case_flags)
            if not aligned or expected["rc"] == 255:
                assert status == 1 and out == "", (run, name)
            else:
                assert (status, out) == (0, expected["stdout"]), (run, name)


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


# The WMT17 systems where the scripts part from their neighbours: PROMT's no-break spaces (no
# whitespace to multi-bleu.perl), RWTH's backslashes (never split by t2t), and capital umlauts (A-Z
# lowercasing against Perl's and Python's). Every system gave every script's number when this was
# written; the recordings hold all 16.
SYSTEMS = ["uedin-nmt.4722", "PROMT-Rule-based.4735", "RWTH-nmt-ensemble.4921", "SYSTRAN.4847", "online-A.0",
           "online-G.0"]


@pytest.mark.slow  # 6 systems of 3,004 lines, six ways each
def test_each_script_prints_its_line_on_wmt17(wmt17, capsys):
    """Two systems through the command line; the others' lines from their statistics, as the
    command line prints them, with the reference counted once for all (``ReferenceCache``)."""
    moses = {"multi-bleu": recorded("wmt17_multi_bleu.json.gz")["variants"]["raw"]["systems"],
             "multi-bleu-detok": recorded("wmt17_multi_bleu_detok.json.gz")["systems"]}
    t2t = recorded("wmt17_t2t.json.gz")["systems"]
    reference, cache = WMT17 / "newstest2017.ref.de", exactbleu.ReferenceCache()
    assert sorted(t2t) == sorted(wmt17["systems"]) and len(t2t) == 16
    for system in SYSTEMS:
        hypotheses = WMT17 / "systems" / f"{system}.de"
        runs = [(preset, flags, moses[preset][system][run.rsplit("/", 1)[1]]["stdout"]) for run, preset, flags in MOSES]
        runs += [("t2t-bleu", flags, t2t[system][run.rsplit("/", 1)[1]]["t2t_bleu_line"] + "\n")
                 for run, flags, _ in T2T]
        for preset, flags, expected in runs:
            if system in ("uedin-nmt.4722", "RWTH-nmt-ensemble.4921"):
                assert command(capsys, reference, "-i", hypotheses, "--preset", preset, *flags) == (0, expected, "")
                continue
            options = {"lowercase": "-lc" in flags} if flags else {}
            counted = exactbleu.statistics(wmt17["systems"][system], wmt17["reference"], preset, cache=cache, **options)
            settings = exactbleu.resolve_settings(preset, **options)
            printed = LINES[exactbleu.PRESETS[preset].prints](counted.sums(), exactbleu.scored(counted, settings),
                                                              settings, exactbleu.PRESETS[preset].script, system)
            assert printed + "\n" == expected, (system, preset, flags)


@pytest.mark.slow  # two systems, three pipelines, cased and lowercased
def test_tokenized_bleu_prints_multi_bleus_line_on_wmt17(capsys):
    """German: tokenizer.perl -l de (and -a) then multi-bleu.perl, and get_ende_bleu.sh's pipeline."""
    recorded_runs = recorded("wmt17_multi_bleu.json.gz")["variants"]
    reference = WMT17 / "newstest2017.ref.de"
    for system in ("uedin-nmt.4722", "RWTH-nmt-ensemble.4921"):
        for run in ("tok-l-de", "tok-l-de-a", "t2t-get_ende_bleu"):
            for case_flags, name in (([], "cased"), (["-lc"], "lc")):
                expected = recorded_runs[run]["systems"][system][name]["stdout"]
                argv = (reference, "-i", WMT17 / "systems" / f"{system}.de", *PIPELINES[run], *case_flags)
                assert command(capsys, *argv) == (0, expected, ""), (system, run, name)


@pytest.mark.slow  # every convention on a WMT17 system, about 4 s
def test_which_bleu_names_each_scripts_number_first(wmt17):
    """uedin-nmt's multi-bleu.perl -lc prints 23.98, which NLTK's arithmetic on lowercased text also
    rounds to: identify names the script. Then every number the scripts printed for that system, from
    the same table: the script's convention comes first, or after other named tools' that give it too
    (multi-bleu-detok.perl's statistics are sacrebleu's on this text; its -lc, mteval's default)."""
    system = "uedin-nmt.4722"
    hypotheses, reference = wmt17["systems"][system], wmt17["reference"]
    # German: tokenizer.perl's pipelines need the language.
    found = exactbleu.identify(hypotheses, reference, "23.98", language="de")
    assert (found.matches[0].preset, found.matches[0].options) == ("multi-bleu", {"lowercase": True})
    table = found.conventions
    moses = {"multi-bleu": recorded("wmt17_multi_bleu.json.gz")["variants"]["raw"]["systems"][system],
             "multi-bleu-detok": recorded("wmt17_multi_bleu_detok.json.gz")["systems"][system]}
    printed = [(preset, case == "lc", runs[case]["parsed"]["bleu"]) for preset, runs in moses.items() for case in runs]
    t2t = recorded("wmt17_t2t.json.gz")["systems"][system]
    printed += [("t2t-bleu", case == "uncased", t2t[case]["t2t_bleu_line"].split("=")[1].strip()) for case in t2t]
    printed += [("t2t-bleu", case == "uncased", f"{t2t[case]['value']:.4f}") for case in t2t]  # bleu_wrapper's float
    mteval = {tuple(variant["args"]): variant["systems"][system]["stdout"]
              for variant in recorded("wmt17_mteval.json.gz")["variants"] if variant["script"] == "v13a"}
    printed += [("mteval-v13a", not arguments, re.search(r"BLEU score = (\S+)", mteval[arguments])[1])
                for arguments in ((), ("-c", "-b"))]
    assert len(printed) == 10
    tokenized = recorded("wmt17_multi_bleu.json.gz")["variants"]
    for preset, run in (("tokenized-bleu", "tok-l-de"), ("t2t-ende", "t2t-get_ende_bleu")):
        number = tokenized[run]["systems"][system]["cased"]["parsed"]["bleu"]
        first = next(row for row in table if f"{row.score:.2f}" == number)
        assert (first.preset, first.options.get("lowercase", False)) == (preset, False), number
    for preset, lowercase, number in printed:
        decimals = len(number.split(".")[1])
        matches = [row for row in table if f"{row.score:.{decimals}f}" == number]
        default = exactbleu.PRESETS[preset].options.get("lowercase", False)
        script = next(row for row in matches if row.preset == preset and row.options.get("lowercase", default) == lowercase)
        ahead = matches[:matches.index(script)]  # only named tools' numbers: presets' own, or scripts'
        assert all(row.departures == 0 or exactbleu.PRESETS[row.preset].script for row in ahead), (number, ahead)
        assert math.isclose(script.score, float(number), abs_tol=0.5 * 10**-decimals)
