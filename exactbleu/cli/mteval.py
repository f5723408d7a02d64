"""mteval's own files and lines: the SGML and XML that ``mteval-v13a.pl`` and ``mteval-v14.pl`` read
(``-r``, ``-s``, ``-t``), read as they read them, and what they print of a system with ``-b -d 2``.

A set holds documents, a document segments, each with its id; the system (or reference) is the
``sysid`` of each SGML document, or of each XML set. SGML is read with mteval's own patterns (tags in
any case, the first closing tag ends a span, every run of whitespace in a document made one space);
XML with an XML parser, its text as it is. The documents scored are the source's (``--source``), or
else the first system's; each system and reference holds each of them with as many segments, as
mteval checks. Segments follow their documents' ids in order, and their own ids as numbers.
"""

import argparse
import math
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from .. import PRESETS, TOKENIZERS, Settings
from .files import CommandLineError, read_text

# mteval's whitespace, Perl's in Unicode strings: Python's but U+001C to U+001F.
_SPACES = re.compile(r"[^\S\x1c-\x1f]+")
_SETS = {"src": "srcset", "ref": "refset", "tst": "tstset"}


class Document(NamedTuple):
    """A document of a set: its segments' texts by id, and where it was read."""

    segments: dict[str, str]
    path: str


class Sets(NamedTuple):
    """What mteval's files hold: each set's id (with the file it is in), and the documents of each
    system (for references: of each reference) by name, then by document id."""

    ids: list[tuple[str, str]]  # (setid, path) of every set read
    documents: dict[str, dict[str, Document]]


class Aligned(NamedTuple):
    """The systems and references of mteval's files, aligned: the documents in the order mteval
    scores them, with their segment ids, and each system's segments in that order."""

    documents: list[tuple[str, list[str]]]
    systems: dict[str, list[str]]
    references: list[list[str]]


def is_markup(path: str) -> bool:
    """Whether the command reads this file as mteval's SGML or XML (by its name, as mteval does)."""
    return path.lower().endswith((".sgm", ".sgml", ".xml"))


def read_scored(arguments: argparse.Namespace, settings: Settings) -> Aligned:
    """The systems (``-i``) and references of mteval's files, checked as mteval checks them."""
    script = PRESETS[arguments.preset].script
    if not all(map(is_markup, [*arguments.references, *arguments.input])):
        raise CommandLineError("give mteval's files all as SGML (.sgm) or XML (.xml), or all as plain text")
    reading = (arguments.encoding, script, settings.tokenize.tokenizer)
    tests, references = _merged(arguments.input, "tst", reading), _merged(arguments.references, "ref", reading)
    source = _sets(arguments.source, "src", reading) if arguments.source else None
    ids = {setid for sets in (tests, references, source) if sets for setid, _ in sets.ids}
    if len(ids) != 1:
        raise CommandLineError(f"the files' sets have different setids ({', '.join(sorted(ids))}): mteval stops there")
    eval_documents = (source or tests).documents["src" if source else min(tests.documents)]
    for kind, sets in (("system", tests), ("reference", references)):
        for name in sorted(sets.documents):
            for document, expected in sorted(eval_documents.items()):
                found = sets.documents[name].get(document)
                if found is None:
                    raise CommandLineError(f"no document {document!r} for {kind} {name!r}: mteval stops there")
                if len(found.segments) != len(expected.segments):
                    raise CommandLineError(f"document {document!r} of {kind} {name!r} ({found.path}) holds "
                                           f"{len(found.segments)} segments, not {len(expected.segments)}: mteval "
                                           "stops there")
    return _aligned(tests, references, sorted(eval_documents))


def _aligned(tests: Sets, references: Sets, order: list[str]) -> Aligned:
    """Each system's segments, and each segment's references, in mteval's order: documents by id,
    segments by the system's ids as numbers (every system numbering them alike)."""
    systems: dict[str, list[str]] = {}
    documents: list[tuple[str, list[str]]] | None = None
    groups: list[list[str]] = []
    for name in sorted(tests.documents):
        numbered = [(document, _segment_ids(tests.documents[name][document], document)) for document in order]
        if documents is None:
            documents = numbered
            groups = [[_reference_segment(references, reference, document, segment)
                       for reference in sorted(references.documents)]
                      for document, segments in numbered for segment in segments]
        elif numbered != documents:
            raise CommandLineError(f"system {name!r} numbers its segments otherwise than the first system: give each "
                                   "system its own file and run")
        systems[name] = [tests.documents[name][document].segments[segment]
                         for document, segments in numbered for segment in segments]
    return Aligned(documents or [], systems, groups)


