"""What the BLEU scripts of MT papers printed when run (tests/data/mt-scripts: the recordings, the
recorder with its commands, the scripts' provenance), and the files they read, written again."""

import functools
import gzip
import importlib.util
import json
import re

from conftest import ROOT
from exactbleu.cli import main

RECORDED = ROOT / "tests" / "data" / "mt-scripts"


def recorded(name):
    with gzip.open(RECORDED / name, "rt", encoding="utf-8") as file:
        return json.load(file)


DRAWN = recorded("drawn.json.gz")["cases"]


def written(folder, case):
    """The drawn case's files, as the recorder wrote them: the hypothesis, then each reference."""
    paths = []
    for name, lines in (("hyp", case["hyp"]), *((f"ref.{n}", ref) for n, ref in enumerate(case["refs"]))):
        ending = case["trailing_newline"] and not (name == "hyp" and case["hyp_without_final_newline"])
        path = folder / name
        path.write_bytes((case["eol"].join(lines) + (case["eol"] if ending else "")).encode("utf-8"))
        paths.append(str(path))
    return paths[0], paths[1:]


def lines_of(case, side):
    """A drawn file's lines as a Perl script reads them: each without its line break only."""
    lines = case["hyp"] if side == "hyp" else case["refs"][int(side.removeprefix("ref."))]
    ending = case["trailing_newline"] and not (side == "hyp" and case["hyp_without_final_newline"])
    text = case["eol"].join(lines) + (case["eol"] if ending else "")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def command(capsys, *argv):
    """The command line's exit status, standard output and standard error."""
    status = main([str(one) for one in argv])
    out, err = capsys.readouterr()
    return status, out, err


@functools.cache
def recorder():
    """The recorder itself, whose writers made the files the scripts read."""
    spec = importlib.util.spec_from_file_location("record_mt_scripts", RECORDED / "record_mt_scripts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mteval_files(folder, case, form):
    """The drawn case's SGML or XML files for mteval, as the recorder wrote them: ``"raw"`` (the
    text as it is), ``"wrapxml-escaped"`` (escaped as wrap-xml.perl escapes) or ``"xml"``."""
    hypothesis, references = written(folder, case)
    writer, folder = recorder(), folder / form
    folder.mkdir()
    lines = {path: writer.read_lines_eol(path, case["eol"]) for path in [hypothesis, *references]}
    escape, xml = (writer.sgml_escape_wrapxml if form == "wrapxml-escaped" else None), form == "xml"
    paths = {kind: str(folder / f"{kind}.{'xml' if xml else 'sgm'}") for kind in ("src", "ref", "tst")}
    writer.write_sgml(paths["src"], "src", "drawn", [("src", lines[references[0]])], escape, xml)
    writer.write_sgml(paths["ref"], "ref", "drawn", [(f"ref{n}", lines[path]) for n, path in enumerate(references)],
                      escape, xml)
    writer.write_sgml(paths["tst"], "tst", "drawn", [("hyp", lines[hypothesis])], escape, xml)
    return paths


def mteval_printed(stdout, detail=2):
    """What mteval printed of its systems: from its first line after the sets' summary to its last
    system score, each document's line if ``detail`` >= 1 and each segment's if 2."""
    lines = stdout.split("\n")
    start = next(number for number, line in enumerate(lines) if line.startswith("    tst set")) + 2
    end = max(number for number, line in enumerate(lines) if line.startswith("BLEU score = "))
    kept = [line for line in lines[start:end + 1]
            if (detail >= 2 or not line.startswith("  BLEU score using 4-grams"))
            and (detail >= 1 or not line.startswith("BLEU score using   4-grams"))]
    while kept and kept[0] == "":  # mteval's blank line before a system's score, where nothing precedes it
        kept.pop(0)
    return "\n".join(kept) + "\n"


def mteval_options(arguments):
    """mteval's flags as options of its presets."""
    options = {"lowercase": False} if "-c" in arguments else {}
    if "--no-smoothing" in arguments:
        options["smooth_method"] = "mteval-no-smoothing"
    if "--international-tokenization" in arguments:
        options["tokenizer"] = "mteval-intl"
    if "shortest" in arguments:
        options["ref_length"] = "shortest"
    return options


def mteval_flags(arguments):
    """mteval's flags as the command line's: the preset's options and -d."""
    options = mteval_options(arguments)
    flags = [] if options.pop("lowercase", True) else ["--no-lowercase"]
    flags += [flag for name, value in options.items()
              for flag in ({"smooth_method": "-s", "tokenizer": "-tok", "ref_length": "--ref-length"}[name], value)]
    found = re.search(r"-d (\d)", " ".join(arguments))
    return flags + (["-d", found[1]] if found and found[1] != "0" else [])
