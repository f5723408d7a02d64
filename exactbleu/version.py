"""The version of exactbleu, which signatures name."""

__version__ = "2.1.0"
