#!/usr/bin/env python3
"""Record what the BLEU scripts of MT papers print, as ground truth for exactbleu's presets.

The scripts themselves are NOT part of this repository. Fetch them yourself and lay them out
under one folder, SCRIPTS, like this (missing optional parts are skipped and said so):

    SCRIPTS/moses/scripts/generic/multi-bleu.perl           mosesdecoder (required)
    SCRIPTS/moses/scripts/generic/multi-bleu-detok.perl     mosesdecoder
    SCRIPTS/moses/scripts/generic/mteval-v13a.pl            mosesdecoder (Moses's edited copy)
    SCRIPTS/moses/scripts/generic/mteval-v14.pl             mosesdecoder
    SCRIPTS/moses/scripts/tokenizer/tokenizer.perl          mosesdecoder
    SCRIPTS/moses/scripts/tokenizer/replace-unicode-punctuation.perl
    SCRIPTS/moses/scripts/share/nonbreaking_prefixes/       mosesdecoder (en, de at least)
    SCRIPTS/moses/scripts/ems/support/wrap-xml.perl         mosesdecoder (optional)
    SCRIPTS/moses-2018/scripts/...                          optional: tokenizer.perl,
        replace-unicode-punctuation.perl, share/nonbreaking_prefixes/ and generic/multi-bleu.perl
        as they were in early 2018 (the versions tensor2tensor's get_ende_bleu.sh ran)
    SCRIPTS/nist/mteval-v13a.pl                             optional: NIST's own v13a
    SCRIPTS/t2t/tensor2tensor/utils/bleu_hook.py            tensor2tensor
    SCRIPTS/t2t/tensor2tensor/utils/get_ende_bleu.sh        tensor2tensor (read only: its steps
                                                            are run one by one, as it runs them)
    SCRIPTS/PROVENANCE.json                                 optional: repository/path/commit of each

Needs: perl (with XML::Twig; mteval-v14.pl also Sort::Naturally), python3 with numpy and six.
tensor2tensor's bleu_hook.py is run as it is, its own code, with stand-ins for the two modules
it imports and does not need for BLEU: tensorflow.compat.v1 (only tf.gfile.Open is used by
bleu_wrapper: here it reads the file's bytes and decodes them as strict UTF-8, with no newline
translation, as TF2's GFile in mode "r" does) and tensor2tensor.data_generators.text_encoder
(only native_to_unicode: str unchanged, bytes decoded as UTF-8).

Usage:
    python3 tests/data/mt-scripts/record_mt_scripts.py SCRIPTS [--out DIR] [--work DIR]
        [--data DIR] [--only GROUP[,GROUP...]] [--systems NAME[,NAME...]]
        [--mteval-variants 'SCRIPT:ARGS;...']

GROUPs: multi_bleu, multi_bleu_detok, mteval, t2t (WMT17 systems), drawn (seeded texts) and
mteval_files (mteval on its own SGML and XML files, several documents, systems and references).
Each group writes OUT/<group>.json (WMT17 groups as wmt17_<group>.json). Every result holds the
command (argv with $SCRIPTS, $WORK, $DATA for the folders; stdin as a path), the return code,
stdout and stderr whole, and the numbers parsed from them (for mteval's -d 2 on WMT17 the 3004
segment lines per run are moved from stdout into parsed.segments, said so in the record). Runs one
process at a time, niced; the mteval group takes about 20-30 s per system and variant.
"""

import argparse
import hashlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import time
import types

SEED = 20240601

ENV = {k: v for k, v in os.environ.items()
       if not k.startswith(("PERL", "LC_", "LANG", "PYTHON"))}
ENV.update({"LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"})


# ----------------------------------------------------------------------------- running

class Ctx:
    def __init__(self, scripts, work, data):
        self.scripts, self.work, self.data = scripts, work, data

    def rel(self, s):
        s = str(s)
        for folder, name in ((self.work, "$WORK"), (self.scripts, "$SCRIPTS"), (self.data, "$DATA")):
            if s.startswith(folder + os.sep) or s == folder:
                return name + s[len(folder):]
        return s

    def run(self, argv, stdin=None, timeout=1800):
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
            p = subprocess.run(argv, stdin=inp, capture_output=True, env=ENV, timeout=timeout)
        return {
            "argv": [self.rel(a) for a in argv],
            "stdin": self.rel(stdin) if stdin else None,
            "rc": p.returncode,
            "stdout": p.stdout.decode("utf-8", "surrogateescape"),
            "stderr": p.stderr.decode("utf-8", "surrogateescape"),
        }

    def pipe(self, argv, stdin, out):
        """Run argv with stdin from a file, stdout to a file; returns the record without stdout."""
        with open(stdin, "rb") as inp, open(out, "wb") as o:
            p = subprocess.run(argv, stdin=inp, stdout=o, stderr=subprocess.PIPE, env=ENV)
        return {"argv": [self.rel(a) for a in argv], "stdin": self.rel(stdin), "stdout_to": self.rel(out),
                "rc": p.returncode, "stderr": p.stderr.decode("utf-8", "surrogateescape")}


def nice():
    try:
        os.nice(10)
    except OSError:
        pass


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read_lines(path):
    return open(path, "rb").read().decode("utf-8").split("\n")[:-1]


# ----------------------------------------------------------------------------- parsing

_F = r"(-?[0-9.]+|nan|-?inf)"
MB_RE = re.compile(r"^BLEU = %s, %s/%s/%s/%s \(BP=%s, ratio=%s, hyp_len=(\d+), ref_len=(\d+)\)$"
                   % ((_F,) * 7), re.M)


def parse_multi_bleu(stdout):
    m = MB_RE.search(stdout)
    if not m:
        return None
    g = m.groups()
    return {"bleu": g[0], "precisions": list(g[1:5]), "bp": g[5], "ratio": g[6],
            "hyp_len": int(g[7]), "ref_len": int(g[8])}


def parse_mteval(stdout):
    out = {"systems": {}, "length_ratio_lines": re.findall(r"^length ratio: .*$", stdout, re.M)}
    for m in re.finditer(r'^NIST score = (\S+)  BLEU score = (\S+) for system "(.*)"$', stdout, re.M):
        out["systems"].setdefault(m.group(3), {}).update(nist=m.group(1), bleu=m.group(2))
    for m in re.finditer(r'^NIST score = (\S+)  for system "(.*)"$', stdout, re.M):
        out["systems"].setdefault(m.group(2), {}).update(nist=m.group(1))
    for m in re.finditer(r'^BLEU score = (\S+) for system "(.*)"$', stdout, re.M):
        out["systems"].setdefault(m.group(2), {}).update(bleu=m.group(1))
    section = None
    for line in stdout.split("\n"):
        if line.startswith("Individual N-gram scoring"):
            section = "individual"
        elif line.startswith("Cumulative N-gram scoring"):
            section = "cumulative"
        m = re.match(r'^ (NIST|BLEU):((?:  \S+ ){9}) +"(.*)"$', line)
        if m and section:
            out["systems"].setdefault(m.group(3), {})["%s_%s" % (m.group(1).lower(), section)] = m.group(2).split()
    segs = re.findall(r'^  (BLEU|NIST) score using (\d)-grams = (\S+) for system "(.*)" '
                      r'on segment (\S+) of document "(.*)" \((\d+) words\)$', stdout, re.M)
    if segs:
        out["segments"] = [{"metric": a, "score": c, "system": d, "seg": e, "doc": f, "words": int(g)}
                           for a, b, c, d, e, f, g in segs]
    docs = re.findall(r'^(BLEU|NIST) score using   (\d)-grams = (\S+) for system "(.*)" '
                      r'on document "(.*)" \((\d+) segments, (\d+) words\)$', stdout, re.M)
    if docs:
        out["documents"] = [{"metric": a, "score": c, "system": d, "doc": e, "segments": int(f), "words": int(g)}
                            for a, b, c, d, e, f, g in docs]
    return out


