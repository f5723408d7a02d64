"""Load benchmark of the Space (app.py), and the prices its cost limits are set from.

    python benchmarks/load.py            # the load table: 1, 10 and 50 users, then the same with
                                         # 8 clients sending the dearest requests the limits allow
    python benchmarks/load.py prices     # what each tokenizer costs on the dearest inputs found,
                                         # and the app's estimate against the measured time
    python benchmarks/load.py record     # the times the tests hold the prices to, measured here
                                         # and written to tests/data/space/measured.json
    python benchmarks/load.py --smoke    # tiny settings: checks that it runs

The load test starts `python app.py` on a free port (offline, no analytics) and measures with
gradio_client, as users would (with ssl_verify=False: on plain http it changes nothing but that the
client stops loading the certificate store for every call, 50 ms of the clients' CPU a request,
which on this machine would be taken from the server's two cores). Each ordinary user sends, back to back, a random 100-line slice of
a WMT17 system's output with its reference lines to `/compute`, and every answer is compared with
the library's own result for the same lines (`exactbleu.corpus_bleu`). Users run in several client
processes, so the clients' own GIL does not stand between them (the smoke run's 2 users share one).
The attack phase adds 8 clients that send, back to back, the dearest requests the limits allow:
sacremoses on "1.2. " text and MeCab on a run of digits, each sized to just under the Space's
MAX_SECONDS, and the page's explain event, called as a raw queue request with 10 MB of text. The
server is killed at the end.
"""

