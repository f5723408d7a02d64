"""The version of exactbleu, which signatures name."""

__version__ = "2.0.0"