def strip_segment_lines(rec):
    """Keep stdout whole but move the (many) segment lines of -d 2 to a compact list."""
    lines = rec["stdout"].split("\n")
    seg = [ln for ln in lines if re.match(r"^  (BLEU|NIST) score using \d-grams = ", ln)]
    if len(seg) > 200:
        rec["stdout"] = "\n".join(ln for ln in lines if not re.match(r"^  (BLEU|NIST) score using \d-grams = ", ln))
        rec["stdout_segment_lines_removed"] = (
            "the %d segment lines of stdout are in parsed.segments (each line: '  {metric} score using "
            "{4|5}-grams = {score} for system \"{system}\" on segment {seg} of document \"{doc}\" ({words} words)')"
            % len(seg))
    return rec


# ----------------------------------------------------------------------------- SGML / XML

def sgml_escape_wrapxml(s):
    # the order wrap-xml.perl uses (< first, then >, then &): '<' ends as '&amp;lt;'
    return s.replace("<", "&lt;").replace(">", "&gt;").replace("&", "&amp;")


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def write_sgml(path, kind, setid, sets, escape=None, xml=False):
    """sets: list of (name, lines). kind: src|ref|tst. One document 'doc1', segments id 1..n.

    Segment text is written as it is (no escaping) unless escape is given; xml=True writes
    lower-case XML for mteval's XML::Twig reader (file name must end in .xml), always escaped."""
    tag = {"src": "srcset", "ref": "refset", "tst": "tstset"}[kind]
    out = ["<mteval>"] if xml else []
    for name, lines in sets:
        attrs = 'setid="%s" srclang="en"' % setid
        if kind != "src":
            attrs += ' trglang="de"'
        if kind == "ref":
            attrs += ' refid="%s"' % name
        if kind == "tst":
            attrs += ' sysid="%s"' % name
        out.append("<%s %s>" % (tag, attrs))
        out.append('<doc docid="doc1"%s>' % ("" if kind == "src" else ' sysid="%s"' % name))
        for i, line in enumerate(lines, 1):
            t = xml_escape(line) if xml else (escape(line) if escape else line)
            out.append('<seg id="%d">%s</seg>' % (i, t))
        out.append("</doc>")
        out.append("</%s>" % tag)
    if xml:
        out.append("</mteval>")
    with open(path, "wb") as f:
        f.write(("\n".join(out) + "\n").encode("utf-8"))


# ----------------------------------------------------------------------------- t2t

