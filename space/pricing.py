"""What a request may cost, known before any of its work runs.

Every registered tokenizer declares its price (``exactbleu.Price``): seconds per character, more per
character of the class that costs it most (punctuation, characters beyond ASCII, where ptb's rules
run), per line, and per known blow-up, measured by ``python benchmarks/load.py prices`` on the
dearest inputs found, the quietest of several runs times a margin. Counting n-grams has its own
prices, per token, by max order. The dearest inputs of each term are priced whole by it, so a mix of
them is priced at least at its cost. "Which BLEU?" is priced by the conventions the library scores.
A request over the limits gets a message saying which, and what to do instead.
"""

import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from exactbleu import (
    PRESETS,
    TOKENIZERS,
    Price,
    convention_tokenizers,
    conventions,
    packed_token_limit,
    resolve_settings,
)

RUN_LENGTH = Price.RUN_LENGTH

MAX_TOKENS = 1_000_000  # at most this many, counted before tokenizing as characters other than spaces
MAX_SECONDS = 5.0  # of work, estimated before any of it runs
# Counting n-grams, per token, by max order (index 0 is order 1): in packed integer keys, or by
# the definition where a segment's references hold too many distinct tokens for the keys (see
# `exactbleu/engine.py`): a segment whose references have fewer characters cannot.
PACKED_PRICE = (0.3e-6, 0.33e-6, 0.36e-6, 0.33e-6, 0.41e-6, 0.42e-6, 0.42e-6, 0.4e-6)
DEFINITION_PRICE = (0.3e-6, 0.45e-6, 4.1e-6, 5e-6, 5.1e-6, 5.5e-6, 6e-6, 7.6e-6)
EXPLAIN_PRICE = 0.1e-6  # per token and order: explain() builds a dict per n-gram
# "Which BLEU?" (exactbleu.conventions) scores every convention from counts made once per
# tokenization and reference rule: a price per convention (its settings, corpus score and rows), and
# per segment for each that also takes the mean of sentence scores, by smoothing method: NLTK's
# methods 5 to 7 score each segment alone, in exact ratios, the others all at once, and score a
# segment's row once however many conventions share it, so they are priced per row that can differ.
# Nearly the same work for any text (lines without a match cost methods 5 to 7 up to a third more),
# so priced at its measure on WMT17's lines, with no margin: the price is what it takes. A
# convention's price is that of the Space's whole request on one line with every tokenizer (one
# reference set or three: 0.30 and 0.33 ms), where one tokenizer's call alone takes 0.2 ms a convention.
CONVENTION_PRICE = 0.35e-3
SENTENCE_PRICES = {"method5": 9e-6, "method6": 7.5e-6, "method7": 10e-6}
SENTENCE_PRICE = 1.5e-6  # every other method, HF's smooth flag and COCO's, with a convention's reference lengths
# The paired tests resample per line: (seconds, seconds per line), by test, at its default samples.
PAIRED_PRICES = {"bootstrap": (0.03, 93e-6), "randomization": (0.5, 83e-6)}
COMMAND_LINE = "score big corpora with the command line, `python -m exactbleu`"


class InputError(ValueError):
    """Input the page can explain: shown as a message, never as a stack trace."""


class Cost(NamedTuple):
    """What a request may cost, known before any of its work runs."""

    tokens: int  # at most this many tokens: characters other than spaces and line breaks
    seconds: float  # at most about this much work, by the prices
    why: str  # what the price is made of, for a message
    counted: int = 0  # the tokens its counting is priced for: fewer, where the tokenizer bounds them closer
    references: tuple[int, ...] = ()  # how many references its lines hold, each number once


# A run starts only after a space, a line break or the start: so the search is linear in the text.
_LONG_RUN = re.compile(f"(?<![^ \n])[^ \n]{{{RUN_LENGTH},}}")
# Dear characters are counted this many characters at a time (to a line break), and no further once
# they alone are over the limit: a text that is refused whatever else it holds is never counted whole
# (ptb's count takes up to 1 µs a character on text of abbreviations).
_PIECE = 1 << 16


def _dear(price: Price, text: str, characters: int, tokens: int) -> int:
    """How many of the text's characters are dear to the tokenizer; all of them, uncounted, in a text
    over the token limit, which is refused whatever it holds."""
    if not (price.dear or (price.tokens and price.tokens[1])):
        return 0
    if tokens > MAX_TOKENS:
        return characters
    most, count, start = MAX_SECONDS / price.dear if price.dear else float("inf"), 0, 0
    while start < len(text) and count <= most:
        end = text.find("\n", start + _PIECE) + 1 or len(text)
        count += price.dear_characters.count(text[start:end])
        start = end
    return count


def _most_tokens(price: Price, text: str, tokens: int, dear: int) -> int:
    """At most how many tokens the tokenizer makes of the text: ``tokens``, a token a character, or
    fewer, where it bounds its tokens by its words and its dear characters."""
    if price.tokens is None or tokens > MAX_TOKENS:
        return tokens
    per_word, per_dear = price.tokens
    return min(tokens, per_word * len(text.split()) + per_dear * dear)


