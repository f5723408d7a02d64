"""The command line's files: hypotheses and references, one segment per line, read as sacrebleu
reads them (right-stripped), from files or standard input, with one-line errors."""

import argparse
import codecs
import sys


class CommandLineError(Exception):
    """A problem with the command line's files or options, told in one line."""


def read_lines(path: str, what: str, encoding: str) -> list[str]:
    """One segment per line of a file (or of standard input, for "-"), right-stripped as sacrebleu
    reads them, decoded from ``encoding`` (-e/--encoding)."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                data = file.read()
        text = data.decode(encoding)
    except FileNotFoundError:
        raise CommandLineError(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise CommandLineError(f"{what} {path}: is a directory") from None
    except PermissionError:
        raise CommandLineError(f"{what} {path}: permission denied") from None
    except LookupError:
        raise CommandLineError(f"--encoding {encoding!r}: no such encoding") from None
    except UnicodeDecodeError as error:
        raise CommandLineError(undecodable(f"{what} on standard input" if path == "-" else f"{what} {path}", encoding,
                                           error)) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


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
        return list(arguments.input), [read_lines(path, "hypotheses", arguments.encoding) for path in arguments.input]
    rows = [line.split("\t") for line in read_lines("-", "hypotheses", arguments.encoding)]
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
    sets = [read_lines(path, "references", arguments.encoding) for path in arguments.references]
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
