"""The settings that counted a corpus's rows, which its statistics carry: the same corpus
lowercased, or with another tokenizer, gives other rows, so rows counted under some settings
neither add up with rows counted under others nor score under them."""

import hashlib
from typing import NamedTuple


class CountedWith(NamedTuple):
    """The settings that decide a corpus's statistics rows: the tokenizer by its signature name
    (which names the ``moses`` language and the SentencePiece model), lowercasing, right-stripping,
    the reference length, how many orders are counted and which references are kept."""

    tokenizer: str
    lowercase: bool
    rstrip: bool
    ref_length: str
    orders: int
    keep_references: str = "all"

    def text(self) -> str:
        """One line that names every field, as a column of statistics stores it (all the references,
        the default, unnamed: so it reads as the statistics of earlier versions did)."""
        return "|".join(f"{name}={value}" for name, value in zip(self._fields, self)
                        if name != "keep_references" or value != "all")

    @classmethod
    def from_text(cls, text: str) -> "CountedWith":
        """The settings that ``text()`` wrote, or a ValueError naming the text."""
        try:
            fields = dict(field.split("=", 1) for field in text.split("|"))
            return cls(fields["tokenizer"], fields["lowercase"] == "True", fields["rstrip"] == "True",
                       fields["ref_length"], int(fields["orders"]), fields.get("keep_references", "all"))
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
