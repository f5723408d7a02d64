#!/usr/bin/env python3
"""Record what CodeXGLUE's code-to-text evaluator gives, as ground truth for exactbleu's
"codexglue" preset and tokenizer.

The evaluator is NOT part of this repository. Fetch it yourself (microsoft/CodeXGLUE, the path
Code-Text/code-to-text/evaluator/evaluator.py; this recording used the snapshot ac74a62, where the
file is as its last change, 90f11dc, left it) and give its path. It is imported and run as it is: its
``computeMaps`` reads the predictions (``id<TAB>text`` lines) and the gold file, its
``bleuFromMaps`` prints the number the leaderboard reports, ``bleu`` scores one example, and
``normalize(splitPuncts(...))`` is its split.

Usage:
    python3 tests/data/codexglue/record_codexglue.py EVALUATOR.py [--out tests/data/codexglue/recorded.json.gz]
"""

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import random
import sys
import tempfile

SEED = 20261129
WORDS = ["returns", "the", "value", "of", "a", "given", "key", "in", "map", "Gets", "list", "if", "not", "null",
         "userName", "get_user_name", "HTTPServer", "x", "==", "!=", "<=", "->", "(", ")", "{", "}", "[", "]", ";",
         ",", ".", "...", "'s", "\"", "&amp;", "&lt;", "<skipped>", "3.5", "1,000", "2-3", "e.g.", "i.e.", "@param",
         "#include", "$var", "foo.bar()", "a+b", "x*y", "/*", "*/", "//", "_private", "__init__", "é", "Straße",
         "İstanbul", "ΟΔΟΣ", "naïve", "日本語", "—", "“quoted”", "\u00a0", "\u200b", "tab", "Return", "RETURN"]


def draw(rng, most=16):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, most)))


def cases():
    rng = random.Random(SEED)
    made = []
    for number in range(30):
        size = rng.choice([1, 2, 3, 5, 8, 20])
        references = [[draw(rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))] for _ in range(size)]
        predictions = [rng.choice([draw(rng), " ".join(group[0].split()[:rng.randint(0, 12)]), ""])
                       for group in references]
        made.append({"name": f"random-{number:02d}", "predictions": predictions, "references": references})
    made.append({"name": "by-hand", "predictions": ["returns the max value", "Gets the userName field.", "", "a",
                                                   "the the the the", "  Spaces around  "],
                 "references": [["Returns the maximum value."], ["Get user_name field", "get the user name"], ["x"],
                                ["a"], ["the cat"], ["spaces around"]]})
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("evaluator")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded.json.gz"))
    arguments = parser.parse_args()
    spec = importlib.util.spec_from_file_location("codexglue_evaluator", arguments.evaluator)
    evaluator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evaluator)
    with open(arguments.evaluator, "rb") as file:
        digest = hashlib.sha256(file.read()).hexdigest()
    recorded = {"about": "CodeXGLUE's evaluator.py run as it is (record_codexglue.py): for each case, its corpus "
                         "number (bleuFromMaps(...)[0], as its __main__ prints it), each example's bleu(...)[0], and "
                         "each text's tokens (normalize(splitPuncts(text.strip().lower())))",
                "evaluator": {"repository": "microsoft/CodeXGLUE", "commit": "ac74a62", "file_changed": "90f11dc",
                              "path": "Code-Text/code-to-text/evaluator/evaluator.py", "sha256": digest},
                "python": sys.version.split()[0], "cases": []}
    for case in cases():
        with tempfile.TemporaryDirectory() as folder:
            gold = os.path.join(folder, "gold.txt")
            with open(gold, "w", encoding="utf-8") as file:
                for number, group in enumerate(case["references"]):
                    file.writelines(f"{number}\t{reference}\n" for reference in group)
            lines = [f"{number}\t{prediction}\n" for number, prediction in enumerate(case["predictions"])]
            gold_map, prediction_map = evaluator.computeMaps(lines, gold)
        case["printed"] = evaluator.bleuFromMaps(gold_map, prediction_map)[0]
        case["examples"] = [evaluator.bleu(gold_map[str(number)], prediction_map[str(number)][0])[0]
                            for number in range(len(case["predictions"]))]
        texts = case["predictions"] + [reference for group in case["references"] for reference in group]
        case["tokens"] = {text: evaluator.normalize(evaluator.splitPuncts(text.strip().lower())) for text in texts}
        recorded["cases"].append(case)
    with gzip.open(arguments.out, "wt", encoding="utf-8") as file:
        json.dump(recorded, file, ensure_ascii=False, indent=0)
    print(f"wrote {arguments.out}: {len(recorded['cases'])} cases")


if __name__ == "__main__":
    main()