def load_bleu_hook(path):
    """Import tensor2tensor's bleu_hook.py as it is, with stand-ins for tensorflow and text_encoder."""
    names = ("tensorflow", "tensorflow.compat", "tensorflow.compat.v1", "tensor2tensor",
             "tensor2tensor.data_generators", "tensor2tensor.data_generators.text_encoder")
    saved = {n: sys.modules.get(n) for n in names}

    class GFile:
        def __init__(self, name, mode="r"):
            self.name, self.mode = name, mode

        def read(self):
            with open(self.name, "rb") as f:
                data = f.read()
            return data if "b" in self.mode else data.decode("utf-8")

    tf = types.ModuleType("tensorflow")
    compat = types.ModuleType("tensorflow.compat")
    v1 = types.ModuleType("tensorflow.compat.v1")
    v1.gfile = types.SimpleNamespace(Open=GFile, GFile=GFile)
    tf.compat, compat.v1 = compat, v1
    t2t = types.ModuleType("tensor2tensor")
    dg = types.ModuleType("tensor2tensor.data_generators")
    te = types.ModuleType("tensor2tensor.data_generators.text_encoder")
    te.native_to_unicode = lambda s: s if isinstance(s, str) else s.decode("utf-8")
    t2t.data_generators, dg.text_encoder = dg, te
    sys.modules.update({"tensorflow": tf, "tensorflow.compat": compat, "tensorflow.compat.v1": v1,
                        "tensor2tensor": t2t, "tensor2tensor.data_generators": dg,
                        "tensor2tensor.data_generators.text_encoder": te})
    try:
        spec = importlib.util.spec_from_file_location("t2t_bleu_hook", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
    return mod


def ngram_stats(refs, hyps, max_order=4):
    """Our own count of what compute_bleu sums (single reference), to expose its statistics."""
    from collections import Counter
    m, t = [0] * max_order, [0] * max_order
    rl = hl = 0
    for r, h in zip(refs, hyps):
        rl += len(r)
        hl += len(h)
        for n in range(1, max_order + 1):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            t[n - 1] += sum(hc.values())
            m[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
    return {"matches": m, "totals": t, "hyp_len": hl, "ref_len": rl}


def run_t2t(ctx, bh, ref, hyp, case_sensitive):
    captured = {}
    original = bh.compute_bleu

    def spy(reference_corpus, translation_corpus, *a, **k):
        captured["refs"], captured["hyps"] = reference_corpus, translation_corpus
        return original(reference_corpus, translation_corpus, *a, **k)

    bh.compute_bleu = spy
    rec = {"call": "bleu_hook.bleu_wrapper(%r, %r, case_sensitive=%r)" % (ctx.rel(ref), ctx.rel(hyp), case_sensitive)}
    try:
        value = bh.bleu_wrapper(ref, hyp, case_sensitive=case_sensitive)
        rec["value_float32_repr"] = repr(value)
        rec["value_type"] = type(value).__name__
        rec["value"] = float(value)
        rec["value_hex"] = float(value).hex()
        score = 100 * value  # as t2t-bleu computes it (float32 times int)
        rec["t2t_bleu_line"] = "BLEU_%s = %6.2f" % ("cased" if case_sensitive else "uncased", score)
        rec["stats"] = ngram_stats(captured["refs"], captured["hyps"])
        rec["lines"] = len(captured["hyps"])
    except Exception as e:  # recorded, e.g. the assertion on line counts
        rec["error"] = "%s: %s" % (type(e).__name__, e)
    finally:
        bh.compute_bleu = original
    return rec


# ----------------------------------------------------------------------------- paths

def sp(ctx, *parts):
    return os.path.join(ctx.scripts, *parts)


def have(path):
    return os.path.exists(path)


MOSES = ("moses", "scripts")
GEN = MOSES + ("generic",)
TOK = MOSES + ("tokenizer",)
MOSES18 = ("moses-2018", "scripts")

MTEVAL_VARIANTS_WMT17 = [
    # (script, extra args). v13a/v14 defaults: lowercase (A-Z), closest ref length, smoothing, 13a tokenization.
    # v14 scores as v13a does on SGML input (its only change in scoring, the dropped hyphen+U+2028 rule of the
    # international tokenization, cannot fire on SGML input, whose whitespace runs were already made one space).
    ("v13a", []), ("v13a", ["-b", "-d", "2"]), ("v13a", ["-c", "-b"]), ("v13a", ["-b", "--no-smoothing"]),
    ("v13a", ["-b", "--international-tokenization"]), ("v13a", ["-c", "-b", "--international-tokenization"]),
    ("v14", []), ("v14", ["-c", "-b"]), ("v14", ["-b", "--no-smoothing"]),
    ("v14", ["-b", "--brevity-penalty", "shortest"]),
    ("nist", []), ("v14", ["-b", "--international-tokenization"]),
]

MTEVAL_VARIANTS_DRAWN = [
    # -b (BLEU only) throughout: without it the NIST part dies ("Illegal division by zero" in nist_score)
    # on any segment whose references are all empty; the two runs without -b record that.
    ("v13a", ["-d", "2"]), ("v14", ["-d", "2"]),
    ("v13a", ["-b", "-d", "2"]), ("v13a", ["-b", "-c", "-d", "2"]), ("v13a", ["-b", "-d", "2", "--no-smoothing"]),
    ("v13a", ["-b", "-c", "-d", "2", "--no-smoothing"]),
    ("v13a", ["-b", "-d", "2", "--international-tokenization"]),
    ("v13a", ["-b", "-c", "-d", "2", "--international-tokenization"]),
    ("v13a", ["-b", "-d", "2", "--brevity-penalty", "shortest"]),
    ("v13a", ["-b", "-d", "2", "-e", "--international-tokenization"]),
    ("v14", ["-b", "-d", "2"]), ("v14", ["-b", "-c", "-d", "2"]), ("v14", ["-b", "-d", "2", "--no-smoothing"]),
    ("v14", ["-b", "-c", "-d", "2", "--international-tokenization"]),
    ("v14", ["-b", "-d", "2", "--brevity-penalty", "closest"]),
    ("v14", ["-b", "-d", "2", "--brevity-penalty", "shortest"]),
    ("nist", ["-b", "-d", "2"]), ("nist", ["-b", "-c", "-d", "2", "--international-tokenization"]),
]


def mteval_path(ctx, which):
    return {"v13a": sp(ctx, *GEN, "mteval-v13a.pl"), "v14": sp(ctx, *GEN, "mteval-v14.pl"),
            "nist": sp(ctx, "nist", "mteval-v13a.pl")}[which]


# ----------------------------------------------------------------------------- WMT17 groups

def wmt17_files(ctx, only_systems):
    ref = os.path.join(ctx.data, "newstest2017.ref.de")
    sysdir = os.path.join(ctx.data, "systems")
    names = sorted(f[:-3] for f in os.listdir(sysdir) if f.endswith(".de"))
    if only_systems:
        names = [n for n in names if n in only_systems]
    return ref, [(n, os.path.join(sysdir, n + ".de")) for n in names]


def tokenize_variants(ctx):
    """name -> list of steps (argv lists) applied in order, then multi-bleu on the result."""
    v = {}
    tok = sp(ctx, *TOK, "tokenizer.perl")
    if have(tok):
        v["tok-l-de"] = [["perl", tok, "-l", "de", "-q"]]
        v["tok-l-de-a"] = [["perl", tok, "-l", "de", "-a", "-q"]]
        v["tok-l-de-no-escape"] = [["perl", tok, "-l", "de", "-no-escape", "-q"]]
        rup = sp(ctx, *TOK, "replace-unicode-punctuation.perl")
        atat = get_ende_atat(ctx)
        if atat:
            # get_ende_bleu.sh's steps in its order: replace-unicode-punctuation (its -l de is ignored by that
            # script), tokenizer.perl -l de, its compound-splitting perl one-liner (taken from the file itself)
            v["t2t-get_ende_bleu"] = [["perl", rup, "-l", "de"], ["perl", tok, "-l", "de"], atat]
            tok18 = sp(ctx, *MOSES18, "tokenizer", "tokenizer.perl")
            if have(tok18):
                v["t2t-get_ende_bleu-moses2018"] = [
                    ["perl", sp(ctx, *MOSES18, "tokenizer", "replace-unicode-punctuation.perl"), "-l", "de"],
                    ["perl", tok18, "-l", "de"], atat]
    return v


def get_ende_atat(ctx):
    """The perl one-liner of get_ende_bleu.sh that puts compounds in ATAT form, read from the script."""
    path = sp(ctx, "t2t", "tensor2tensor", "utils", "get_ende_bleu.sh")
    if not have(path):
        return None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^perl -ple '([^']*)' <", line.strip())
        if m:
            return ["perl", "-ple", m.group(1)]
    return None


def apply_steps(ctx, steps, src, dst_prefix):
    cur, recs = src, []
    for i, argv in enumerate(steps):
        out = "%s.step%d" % (dst_prefix, i + 1)
        recs.append(ctx.pipe(argv, cur, out))
        cur = out
    return cur, recs


def group_multi_bleu(ctx, only_systems, drawn=False):
    ref, systems = wmt17_files(ctx, only_systems)
    mb = sp(ctx, *GEN, "multi-bleu.perl")
    mb18 = sp(ctx, *MOSES18, "generic", "multi-bleu.perl")
    res = {"about": "multi-bleu.perl on newstest2017 en-de (single reference). 'raw' = the files as they are "
                    "(untokenized text); other variants first run the named steps on reference and system alike.",
           "reference": ctx.rel(ref), "variants": {}}
    variants = {"raw": []}
    variants.update(tokenize_variants(ctx))
    wdir = os.path.join(ctx.work, "wmt17_tok")
    os.makedirs(wdir, exist_ok=True)
    for vname, steps in variants.items():
        print("  multi-bleu variant", vname, flush=True)
        entry = {"steps": [[ctx.rel(a) for a in s] for s in steps], "preprocessing": {}, "systems": {}}
        if steps:
            rref, recs = apply_steps(ctx, steps, ref, os.path.join(wdir, "%s.ref" % vname))
            entry["preprocessing"]["reference"] = recs
        else:
            rref = ref
        for name, path in systems:
            if steps:
                hyp, recs = apply_steps(ctx, steps, path, os.path.join(wdir, "%s.%s" % (vname, name)))
                entry["preprocessing"][name] = recs
            else:
                hyp = path
            runs = {}
            for lc in ([], ["-lc"]):
                r = ctx.run(["perl", mb] + lc + [rref], stdin=hyp)
                r["parsed"] = parse_multi_bleu(r["stdout"])
                runs["lc" if lc else "cased"] = r
                if vname.endswith("moses2018") and have(mb18):
                    r = ctx.run(["perl", mb18] + lc + [rref], stdin=hyp)
                    r["parsed"] = parse_multi_bleu(r["stdout"])
                    runs[("lc" if lc else "cased") + "-multi-bleu-2018"] = r
            entry["systems"][name] = runs
        res["variants"][vname] = entry
    return res