def _unpacked(price: Price, predictions: Sequence[str], references: Sequence[Sequence[str]], limit: int) -> int:
    """The tokens (at most) of the segments whose references may hold too many distinct tokens for
    packed keys: first by their characters, then by the tokenizer's bounds."""
    unpacked = 0
    for prediction, segment in zip(predictions, references):
        if sum(map(len, segment)) >= limit:
            joined = "\n".join(segment)
            most = _most_tokens(price, joined, len(joined), _dear(price, joined, len(joined), 0))
            distinct = most if price.distinct_tokens is None else min(most, price.distinct_tokens(joined))
            if distinct >= limit:  # every token of the segment is then counted by the definition
                unpacked += most + _most_tokens(price, prediction, len(prediction),
                                                _dear(price, prediction, len(prediction), 0))
    return unpacked


def cost_of(predictions: Sequence[str], references: Sequence[Sequence[str]], tokenizer: str, max_order: int) -> Cost:
    """The cost of tokenizing and counting these segments (``references``: a list per
    prediction) with this tokenizer up to this order. Every named tokenizer gives at most a token
    per character that is not a space or a line break; this counts those, never a token."""
    price, packed_limit = TOKENIZERS[tokenizer].price, packed_token_limit(max_order)
    text = "\n".join(itertools.chain(predictions, itertools.chain.from_iterable(references)))
    lines = len(predictions) + sum(map(len, references))
    characters = len(text) - (lines - 1)
    tokens = characters - text.count(" ")
    dear = _dear(price, text, characters, tokens)
    counted = _most_tokens(price, text, tokens, dear)
    periods = text.count(".") if price.period else 0
    runs = [match.end() - match.start() for match in _LONG_RUN.finditer(text)] if price.run else []
    unpacked = _unpacked(price, predictions, references, packed_limit) if tokens <= MAX_TOKENS else characters
    seconds = (characters * price.character + dear * price.dear + lines * price.line + periods * price.period
               + sum(run * run for run in runs) * price.run
               + counted * PACKED_PRICE[max_order - 1] + unpacked * DEFINITION_PRICE[max_order - 1])
    why = f"{characters:,} characters in {lines:,} lines"
    if price.dear and dear:
        why += f", {dear:,} of them dear to it ({price.dear_characters.what})"
    if periods:
        why += f", {periods:,} periods"
    if runs:
        why += f", a run of {max(runs):,} characters without a space"
    return Cost(tokens, seconds, why, counted, tuple(sorted(set(map(len, references)))))


def checked_cost(cost: Cost, tokenizer: str | list[str], limit: int = MAX_TOKENS, what: str = "the texts",
                 advice: str = COMMAND_LINE) -> Cost:
    """``cost``, if the Space takes it; else a message saying what is over which limit."""
    if cost.tokens > limit:
        raise InputError(f"{what} hold up to {cost.tokens:,} tokens (any character but a space or a line break "
                         f"may be one), more than the {limit:,} the Space takes; {advice}")
    if cost.seconds > MAX_SECONDS:
        # "Which BLEU?" runs every tokenizer of the language (a list): no cheaper one to choose.
        one = isinstance(tokenizer, str)
        using = f"tokenizer {tokenizer!r}" if one else f"tokenizers {', '.join(tokenizer)}"
        instead = "send fewer lines" + (", choose a cheaper tokenizer" if one else "")
        raise InputError(f"{what} would take up to {cost.seconds:.1f} s with {using} ({cost.why}); the Space takes "
                         f"requests of up to {MAX_SECONDS:g} s: {instead}, or {advice}")
    return cost


def explain_cost(cost: Cost, max_order: int) -> Cost:
    """explain() tokenizes and counts as scoring does, and makes a dict per n-gram of every order."""
    return cost._replace(seconds=2 * cost.seconds + cost.tokens * max_order * EXPLAIN_PRICE)


class ConventionWork(NamedTuple):
    """What ``exactbleu.conventions`` does for one tokenizer: its tokenizations (one per case), the
    countings of each (one per reference rule), its conventions, and the smoothing method of each
    scoring of every sentence: one per convention that takes the mean of sentence scores, but for
    methods that score a row once however many conventions share it (``SENTENCE_PRICES``), one per
    row of a segment that can differ."""

    tokenizations: int
    countings: int
    conventions: int
    sentence_methods: tuple[str | None, ...]


def _kept(keep: str, references: tuple[int, ...]) -> int:
    """The most references a line keeps under this reference rule."""
    return {"first": 1, "fewest": min(references)}.get(keep, max(references))