def _reference_segment(references: Sets, reference: str, document: str, segment: str) -> str:
    """A reference's segment of this id, which mteval would read as empty if it were missing."""
    found = references.documents[reference][document]
    if segment not in found.segments:
        raise CommandLineError(f"document {document!r} of reference {reference!r} ({found.path}) has no segment "
                               f"{segment!r}, which mteval would score against an empty reference")
    return found.segments[segment]


def _segment_ids(document: Document, name: str) -> list[str]:
    """A document's segment ids in mteval's order, as numbers (v14 sorts them naturally: the same
    for numbers, the only ids whose order is not chance)."""
    for segment in document.segments:
        if not segment.isascii() or not segment.isdigit():
            raise CommandLineError(f"document {name!r} ({document.path}) has a segment id {segment!r}, not a number: "
                                   "mteval orders segments by their ids as numbers")
    return sorted(document.segments, key=int)


def _merged(paths: list[str], kind: str, reading: tuple[str, str, Any]) -> Sets:
    """The sets of several files of one kind, as if in one file: no document twice for a name."""
    ids: list[tuple[str, str]] = []
    documents: dict[str, dict[str, Document]] = {}
    for path in paths:
        sets = _sets(path, kind, reading)
        ids += sets.ids
        for name, by_id in sets.documents.items():
            for document, found in by_id.items():
                if document in documents.setdefault(name, {}):
                    raise CommandLineError(f"document {document!r} of {name!r} is in {documents[name][document].path}"
                                           f" and in {path}: mteval stops there")
                documents[name][document] = found
    return Sets(ids, documents)


def _sets(path: str, kind: str, reading: tuple[str, str, Any]) -> Sets:
    """One file's sets: SGML, or XML where the name ends with .xml (as mteval tells them)."""
    encoding, script, tokenizer = reading
    text = read_text(path, {"src": "source", "ref": "references", "tst": "hypotheses"}[kind], encoding)
    if path.lower().endswith(".xml"):
        return _xml_sets(text, path, kind, script, tokenizer)
    return _sgml_sets(text, path, kind, script)


def _span(name: str) -> "re.Pattern[str]":
    # mteval's extract_sgml_tag_and_span: any case, and the first closing tag ends the span.
    return re.compile(rf"<{name}\s*([^>]*)>(.*?)</{name}\s*>", re.IGNORECASE | re.DOTALL)


def _attribute(tag: str, name: str, script: str, path: str) -> str:
    """A tag's attribute as mteval's extract_sgml_tag_attribute finds it: v13a (Moses's) also takes
    it unquoted, up to the next quote; v14 only quoted."""
    quote = '"?' if script == "mteval-v13a.pl" else '"'
    found = re.search(rf"{name}\s*=\s*{quote}([^\"]*){quote}", tag, re.IGNORECASE | re.DOTALL)
    if found is None:
        raise CommandLineError(f"{path}: a tag without its {name} attribute (<... {tag}>): mteval stops there")
    return found[1]


def _sgml_sets(text: str, path: str, kind: str, script: str) -> Sets:
    """An SGML file's sets, read with mteval's patterns; the source's first set only."""
    ids: list[tuple[str, str]] = []
    documents: dict[str, dict[str, Document]] = {}
    for set_match in _span(_SETS[kind]).finditer(text):
        ids.append((_attribute(set_match[1], "setid", script, path), path))
        for document_match in _span("doc").finditer(set_match[2]):
            tag = document_match[1]
            name = "src" if kind == "src" else _attribute(tag, "sysid", script, path)
            document = _attribute(tag, "docid", script, path)
            if kind != "src" and document in ("", "0"):
                raise CommandLineError(f"{path}: a document id {document!r}, which mteval reads as none")
            if document in documents.setdefault(name, {}):
                raise CommandLineError(f"{path}: document {document!r} of {name!r} twice: mteval stops there")
            squeezed = _SPACES.sub(" ", document_match[2])
            segments = {}
            for segment_match in _span("seg").finditer(squeezed):
                segment = _attribute(segment_match[1], "id", script, path)
                if kind != "src" and segment in ("", "0"):
                    raise CommandLineError(f"{path}: a segment id {segment!r}, which mteval reads as none")
                segments[segment] = segment_match[2]
            if not segments:
                raise CommandLineError(f"{path}: document {document!r} holds no segments: mteval stops there")
            documents[name][document] = Document(segments, path)
        if kind == "src":
            break
    if not ids:
        raise CommandLineError(f"{path}: no <{_SETS[kind]}> in the file: mteval stops there")
    return Sets(ids, documents)