def group_multi_bleu_detok(ctx, only_systems):
    ref, systems = wmt17_files(ctx, only_systems)
    mb = sp(ctx, *GEN, "multi-bleu-detok.perl")
    res = {"about": "multi-bleu-detok.perl on the untokenized newstest2017 en-de files", "systems": {}}
    for name, path in systems:
        runs = {}
        for lc in ([], ["-lc"]):
            r = ctx.run(["perl", mb] + lc + [ref], stdin=path)
            r["parsed"] = parse_multi_bleu(r["stdout"])
            runs["lc" if lc else "cased"] = r
        res["systems"][name] = runs
        print("  multi-bleu-detok", name, runs["cased"]["parsed"] and runs["cased"]["parsed"]["bleu"], flush=True)
    return res


def variant_key(which, args):
    return "%s:%s" % (which, " ".join(args))


def group_mteval(ctx, only_systems, only_variants=None):
    ref, systems = wmt17_files(ctx, only_systems)
    wdir = os.path.join(ctx.work, "wmt17_sgm")
    os.makedirs(wdir, exist_ok=True)
    ref_lines = read_lines(ref)
    src_sgm, ref_sgm = os.path.join(wdir, "src.sgm"), os.path.join(wdir, "ref.sgm")
    # There is no English source file here: the source SGML carries the reference's text, which mteval
    # only tokenizes and counts (documents, segments); no score depends on it.
    write_sgml(src_sgm, "src", "newstest2017", [("src", ref_lines)])
    write_sgml(ref_sgm, "ref", "newstest2017", [("ref", ref_lines)])
    res = {"about": "mteval on newstest2017 en-de as SGML made by write_sgml() of this script: one document "
                    "'doc1', segments id 1..3004, text written as it is (no escaping); the source SGML holds the "
                    "reference text (no English source in the repository; it does not change any score). "
                    "Lines 'MT evaluation scorer began/ended on DATE' vary from run to run.",
           "sgml": {"src": ctx.rel(src_sgm), "ref": ctx.rel(ref_sgm)}, "variants": []}
    tst = {}
    for name, path in systems:
        tst[name] = os.path.join(wdir, "tst.%s.sgm" % name)
        write_sgml(tst[name], "tst", "newstest2017", [(name, read_lines(path))])
    for which, args in MTEVAL_VARIANTS_WMT17:
        script = mteval_path(ctx, which)
        if not have(script) or (only_variants and variant_key(which, args) not in only_variants):
            continue
        entry = {"script": which, "args": args, "systems": {}}
        for name, _ in systems:
            t0 = time.time()
            r = ctx.run(["perl", script] + args + ["-r", ref_sgm, "-s", src_sgm, "-t", tst[name]])
            r["parsed"] = parse_mteval(r["stdout"])
            strip_segment_lines(r)
            entry["systems"][name] = r
            print("  mteval", which, " ".join(args), name, r["parsed"]["systems"].get(name, {}).get("bleu"),
                  "%.0fs" % (time.time() - t0), flush=True)
        res["variants"].append(entry)
        # write as we go: this group takes long
        yield res
    yield res


def group_t2t(ctx, only_systems):
    ref, systems = wmt17_files(ctx, only_systems)
    bh = load_bleu_hook(sp(ctx, "t2t", "tensor2tensor", "utils", "bleu_hook.py"))
    res = {"about": "tensor2tensor bleu_hook.bleu_wrapper(ref, hyp, case_sensitive) on the untokenized files, "
                    "run from the fetched bleu_hook.py with stand-ins for tensorflow (tf.gfile.Open: bytes decoded as "
                    "strict UTF-8, no newline translation) and text_encoder.native_to_unicode. 'stats' are counted "
                    "by this script from the token lists bleu_wrapper passed to compute_bleu (single reference, "
                    "no clipping across references). t2t_bleu_line is what t2t-bleu prints ('%6.2f' of 100*value).",
           "systems": {}}
    for name, path in systems:
        res["systems"][name] = {"uncased": run_t2t(ctx, bh, ref, path, False),
                                "cased": run_t2t(ctx, bh, ref, path, True)}
        print("  t2t", name, res["systems"][name]["cased"].get("t2t_bleu_line"), flush=True)
    return res


# ----------------------------------------------------------------------------- drawn texts

WORDS_EN = ("the a of and to in is was for on that with as by at from it this be are have not has but "
            "said after more will one new year about people two also first government president state "
            "e.g. i.e. Mr. Dr. U.S. etc. vs. No. St. Jan. don't it's 1990's can't I'm we'll o'clock").split()
WORDS_DE = ("der die das und zu den von ist nicht mit sich des auf für im dem ein eine als auch es an "
            "werden aus er hat dass sie nach wird bei einer um am sind noch wie einem über einen so zum "
            "Straße größer Übersee Ärger Äpfel Öl Über schön müssen heißt Fußball z.B. bzw. Nr. Dr. Prof. "
            "usw. d.h. ca. Jh. St. Mio. Mrd.").split()
WORDS_MISC = ("Ä É Σ ΣΟΦΙΑ ΟΔΟΣ σοφία İstanbul ẞ ß Ǆ ǅ Ω Ωmega Éclair ÉCOLE ÄRGER Ärger-Ärger "
              "US-Präsident E-Mail-Adresse a-b-c x-y-z-w 3-4 1990-2000 -foo foo- x--y -- --- "
              "&amp; &lt; &gt; &quot; &apos; &#124; &#91; &amp;quot; AT&T a&b < > \" ' & | [ ] { } "
              "<skipped> <b> </seg> "
              "3.5 1,000 2,5 2017. 10.000 5,300.5 .5 5. ,5 3:2 12:30 ½ ² ³ ¼ Ⅻ ٣ ३ "
              "„Zitat“ “quote” «guillemets» ‚x‘ 'x' ‘x’ – — … ... .. ! ? ; : , . "
              "€ $ £ % ^ ` ~ \\ / + = * # @ © ® ™ ° § ¶ • · × ÷ "
              "１ ２ ０ ， 。 ： （ ） ！ ？ 「 」 《 》 ～ ％ 【 】 ━ 〈 〉 ∶ ； "
              "http://example.com/a-b?x=1&y=2 www.example.de user@mail.com #hashtag @user :-) ;-) "
              "naïve café résumé Zürich ÅÄÖ åäö ÆØÅ Ł ł Č č Ş ş Ğ ğ Ñ ñ Ü ü ẞ "
              "中文 日本語 한국어 ไทย עברית العربية Ελληνικά Русский").split(" ")
SPACES = [" ", " ", " ", " ", "  ", "\t", "\u00a0", "\u2009", "\u3000", "\u200b"]


def draw_sentence(rng, lo=0, hi=25, exotic=0.25, spaces=0.05):
    n = rng.randint(lo, hi)
    toks = []
    for _ in range(n):
        r = rng.random()
        if r < exotic:
            toks.append(rng.choice(WORDS_MISC))
        elif r < exotic + (1 - exotic) / 2:
            toks.append(rng.choice(WORDS_DE))
        else:
            toks.append(rng.choice(WORDS_EN))
    out = ""
    for i, t in enumerate(toks):
        if i:
            out += rng.choice(SPACES) if rng.random() < spaces else " "
        out += t
    if rng.random() < 0.5 and out:
        out += rng.choice([".", "!", "?", " .", ".'", '."', ""])
    if rng.random() < 0.05:
        out = rng.choice([" ", "  ", "\t"]) + out
    if rng.random() < 0.05:
        out += rng.choice([" ", "  ", "\t"])
    return out


