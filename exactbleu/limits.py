"""The bounds every face shares, stated once, with nothing heavy to import: the command line's
help reads them without loading numpy."""

# The most resamples or trials one call may ask for: 100 times sacrebleu's 1000 resamples and 10
# times its 10000 trials. Memory stays bounded whatever the number; this bounds the time.
MAX_SAMPLES = 100_000

# sacrebleu's default number of resamples (paired bootstrap) and of trials (approximate
# randomization).
PAIRED_TESTS = {"bootstrap": 1000, "randomization": 10000}
