"""Moses's tokenizer.perl itself, rule for rule, and the tokenized BLEU of MT papers built on it:
``moses-perl`` is ``tokenizer.perl -l LANG`` (``-a`` with ``aggressive_dash_splits``), whose tokens
multi-bleu.perl then scores; ``t2t-ende`` is tensor2tensor's get_ende_bleu.sh before its
multi-bleu.perl: replace-unicode-punctuation.perl, ``tokenizer.perl -l de``, and its compound
splitting, which splits every other hyphen of a chain (``a-b-c``: ``a ##AT##-##AT## b-c``).

sacremoses departs from the Perl script on some inputs (a prefix that ends a line, its own Unicode
tables); here the script's rules run as Perl runs them, with its Unicode properties from ``regex``
and its nonbreaking prefixes from the files sacremoses installs (byte for byte Moses's own).
"""

import functools
from typing import TYPE_CHECKING

from ..registry import Option, install_command
from .moses import LANG
from .registry import NOT_PLAIN_ASCII, Needs, Price, Tokenizer, TokenizerSettings
from .scripts import PERL_SPACE, lowercase_ascii

if TYPE_CHECKING:
    import regex

_ALNUM = r"\p{Alphabetic}\p{Nd}"  # Perl's \p{IsAlnum}
# What the script escapes, in its order (the ampersand first): token for token, a one-to-one change,
# so BLEU is the same with -no-escape; the compound splitting reads the escaped text.
_ESCAPES = (("&", "&amp;"), ("|", "&#124;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&apos;"), ('"', "&quot;"),
            ("[", "&#91;"), ("]", "&#93;"))


@functools.cache
def _rules() -> dict[str, "regex.Pattern[str]"]:
    """The script's regular expressions, compiled once, when first used."""
    import regex

    return {name: regex.compile(pattern, regex.V0) for name, pattern in {
        "spaces": f"[{PERL_SPACE}]+", "controls": "[\x00-\x1f]", "other": rf"([^{_ALNUM}{PERL_SPACE}.'`,\-])",
        "other_fi": rf"([^{_ALNUM}{PERL_SPACE}.:'`,\-])", "colon": r"(:)(?=$|[^\p{Ll}])",
        "other_ca": rf"([^{_ALNUM}{PERL_SPACE}.·'`,\-])", "middot": r"(·)(?=$|[^\p{Ll}])",
        "glottal": r"(')(?=$|[^\p{Ll}])", "numeric_only": f"(.*)[{PERL_SPACE}]+#NUMERIC_ONLY#",
        "dash": rf"([{_ALNUM}])\-(?=[{_ALNUM}])", "dots": r"\.(\.+)", "dotmulti": r"DOTMULTI\.([^.])",
        "dotted": "((?:DOT)+)MULTI",
        "comma_after": r"([^\p{N}]),", "comma_before": r",([^\p{N}])", "comma_end": r"(\p{N}),$",
        "en1": r"([^\p{Alphabetic}])'([^\p{Alphabetic}])", "en2": r"([^\p{Alphabetic}\p{N}])'(\p{Alphabetic})",
        "en3": r"(\p{Alphabetic})'([^\p{Alphabetic}])", "en4": r"(\p{Alphabetic})'(\p{Alphabetic})",
        "en5": r"(\p{N})'(s)", "fr2": r"([^\p{Alphabetic}])'(\p{Alphabetic})", "alpha": r"\p{Alphabetic}",
        "lower": r"\p{Lowercase}", "digits": "[0-9]", "compound": r"(\S)-(\S)",
    }.items()}


@functools.cache
def nonbreaking_prefixes(language: str) -> dict[str, int]:
    """tokenizer.perl's nonbreaking prefixes of a language (English's where it has none): 1 for a
    prefix, 2 for one that holds only before a number (``#NUMERIC_ONLY#``), read as the script reads
    its file: each line whole (trailing spaces kept), but empty lines, "0" and comments."""
    files = _prefix_files()
    text = files.get(f"nonbreaking_prefix.{language}", files["nonbreaking_prefix.en"])
    prefixes: dict[str, int] = {}
    for line in text.split("\n"):
        if line and line != "0" and not line.startswith("#"):  # Perl's false strings, and comments
            numeric = _rules()["numeric_only"].search(line)
            if numeric:
                prefixes[numeric[1]] = 2
            else:
                prefixes[line] = 1
    return prefixes


def _prefix_files() -> dict[str, str]:
    """The nonbreaking-prefix files as sacremoses installs them: a module of their texts (0.1 on), or
    the files themselves (before)."""
    try:
        from sacremoses._data_nonbreaking_prefixes import NONBREAKING_PREFIXES
    except ImportError:
        from importlib.resources import files

        folder = files("sacremoses") / "data" / "nonbreaking_prefixes"
        return {path.name: path.read_text(encoding="utf-8") for path in folder.iterdir()}
    return dict(NONBREAKING_PREFIXES)