def perturb(rng, sent):
    toks = sent.split(" ")
    out = []
    for t in toks:
        r = rng.random()
        if r < 0.1:
            continue
        if r < 0.2:
            out.append(rng.choice(WORDS_EN + WORDS_DE + WORDS_MISC))
        elif r < 0.25:
            out.append(t.upper())
        elif r < 0.3:
            out.append(t.lower())
        else:
            out.append(t)
        if rng.random() < 0.05:
            out.append(rng.choice(WORDS_EN + WORDS_DE))
    if rng.random() < 0.1 and len(out) > 2:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out)


def drawn_cases():
    rng = random.Random(SEED)
    cases = []

    def add(name, refs, hyp, about, trailing_newline=True, eol="\n", hyp_without_final_newline=False):
        cases.append({"name": name, "about": about, "refs": refs, "hyp": hyp,
                      "trailing_newline": trailing_newline, "eol": eol,
                      "hyp_without_final_newline": hyp_without_final_newline})

    # random corpora: 1-4 references, hypotheses perturbed from the first reference
    for k in range(24):
        nseg = rng.choice([1, 2, 3, 5, 8, 13, 30])
        nref = rng.choice([1, 1, 2, 3, 4])
        base = [draw_sentence(rng) for _ in range(nseg)]
        refs = [base] + [[perturb(rng, s) for s in base] for _ in range(nref - 1)]
        hyp = [perturb(rng, s) if rng.random() < 0.9 else draw_sentence(rng) for s in base]
        for i in range(nseg):
            if rng.random() < 0.05:
                hyp[i] = ""
            if rng.random() < 0.03:
                refs[rng.randrange(nref)][i] = ""
        add("random-%02d" % k, refs, hyp, "seeded random text, %d segments, %d references" % (nseg, nref))

    long_ref = [draw_sentence(rng, 400, 600, 0.2)]
    add("very-long-line", [long_ref], [perturb(rng, long_ref[0])], "one segment of 400-600 tokens")
    caps = ["ÄRGER Über Öl ÉCOLE Éclair ΣΟΦΙΑ ΟΔΟΣ İstanbul STRASSE Straße ẞ Ǆ",
            "Ärger über öl école éclair σοφια οδος istanbul strasse straße ß ǆ",
            "ABC abc Abc ÀÉÎÕÜ àéîõü ΑΒΓΔ αβγδ"]
    add("non-ascii-capitals", [caps], [[c.lower() if i % 2 == 0 else c.upper() for i, c in enumerate(caps)][0],
                                       caps[0], caps[2].lower()],
        "case folding: A-Z only (mteval 13a, multi-bleu) vs Unicode (multi-bleu-detok lc, intl, t2t; final sigma)")
    comp = ["Der US-Präsident und die E-Mail-Adresse a-b-c x-y-z-w",
            "3-4 Tore 1990-2000 -foo foo- x--y -- ---",
            "rich-text format state-of-the-art 10-jähriger"]
    add("hyphenated-compounds", [comp, [c.replace("-", " - ") for c in comp]],
        ["Der US-Präsident und die E-Mail Adresse a-b c", "3-4 Tore 1990 - 2000 -foo foo- x--y --",
         "rich text-format state-of-the-art"],
        "hyphens: ATAT splitting of chains, 13a digit-dash rule, tokenizer -a")
    ent = ["AT&amp;T &lt;b&gt; &quot;Zitat&quot; it&apos;s &#124; &amp;quot;",
           'AT&T <b> "Zitat" it\'s | [x] {y}',
           "a &amp;amp; b &lt;&lt; c &gtx &quot &QUOT;"]
    add("sgml-entities", [ent], [ent[1], ent[0], "a & b << c &gtx &quot &quot;"],
        "entities are un-escaped by mteval's tokenizer (not &apos; in 13a), escaped by tokenizer.perl")
    add("skipped-tags", [["<skipped> Das ist <skipped>gut", "kein <SKIPPED> Tag <skipped/>", "<skipped>"]],
        ["Das ist gut", "kein <SKIPPED> Tag", ""], "<skipped> is removed by mteval/detok tokenization (case-sensitive)")
    add("empty-lines", [["", "Ein Satz .", "", "  ", "Noch einer"], ["", "Ein Satz", "x", "", "Noch einer ."]],
        ["", "Ein Satz .", "y", "", ""], "empty and blank segments, 2 references")
    add("all-empty-hyp", [["Ein Satz .", "Noch einer ."]], ["", ""],
        "the hypothesis is empty: BP/precision corner cases")
    add("all-empty", [["", ""]], ["", ""], "hypothesis and reference both empty")
    add("one-word", [["Hallo", "Welt", "ja"]], ["Hallo", "Welt", "nein"],
        "no 2-grams at all: precisions of orders with no n-grams (t2t p=0 kept out of the log sum, mteval smoothing)")
    add("no-4gram-match", [["a b c d e f", "g h i j"]], ["a b c x e f", "g h i y"],
        "4-gram precision 0: multi-bleu prints 0.00, mteval smooths, t2t smooths")
    add("no-match", [["a b c d"]], ["w x y z"], "nothing matches")
    add("closest-ties", [["a b c d e f g h", "a b c"], ["a b c d e f g", "a b c d e"], ["a b c d e f g h i", "a b"]],
        ["a b c d e f g h", "a b c d"], "closest reference length with ties (8 vs 7/9; 4 vs 3/5)")
    add("shorter-hyp", [["a b c d e f g h i j", "k l m n o p"]], ["a b c d e", "k l m"], "brevity penalty < 1")
    add("clipping-multi-ref", [["the the the cat", "a a b"], ["the cat the cat", "a b b"]],
        ["the the the the", "a a a b b b"],
        "clipping: max count over references")
    add("numbers-punct",
        [["Es kostet 1,000.50 $ , d.h. 5 % mehr .", "Am 3. Mai 2017. Ja.", "Er sagte: „Nein!“ – 2,5 Mio."]],
        ["Es kostet 1,000.50$, d.h. 5% mehr.", "Am 3. Mai 2017 . Ja .", "Er sagte : \"Nein!\" - 2,5 Mio ."],
        "digits around . , - and Unicode punctuation")
    add("unicode-spaces",
        [["a\u00a0b c\u3000d e\u2009f", "x\ty  z", "p\u2028q r\u0085s", "u\x0bv w\x0cx y\x1cz",
          "h-\u2028i j\u00ad\u2028k"]],
        ["a b c d e f", "x y z", "p q r s", "u v w x y z", "hi jk"],
        "NBSP, ideographic space, thin space, tab, U+2028 (also after a hyphen: mteval intl's hyphen rule), "
        "NEL, VT, FF, U+001C")
    add("fullwidth", [["１２０ ， 。 （ａ） ！ ？ 「ｘ」"]], ["120 , . (ａ) ! ? \"ｘ\""],
        "replace-unicode-punctuation's table")
    add("no-trailing-newline", [["Das ist gut", "Ende"]], ["Das ist gut", "Ende"],
        "files without a final newline: multi-bleu-detok's chop (and 2018 multi-bleu's chop) eat a character",
        trailing_newline=False)
    add("no-final-newline-hyp-only", [["Das ist gut", "Ende gut"]], ["Das ist gut", "Ende gut"],
        "only the hypothesis lacks the final newline: chop eats its last character ('gu')",
        hyp_without_final_newline=True)
    add("crlf", [["Das ist gut", "Ende ."]], ["Das ist gut", "Ende ."], "CRLF line ends", eol="\r\n")
    add("hyp-more-lines", [["a b c"]], ["a b c", "d e f"], "hypothesis has more lines than the reference")
    add("ref-more-lines", [["a b c", "d e f"]], ["a b c"], "reference has more lines than the hypothesis")
    return cases


