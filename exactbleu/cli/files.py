"""The command line's files: hypotheses and references, one segment per line, read as sacrebleu
reads them (right-stripped, a gzip file decompressed), from files or standard input, with one-line
errors; a file compressed otherwise is named so, with the command that decompresses it."""

import argparse
import codecs
import gzip
import re
import shlex
import sys
import zlib
from typing import NamedTuple


class CommandLineError(Exception):
    """A problem with the command line's files or options, told in one line."""


def read_lines(path: str, what: str, encoding: str, reads: str = "rstrip") -> list[str]:
    """One segment per line of a file (or of standard input, for "-"), decoded from ``encoding``
    (-e/--encoding), read as the preset's ``reads`` says: right-stripped as sacrebleu reads them,
    or as a script reads them (``Preset.reads``)."""
    lines = read_text(path, what, encoding).split("\n")
    if lines[-1] == "" and reads != "split":
        lines.pop()
    elif reads == "chop":  # Perl's chop takes the last character of a line, its line break or not
        lines[-1] = lines[-1][:-1]
    return lines if reads != "rstrip" else [line.rstrip() for line in lines]


def read_text(path: str, what: str, encoding: str) -> str:
    """A file's text (or standard input's, for "-"), decompressed and decoded from ``encoding``,
    with one-line errors that name it as ``what``."""
    named = f"{what} on standard input" if path == "-" else f"{what} {path}"
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                data = file.read()
        return decompressed(data, named, path).decode(encoding)
    except FileNotFoundError:
        raise CommandLineError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise CommandLineError(f"{what} {path}: is a directory") from None
    except PermissionError:
        raise CommandLineError(f"{what} {path}: permission denied") from None
    except LookupError:
        raise CommandLineError(f"--encoding {encoding!r}: no such encoding") from None
    except UnicodeDecodeError as error:
        raise CommandLineError(undecodable(named, encoding, error)) from None


class Compression(NamedTuple):
    """A compressed format sacrebleu does not read: its opening bytes, its file suffix, the command
    that decompresses ``FILE<suffix>`` beside it (keeping it), and the one that writes it out."""

    opening: re.Pattern[bytes]
    suffix: str
    unpack: str
    cat: str


# The formats' magic numbers; bzip2's with its first block's (or an empty stream's end) after them,
# so that no text is taken for one.
COMPRESSIONS = {
    "bzip2": Compression(re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), ".bz2", "bunzip2 -k", "bzcat"),
    "xz": Compression(re.compile(rb"\xfd7zXZ\x00"), ".xz", "unxz -k", "xzcat"),
    "zstd": Compression(re.compile(rb"\(\xb5/\xfd"), ".zst", "unzstd", "zstdcat"),
}


def decompressed(data: bytes, named: str, path: str) -> bytes:
    """A file's bytes, decompressed where they are gzip's (sacrebleu opens a ``.gz`` file with
    gzip; its magic number says the same of any name, and of standard input); a one-line error,
    with the command that decompresses it, where they are compressed in another format."""
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise CommandLineError(f"{named} looks like a gzip file, but it does not decompress: {error}") from None
    kind = next((kind for kind, one in COMPRESSIONS.items() if one.opening.match(data)), None)
    if kind is None:
        return data
    found, quoted = COMPRESSIONS[kind], shlex.quote(path)
    if path == "-":
        raise CommandLineError(f"{named} are {kind}-compressed, not text: decompress them on the way in "
                               f"({found.cat} FILE | exactbleu ...)")
    if path.endswith(found.suffix):  # the command keeps the file, and refuses to overwrite the one it writes
        written = shlex.quote(path.removesuffix(found.suffix))
        command = f"{found.unpack} {quoted}"
    else:
        written = shlex.quote(path + ".txt")
        command = f"{found.cat} {quoted} > {written}"
    raise CommandLineError(f"{named} is {kind}-compressed, not text: decompress it first ({command}) and give "
                           f"{written}")


def undecodable(named: str, encoding: str, error: UnicodeDecodeError) -> str:
    """Where a file is not text in its encoding, in its lines and columns (characters, from 1), and
    how to give its encoding."""
    before = error.object[:error.start].decode(encoding, errors="replace")
    line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
    octets = " ".join(f"0x{octet:02x}" for octet in error.object[error.start:min(error.end, error.start + 4)])
    shown = "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding
    return (f"{named}: line {line} is not valid {shown} (byte{'s' if ' ' in octets else ''} {octets} at column "
            f"{column}); give the file's encoding with -e/--encoding, such as -e latin-1")


def read_systems(arguments: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    """The systems' names and lines: files, or tab-separated fields of standard input."""
    if arguments.input:
        if len(set(arguments.input)) != len(arguments.input):
            raise CommandLineError("a hypothesis file is given twice: each system needs its own file")
        return list(arguments.input), [read_lines(path, "hypotheses", arguments.encoding, _reads(arguments))
                                       for path in arguments.input]
    lines = read_lines("-", "hypotheses", arguments.encoding, _reads(arguments))
    if _reads(arguments) != "rstrip":  # a script reads one system on standard input, a tab being whitespace
        return ["System 1"], [lines]
    rows = [line.split("\t") for line in lines]
    width = len(rows[0]) if rows else 1
    if any(len(row) != width for row in rows):
        raise CommandLineError("standard input: the number of tab-separated systems differs from line to line")
    names = [f"System {number + 1}" for number in range(width)]
    if arguments.paired:
        names[0] = "Baseline"
    return names, [[row[column].rstrip() for row in rows] for column in range(width)]


def read_references(arguments: argparse.Namespace, hypotheses: int) -> list[list[str]]:
    """Each segment's references: one file per reference set, or tab-separated in one (-nr)."""
    if arguments.test_set:
        raise CommandLineError(f"-t {arguments.test_set}: sacrebleu's test sets are not downloaded here; give the "
                               f"reference files before -i (sacrebleu --echo ref -t SET -l PAIR writes them)")
    if not arguments.references:
        raise CommandLineError("give the reference files before -i (test sets, sacrebleu's -t and -l without "
                               "references, are not downloaded)")
    sets = [read_lines(path, "references", arguments.encoding, _reads(arguments)) for path in arguments.references]
    if arguments.num_refs == 1:
        for path, lines in zip(arguments.references, sets):
            if len(lines) != hypotheses:
                raise CommandLineError(f"{path} has {len(lines)} lines but the hypotheses have {hypotheses}: "
                                       "files must align line by line")
        return [list(segment) for segment in zip(*sets)]
    if len(sets) > 1:
        raise CommandLineError("--num-refs reads tab-separated references from one file: give just one")
    references = []
    for number, line in enumerate(sets[0], 1):
        fields = line.split("\t", arguments.num_refs - 1)
        if len(fields) != arguments.num_refs:
            raise CommandLineError(f"{arguments.references[0]} line {number}: {len(fields)} references, "
                                   f"not --num-refs {arguments.num_refs}")
        references.append(fields)
    return references


def _reads(arguments: argparse.Namespace) -> str:
    """How the preset's tool reads a file's lines (``Preset.reads``)."""
    from .. import PRESETS

    preset = getattr(arguments, "preset", None)  # the conventions subcommand has none: it reads as sacrebleu
    return PRESETS[preset].reads if preset is not None else "rstrip"