@functools.lru_cache(maxsize=16)
def convention_work(tokenizer: str, references: tuple[int, ...]) -> ConventionWork:
    """What the conventions are for a corpus whose lines hold these numbers of references (each once),
    read off the library's own run on one line per number: however many conventions come to be, the
    price follows them. A segment's row differs by case, by reference rule and, where a line keeps
    more than one reference, by reference length (one reference is the closest and the shortest).
    About 0.1 s, once a server for each."""
    line = "the cat sat on the mat"  # every convention's score is finite on it: none is left out
    found = conventions([line] * len(references), [[line] * count for count in references], tokenizers=[tokenizer])
    each = {(row.aggregate, row.preset, repr(sorted(row.options.items()))): row for row in found}  # both scales
    settings = {key: resolve_settings(row.preset, None, **row.options) for key, row in each.items()}
    sentences = [used for key, used in settings.items() if key[0] != "corpus"]
    once = {(used.scoring.smooth_method, used.statistics.max_order, used.scoring.weight_set, used.tokenize.lowercase,
             used.statistics.keep_references,
             used.statistics.ref_length if _kept(used.statistics.keep_references, references) > 1 else None)
            for used in sentences if used.scoring.smooth_method in SENTENCE_PRICES}
    return ConventionWork(len({used.tokenize.lowercase for used in settings.values()}),
                          len({used.statistics.keep_references for used in settings.values()}),
                          sum(key[0] == "corpus" for key in settings),
                          tuple(used.scoring.smooth_method for used in sentences
                                if used.scoring.smooth_method not in SENTENCE_PRICES)
                          + tuple(method for method, *_ in sorted(once, key=repr)))


@functools.lru_cache(maxsize=16)
def _script_rows(references: tuple[int, ...], language: str | None) -> tuple[tuple[str, str], ...]:
    """The tokenizer and the tokenizing settings (as written) of each script's convention that
    ``exactbleu.conventions`` scores beside its grid (the Space never tells it which tokenizers):
    each script's preset as the script runs, cased and lowercased, where the references and the
    target language let it run, scored for the corpus only. Read off the library's own run on one
    line per number of references, as ``convention_work`` is: 0.1 to 0.3 s, once a server for each."""
    line = "the cat sat on the mat"
    found = conventions([line] * len(references), [[line] * count for count in references], language=language)
    each = {(row.preset, repr(sorted(row.options.items()))): row for row in found
            if row.aggregate == "corpus" and PRESETS[row.preset].script}  # both scales
    tokenizing = [resolve_settings(row.preset, None, **row.options).tokenize for row in each.values()]
    return tuple((str(tokenize.tokenizer), repr(tokenize)) for tokenize in tokenizing)


def script_work(references: tuple[int, ...], language: str | None = None) -> dict[str, int]:
    """The scripts' conventions (``_script_rows``), by tokenizer."""
    tokenizers = [name for name, _ in _script_rows(references, language)]
    return {name: tokenizers.count(name) for name in dict.fromkeys(tokenizers)}


def script_tokenizations(references: tuple[int, ...], language: str | None = None) -> dict[str, int]:
    """The tokenizations of the scripts' conventions, by tokenizer: the library tokenizes the text
    once for all the conventions that tokenize alike (DeepEval's four presets and HELM's two share one)."""
    tokenizations = set(_script_rows(references, language))
    return {name: sum(one == name for one, _ in tokenizations) for name in script_work(references, language)}


def conventions_cost(costs: Sequence[Cost], scripts: Mapping[str, Cost], lines: int, max_order: int = 5,
                     language: str | None = None) -> Cost:
    """Every convention (``costs``: each tokenizer's ``cost_of`` the same ``lines``, counted through
    ``max_order``; ``scripts``: the ``cost_of`` each tokenizer of ``script_work`` for the
    ``language``): each tokenization priced as its tokenizer is (a script's once for the
    conventions that tokenize alike), counted again for each further reference rule, then every
    convention scored."""
    # conventions() crosses every tokenizer with the same conventions: the first one's tell them all.
    work = convention_work(convention_tokenizers()[0], costs[0].references)
    counting = (work.countings - 1) * PACKED_PRICE[max_order - 1]
    scoring = (work.conventions * CONVENTION_PRICE
               + lines * sum(SENTENCE_PRICES.get(method or "", SENTENCE_PRICE) for method in work.sentence_methods))
    cases = script_work(costs[0].references, language)
    tokenizations = script_tokenizations(costs[0].references, language)
    seconds = (sum(work.tokenizations * (cost.seconds + cost.counted * counting) + scoring for cost in costs)
               + sum(tokenizations[name] * scripts[name].seconds + count * CONVENTION_PRICE
                     for name, count in cases.items()))
    why = f"{costs[0].why}, {work.conventions * len(costs) + sum(cases.values()):,} conventions"
    every = [*costs, *scripts.values()]
    return Cost(max(cost.tokens for cost in every), seconds, why, max(cost.counted for cost in every),
                costs[0].references)


def paired_cost(cost: Cost, test: str, lines: int) -> Cost:
    """A paired test resamples per line, on top of counting both systems."""
    fixed, per_line = PAIRED_PRICES[test]
    return cost._replace(seconds=cost.seconds + fixed + per_line * lines)