def write_text(path, lines, trailing_newline=True, eol="\n"):
    data = eol.join(lines) + (eol if trailing_newline and lines else "")
    with open(path, "wb") as f:
        f.write(data.encode("utf-8"))


def group_drawn(ctx):
    cases = drawn_cases()
    mb = sp(ctx, *GEN, "multi-bleu.perl")
    mbd = sp(ctx, *GEN, "multi-bleu-detok.perl")
    mb18 = sp(ctx, *MOSES18, "generic", "multi-bleu.perl")
    bh = load_bleu_hook(sp(ctx, "t2t", "tensor2tensor", "utils", "bleu_hook.py"))
    wrap = sp(ctx, *MOSES, "ems", "support", "wrap-xml.perl")
    tvariants = tokenize_variants(ctx)
    tok = sp(ctx, *TOK, "tokenizer.perl")
    tok_only = {}
    if have(tok):
        tok_only = {"tok-l-en": ["perl", tok, "-l", "en", "-q"], "tok-l-en-a": ["perl", tok, "-l", "en", "-a", "-q"],
                    "tok-l-de": ["perl", tok, "-l", "de", "-q"], "tok-l-de-a": ["perl", tok, "-l", "de", "-a", "-q"],
                    "tok-l-de-no-escape": ["perl", tok, "-l", "de", "-no-escape", "-q"],
                    "tok-l-en-no-escape-a": ["perl", tok, "-l", "en", "-a", "-no-escape", "-q"]}
        tok18 = sp(ctx, *MOSES18, "tokenizer", "tokenizer.perl")
        if have(tok18):
            tok_only["tok2018-l-de"] = ["perl", tok18, "-l", "de", "-q"]
            tok_only["tok2018-l-en"] = ["perl", tok18, "-l", "en", "-q"]
    res = {"about": "seeded drawn texts (seed %d); each case holds its texts (refs: list of references, each a list "
                    "of lines; hyp: lines; files written with 'eol' between lines and after the last one if "
                    "trailing_newline, but the hypothesis without it if hyp_without_final_newline) and what every "
                    "script printed on them" % SEED, "cases": []}
    for case in cases:
        cdir = os.path.join(ctx.work, "drawn", case["name"])
        os.makedirs(cdir, exist_ok=True)
        tn, eol = case["trailing_newline"], case["eol"]
        hyp = os.path.join(cdir, "hyp")
        write_text(hyp, case["hyp"], tn and not case.get("hyp_without_final_newline"), eol)
        refs = []
        for i, r in enumerate(case["refs"]):
            p = os.path.join(cdir, "ref.%d" % i)
            write_text(p, r, tn, eol)
            refs.append(p)
        out = dict(case)
        runs = out["runs"] = {}
        print("  drawn", case["name"], flush=True)
        for lc in ([], ["-lc"]):
            key = "lc" if lc else "cased"
            r = ctx.run(["perl", mb] + lc + refs, stdin=hyp)
            r["parsed"] = parse_multi_bleu(r["stdout"])
            runs["multi-bleu/raw/" + key] = r
            if have(mb18):
                r = ctx.run(["perl", mb18] + lc + refs, stdin=hyp)
                r["parsed"] = parse_multi_bleu(r["stdout"])
                runs["multi-bleu-2018/raw/" + key] = r
            if have(mbd):
                r = ctx.run(["perl", mbd] + lc + refs, stdin=hyp)
                r["parsed"] = parse_multi_bleu(r["stdout"])
                runs["multi-bleu-detok/" + key] = r
        # tokenizer.perl alone: the tokenized lines
        for tname, argv in tok_only.items():
            o = os.path.join(cdir, "hyp." + tname)
            r = ctx.pipe(argv, hyp, o)
            r["output"] = open(o, "rb").read().decode("utf-8", "surrogateescape")
            runs["tokenize/%s/hyp" % tname] = r
            for i, p in enumerate(refs):
                o = os.path.join(cdir, "ref.%d.%s" % (i, tname))
                r = ctx.pipe(argv, p, o)
                r["output"] = open(o, "rb").read().decode("utf-8", "surrogateescape")
                runs["tokenize/%s/ref.%d" % (tname, i)] = r
        # pipelines then multi-bleu
        for vname, steps in tvariants.items():
            thyp, recs = apply_steps(ctx, steps, hyp, os.path.join(cdir, "hyp." + vname))
            trefs = []
            for i, p in enumerate(refs):
                tr, rr = apply_steps(ctx, steps, p, os.path.join(cdir, "ref.%d.%s" % (i, vname)))
                trefs.append(tr)
                recs += rr
            for lc in ([], ["-lc"]):
                r = ctx.run(["perl", mb] + lc + trefs, stdin=thyp)
                r["parsed"] = parse_multi_bleu(r["stdout"])
                r["preprocessing"] = recs
                r["tokenized_hyp"] = open(thyp, "rb").read().decode("utf-8", "surrogateescape")
                runs["multi-bleu/%s/%s" % (vname, "lc" if lc else "cased")] = r
        # mteval: SGML, text as it is; one refset per reference (doc sysid ref0, ref1, ...)
        ok_mteval = len(set(len(r) for r in case["refs"]) | {len(case["hyp"])}) == 1
        reflines = [read_lines_eol(p, eol) for p in refs]
        hyplines = read_lines_eol(hyp, eol)
        if ok_mteval and hyplines:
            sgm = {}
            for esc_name, esc in (("raw", None), ("wrapxml-escaped", sgml_escape_wrapxml)):
                d = os.path.join(cdir, "sgm-" + esc_name)
                os.makedirs(d, exist_ok=True)
                sgm[esc_name] = (os.path.join(d, "src.sgm"), os.path.join(d, "ref.sgm"), os.path.join(d, "tst.sgm"))
                write_sgml(sgm[esc_name][0], "src", "drawn", [("src", reflines[0])], esc)
                write_sgml(sgm[esc_name][1], "ref", "drawn", [("ref%d" % i, rl) for i, rl in enumerate(reflines)], esc)
                write_sgml(sgm[esc_name][2], "tst", "drawn", [("hyp", hyplines)], esc)
            d = os.path.join(cdir, "xml")
            os.makedirs(d, exist_ok=True)
            sgm["xml"] = (os.path.join(d, "src.xml"), os.path.join(d, "ref.xml"), os.path.join(d, "tst.xml"))
            write_sgml(sgm["xml"][0], "src", "drawn", [("src", reflines[0])], xml=True)
            write_sgml(sgm["xml"][1], "ref", "drawn", [("ref%d" % i, rl) for i, rl in enumerate(reflines)], xml=True)
            write_sgml(sgm["xml"][2], "tst", "drawn", [("hyp", hyplines)], xml=True)
            if have(wrap):
                # wrap-xml.perl's own tst file from the source frame: must equal ours (escaped variant) but for sysid
                o = os.path.join(cdir, "sgm-wrapxml-escaped", "tst.wrap-xml.sgm")
                r = ctx.pipe(["perl", wrap, "de", sgm["raw"][0], "hyp"], hyp, o)
                r["output"] = open(o, "rb").read().decode("utf-8", "surrogateescape")
                runs["wrap-xml"] = r
            for which, args in MTEVAL_VARIANTS_DRAWN:
                script = mteval_path(ctx, which)
                if not have(script):
                    continue
                both_forms = args in (["-b", "-d", "2"], ["-b", "-d", "2", "--international-tokenization"])
                forms = ["raw"] + (["wrapxml-escaped", "xml"] if both_forms else [])
                for form in forms:
                    src, ref, tst = sgm[form]
                    r = ctx.run(["perl", script] + args + ["-r", ref, "-s", src, "-t", tst])
                    r["parsed"] = parse_mteval(r["stdout"])
                    runs["mteval-%s/%s/%s" % (which, form, " ".join(args))] = r
        else:
            out["mteval_skipped"] = "segment counts differ between files (mteval dies on that) or no segments"
        # t2t: first reference only (bleu_wrapper takes one reference file)
        for cs in (False, True):
            runs["t2t/ref.0/%s" % ("cased" if cs else "uncased")] = run_t2t(ctx, bh, refs[0], hyp, cs)
        res["cases"].append(out)
    return res