def _xml_sets(text: str, path: str, kind: str, script: str, tokenizer: Any) -> Sets:
    """An XML file's sets, read by an XML parser as mteval's XML::Twig reads them."""
    import xml.etree.ElementTree as ElementTree

    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise CommandLineError(f"{path}: not well-formed XML ({error})") from None
    sets = [root.find("srcset")] if kind == "src" else root.findall(_SETS[kind])
    if not sets or sets[0] is None:
        raise CommandLineError(f"{path}: no <{_SETS[kind]}> under the root element: mteval stops there")
    ids: list[tuple[str, str]] = []
    documents: dict[str, dict[str, Document]] = {}
    for one in sets:
        assert one is not None
        name = "src" if kind == "src" else one.get("refid" if kind == "ref" else "sysid")
        setid = one.get("setid")
        if not name or not setid:
            raise CommandLineError(f"{path}: a <{one.tag}> without its {'setid' if name else 'sysid or refid'}: "
                                   "mteval stops there")
        ids.append((setid, path))
        for element in one.iter("doc"):
            document = element.get("docid")
            if not document or document == "0":
                raise CommandLineError(f"{path}: a <doc> without its docid: mteval stops there")
            found = documents.setdefault(name, {}).setdefault(document, Document({}, path))
            for segment_element in element.iter("seg"):
                segment = segment_element.get("id")
                if not segment or segment == "0":
                    raise CommandLineError(f"{path}: a <seg> of document {document!r} without its id: mteval stops "
                                           "there")
                found.segments[segment] = _as_read(
                    "".join(segment_element.itertext()), script, tokenizer, f"{path}, document {document!r}, "
                    f"segment {segment}")
    return Sets(ids, documents)


def _as_read(text: str, script: str, tokenizer: Any, where: str) -> str:
    """XML's text, which mteval does not squeeze, as the text whose tokens here are mteval's (the
    tokenizer's ``xml_text``)."""
    declared = TOKENIZERS.get(tokenizer) if isinstance(tokenizer, str) else None
    if declared is None or declared.xml_text is None:
        return text
    try:
        return declared.xml_text(text, script)
    except ValueError as error:
        raise CommandLineError(f"{where}: {error}") from None


def mteval_lines(every: dict[str, Any], documents: list[tuple[str, list[str]]] | None, settings: Settings,
                 arguments: argparse.Namespace) -> Iterator[str]:
    """What mteval prints of each system (its name: statistics, one row a segment, in order):
    with -d, a line per segment (-d 2) and per document; then Moses's v13a, when it smooths, its
    length ratio; then each system's score."""
    from .. import scored

    script = PRESETS[arguments.preset].script
    detail = arguments.detail or 0
    ratio = script == "mteval-v13a.pl" and settings.scoring.smooth_method == "mteval"
    scores = {}
    for name, counted in every.items():
        sums = counted.sums()
        if ratio and not (int(sums.prediction_length) and int(sums.reference_length)):
            raise CommandLineError(f"system {name!r}: the hypotheses or the references hold no words: mteval-v13a.pl "
                                   "stops there (its length ratio line takes the log of 0 or divides by 0); "
                                   "mteval-v14.pl scores them (--preset mteval-v14)")
        if detail:
            yield from _detail_lines(name, counted, documents or [], settings, detail)
        score = scored(counted, settings)
        if ratio:
            length, reference = int(sums.prediction_length), int(sums.reference_length)
            penalty = math.log(score.brevity_penalty)
            yield f"length ratio: {_perl(length / reference)} ({length}/{reference}), penalty (log): {_perl(penalty)}"
        scores[name] = score.bleu
    for number, (name, bleu) in enumerate(scores.items()):
        if number or detail or ratio:
            yield ""
        yield f'BLEU score = {bleu:.4f} for system "{name}"'


def _detail_lines(name: str, counted: Any, documents: list[tuple[str, list[str]]], settings: Settings,
                  detail: int) -> Iterator[str]:
    """-d 1's document lines, and -d 2's segment lines before each."""
    from .. import scored, scored_rows

    start = 0
    rows = scored_rows(counted, settings).bleu.tolist() if detail >= 2 else []
    for document, segments in documents:
        end = start + len(segments)
        part = counted[start:end]
        if detail >= 2:
            words = part.prediction_length.tolist()
            for segment, bleu, length in zip(segments, rows[start:end], words):
                yield (f'  BLEU score using 4-grams = {bleu:.4f} for system "{name}" on segment {segment} of document '
                       f'"{document}" ({length} words)')
        yield (f'BLEU score using   4-grams = {scored(part, settings).bleu:.4f} for system "{name}" on document '
               f'"{document}" ({len(segments)} segments, {int(part.sums().prediction_length)} words)')
        start = end


def _perl(number: float) -> str:
    """A number as Perl prints it (``%.15g``)."""
    return f"{number:.15g}"
