"""The settings that counted a corpus's rows, which its statistics carry: the same corpus
lowercased, or with another tokenizer, gives other rows, so rows counted under some settings
neither add up with rows counted under others nor score under them. Where the rows depend on the
whole corpus (lm-eval's rule keeps as many references as the prediction with the fewest), they
also carry that corpus's fingerprint, so that rows rebuilt from stored columns prove they are it."""

import hashlib
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray


class CountedWith(NamedTuple):
    """The settings that decide a corpus's statistics rows: the tokenizer by its signature name
    (which names the ``moses`` language and the SentencePiece model), lowercasing, right-stripping,
    the reference length, how many orders are counted and which references are kept; and, where
    which references are kept depends on the whole corpus (``"fewest"``), ``corpus``: the
    fingerprint of the one corpus whose rows these are (``corpus_fingerprint``)."""

    tokenizer: str
    lowercase: bool
    rstrip: bool
    ref_length: str
    orders: int
    keep_references: str = "all"
    corpus: str = ""

    def text(self) -> str:
        """One line that names every field, as a column of statistics stores it (all the references
        and no corpus, the defaults, unnamed: so it reads as the statistics of earlier versions did)."""
        return "|".join(f"{name}={value}" for name, value in zip(self._fields, self)
                        if (name, value) not in (("keep_references", "all"), ("corpus", "")))

    def settings_alone(self) -> "CountedWith":
        """These settings without the corpus they counted: what scoring settings are compared with."""
        return self._replace(corpus="") if self.corpus else self

    def whole_corpus(self) -> bool:
        """Whether rows counted with these settings depend on the whole corpus they were counted on
        (``keep_references="fewest"``), so that they neither add up nor split."""
        return self.keep_references == "fewest"

    @classmethod
    def from_text(cls, text: str) -> "CountedWith":
        """The settings that ``text()`` wrote, or a ValueError naming the text."""
        try:
            fields = dict(field.split("=", 1) for field in text.split("|"))
            return cls(fields["tokenizer"], fields["lowercase"] == "True", fields["rstrip"] == "True",
                       fields["ref_length"], int(fields["orders"]), fields.get("keep_references", "all"),
                       fields.get("corpus", ""))
        except (KeyError, ValueError, AttributeError):
            raise ValueError(f"statistics column 'counted_with' must hold the settings that counted the rows, as "
                             f"statistics() writes them, got {text!r:.120}") from None

    def code(self) -> int:
        """A number from 1 to 2**31 - 1 that stands for these settings in a summed vector, the same
        in every process and on every machine."""
        digest = hashlib.blake2b(self.text().encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(digest, "big") % (2**31 - 1) + 1

    def difference(self, other: "CountedWith") -> tuple[str, str]:
        """The first setting where these differ from ``other``, as "name=this" and "name=that"."""
        for name, mine, theirs in zip(self._fields, self, other):
            if mine != theirs:
                return f"{name}={mine!r}", f"{name}={theirs!r}"
        return "", ""


def corpus_fingerprint(prediction_length: NDArray[np.int64], reference_length: NDArray[np.int64],
                       matches: NDArray[np.int64], totals: NDArray[np.int64], references: NDArray[np.int64]) -> str:
    """A digest of a corpus's rows and reference counts, in any order of its segments (a stored
    dataset may be shuffled): rows rebuilt from columns are the corpus they were counted on
    exactly when their fingerprint is the one they carry."""
    rows = np.column_stack([prediction_length, reference_length, matches, totals, references]).astype(np.int64)
    rows = rows[np.lexsort(rows.T[::-1])] if len(rows) > 1 else rows
    return hashlib.blake2b(np.ascontiguousarray(rows).tobytes(), digest_size=8).hexdigest()


def whole_corpus_error(what: str) -> ValueError:
    """The error of rows counted under a rule that depends on the whole corpus (``whole_corpus``),
    asked to do what only rows that add up can do: ``what``."""
    return ValueError(f"statistics counted with keep_references='fewest' (the \"lm-eval\" preset's) {what}: how many "
                      f"references count was decided by the whole corpus they were counted on; score them whole, as "
                      f"one call counted them, or count with keep_references='all' or 'first'")