def read_lines_eol(path, eol):
    data = open(path, "rb").read().decode("utf-8")
    lines = data.split(eol)
    if lines and lines[-1] == "":
        lines = lines[:-1]
    return lines


# ----------------------------------------------------------------------------- main

def manifest(ctx):
    files = {}
    for root, _, names in os.walk(ctx.scripts):
        for n in sorted(names):
            p = os.path.join(root, n)
            if "nonbreaking_prefixes" in p and not n.endswith((".en", ".de")):
                continue
            files[ctx.rel(p)] = sha256(p)
    prov = os.path.join(ctx.scripts, "PROVENANCE.json")
    m = {"scripts_sha256": dict(sorted(files.items())),
         "provenance": json.load(open(prov)) if have(prov) else None,
         "perl": subprocess.run(["perl", "-e", "print $^V"], capture_output=True, text=True).stdout,
         "python": sys.version, "env": {k: ENV[k] for k in ("LC_ALL", "LANG")},
         "seed": SEED, "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S")}
    try:
        import numpy
        m["numpy"] = numpy.__version__
    except ImportError:
        pass
    import unicodedata
    m["python_unicodedata"] = unicodedata.unidata_version
    m["perl_unicode"] = subprocess.run(["perl", "-MUnicode::UCD", "-e", "print Unicode::UCD::UnicodeVersion()"],
                                       capture_output=True, text=True).stdout
    return m


