"""The bounds every face shares, stated once, with nothing heavy to import: the command line's
help reads them without loading numpy."""


# BLEU is used with orders 1 to 4, character BLEU with up to about 10; a bound keeps an absurd
# order (10**9) from allocating or looping without end.
MAX_ORDER = 20

# NLTK's corpus_bleu takes a list of weight sets and gives a score for each; this many at most.
MAX_WEIGHT_SETS = 1000

# The most resamples or trials one call may ask for: 100 times sacrebleu's 1000 resamples and 10
# times its 10000 trials. Memory stays bounded whatever the number; this bounds the time.
MAX_SAMPLES = 100_000

# sacrebleu's default number of resamples (paired bootstrap) and of trials (approximate
# randomization).
PAIRED_TESTS: dict[str, int] = {"bootstrap": 1000, "randomization": 10000}

# The largest BLEU matrix one call makes: 10**8 float64 entries, 800 MB.
MAX_CELLS = 100_000_000

# The counting engine packs a segment's n-grams into 62-bit integer keys: 12 bits for the segment
# within its chunk of 4096, the rest for the n-gram's token ids, each as wide as the segment's
# reference vocabulary needs. A segment whose references hold more distinct tokens than the keys
# can number is counted by the plain definition instead, which costs more per token.
SEGMENT_BITS = 12


def max_token_bits(max_order: int) -> int:
    """The widest token id that keeps every packed key of this order within 62 bits."""
    return (62 - SEGMENT_BITS) // (max_order + 1)


def packed_token_limit(max_order: int) -> int:
    """How many distinct tokens a segment's references may hold for the counting engine's packed
    keys at this order: a segment with more is counted by the plain definition, which costs more
    per token (the Space prices the two apart)."""
    return 1 << max_token_bits(max_order)

# Every whole number up to this is a float32: sums of counts that sacrebleu's bootstrap and
# torchmetrics keep in float32 are exact up to it, and past it depend on the order of their additions.
FLOAT32_WHOLE = 2**24

# fairseq's scorer holds token ids as C ints (``torch.IntTensor``, libbleu's ``int*``): its pad, eos
# and unk ids, and the ids it reads, are at most this.
C_INT_MAX = 2**31 - 1
