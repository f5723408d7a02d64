"""Records sacrebleu's own paired tests on the 16 WMT17 systems in ``paired.json``, beside this file.

sacrebleu's PairedTest on the 16 systems takes about 20 s, most of the test suite's time for one
check; its numbers depend only on these files, sacrebleu's version and SACREBLEU_SEED. They are
recorded once, here, with sacrebleu itself, as expected.json is; smaller paired tests still run
sacrebleu live (tests/scoring/test_paired.py). Run from the repository root, with sacrebleu 2.6.0:

    python tests/data/wmt17-en-de/record_paired.py
"""

import json
import os
import pathlib

import sacrebleu
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

HERE = pathlib.Path(__file__).resolve().parent
SEED = "12345"
# The baseline first; the bootstrap takes every system, the randomization three within a BLEU point.
BOOTSTRAP = ["KIT.4950"]
RANDOMIZATION = ["KIT.4950", "FBK.4870", "LIUM-NMT.4900"]


def read_lines(path):
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def paired(names, reference, test_type):
    """sacrebleu's results, as its PairedTest gives them, on 0-100."""
    os.environ["SACREBLEU_SEED"] = SEED
    systems = [(name, read_lines(HERE / "systems" / f"{name}.de")) for name in names]
    _, results = PairedTest(systems, {"BLEU": BLEU()}, [reference], test_type=test_type)()
    return [{"system": name, "score": result.score, "p_value": result.p_value, "mean": result.mean,
             "ci": result.ci} for name, result in zip(results["System"], results["BLEU"])]


def main():
    expected = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))["systems"]
    reference = read_lines(HERE / "newstest2017.ref.de")
    everyone = BOOTSTRAP + [name for name in expected if name not in BOOTSTRAP]
    record = {
        "sacrebleu": sacrebleu.__version__,
        "SACREBLEU_SEED": SEED,
        "bootstrap": paired(everyone, reference, "bs"),  # n_samples: sacrebleu's default, 1000
        "randomization": paired(RANDOMIZATION, reference, "ar"),  # 10,000 trials
    }
    (HERE / "paired.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