def dump(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- mteval's own files

# mteval's variants run on its SGML and XML files (the file cases below), each with -b and -d 2.
MTEVAL_FILE_VARIANTS = [("v13a", ["-b", "-d", "2"]), ("v13a", ["-b", "-d", "1"]),
                        ("v13a", ["-b", "-d", "2", "-c", "--international-tokenization"]),
                        ("v13a", ["-b", "-d", "2", "--international-tokenization"]),
                        ("v13a", ["-b", "-d", "2", "--no-smoothing"]), ("v14", ["-b", "-d", "2"]),
                        ("v14", ["-b", "-d", "2", "--brevity-penalty", "shortest"]),
                        ("v14", ["-b", "-d", "2", "--international-tokenization"])]


def sgml_set(tag, attributes, documents, upper=False):
    """One SGML set: documents as (attributes, [(seg attributes, text)]), text as it is."""
    doc, seg = ("DOC", "SEG") if upper else ("doc", "seg")
    out = ["<%s %s>" % (tag, attributes)]
    for doc_attributes, segments in documents:
        out.append("<%s %s>" % (doc, doc_attributes))
        out += ["<%s %s>%s</%s>" % (seg, seg_attributes, text, seg) for seg_attributes, text in segments]
        out.append("</%s>" % doc)
    return "\n".join(out + ["</%s>" % tag]) + "\n"


def mteval_file_cases():
    """SGML and XML files as WMT's were: several documents, segment ids out of order, several
    references and systems in one file, a source that names fewer documents, markup in capitals and
    unquoted attributes, XML with line breaks inside segments; and files mteval refuses."""
    rng = random.Random(SEED + 7)
    docs = {"news-b": 3, "news-a": 12, "news-c": 2}
    text = {(d, i): draw_sentence(rng, 1, 20) for d, n in docs.items() for i in range(1, n + 1)}
    text[("news-a", 4)] = "Die ÄRZTE &amp; das Σ-Team: <skipped> 3-4 ΟΔΟΣ ÉTÉ."
    refs = {name: {key: perturb(rng, line) for key, line in text.items()} for name in ("ref1", "ref2")}
    refs["ref1"] = dict(text)
    systems = {name: {key: perturb(rng, line) for key, line in text.items()} for name in ("sysB", "sysA")}
    systems["sysA"][("news-c", 2)] = ""

    def ordered(doc, n):
        ids = list(range(1, n + 1))
        rng.shuffle(ids)
        return ids

    def sgml(tag, head, sets, only=None, upper=False):
        out = []
        for name, lines in sets.items():
            documents = []
            for doc in sorted(docs, key=lambda d: rng.random()):
                if only and doc not in only:
                    continue
                who = "" if tag.lower() == "srcset" else ' sysid="%s"' % name
                documents.append(('docid="%s"%s' % (doc, who),
                                  [('id="%d"' % i, lines[(doc, i)]) for i in ordered(doc, docs[doc])]))
            out.append(sgml_set(tag, head, documents, upper))
        return "".join(out)

    src_head = 'setid="t1" srclang="en"'
    head = 'setid="t1" srclang="en" trglang="de"'
    cases = []
    files = {"src.sgm": sgml("srcset", src_head, {"src": text}), "ref.sgm": sgml("refset", head, refs),
             "tst.sgm": sgml("tstset", head, systems)}
    cases.append({"name": "documents", "files": files, "ref": "ref.sgm", "src": "src.sgm", "tst": "tst.sgm",
                  "about": "three documents, segment ids out of order (1 to 12), two references and two systems "
                           "in one file each"})
    subset = dict(files, **{"src.sgm": sgml("srcset", src_head, {"src": text}, only={"news-a", "news-c"})})
    cases.append({"name": "source-subset", "files": subset, "ref": "ref.sgm", "src": "src.sgm", "tst": "tst.sgm",
                  "about": "the source names two of the three documents: the third is not scored"})
    marked = {"src.sgm": sgml("SRCSET", 'SETID="t1" SRCLANG="en"', {"src": text}, upper=True),
              "ref.sgm": re.sub(r'<SEG id="(\d+)">', r"<SEG id=\1>",
                                sgml("REFSET", 'SetID="t1" SrcLang="en" TrgLang="de"', {"ref1": refs["ref1"]}, upper=True)),
              "tst.sgm": sgml("TSTSET", 'SETID="t1" SRCLANG="en" TRGLANG="de"', {"sysA": systems["sysA"]},
                              upper=True).replace("</SEG>", "</seg >").replace("ÄRZTE", "ÄRZTE\n\t\u00a0x")}
    cases.append({"name": "sgml-markup", "files": marked, "ref": "ref.sgm", "src": "src.sgm", "tst": "tst.sgm",
                  "about": "tags in capitals, a reference's segment ids unquoted (v13a reads them; v14 stops), "
                           "line breaks and no-break spaces inside a segment"})

    def xml(tag, head, sets, named, leading=True):
        out = []
        for name, lines in sets.items():
            out.append('<%s %s%s>' % (tag, head, "" if named is None else ' %s="%s"' % (named, name)))
            for doc in docs:
                out.append('  <doc docid="%s">' % doc)
                for i in ordered(doc, docs[doc]):
                    line = xml_escape(lines[(doc, i)])
                    if (doc, i) == ("news-a", 1):
                        line = ("\n      " if leading else "") + line.replace(" ", "-\n", 1) + "\n    "
                    if (doc, i) == ("news-a", 2):
                        line = ("\t" if leading else "") + line + "-\u2028x \u2028y"
                    out.append('    <seg id="%d">%s</seg>' % (i, line))
                out.append("  </doc>")
            out.append("</%s>" % tag)
        return '<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n' + "\n".join(out) + "\n</mteval>\n"

    xml_files = {"src.xml": xml("srcset", src_head, {"src": text}, None), "ref.xml": xml("refset", head, refs, "refid"),
                 "tst.xml": xml("tstset", head, systems, "sysid")}
    cases.append({"name": "xml", "files": xml_files, "ref": "ref.xml", "src": "src.xml", "tst": "tst.xml",
                  "about": "the same as XML, with line breaks, a hyphen before a line break, a tab at a segment's "
                           "start and a hyphen before U+2028 inside segments"})
    inline = {name: xml(*arguments, leading=False) for name, arguments in (
        ("src.xml", ("srcset", src_head, {"src": text}, None)), ("ref.xml", ("refset", head, refs, "refid")),
        ("tst.xml", ("tstset", head, systems, "sysid")))}
    cases.append({"name": "xml-inline", "files": inline, "ref": "ref.xml", "src": "src.xml", "tst": "tst.xml",
                  "about": "the same XML, but no segment starts with a tab or a line break"})
    one = {"sysA": systems["sysA"]}
    broken = {
        "segment-id-0": sgml("tstset", head, one).replace('<seg id="1">', '<seg id="0">', 1),
        "missing-document": sgml("tstset", head, one, only={"news-a", "news-b"}),
        "fewer-segments": re.sub(r'<seg id="2">.*?</seg>\n', "", sgml("tstset", head, one), count=1),
        "other-setid": sgml("tstset", head.replace("t1", "t2"), one),
        "document-twice": sgml("tstset", head, one) + sgml("tstset", head, one),
    }
    for name, tst in broken.items():
        cases.append({"name": name, "files": dict(files, **{"tst.sgm": tst}), "ref": "ref.sgm", "src": "src.sgm",
                      "tst": "tst.sgm", "about": "mteval refuses this test file"})
    return cases


def group_mteval_files(ctx):
    res = {"about": "mteval-v13a.pl (Moses's) and mteval-v14.pl on their own SGML and XML files, made by "
                    "mteval_file_cases() of this script and kept here whole (files: name -> text); each run "
                    "reads $WORK/mteval-files/<case>/<file>. The lines 'MT evaluation scorer began/ended on DATE' "
                    "and 'command line:' vary from run to run.", "cases": []}
    for case in mteval_file_cases():
        folder = os.path.join(ctx.work, "mteval-files", case["name"])
        os.makedirs(folder, exist_ok=True)
        for name, content in case["files"].items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(content.encode("utf-8"))
        case["runs"] = {}
        variants = MTEVAL_FILE_VARIANTS if case["about"] != "mteval refuses this test file" else MTEVAL_FILE_VARIANTS[:1]
        for which, args in variants:
            script = mteval_path(ctx, which)
            if not have(script):
                continue
            r = ctx.run(["perl", script] + args + [
                "-r", os.path.join(folder, case["ref"]), "-s", os.path.join(folder, case["src"]),
                "-t", os.path.join(folder, case["tst"])])
            r["parsed"] = parse_mteval(r["stdout"])
            case["runs"][variant_key(which, args)] = r
            print("  mteval files", case["name"], which, " ".join(args), r["rc"], flush=True)
        res["cases"].append(case)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scripts")
    ap.add_argument("--out", default="mt-scripts-recorded", help="folder for the JSON (default ./mt-scripts-recorded)")
    ap.add_argument("--work", default=None, help="folder for the files the commands read (default OUT/../work)")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(os.path.dirname(here), "wmt17-en-de"))
    ap.add_argument("--only", default="multi_bleu,multi_bleu_detok,t2t,drawn,mteval")
    ap.add_argument("--systems", default="")
    ap.add_argument("--mteval-variants", default="",
                    help="only these WMT17 mteval variants, as 'script:args' joined by ';' (e.g. 'v14:-c -b;v13a:')")
    a = ap.parse_args()
    scripts = os.path.abspath(a.scripts)
    out = os.path.abspath(a.out)
    work = os.path.abspath(a.work or os.path.join(os.path.dirname(out), "work"))
    os.makedirs(out, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    ctx = Ctx(scripts, work, os.path.abspath(a.data))
    if not have(sp(ctx, *GEN, "multi-bleu.perl")):
        sys.exit("no %s: see the layout in this script's docstring" % sp(ctx, *GEN, "multi-bleu.perl"))
    nice()
    only_systems = set(filter(None, a.systems.split(",")))
    dump(os.path.join(out, "manifest.json"), manifest(ctx))
    for g in a.only.split(","):
        print("group", g, flush=True)
        t0 = time.time()
        if g == "multi_bleu":
            dump(os.path.join(out, "wmt17_multi_bleu.json"), group_multi_bleu(ctx, only_systems))
        elif g == "multi_bleu_detok":
            dump(os.path.join(out, "wmt17_multi_bleu_detok.json"), group_multi_bleu_detok(ctx, only_systems))
        elif g == "mteval":
            only_variants = set(filter(None, a.mteval_variants.split(";")))
            for partial in group_mteval(ctx, only_systems, only_variants):
                dump(os.path.join(out, "wmt17_mteval.json"), partial)
        elif g == "t2t":
            dump(os.path.join(out, "wmt17_t2t.json"), group_t2t(ctx, only_systems))
        elif g == "drawn":
            dump(os.path.join(out, "drawn.json"), group_drawn(ctx))
        elif g == "mteval_files":
            dump(os.path.join(out, "mteval_files.json"), group_mteval_files(ctx))
        else:
            sys.exit("unknown group " + g)
        print("group %s done in %.0fs" % (g, time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