import argparse
import concurrent.futures
import dataclasses
import itertools
import json
import multiprocessing
import os
import pathlib
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
WMT17 = ROOT / "tests" / "data" / "wmt17-en-de"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
for _variable in ("HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
    os.environ[_variable] = "1"

from exactbleu import TOKENIZERS, Price, convention_tokenizers  # noqa: E402
from space import pricing  # noqa: E402
from space import requests as space_requests  # noqa: E402

RUN_LENGTH = Price.RUN_LENGTH


# --- Prices -------------------------------------------------------------------------------------

def _random_text(low, high, length, seed):
    rng = random.Random(seed)
    return "".join(chr(rng.randint(low, high)) for _ in range(length))


# Inputs to price, each repeated to the size wanted and cut into lines; one without spaces makes
# runs as long as its lines, which MeCab and ptb are priced for apart (exactbleu.Price.RUN_LENGTH).
# Beside symbols and scripts, the constructs that send ptb's lexer from its plain run to its rules:
# abbreviations, contractions, words it splits, digits before digits, marks, brackets, quotes, URLs.
PATTERNS = {
    "a.b.": "a.b. ", "1.2.": "1.2. ", "a.": "a. ", "x": "x ", "word": "hello ", "punctuation": "!?,;:",
    "ampersand": "& ", "quote": "' ", "ascii": _random_text(33, 126, 2000, 1),
    "ascii runs": (_random_text(33, 126, 200, 2) + " ") * 8, "cjk": _random_text(0x4E00, 0x9FFF, 2000, 3),
    "cjk spaced": " ".join(_random_text(0x4E00, 0x9FFF, 1000, 4)), "hangul": _random_text(0xAC00, 0xD7A3, 2000, 5),
    "kana": _random_text(0x3041, 0x3096, 2000, 6), "symbols": _random_text(0xA0, 0x2FFF, 2000, 7),
    "emoji": _random_text(0x1F300, 0x1F5FF, 2000, 8), "digits": ("1" * 200 + " "),
    "umlauts": "Grüße ", "Mr.": "Mr. ", "x.": "Haus. ", "a1.": "a1. ", "cannot": "cannot ", "gonna": "gonna ",
    "don't": "don't ", "x,y": "x,y ", "1 2": "1 2 ", "1a": "1a ", "1,000.5": "1,000.5 ", "sigma": "ΣΣΣ ",
    "marks": "e\u0301 ", "controls": "\x01\x02 ", "brackets": "(Haus) ", "quoted": '"Haus" ', "a.a.": "a." * 100 + " ",
    "url": "http://a.b/c?d=e ", "email": "a@b.c ", "cjk period": "中文。 ", "long word)": "Donaudampfschifffahrt) ",
    # A dear character now and then, as in sentences: one may switch a whole line to a dearer path.
    "comma a line": "hello " * 33 + "hello, ", "quotes a line": "hello " * 33 + "„hello“ ",
    "sentence": "Die Katze schläft, der Hund nicht. ", "umlauts, commas": "Grüße, Köln. ",
}


def _lines(pattern, characters, line_length):
    text = (pattern * (characters // len(pattern) + 1))[:characters]
    return [text[start : start + line_length] for start in range(0, characters, line_length)]


def _best_of(repeats, function, *arguments):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function(*arguments)
        best = min(best, time.perf_counter() - start)
    return best


def _grown(measure, at_least, start=1000, most=1_000_000):
    """measure(size) for the first size, growing by 4, that takes at least ``at_least`` seconds."""
    size = start
    while True:
        seconds = measure(size)
        if seconds >= at_least or size >= most:
            return seconds, size
        size *= 4


MARGIN = 1.25  # the declared prices: the quietest of several runs, times this


def _wmt17_text(size=2000):
    """WMT17's first lines, a system's and the reference's, as space.pricing joins them: the text
    whose price the prices are fitted to keep least."""
    predictions, references = _wmt17(size)
    return "\n".join(predictions + [line for (line,) in references])


def _least_prices(rows, reference):
    """The prices of the terms (per character, per dear character, per period) that price every row
    (each term's units, seconds) at least at its time, and the reference (each term's units) at the
    least, a linear program; and for each term the row that sets it, the tight one it weighs most in."""
    from scipy.optimize import linprog

    units = [row[:-1] for row in rows]
    prices = linprog(reference, A_ub=[[-unit for unit in row] for row in units], b_ub=[-row[-1] for row in rows],
                     bounds=[(0, None)] * len(reference)).x
    tight = [number for number, row in enumerate(rows)
             if sum(price * unit for price, unit in zip(prices, units[number])) <= row[-1] * (1 + 1e-6)]
    setters = [max(tight or range(len(rows)), key=lambda number: prices[term] * units[number][term] / rows[number][-1])
               for term in range(len(reference))]
    return list(prices), setters


def _pattern_times(tokenize, price, at_least, repeats):
    """Each pattern, at lines of 100 and 100,000 characters, where no other term charges it (a run, for
    MeCab's and ptb's): (name, its units of each term, seconds)."""
    from exactbleu.tokenizers import token_text

    rows = []
    for name, pattern in PATTERNS.items():
        for line_length in (100, 100_000):
            if price.run and line_length >= RUN_LENGTH and " " not in pattern:
                continue  # charged per squared run
            seconds, size = _grown(lambda size: _best_of(repeats, token_text, _lines(pattern, size, line_length),
                                                         tokenize), at_least)
            text = "\n".join(_lines(pattern, size, line_length))
            units = {"character": size, "dear": price.dear_characters.count(text) if price.dear else 0,
                     "period": text.count(".")}
            rows.append((f"{name}, lines of {line_length:,}", units, seconds))
    return rows


def tokenizer_prices(tokenizer, at_least=0.3, repeats=3):
    """The measured price of each term of a tokenizer's price, before the margin: {name: (seconds per
    unit, the input that set it)}. Per character, per dear character and per period (where it has those
    prices), the prices that bound every pattern and WMT17's lines at the least price for those lines;
    per line, 'x' lines tokenized, or scored at order 8 with sentence scores."""
    import exactbleu
    from exactbleu import resolve_settings
    from exactbleu.tokenizers import token_text

    tokenize, price = resolve_settings(tokenizer=tokenizer).tokenize, TOKENIZERS[tokenizer].price
    token_text(["warm up ."], tokenize)
    rows = _pattern_times(tokenize, price, at_least, repeats)
    terms = ["character"] + ["dear"] * bool(price.dear) + ["period"] * bool(price.period)
    wmt17 = _wmt17_text()
    reference = {"character": len(wmt17), "dear": price.dear_characters.count(wmt17) if price.dear else 0,
                 "period": wmt17.count(".")}
    rows.append(("WMT17's lines", reference, _best_of(repeats, token_text, wmt17.split("\n"), tokenize)))
    fitted, setters = _least_prices([(*(units[term] for term in terms), seconds) for _, units, seconds in rows],
                                    [reference[term] for term in terms])
    prices = {f"{tokenizer} {term}": (value, rows[setter][0]) for term, value, setter in zip(terms, fitted, setters)}
    settings = resolve_settings(tokenizer=tokenizer, max_order=8, sentence_level=True, signature=True)
    scored = lambda size: _best_of(repeats, lambda: exactbleu.corpus_bleu(["x"] * size, [["x"]] * size, settings,
                                                                           threads=1))  # noqa: E731
    seconds, lines = _grown(scored, at_least, most=100_000)
    tokenized, size = _grown(lambda size: _best_of(repeats, token_text, ["x"] * size, tokenize), at_least)
    prices[f"{tokenizer} line"] = max((seconds / (2 * lines), "'x' lines, scored at order 8"),
                                      (tokenized / size, "'x' lines, tokenized"))
    if price.run:
        for run in (5_000, 20_000, 80_000):
            for name in ("digits", "punctuation", "ascii", "hangul", "kana", "cjk", "emoji"):
                text = (PATTERNS[name].replace(" ", "") * (run // 100 + 1))[:run]
                value = (_best_of(1, token_text, [text], tokenize) / run**2, f"a run of {run:,} characters: {name}")
                prices[f"{tokenizer} run"] = max(prices.get(f"{tokenizer} run", value), value)
    return prices


def measure_prices(tokenizers, at_least=0.3, repeats=3):
    """The measured price of each term of space.pricing.cost_of, before its margin: a dict of
    {name: (seconds per unit, the input that set it)}."""
    import exactbleu
    from exactbleu import packed_token_limit, resolve_settings

    def scored(lines, references, settings):
        return exactbleu.corpus_bleu(lines, references, settings, threads=1)

    prices = {}

    def keep(name, value, where):
        if value > prices.get(name, (0, ""))[0]:
            prices[name] = (value, where)

    for tokenizer in tokenizers:
        prices.update(tokenizer_prices(tokenizer, at_least, repeats))
    # Counting, per order: packed keys hold a segment whose references have fewer than
    # 2**bits distinct tokens; every character of this text is a distinct token.
    for order in range(1, 9):
        settings = resolve_settings(tokenizer="char", max_order=order)
        limit = packed_token_limit(order)
        text = _random_text(0x4E00, 0x9FFF, 400_000, order)
        for kind, lengths in (("packed", [min(limit - 1, 200_000)]), ("definition", [limit, 1_000, 200_000])):
            # order 1 packs any segment the token limit lets through: no definition to measure
            for length in (n for n in lengths if (n >= limit) == (kind == "definition") and n <= 200_000):
                def count(size):
                    lines = [text[start : start + length] for start in range(0, size, length)]
                    return _best_of(repeats, scored, lines, [[line] for line in lines], settings)
                seconds, size = _grown(count, at_least, start=max(1000, length), most=400_000)
                keep(f"{kind} order {order}", seconds / (2 * size), f"lines of {length:,} CJK characters")
    # explain: one line of distinct tokens, every order.
    line = _random_text(0x4E00, 0x9FFF, 1000, 9)
    for order in (1, 4, 8):
        settings = resolve_settings(tokenizer="char", max_order=order)
        seconds = _best_of(repeats, lambda *arguments: list(exactbleu.explain(*arguments)), [line], [[line]], settings)
        keep("explain", seconds / (2 * len(line) * order), f"a line of {len(line)} CJK characters, order {order}")
    # The paired tests: lines of 20 random words, 13a, sacrebleu's defaults.
    rng = random.Random(10)
    words = [f"w{number}" for number in range(300)]
    settings = resolve_settings("sacrebleu")
    for test in ("bootstrap", "randomization"):
        times = {}
        for lines in (1_000, 10_000):
            corpus = [[" ".join(rng.choice(words) for _ in range(20)) for _ in range(lines)] for _ in range(3)]
            times[lines] = _best_of(repeats, lambda *arguments: exactbleu.paired_test(*arguments, test=test,
                                                                                    preset=settings, threads=1),
                                    {"a": corpus[0], "b": corpus[1]}, corpus[2])
        per_line = max(0.0, (times[10_000] - times[1_000]) / 9_000)
        keep(f"paired {test} per line", per_line, "1,000 and 10,000 lines")
        keep(f"paired {test} fixed", max(0.0, times[1_000] - 1_000 * per_line), "1,000 and 10,000 lines")
    return prices


def calibration(tokenizers, orders=(1, 2, 4, 8), target=0.5, repeats=2):
    """For each tokenizer, the largest ratio of measured seconds to space.pricing.cost_of's estimate, over
    every pattern, line length and order: below 1, the estimate holds."""
    import exactbleu
    from exactbleu import resolve_settings

    worst = {}
    cases = [(name, pattern, line_length) for name, pattern in PATTERNS.items() for line_length in (100, 100_000)]
    cases += [(f"{name} periods", PATTERNS[name], 1000) for name in ("1.2.", "a.b.")]
    cases += [("a run of digits", "1" * 20_000 + " ", 20_001), ("one-character lines", "x", 1)]
    for tokenizer in tokenizers:
        for order in orders:
            settings = resolve_settings(tokenizer=tokenizer, max_order=order, sentence_level=True, signature=True)
            for name, pattern, line_length in cases:
                size = 1000
                while True:
                    lines = _lines(pattern, size, line_length)
                    estimate = pricing.cost_of(lines, [[line] for line in lines], tokenizer, order).seconds
                    if estimate >= target or size >= 2_000_000:
                        break
                    size *= 2
                seconds = _best_of(repeats, lambda *arguments: exactbleu.corpus_bleu(*arguments, threads=1), lines,
                                   [[line] for line in lines], settings)
                ratio = seconds / estimate
                if ratio > worst.get(tokenizer, (0,))[0]:
                    worst[tokenizer] = (ratio, f"{name}, lines of {line_length:,}, order {order}: {seconds:.2f} s "
                                               f"measured, {estimate:.2f} s estimated")
    return worst


def print_prices(tokenizers, quick):
    prices = measure_prices(tokenizers, at_least=0.05 if quick else 0.15, repeats=1 if quick else 3)
    prices.update(measure_convention_prices(repeats=1 if quick else 3, lines=100 if quick else 2000))
    print(f"| price of | measured (the quietest run) | declared (a tokenizer's, {MARGIN:g} times its measure) "
          f"| set by |")
    print("|---|---|---|---|")
    for name, (value, where) in prices.items():
        used = declared_price(name)
        print(f"| {name} | {value * 1e6:.3g} µs | {used * 1e6:.3g} µs | {where} |" if used is not None else
              f"| {name} | {value * 1e6:.3g} µs | | {where} |")
    print()
    worst = calibration(tokenizers, orders=(2, 8) if quick else (1, 2, 4, 8), target=0.05 if quick else 0.25,
                        repeats=1 if quick else 2)
    print("| tokenizer | most measured / estimated | on |")
    print("|---|---|---|")
    for tokenizer, (ratio, where) in worst.items():
        print(f"| {tokenizer} | {ratio:.2f} | {where} |")
    print()
    rows, taken, fits = convention_calibration((20, 50) if quick else (100, 400, 1000, 2000), repeats=1 if quick else 3)
    print('| "Which BLEU?", WMT17 lines | price | measured (the quietest of 3 runs) | price / measured |')
    print("|---|---|---|---|")
    for size, price, seconds in rows:
        print(f"| {size:,} | {price:.2f} s | {seconds:.2f} s | {price / seconds:.2f} |")
    print(f"\nThe price takes up to {taken:,} lines in {pricing.MAX_SECONDS:g} s; the work fits about {fits:,}.")


def declared_price(name):
    """The declared price of a measured term, by the term's name."""
    words = name.split()
    if words[0] in TOKENIZERS and words[-1] in {field.name for field in dataclasses.fields(Price)}:
        return getattr(TOKENIZERS[words[0]].price, words[-1])
    if words[0] in ("packed", "definition"):
        return (pricing.PACKED_PRICE if words[0] == "packed" else pricing.DEFINITION_PRICE)[int(words[-1]) - 1]
    if words[0] == "explain":
        return pricing.EXPLAIN_PRICE
    if words[0] == "paired":
        return pricing.PAIRED_PRICES[words[1]][0 if words[-1] == "fixed" else 1]
    if words[0] == "convention":
        return pricing.CONVENTION_PRICE
    if words[0] == "sentence":
        return pricing.SENTENCE_PRICES.get(words[1], pricing.SENTENCE_PRICE)
    return None


# --- "Which BLEU?" ------------------------------------------------------------------------------

def _wmt17(size, system="KIT.4950.de"):
    predictions = _read(WMT17 / "systems" / system)[:size]
    return predictions, [[line] for line in _read(WMT17 / "newstest2017.ref.de")[:size]]


def measure_convention_prices(repeats=2, lines=2000):
    """The measured prices of scoring "Which BLEU?"'s conventions: per convention, on one line; per
    segment of each smoothing method's sentence scores, on WMT17's lines (lines without a match cost
    NLTK's methods 5 to 7 up to a third more, one-word lines less). A dict as measure_prices gives."""
    import exactbleu
    from exactbleu import resolve_settings, scored_rows, statistics

    tokenizer, line = space_requests.DEFAULT_TOKENIZER, "the cat sat on the mat"
    found = exactbleu.conventions([line], [[line]], tokenizers=[tokenizer])
    seconds = _best_of(repeats + 1, lambda: exactbleu.conventions([line], [[line]], tokenizers=[tokenizer]))
    prices = {"convention": (seconds / pricing.convention_work(tokenizer, (1,)).conventions, "one line")}
    methods = {}
    for row in found:
        if row.aggregate != "corpus":
            settings = resolve_settings(row.preset, **row.options)
            methods.setdefault(settings.scoring.smooth_method or "HF", settings)
    predictions, references = _wmt17(lines)
    for method, settings in methods.items():
        counted = statistics(predictions, references, settings)
        prices[f"sentence {method}"] = (_best_of(repeats, scored_rows, counted, settings) / lines,
                                        f"WMT17, {lines:,} lines")
    return prices


def conventions_price(predictions, references):
    """space's price of "Which BLEU?" on these lines, with no language, over the limit or not."""
    names = convention_tokenizers()
    costs = [pricing.cost_of(predictions, references, name, 5) for name in names]
    scripts = {name: pricing.cost_of(predictions, references, name, 5)
               for name in pricing.script_work(costs[0].references)}
    return pricing.conventions_cost(costs, scripts, len(predictions), 5).seconds


def convention_calibration(sizes, repeats=2):
    """"Which BLEU?" on WMT17's lines: its price and its measured time (the best of ``repeats``)
    at each size, and the most lines the price takes and the work fits in MAX_SECONDS."""
    import exactbleu

    rows = []
    exactbleu.conventions(*_wmt17(5))  # the tokenizers' first calls load what they use
    for size in sizes:
        predictions, references = _wmt17(size)
        seconds = _best_of(repeats, lambda: exactbleu.conventions(predictions, references))
        rows.append((size, conventions_price(predictions, references), seconds))
    low, high = 1, 3004  # WMT17's lines
    while low < high:  # the price grows with the lines: the most it takes
        middle = (low + high + 1) // 2
        low, high = (middle, high) if conventions_price(*_wmt17(middle)) <= pricing.MAX_SECONDS else (low, middle - 1)
    (small, _, before), (large, _, after) = rows[-2], rows[-1]  # the time is linear in the lines, past a few
    fits = int(small + (pricing.MAX_SECONDS - before) * (large - small) / max(after - before, 1e-9))
    return rows, low, fits



# --- The times the tests hold the prices to ------------------------------------------------------

# The tests never time anything: they hold each price to these measurements, which this benchmark
# records on a quiet machine. Each tokenizer on the inputs that cost tokenizers most, 10,000
# characters cut to about half a second by its price (sacremoses on periods would take 3 s a call).
RECORDED_PATTERNS = ["word", "1.2.", "a.b.", "punctuation", "ampersand", "digits", "ascii", "cjk", "hangul", "kana",
                     "Mr.", "don't", "1 2", "brackets"]
RECORDED_CHARACTERS, RECORDED_MOST_SECONDS = 10_000, 0.5
# "Which BLEU?" on WMT17's lines: one reference set, and three (the first system's output against
# the reference and the next systems' outputs as further reference sets).
RECORDED_REQUESTS = [(100, 1), (400, 1), (1000, 1), (200, 3)]
RECORDED = ROOT / "tests" / "data" / "space" / "measured.json"


def which_bleu_boxes(lines, reference_sets):
    """The page's four text boxes for a "Which BLEU?" request on WMT17's first lines, and the
    systems whose output they hold."""
    systems = sorted(path.name for path in (WMT17 / "systems").iterdir())[:reference_sets]
    outputs = [_read(WMT17 / "systems" / name)[:lines] for name in systems]
    reference = _read(WMT17 / "newstest2017.ref.de")[:lines]
    boxes = ["\n".join(these) for these in (outputs[0], reference, *outputs[1:])]
    return boxes + [""] * (4 - len(boxes)), systems


def record_times(path, repeats=3):
    """Measure, the quietest of ``repeats`` runs, what the tests hold the prices to, and write it."""
    import exactbleu

    rows = []
    for tokenizer in space_requests.tokenizers():
        settings = exactbleu.resolve_settings(tokenizer=tokenizer, max_order=4, sentence_level=True, signature=True)
        exactbleu.corpus_bleu(["warm up ."], [["warm up ."]], settings, threads=1)  # what a first call loads
        for name in RECORDED_PATTERNS:
            for line_length in (100, 4000):
                characters = RECORDED_CHARACTERS
                lines = _lines(PATTERNS[name], characters, line_length)
                estimate = pricing.cost_of(lines, [[line] for line in lines], tokenizer, 4).seconds
                if estimate > RECORDED_MOST_SECONDS:
                    characters = int(characters * RECORDED_MOST_SECONDS / estimate)
                    lines = _lines(PATTERNS[name], characters, line_length)
                seconds = _best_of(repeats, lambda: exactbleu.corpus_bleu(lines, [[line] for line in lines], settings,
                                                                          threads=1))
                rows.append({"tokenizer": tokenizer, "pattern": name, "text": PATTERNS[name],
                             "characters": characters, "line_length": line_length, "seconds": round(seconds, 5)})
    requests = []
    space_requests.run_here(space_requests.conventions_job(
        space_requests.PageInputs.checked(*which_bleu_boxes(5, 1)[0]), None, ""))  # the tokenizers' first calls
    for lines, reference_sets in RECORDED_REQUESTS:
        boxes, systems = which_bleu_boxes(lines, reference_sets)
        job = space_requests.conventions_job(space_requests.PageInputs.checked(*boxes), None, "")
        seconds = _best_of(repeats, space_requests.run_here, job)
        requests.append({"lines": lines, "systems": systems, "seconds": round(seconds, 4)})
    made = {"made by": "python benchmarks/load.py record", "machine": f"{os.cpu_count()} cores, Python "
            f"{sys.version.split()[0]}", "repeats": repeats, "tokenizers": rows, "which_bleu": requests}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(made, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(rows)} tokenizer rows and {len(requests)} requests to {path}")


# --- Load ---------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Space:
    """`python app.py` on a free local port, as a user starts it; killed on leaving, with its workers."""

    def __enter__(self):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/"
        environment = dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1", GRADIO_SERVER_PORT=str(port))
        self.process = subprocess.Popen([sys.executable, str(ROOT / "app.py")], env=environment, cwd=ROOT,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while True:
            try:
                with urllib.request.urlopen(self.url + "config", timeout=5) as response:
                    self.config = json.load(response)
                    return self
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    self.__exit__()
                    raise RuntimeError("app.py did not start serving within 120 s")
                time.sleep(0.1)

    def event_index(self, name):
        """The index of the page's event ``name``, from the page's config, as a browser finds it
        (importing the page here would load Gradio a second time: seconds of start-up)."""
        return next(event["id"] for event in self.config["dependencies"] if event["api_name"] == name)

    def peak_memory_mb(self):
        status = pathlib.Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024

    def __exit__(self, *exception):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _read(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def wmt17_requests(count, seed, lines=100):
    """``count`` random ``lines``-line slices of WMT17 systems, each (predictions, references,
    the library's own result for them), the texts newline-separated as the Space takes them."""
    import exactbleu

    rng = random.Random(seed)
    reference = _read(WMT17 / "newstest2017.ref.de")
    systems = [_read(path) for path in sorted((WMT17 / "systems").glob("*.de"))]
    requests = []
    for _ in range(count):
        system, start = rng.choice(systems), rng.randrange(len(reference) - lines)
        predictions, references = system[start : start + lines], reference[start : start + lines]
        expected = exactbleu.corpus_bleu(predictions, references, sentence_level=True, signature=True)
        requests.append(("\n".join(predictions), "\n".join(references), expected))
    return requests


def _phase_start(barrier):
    """Wait at ``barrier`` for every client of the phase to be connected: the phase starts then,
    however long the clients took to start on a busy machine. Returns the start."""
    barrier.wait(timeout=600)  # not for ever, should the benchmark itself be gone
    return time.time()


def _connected(url, barrier):
    """A gradio_client of its own; one that cannot connect calls off the phase for every client."""
    from gradio_client import Client

    try:
        return Client(url, verbose=False, ssl_verify=False)
    except BaseException:
        barrier.abort()
        raise


def _ordinary_users(url, users, barrier, seconds, seed, results):
    """In a client process: ``users`` threads, each a gradio_client user sending WMT17 requests
    back to back for ``seconds`` from the phase's start; sends [(latency, right, error)] on
    ``results``."""
    requests = wmt17_requests(20, seed)
    outcomes, lock = [], threading.Lock()

    def user(number):
        client, rng = _connected(url, barrier), random.Random(seed * 1000 + number)
        start = _phase_start(barrier)
        while time.time() < start + seconds:
            predictions, references, expected = rng.choice(requests)
            began = time.perf_counter()
            try:
                answer, error = client.predict(predictions, references, api_name="/compute"), None
            except Exception as failure:  # noqa: BLE001 - counted and reported
                answer, error = None, f"{type(failure).__name__}: {failure}"[:200]
            with lock:
                outcomes.append((time.perf_counter() - began, answer == expected, error))

    with concurrent.futures.ThreadPoolExecutor(users) as pool:
        list(pool.map(user, range(users)))
    results.send(outcomes)


def dearest_requests():
    """The dearest requests the Space's limits let through, each sized to just under MAX_SECONDS by
    the Space's own estimate: [(kind, arguments for /compute or, for "explain", the page's event)]."""

    def largest(make, low=1, high=10_000_000):
        while low < high:  # the largest size whose request the Space takes
            middle = (low + high + 1) // 2
            try:
                make(middle)
                low = middle
            except pricing.InputError:
                high = middle - 1
        return make(low)

    def scored(tokenizer, text):
        def make(size):
            space_requests.score_job(space_requests.PageInputs.checked(text[:size], text[:size], "", "", tokenizer, 8, "none",
                                                           "shortest", False))
            return [text[:size], text[:size], "", "", tokenizer, 8, "none", "shortest", False]
        return make

    periods, run = "1.2. " * 20_000, "1" * 200_000  # more than the limits take
    requests = [("moses, '1.2. ' repeated", largest(scored("moses", periods), high=len(periods))),
                ("ja-mecab, a run of digits", largest(scored("ja-mecab", run), high=len(run)))]

    # The page's explain event, with 10 MB of text: the dearest line it explains, then filler lines.
    def explained(size):
        line = periods[:size]
        space_requests.explain_job(space_requests.PageInputs.checked(line, line, "", "", "moses", 8, "none", "shortest", False), 0)
        return line

    line = largest(explained, high=10_000)
    filler_lines = space_requests.MAX_LINES - 1
    filler = ("x" * ((space_requests.MAX_BYTES - 2 * len(line)) // filler_lines - 2) + "\n") * filler_lines
    requests.append(("the page's explain, 10 MB", [line + "\n" + filler, line, "", "", "moses", 8, "none", "shortest",
                                                    False]))
    return requests


def _raw_event(url, fn_index, data, event_data, timeout=600):
    """A page event called as a raw queue request, as the browser sends it: its outcome message."""
    import httpx

    session = uuid.uuid4().hex
    body = {"data": data, "event_data": event_data, "fn_index": fn_index, "trigger_id": None, "session_hash": session}
    with httpx.Client(timeout=timeout) as http:
        http.post(url + "gradio_api/queue/join", json=body).raise_for_status()
        with http.stream("GET", url + "gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    message = json.loads(line[5:])
                    if message.get("msg") == "process_completed":
                        return message
    return None


def _attackers(url, barrier, seconds, results, requests, explain_index):
    """In a client process: 8 clients sending the dearest requests back to back for ``seconds``
    from the phase's start; sends (answered, refused, kinds, a few refusals) on ``results``, then
    leaves without waiting for what is under way."""
    counts, refusals, lock = {"answered": 0, "refused": 0}, [], threading.Lock()

    def attacker(number):
        kind, arguments = requests[number % len(requests)]
        # The explain event is called raw, as a browser calls it: that attacker needs no gradio_client.
        client = None if kind.startswith("the page's explain") else _connected(url, barrier)
        start = _phase_start(barrier)
        while time.time() < start + seconds:
            refusal = None
            try:
                if kind.startswith("the page's explain"):
                    message = _raw_event(url, explain_index, arguments, {"index": [0, 1], "value": ""})
                    if not (message and message.get("success")):
                        refusal = str((message or {}).get("output", {}).get("error"))
                else:
                    client.predict(*arguments, api_name="/compute")
            except Exception as error:  # noqa: BLE001 - a refusal ("busy") is an answer too
                refusal = f"{type(error).__name__}: {error}"
            with lock:
                counts["answered" if refusal is None else "refused"] += 1
                if refusal is not None and len(refusals) < 20:
                    refusals.append(f"{kind}: {refusal[:160]}")

    threads = [threading.Thread(target=attacker, args=(number,), daemon=True) for number in range(8)]
    for thread in threads:
        thread.start()
    start = _phase_start(barrier)
    time.sleep(max(0.0, start + seconds - time.time()))
    with lock:
        results.send((counts["answered"], counts["refused"], [kind for kind, _ in requests], sorted(set(refusals))))
    os._exit(0)  # the attackers' connections close here, under way or not: the Space must drop their work


def time_wait_sockets():
    """How many TCP connections of this machine are in TIME_WAIT (Linux; 0 elsewhere)."""
    try:
        line = next(line for line in open("/proc/net/sockstat") if line.startswith("TCP:"))
    except OSError:
        return 0
    words = line.split()
    return int(words[words.index("tw") + 1])


def run_phase(url, users, seconds, attack, settle=True, client_processes=5):
    """One phase: ``users`` ordinary users for ``seconds``, in at most ``client_processes``
    processes, and if ``attack`` is (the dearest requests, the explain event's index), the
    attackers. Returns a row of the table."""
    # gradio_client opens two connections a request, and each waits 60 s in TIME_WAIT when closed:
    # at 100 requests a second, loopback's 28,000 ports run out within two phases, and a client
    # waits seconds for a port. So a phase starts once most of the last one's have gone.
    deadline = time.time() + 90
    while settle and time_wait_sockets() > 4_000 and time.time() < deadline:
        time.sleep(1)
    context = multiprocessing.get_context("spawn")
    processes_count = min(users, client_processes)
    shares = [users // processes_count + (number < users % processes_count) for number in range(processes_count)]
    pipes = [context.Pipe(duplex=False) for _ in range(len(shares) + bool(attack))]
    # Every user, and the 8 attackers and their process's main thread, wait here with this one.
    barrier = context.Barrier(users + (9 if attack else 0) + 1)
    processes = [context.Process(target=_ordinary_users, args=(url, share, barrier, seconds, number + 1, pipe[1]))
                 for number, (share, pipe) in enumerate(zip(shares, pipes))]
    if attack:
        processes.append(context.Process(target=_attackers, args=(url, barrier, seconds, pipes[-1][1], *attack)))
    for process in processes:
        process.start()
    while barrier.n_waiting < barrier.parties - 1:
        if not all(process.is_alive() for process in processes):
            barrier.abort()
            raise RuntimeError("a client process ended before the phase started")
        time.sleep(0.05)
    start = _phase_start(barrier)
    outcomes, attack_counts = [], None
    for (reader, _), process in zip(pipes, processes):
        while not reader.poll(1):
            if not process.is_alive() or time.time() > start + seconds + 600:
                raise RuntimeError(f"a client process ended without reporting (exit code {process.exitcode})")
        item = reader.recv()
        if isinstance(item, tuple):
            attack_counts = item
        else:
            outcomes += item
    for process in processes:
        process.join(timeout=60)
        if process.is_alive():
            process.kill()
            process.join()
    latencies = sorted(latency for latency, _, error in outcomes if error is None)
    percentile = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")  # noqa: E731
    return {"users": users, "attack": bool(attack), "requests": len(outcomes), "p50": percentile(0.5),
            "p95": percentile(0.95), "max": latencies[-1] if latencies else float("nan"),
            "wrong": sum(1 for _, right, error in outcomes if error is None and not right),
            "errors": sorted({error for _, _, error in outcomes if error is not None}),
            "attackers": attack_counts}


def load_table(user_counts, seconds, settle=True, client_processes=5):
    """The load benchmark's markdown table, and whether every answer was right."""

    rows = []
    with Space() as space:
        dearest = (dearest_requests(), space.event_index("explain_for_page"))
        for users in user_counts:
            for attack in (None, dearest):
                rows.append(run_phase(space.url, users, seconds, attack, settle, client_processes))
                print(f"  {users} users{', attacked' if attack else ''}: {rows[-1]['requests']} requests, p95 "
                      f"{rows[-1]['p95']:.3f} s", file=sys.stderr, flush=True)
        memory = space.peak_memory_mb()
    lines = ["| users | 8 attackers | requests | per second | p50 | p95 | max | wrong answers | errors | "
             "attackers' requests answered / refused |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        attackers = f"{row['attackers'][0]} / {row['attackers'][1]}" if row["attackers"] else ""
        lines.append(f"| {row['users']} | {'yes' if row['attack'] else 'no'} | {row['requests']} | "
                     f"{row['requests'] / seconds:.1f} | {row['p50']:.3f} s | {row['p95']:.3f} s | {row['max']:.3f} s | "
                     f"{row['wrong']} | {len(row['errors'])} | {attackers} |")
    by_users = {}
    for row in rows:
        by_users.setdefault(row["users"], {})[row["attack"]] = row["p95"]
    lines.append("")
    for users, p95 in by_users.items():
        lines.append(f"- {users} users: p95 {p95[False]:.3f} s alone, {p95[True]:.3f} s attacked "
                     f"({p95[True] / p95[False]:.2f}×)")
    lines.append(f"- the server's peak memory: {memory:.0f} MB")
    attack_kinds = next((row["attackers"][2] for row in rows if row["attackers"]), [])
    lines.append(f"- the attackers send: {'; '.join(attack_kinds)}")
    errors = sorted({error for row in rows for error in row["errors"]})
    for error in errors[:5]:
        lines.append(f"- an ordinary user's error: {error}")
    refusals = sorted({refusal for row in rows if row["attackers"] for refusal in row["attackers"][3]})
    for refusal in refusals[:6]:
        lines.append(f"- an attacker was told: {refusal}")
    return "\n".join(lines), all(row["wrong"] == 0 for row in rows), rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="?", choices=["load", "prices", "record"], default="load")
    parser.add_argument("--smoke", action="store_true", help="tiny settings: checks that it runs")
    arguments = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the Space is stopped on the way out

    if arguments.what == "record":
        record_times(RECORDED)
        return 0
    if arguments.what == "prices":
        print_prices(["13a"] if arguments.smoke else space_requests.tokenizers(), arguments.smoke)
        return 0
    # The smoke run's second is enough for each user's first request, which every user sends at
    # the phase's start and is counted whenever it ends. Its 2 users share one client process: each
    # process started costs a second and a half of CPU (Python, gradio_client, the requests' answers).
    user_counts, seconds = ((2,), 1) if arguments.smoke else ((1, 10, 50), 30)
    table, right, _ = load_table(user_counts, seconds, settle=not arguments.smoke,
                                 client_processes=1 if arguments.smoke else 5)
    print(f"Measured by `python benchmarks/load.py` on {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, {seconds} s per row:\n")
    print(table)
    return 0 if right else 1


if __name__ == "__main__":
    sys.exit(main())