def tokenize_perl(line: str, language: str = "en", aggressive: bool = False, escape: bool = True) -> list[str]:
    """``tokenizer.perl -l LANGUAGE`` (``-a``: ``aggressive``; ``-no-escape``: not ``escape``) on one line."""
    return list(_tokens(line, language, aggressive, escape))


# A text is often tokenized again: lowercased after (its tokens are), and in get_ende_bleu.sh's
# pipeline, whose German lines are mostly tokenizer.perl's own input. On WMT17 with language="de",
# every convention takes 0.7 s less.
@functools.lru_cache(maxsize=1 << 15)
def _tokens(line: str, language: str, aggressive: bool, escape: bool) -> tuple[str, ...]:
    rules = _rules()
    text = " ".join(rules["controls"].sub("", rules["spaces"].sub(" ", line)).split())
    if not text:
        return ()
    text = _others(text, language, rules)
    if aggressive and "-" in text:
        text = rules["dash"].sub(r"\1 @-@ ", text)
    dots = ".." in text or "DOTMULTI" in text
    if dots:
        text = _multiple_dots(text, rules)
    if "," in text:
        text = rules["comma_end"].sub(r"\1 ,", rules["comma_before"].sub(r" , \1", rules["comma_after"].sub(
            r"\1 , ", text)))
    if "'" in text:
        text = _apostrophes(text, language, rules)
    text = " ".join(" ".join(_final_periods(text.split(" "), language, rules)).split())
    if text.endswith(".'"):  # the script's ".' at end of sentence is missed"
        text = text[:-2] + " . ' "
    if dots:
        text = rules["dotted"].sub(lambda run: "." * (len(run[1]) // 3), text)
    if escape:
        for character, entity in _ESCAPES:
            if character in text:
                text = text.replace(character, entity)
    return tuple(text.split())


def _multiple_dots(text: str, rules: dict[str, "regex.Pattern[str]"]) -> str:
    """A run of k dots kept whole as the script keeps it: spaced from what comes before and after,
    and written DOT k times and MULTI, so that no later rule splits it. The script converts a dot a
    pass, as long as the longest run; its result is written here at once, where the text holds no
    DOTMULTI of its own (which its passes would read as theirs)."""
    if "DOTMULTI" not in text:
        return rules["dots"].sub(lambda run: f" {'DOT' * len(run[0])}MULTI{' ' if run.end() < len(text) else ''}",
                                 text)
    text = rules["dots"].sub(r" DOTMULTI\1", text)
    while "DOTMULTI." in text:
        text = rules["dotmulti"].sub(r"DOTDOTMULTI \1", text).replace("DOTMULTI.", "DOTDOTMULTI")
    return text


def _others(text: str, language: str, rules: dict[str, "regex.Pattern[str]"]) -> str:
    """Every character but letters, digits, spaces and . ' ` , - a token of its own; in Finnish and
    Swedish the colon, in Catalan the middle dot, in Tetun the apostrophe kept before a lower-case
    letter."""
    if language in ("fi", "sv"):
        return rules["colon"].sub(r" \1 ", rules["other_fi"].sub(r" \1 ", text))
    if language == "ca":
        return rules["middot"].sub(r" \1 ", rules["other_ca"].sub(r" \1 ", text))
    text = rules["other"].sub(r" \1 ", text)
    return rules["glottal"].sub(r" \1 ", text) if language == "tdt" else text


def _apostrophes(text: str, language: str, rules: dict[str, "regex.Pattern[str]"]) -> str:
    """The script's apostrophes: English's contractions split right, French's, Italian's, Irish's and
    Catalan's left, Somali's and Tetun's glottals kept; in any other language each one apart."""
    if language == "en":
        text = rules["en2"].sub(r"\1 ' \2", rules["en1"].sub(r"\1 ' \2", text))
        text = rules["en4"].sub(r"\1 '\2", rules["en3"].sub(r"\1 ' \2", text))
        return rules["en5"].sub(r"\1 '\2", text)
    if language in ("fr", "it", "ga", "ca"):
        text = rules["fr2"].sub(r"\1 ' \2", rules["en1"].sub(r"\1 ' \2", text))
        return rules["en4"].sub(r"\1' \2", rules["en3"].sub(r"\1 ' \2", text))
    if language in ("so", "tdt"):
        return rules["en3"].sub(r"\1 ' \2", rules["fr2"].sub(r"\1 ' \2", rules["en1"].sub(r"\1 ' \2", text)))
    return text.replace("'", " ' ")


def _final_periods(words: list[str], language: str, rules: dict[str, "regex.Pattern[str]"]) -> list[str]:
    """A word's final period split off, unless the word is a nonbreaking prefix (one before a number
    only where a number follows), holds a period and a letter (U.S.), or the next word starts in
    lower case; the last word's always (split on single spaces, as Perl's ``split /\\s/``)."""
    while words and not words[-1]:
        words.pop()  # Perl's split drops the empty fields at the end
    prefixes = nonbreaking_prefixes(language)
    last = len(words) - 1
    for number, word in enumerate(words):
        if len(word) < 2 or not word.endswith("."):
            continue
        before = word[:-1]
        following = words[number + 1] if number < last else ""
        if number < last and (("." in before and rules["alpha"].search(before)) or prefixes.get(before) == 1
                              or rules["lower"].match(following)):
            continue
        if number < last and prefixes.get(before) == 2 and rules["digits"].match(following):
            continue
        words[number] = f"{before} ."
    return words


# replace-unicode-punctuation.perl (Moses, 5d3331b9, 2019-10-14), in its order.
_PUNCTUATION = (("，", ","), ("。", ". "), ("、", ","), ("”", '"'), ("“", '"'), ("∶", ":"), ("：", ":"), ("？", "?"),
                ("《", '"'), ("》", '"'), ("）", ")"), ("！", "!"), ("（", "("), ("；", ";"), ("１", "1"), ("」", '"'),
                ("「", '"'), ("０", "0"), ("３", "3"), ("２", "2"), ("５", "5"), ("６", "6"), ("９", "9"), ("７", "7"),
                ("８", "8"), ("４", "4"), ("．", ". "), ("～", "~"), ("’", "'"), ("…", "..."), ("━", "-"), ("〈", "<"),
                ("〉", ">"), ("【", "["), ("】", "]"), ("％", "%"))


def replace_unicode_punctuation(line: str) -> str:
    """replace-unicode-punctuation.perl: 36 CJK, fullwidth and typographic marks become ASCII's
    (``。`` and ``．`` with the spaces after them become ". ")."""
    if line.isascii():
        return line
    import regex

    for mark, ascii_mark in _PUNCTUATION:
        if mark in line:
            line = regex.sub(f"{mark} *", ". ", line) if ascii_mark == ". " else line.replace(mark, ascii_mark)
    return line


def tokenize_t2t_ende(line: str) -> list[str]:
    """get_ende_bleu.sh's text before its multi-bleu.perl: replace-unicode-punctuation.perl,
    ``tokenizer.perl -l de``, then ``s{(\\S)-(\\S)}{$1 ##AT##-##AT## $2}g``, whose matches do not overlap."""
    text = " ".join(tokenize_perl(replace_unicode_punctuation(line), "de"))
    return (_rules()["compound"].sub(r"\1 ##AT##-##AT## \2", text) if "-" in text else text).split()


def _checked_aggressive(value: object, tokenizer: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"aggressive_dash_splits must be True or False, got {value!r:.80}")
    return value


AGGRESSIVE = Option("aggressive_dash_splits", "tokenize", False, "tokenizer.perl's `-a`: each hyphen between letters "
                    'or digits a token of its own, `@-@` (the `"moses-perl"` tokenizer)', ("--aggressive-dash-splits",),
                    {"action": "store_const", "const": True}, check=_checked_aggressive)
_NEEDS = Needs(("sacremoses",), "`sacremoses` (its copy of Moses's nonbreaking prefixes)", install_command("moses"))


def _moses_perl_name(settings: TokenizerSettings) -> str:
    return f"moses-perl-{settings['lang']}{'-a' if settings['aggressive_dash_splits'] else ''}"


TOKENIZERS = (
    Tokenizer("moses-perl", lambda settings: lambda line: tokenize_perl(line, str(settings["lang"]),
                                                                         bool(settings["aggressive_dash_splits"])),
              "Moses's `tokenizer.perl -l LANG` itself (`-a`: `aggressive_dash_splits`), escaping as it does; its "
              "`lowercase` is multi-bleu.perl's `-lc` on its tokens",
              Price(character=0.4e-6, line=6e-6, dear=1.9e-6, dear_characters=NOT_PLAIN_ASCII, tokens=(1, 2)),
              rstrip=False, signature=_moses_perl_name, settings=(LANG, AGGRESSIVE), needs=_NEEDS,
              lowercase=lowercase_ascii, lowercases_tokens=True, script="tokenizer.perl"),
    Tokenizer("t2t-ende", lambda settings: tokenize_t2t_ende,
              "tensor2tensor's get_ende_bleu.sh: replace-unicode-punctuation.perl, tokenizer.perl -l de, its compound "
              "splitting (##AT##)",
              Price(character=0.51e-6, line=6.1e-6, dear=3.3e-6, dear_characters=NOT_PLAIN_ASCII, tokens=(1, 2)),
              rstrip=False, needs=_NEEDS, lowercase=lowercase_ascii, lowercases_tokens=True,
              script="get_ende_bleu.sh"),
)
