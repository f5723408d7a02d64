"""pycocoevalcap's tokenizer, the COCO captions' ``ptb``, in Python: no Java.

pycocoevalcap 1.2 runs Stanford CoreNLP 3.4.1's PTBTokenizer (``-preserveLines -lowerCase``) on the
captions, a caption a line, and drops its ``PUNCTUATIONS`` from the tokens; ``tokenize_ptb`` gives a
caption's tokens as its BLEU and CIDEr read them, split on whitespace. The lexer is PTBLexer.flex of 3.4.1
rule for rule, each rule written as in the .flex file (``_flex`` reads JFlex's syntax), and JFlex's
choice among them: the longest match, trailing context counted, the earlier rule on a tie. A run of
plain words, most of a caption, is cut by one expression (``_plain``); the rules run where it stops.
Each caption stands alone, followed by a line break, as in pycocoevalcap's file. tests/tokenizers/
test_ptb.py holds it to the jar, token for token; docs/ lists the few constructs where it differs.
"""

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from .ptb_tables import CLASSES
from .registry import DearCharacters, Price, Tokenizer, fixed

if TYPE_CHECKING:  # regex loads when a caption is first tokenized: the command line's --help needs none
    import regex

# pycocoevalcap's list, compared with the lowercased tokens: "-lrb-" and the other brackets stay.
PUNCTUATIONS = ("''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--",
                "...", ";")
_DROPPED = frozenset(PUNCTUATIONS)

# %caseless: a letter outside [...] matches either case; by Java's case mappings ı İ match i, ſ s, the Kelvin sign k.
_OTHER_CASES = {"i": "\u0131\u0130", "k": "\u212a", "s": "\u017f"}
_CASELESS = {char: f"[{char}{char.upper()}{_OTHER_CASES.get(char, '')}]" for char in "abcdefghijklmnopqrstuvwxyz"}
_FLEX_PIECE = re.compile(r"\\u....|\\x..|\\.|\[\^\]|\[\^?(?:\[:\w+:\]|\\.|[^\]\\])*\]|\{[A-Za-z]\w*\}|.", re.DOTALL)
_MACROS: dict[str, str] = {}


def _flex(pattern: str) -> str:
    """A JFlex expression in Python's syntax: {MACRO}s expanded, groups non-capturing, [:letter:] and
    [:digit:] spelled out, [^] any character, a letter outside [...] caseless, and a trailing
    context r1/r2 made (r1)r2: group 1 is the token, and JFlex counts r2 in the match's length."""
    def piece(match: "re.Match[str]") -> str:
        text = match.group()
        if text.startswith("["):
            return "[\\s\\S]" if text == "[^]" else re.sub(r"\[:\w+:\]", lambda name: CLASSES[name.group()], text)
        if text[0] == "{" and len(text) > 1:
            return f"(?:{_MACROS[text[1:-1]]})"
        return {"(": "(?:", "/": "\0"}.get(text) or _CASELESS.get(text.lower(), text)
    head, slash, context = _FLEX_PIECE.sub(piece, pattern).partition("\0")
    return f"({head}){context}" if slash else head


# PTBLexer.flex's macros that its rules share, in its order and syntax.
for _name, _pattern in (
    ("SGML", r"""\<([!\?][A-Za-z\-][^>\r\n]*|[A-Za-z][A-Za-z0-9_:\.\-]*([ ]+([A-Za-z][A-Za-z0-9_:\.\-]*|[A-Za-z]"""
             r"""[A-Za-z0-9_:\.\-]*[ ]*=[ ]*('[^']*'|\"[^\"]*\")))*[ ]*\/?|\/[A-Za-z][A-Za-z0-9_:\.\-]*)[ ]*\>"""),
    ("SPACE", r"[ \t\u00A0\u2000-\u200A\u3000]"),
    ("NEWLINE", r"\r|\r?\n|\u2028|\u2029|\u000B|\u000C|\u0085"),
    ("SPACENL", r"({SPACE}|{NEWLINE})"),
    ("DIGIT", r"[[:digit:]\u07C0-\u07C9]"),
    ("LETTER", r"[[:letter:]\u00AD\u0237-\u024F\u02C2-\u02C5\u02D2-\u02DF\u02E5-\u02FF\u0300-\u036F\u0370-\u037D"
               r"\u0384\u0385\u03CF\u03F6\u03FC-\u03FF\u0483-\u0487\u04CF\u04F6-\u04FF\u0510-\u0525\u055A-\u055F"
               r"\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7\u0615-\u061A\u063B-\u063F\u064B-\u065E\u0670"
               r"\u06D6-\u06EF\u06FA-\u06FF\u070F\u0711\u0730-\u074F\u0750-\u077F\u07A6-\u07B1\u07CA-\u07F5\u07FA"
               r"\u0900-\u0903\u093C\u093E-\u094E\u0951-\u0955\u0962-\u0963\u0981-\u0983\u09BC-\u09C4\u09C7\u09C8"
               r"\u09CB-\u09CD\u09D7\u09E2\u09E3\u0A01-\u0A03\u0A3C\u0A3E-\u0A4F\u0A81-\u0A83\u0ABC-\u0ACF\u0B82"
               r"\u0BBE-\u0BC2\u0BC6-\u0BC8\u0BCA-\u0BCD\u0C01-\u0C03\u0C3E-\u0C56\u0D3E-\u0D44\u0D46-\u0D48"
               r"\u0E30-\u0E3A\u0E47-\u0E4E\u0EB1-\u0EBC\u0EC8-\u0ECD]|&[aeiouAEIOU](acute|grave|uml);"),
    ("WORD", r"{LETTER}({LETTER}|{DIGIT})*([.!?]{LETTER}({LETTER}|{DIGIT})*)*"),
    ("APOS", r"['\u0092\u2019]|&apos;"),
    ("APOSETCETERA", r"{APOS}|[`\u0091\u2018\u201B]"),
    ("THING", r"([dDoOlL]{APOSETCETERA}[[:letter:][:digit:]])?[[:letter:][:digit:]]+([-_\u058A\u2010\u2011]"
              r"([dDoOlL]{APOSETCETERA}[[:letter:][:digit:]])?[[:letter:][:digit:]]+)*"),
    ("THINGA", r"[A-Z]+(([+&]|&amp;)[A-Z]+)+"),
    ("ACRO", r"[A-Za-z](\.[A-Za-z])*|(Canada|Sino|Korean|EU|Japan|non)-U\.S|U\.S\.-(U\.K|U\.S\.S\.R)"),
    ("HTHING", r"[A-Za-z0-9][A-Za-z0-9.,\u00AD]*(-([A-Za-z0-9\u00AD]+|([A-Za-z](\.[A-Za-z])+|(Canada|Sino|Korean|"
               r"EU|Japan|non)-U\.S|U\.S\.-(U\.K|U\.S\.S\.R))\.))+"),
    ("REDAUX", r"{APOS}([msdMSD]|re|ve|ll)"),
    ("SREDAUX", r"n{APOSETCETERA}t"),
    ("ABBREV1", r"(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Ala|Ariz|[A]z|[A]rk|"
                r"Calif|Colo|Conn|Ct|Dak|[D]el|Fla|Ga|[I]ll|Ind|Kans?|Ky|[L]a|[M]ass|Md|Mich|Minn|[M]iss|Mo|Mont|Neb|"
                r"Nev|Okla|[O]re|[P]a|Penn|Tenn|[T]ex|Va|Vt|[W]ash|Wisc?|Wyo|Inc|Cos?|Corp|Pp?t[ye]s?|Ltd|Plc|Rt|"
                r"Bancorp|Bhd|Assn|Univ|Intl|Sys|tel|est|ext|sq|Jr|Sr|Bros|(Ed|Ph)\.D|Blvd|Rd|Esq|etc|al|seq|Bldg)\."),
    ("ABBREV4", r"Mr|Mrs|Ms|[M]iss|Drs?|Profs?|Sens?|Reps?|Attys?|Lt|Col|Gen|Messrs|Govs?|Adm|Rev|Maj|Sgt|Cpl|Pvt|"
                r"Capt|Ste?|Ave|Pres|Lieut|Hon|Brig|Co?mdr|Pfc|Spc|Supts?|Det|Mt|Ft|Adj|Adv|Asst|Assoc|Ens|Insp|Mlle|"
                r"Mme|Msgr|Sfc|vs|Alex|Wm|Jos|Cie|a\.k\.a|cf|TREAS|Ph|{ACRO}|Invt|Elec|Natl|M[ft]g|Dept"),  # ABTITLE in
    ("ABBREV3", r"(ca|figs?|prop|nos?|art|bldg|prop|pp|op)\."),
    ("INSENTP", r"[,;:\u3001]"),
):
    _MACROS[_name] = _flex(_pattern)

_BRACKETS = str.maketrans({"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-", "[": "-LSB-", "]": "-RSB-"})
_PARENS = str.maketrans({"(": "-LRB-", ")": "-RRB-"})
_CURRENCY = str.maketrans({"\u00a2": "cents", "\u00a3": "#", **dict.fromkeys("\u0080\u00a4\u20a0\u20ac", "$")})
_FRACTIONS = str.maketrans({"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"})
_AMP = re.compile("&amp;", re.IGNORECASE)
# latexQuotes: ' " &apos; &quot; (lower case only) by the side the rule guesses, curly quotes by their own.
_CURLY = {**dict.fromkeys("\u0091\u2018\u201b\u2039", "`"), **dict.fromkeys("\u0092\u2019\u203a", "'"),
          **dict.fromkeys("\u0093\u201c\u00ab", "``"), **dict.fromkeys("\u0094\u201d\u00bb", "''")}
_LEFT, _RIGHT = (str.maketrans({"'": single, '"': double, **_CURLY}) for single, double in (("`", "``"), ("'", "''")))
_Action = Callable[[str], "str | None"] | None


def _quotes(table: dict[int, str]) -> Callable[[str], str]:
    return lambda text: text.replace("&apos;", "'").replace("&quot;", '"').translate(table)


def _unsoft(text: str) -> str:
    """removeSoftHyphens: a soft hyphen only marks where a line may break; a token of only them is "-"."""
    return (text.replace("\u00ad", "") or "-") if "\u00ad" in text else text


# PTBLexer.flex's rules in order, with PTBTokenizer main's options (ptb3Escaping, no americanize): (pattern,
# what its text becomes (None: itself; None returned: no token), how many characters go back to the input).
# Neighbours that do the same are merged; strictTreebank3's rule never runs.
_RULES: tuple[tuple[str, _Action, int], ...] = (
    (r"c[+][+]|(c|f)#", None, 0),
    (r"cannot|'twas", None, 3),  # splitAssimilations: can not, 't was
    (r"'tis|gonna|gotta|lemme|gimme|wanna", None, 2),  # 't is, gon na, gim me, ...
    (r"{SGML}", lambda text: text.replace(" ", "\u00a0"), 0),  # normalizeSpace
    (r"&(MD|mdash|ndash);|[\u0096\u0097\u2013\u2014\u2015]", lambda text: "--", 0),  # SPMDASH, ptb3Dashes
    (r"&amp;", lambda text: "&", 0),  # SPAMP, normalizeAmpersandEntity
    (r"&(HT|TL|UR|LR|QC|QL|QR|odq|cdq|#[0-9]+);", None, 0),  # SPPUNC
    (r"{WORD}/{REDAUX}", _unsoft, 0),
    (r"[A-Za-z\u00AD]*[A-MO-Za-mo-z](\u00AD)*/{SREDAUX}", _unsoft, 0),  # SWORD
    (r"{WORD}", _unsoft, 0),
    (r"{APOS}n{APOS}?|[lLdDjJ]{APOS}|Dunkin{APOS}|somethin{APOS}|ol{APOS}|{APOS}em|[A-HJ-XZn]{APOSETCETERA}[[:letter:]]{2}"
     r"[[:letter:]]*|{APOS}[2-9]0s|{APOS}till?|[[:letter:]][[:letter:]]*[aeiouyAEIOUY]{APOSETCETERA}[aeiouA-Z]"
     r"[[:letter:]]*|{APOS}cause|cont'd\.?|'twas|nor'easter|c'mon|e'er|s'mores|ev'ry|li'l|nat'l|O{APOSETCETERA}o",
     None, 0),  # APOWORD
    (r"y{APOS}/[[:letter:]]", None, 0),
    (r"https?:\/\/[^ \t\n\f\r\"<>|(){}]+[^ \t\n\f\r\"<>|.!?(){},-]|((www\.([^ \t\n\f\r\"<>|.!?(){},]+\.)+[a-zA-Z]{2,4})"
     r"|(([^ \t\n\f\r\"`'<>|.!?(){},-_$]+\.)+(com|net|org|edu)))(\/[^ \t\n\f\r\"<>|()]+[^ \t\n\f\r\"<>|.!?(){},-])?"
     r"|(&lt;|<)?[a-zA-Z0-9][^ \t\n\f\r\"<>|()\u00A0{}]*@([^ \t\n\f\r\"<>|(){}.\u00A0]+\.)*([^ \t\n\f\r\"<>|(){}."
     r"\u00A0]+)(&gt;|>)?|@[a-zA-Z_][a-zA-Z_0-9]*|#{LETTER}+", None, 0),  # FULLURL, LIKELYURL, EMAIL, TWITTER
    (r"{REDAUX}/[^A-Za-z]", _quotes(_RIGHT), 0),
    (r"{SREDAUX}/[^A-Za-z]", _quotes(_RIGHT), 0),
    (r"{DIGIT}{1,2}[\-\/]{DIGIT}{1,2}[\-\/]{DIGIT}{2,4}", None, 0),  # DATE
    (r"[\-+]?({DIGIT}+|{DIGIT}*([.:,\u00AD\u066B\u066C]{DIGIT}+)+)", _unsoft, 0),  # NUMBER
    (r"[\u207A\u207B\u208A\u208B]?([\u2070\u00B9\u00B2\u00B3\u2074-\u2079]+|[\u2080-\u2089]+)", None, 0),  # SUBSUPNUM
    (r"({DIGIT}{1,4}[- \u00A0])?{DIGIT}{1,4}(\\?\/|\u2044){DIGIT}{1,4}", lambda text: text.replace(" ", "\u00a0"), 0),
    (r"[\u00BC\u00BD\u00BE\u2153-\u215E]", lambda text: text.translate(_FRACTIONS), 0),  # normalizeFractions
    (r"-(RRB|LRB|RCB|LCB|RSB|LSB)-|C\.D\.s|pro-|anti-|S(&|&amp;)P-500|S(&|&amp;)Ls|Cap{APOS}n|c{APOS}est",
     lambda text: _AMP.sub("&", text), 0),  # TBSPEC
    (r"[A-Za-z0-9]+(-[A-Za-z]+){0,2}(\\?\/[A-Za-z0-9]+(-[A-Za-z]+){0,2}){1,2}|[A-Z]*\$|#", None, 0),  # THING3, DOLSIGN
    (r"[\u00A2\u00A3\u00A4\u00A5\u0080\u20A0\u20AC\u060B\u0E3F\u20A4\uFFE0\uFFE1\uFFE5\uFFE6]",
     lambda text: text.translate(_CURRENCY), 0),  # DOLSIGN2, normalizeCurrency
    # An acronym before a sentence's likely first word gives back its period (a dropped "."); a letter loses it.
    (r"{ACRO}\./({SPACENL})+([A]bout|[A]ccording|[A]dditionally|[A]fter|[A]n|[A]|[A]s|[A]t|[B]ut|[E]arlier|[H]e|[H]er|"
     r"[H]ere|[H]owever|[I]f|[I]n|[I]t|[L]ast|[M]any|[M]ore|[M]r\.|[M]s\.|[N]ow|[O]nce|[O]ne|[O]ther|[O]ur|[S]he|"
     r"[S]ince|[S]o|[S]ome|[S]uch|[T]hat|[T]he|[T]heir|[T]hen|[T]here|[T]hese|[T]hey|[T]his|[W]e|[W]hen|[W]hile|"
     r"[W]hat|[Y]et|[Y]ou|{SGML}){SPACENL}", lambda text: text[0] if len(text) == 2 else text, 0),
    (r"{ABBREV3}/{SPACENL}?[[:digit:]]", None, 0),
    (r"(pt[eyEY]|co)\./{SPACE}(ltd|lim)", None, 0),
    # ABBREV1/{SENTEND}, ABBREV1/[^][^] and ABBREV1 (a period given back is a dropped "."; [A-Z] weighs [^]).
    (r"{ABBREV1}/({SPACENL}({SPACENL}|{SGML})|[^][^])?", None, 0),
    (r"({ABBREV4})\.", None, 0),  # ABBREV2
    (r"{ABBREV4}/{SPACE}", None, 0),
    (r"{ACRO}/{SPACENL}", None, 0),
    (r"{APOS}[0-9][0-9]/{SPACENL}", None, 0),  # TBSPEC2
    (r"({LETTER}|{DIGIT})+([.]({LETTER}|{DIGIT})+)*([.](bat|bmp|c|class|cgi|cpp|dll|doc|docx|exe|gif|gz|h|htm|html|jar|"
     r"java|jpeg|jpg|mov|mp3|pdf|php|pl|png|ppt|ps|py|sql|tar|txt|wav|x|xml|zip))/({SPACENL}|[.?!,])", None, 0),
    (r"{WORD}\./{INSENTP}", _unsoft, 0),
    (r"(\([0-9]{2,3}\)[ \u00A0]?|(\+\+?)?([0-9]{2,4}[\- \u00A0])?[0-9]{2,4}[\- \u00A0])[0-9]{3,4}[\- \u00A0]?[0-9]{3,5}"
     r"|((\+\+?)?[0-9]{2,4}\.)?[0-9]{2,4}\.[0-9]{3,4}\.[0-9]{3,5}",
     lambda text: text.replace(" ", "\u00a0").translate(_PARENS), 0),  # PHONE
    (r"(\"|&quot;)/[A-Za-z0-9$]", _quotes(_LEFT), 0),  # DBLQUOT
    (r"\"|&quot;", _quotes(_RIGHT), 0),
    (r"\x7f", lambda text: None, 0),
    (r"<|&lt;", lambda text: "<", 0),
    (r">|&gt;", lambda text: ">", 0),
    (r"[<>]?[:;=][\-o\*']?[\(\)DPdpO\\{@\|\[\]]/[^A-Za-z0-9]", lambda text: text.translate(_PARENS), 0),  # SMILEY
    (r"[\^x=~<>]\.\[\^x=~<>]|[\-\^x=~<>']_[\-\^x=~<>']|\([\-\^x=~<>'][_.]?[\-\^x=~<>']\)|\([\^x=~<>']-[\^x=~<>'`]\)",
     lambda text: text.translate(_PARENS), 0),  # ASIANSMILEY
    (r"[{}\[\]()]", lambda text: text.translate(_BRACKETS), 0),  # normalizeOtherBrackets, normalizeParentheses
    (r"\-+", lambda text: "--" if 3 <= len(text) <= 4 else text, 0),
    (r"\.{3,5}|(\.[ \u00A0]){2,4}\.|[\u0085\u2026]", lambda text: "...", 0),  # LDOTS, ptb3Ellipsis
    (r"@+|#+|_+|\*+|(\\\*){1,3}|{INSENTP}|[?!]+|[.\u00A1\u00BF\u037E\u0589\u061F\u06D4\u0700-\u0702\u07FA\u3002]|=|\/",
     None, 0),
    (r"{HTHING}\./{INSENTP}", _unsoft, 0),
    (r"{HTHING}", _unsoft, 0),
    (r"{THING}\./{INSENTP}", None, 0),
    (r"{THING}", None, 0),
    (r"{THINGA}\./{INSENTP}", lambda text: _AMP.sub("&", text), 0),
    (r"{THINGA}", lambda text: _AMP.sub("&", text), 0),
    (r"'/[A-Za-z][^ \t\n\r\u00A0]", _quotes(_LEFT), 0),
    (r"{REDAUX}|{SREDAUX}|{APOS}|''|[`\u2018\u2019\u201A\u201B\u201C\u201D\u0091\u0092\u0093\u0094\u201E\u201F\u2039"
     r"\u203A\u00AB\u00BB]{1,2}", _quotes(_RIGHT), 0),  # QUOTES
    (r"<<|>>|[+%&~\^|\\\u00A6\u00A7\u00A8\u00A9\u00AC\u00AE\u00AF\u00B0-\u00B3\u00B4-\u00BA\u00D7\u00F7\u0387\u05BE"
     r"\u05C0\u05C3\u05C6\u05F3\u05F4\u0600-\u0603\u0606-\u060A\u060C\u0614\u061B\u061E\u066A\u066D\u0703-\u070D"
     r"\u07F6\u07F7\u07F8\u0964\u0965\u0E4F\u1FBD\u2016\u2017\u2020-\u2023\u2030-\u2038\u203B\u203E-\u2042\u2044"
     r"\u207A-\u207F\u208A-\u208E\u2100-\u214F\u2190-\u21FF\u2200-\u2BFF\u3012\u30FB\uFF01-\uFF0F\uFF1A-\uFF20"
     r"\uFF3B-\uFF40\uFF5B-\uFF65]", None, 0),  # FAKEDUCKFEET, MISCSYMBOL
    # Spaces, line breaks (the caption's own) and &nbsp; separate tokens; untokenizable=firstDelete deletes the rest.
    (r"\0|{SPACE}+|[\u200B\u200E-\u200F\uFEFF]|{NEWLINE}|&nbsp;|[^]", lambda text: None, 0),
)


@functools.cache
def _compiled() -> "list[tuple[regex.Pattern[str], _Action, int]]":
    """The rules compiled, when first used; POSIX matching finds each one's longest match."""
    import regex

    return [(regex.compile(_flex(pattern), regex.POSIX), action, back) for pattern, action, back in _RULES]


@functools.lru_cache(maxsize=4096)
def _candidates(char: str) -> tuple[int, ...]:
    """The rules that a token starting with this character may match."""
    return tuple(index for index, (rule, _, _) in enumerate(_compiled()) if rule.match(char, partial=True))


def _rule_token(text: str, position: int) -> tuple[str | None, int]:
    """JFlex's choice here, the longest match (the earlier rule on a tie): its token, where the next starts."""
    rules, best, best_end = _compiled(), 0, -1
    for index in _candidates(text[position]):
        match = rules[index][0].match(text, position)
        if match is not None and match.end() > best_end:
            best, best_end, end = index, match.end(), match.end(1) if match.re.groups else match.end()
    _, action, back = rules[best]
    token = text[position:end - back]
    return (token if action is None else action(token)), end - back


@functools.cache
def _plain() -> "re.Pattern[str]":
    """A run of tokens that the rules surely cut where whitespace does: words of letters (and digits;
    ASCII ones hyphenated), 's and the like, dropped quotes, commas and periods; each stops before what
    could make a longer token (a letter, an abbreviation's period, "cannot", ". . .", other spaces...)."""
    letter = CLASSES["[:letter:]"].replace("\\u03a3-", "\\u03a4-")  # a capital sigma is _lower's
    word = f"(?![cCgGlLwW](?i:annot|onna|otta|emme|imme|anna)[^A-Za-z]|[cC](?i:ont'd)\\.)[{letter}][{letter}0-9]*"
    after = "(?=[ \t\n]|[.,][ \t\n])"
    abbreviation = "|".join(_flex(pattern) for pattern in (r"{ABBREV1}", r"{ABBREV4}\.", r"{ABBREV3}"))
    return re.compile(
        f"(?:[ \t][ \t\u00a0\u2000-\u200a\u3000]*|\n|\"|,(?=[ \t\n])|\\.(?=[ \t\n])(?! \\.)|{word}(?=[ \t\n]|,[ \t\n])"
        f"|(?!{abbreviation}){word}(?=\\.[ \t\n])|{word}'(?:[msdMSD]|[rR][eE]|[vV][eE]|[lL][lL]){after}"
        f"|[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+{after}|[0-9]+(?=[\t\n]| (?![0-9])|[.,][ \t\n]))*")


def rule_characters(text: str) -> int:
    """ptb's dear characters, weighed, found by the plain expression: 16 for a word where the plain run stops (a
    rule costs tens of µs), 16 more per 4,096 characters of its line (a rule may seek a period to its end), then 8
    a character, 1 a letter or digit. Its tokens: at most 2 a word (a plain one splits off 's) and 1 a weight."""
    plain, text, weight, position, line_end, extra = _plain(), text + "\n", 0, 0, -1, 0  # a caption ends so
    while (stop := plain.match(text, position).end()) < len(text):  # type: ignore[union-attr]  # never None
        if stop > line_end:
            line_start, line_end = text.rfind("\n", 0, stop) + 1, text.index("\n", stop)
            extra = 16 * ((line_end - line_start) // 4096)
        position = re.compile("[ \t\n]").search(text, stop + 1).start()  # type: ignore[union-attr]  # "\n" ends it
        weight += 16 + extra + position - stop + 7 * len(re.findall(r"[\W_]", text[stop:position]))
    return weight


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# Cased letters that Unicode added after version 13, Java 17's: Java's toLowerCase leaves them.
_NEWER_CASE = re.compile("[\u1c89\u2c2f\ua7c0\ua7d0\ua7d6\ua7d8\ua7cb-\ua7dd\U00010570-\U00010595"
                         "\U00010d50-\U00010d65\U00016ea0-\U00016eb8\U0001df40-\U0001df7e]")


def _utf16(match: "re.Match[str]") -> str:
    """A character beyond the Basic Multilingual Plane as Java holds it: two surrogates, read apart."""
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def _from_utf16(token: str) -> str:
    """Surrogate pairs joined again; Java's UTF-8 encoder writes one left alone as "?"."""
    token = token.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return re.sub("[\ud800-\udfff]", "?", token)


@functools.cache
def _java_words() -> "tuple[regex.Pattern[str], regex.Pattern[str], regex.Pattern[str]]":
    """java.text.BreakIterator's words (JDK 1.2's rules: letters and numbers, the punctuation inside
    them), the characters Java's final sigma counts as cased, and the format characters it skips."""
    import regex

    kana_kanji = r"\u3005\u4e00-\u9fa5\uf900-\ufa2d\u3041-\u3094\u3099-\u309e\u30a1-\u30fe"
    letter = rf"[[\p{{L}}\p{{Mc}}]--[{kana_kanji}]][\p{{Mn}}\p{{Me}}]*"
    number = r"""(?:\p{N}[\p{Mn}\p{Me}]*)+(?:["',\u066b.](?:\p{N}[\p{Mn}\p{Me}]*)+)*"""
    word = rf"""(?:(?:{letter})+(?:[\p{{Pd}}\p{{Pc}}\u00ad\u2027"'.](?:{letter})+)*[\u0964\u0965]?)"""
    tail = rf"(?:{number}{word})*(?:{number}[%&\u00a2\u066a\u2030\u2031]?)?"
    return (regex.compile(rf"{word}?{tail}|[[\p{{Sc}}#.]--[\u00a2]]{tail}", regex.V1 | regex.POSIX),
            regex.compile(r"[\p{Lu}\p{Ll}\p{Lt}\u02b0-\u02b8\u02c0\u02c1\u02e0-\u02e4\u0345\u037a\u1d2c-\u1d61"
                          r"\u2160-\u217f\u24b6-\u24e9]"),
            regex.compile(r"[\p{Cf}--[\u00ad]]", regex.V1))


def _lower(token: str) -> str:
    """Java's toLowerCase(Locale.ENGLISH), run on each token: Python's, but a capital sigma is final (ς)
    when its word, by Java's BreakIterator, has a cased letter before it and none after it."""
    if token.isascii() or ("\u03a3" not in token and not _NEWER_CASE.search(token)):
        return token.lower()
    segment, cased, skipped = _java_words()
    kept = [index for index, char in enumerate(token) if not skipped.match(char)]
    bare = "".join(token[index] for index in kept)
    chars = [char if _NEWER_CASE.match(char) else char.lower() for char in token]
    start = 0
    while start < len(bare):
        match = segment.match(bare, start)
        end = max(start + 1, match.end() if match else 0)
        for index in range(start, end):
            if bare[index] == "\u03a3":
                final = any(map(cased.match, bare[start:index])) and not any(map(cased.match, bare[index + 1:end]))
                chars[kept[index]] = "\u03c2" if final else "\u03c3"
        start = end
    return "".join(chars)


def tokenize_ptb(line: str) -> list[str]:
    """pycocoevalcap's tokens of a caption: CoreNLP 3.4.1's PTBTokenizer with -preserveLines and
    -lowerCase, its PUNCTUATIONS dropped, the rest split on whitespace, as its BLEU scorer splits it.

    >>> tokenize_ptb("I can't won't; Mr. Smith's U.K. co. e.g.")
    ['i', 'ca', "n't", 'wo', "n't", 'mr.', 'smith', "'s", 'u.k.', 'co.', 'e.g.']
    """
    return _caption_tokens(line, split=True)


def ptb_tokens(line: str) -> list[str]:
    """The jar's tokens of a caption, PUNCTUATIONS dropped, as pycocoevalcap's tokenizer joins them
    with spaces: a token may hold a U+00A0 (SGML tags, phone numbers, ``1 1/2``), which its BLEU and
    CIDEr split on, and its ROUGE-L does not."""
    return _caption_tokens(line, split=False)


def _caption_tokens(line: str, split: bool) -> list[str]:
    text = line.replace("\n", " ") + "\n"  # pycocoevalcap's temporary file holds a caption a line
    astral = not text.isascii() and _ASTRAL.search(text) is not None
    if astral:
        text = _ASTRAL.sub(_utf16, text)
    tokens: list[str] = []
    position = 0
    while True:
        run = _plain().match(text, position).end()  # type: ignore[union-attr]  # a run may be empty, never missing
        plain = text[position:run].lower().replace('"', " ").replace(",", " ").replace(".", " ")
        tokens += plain.replace("'", " '").split()
        if run == len(text):
            return tokens
        token, position = _rule_token(text, run)
        if token is not None:
            token = _lower(_from_utf16(token) if astral else token)
            if token not in _DROPPED:
                tokens += token.split() if split else [token]


TOKENIZERS = (
    Tokenizer("ptb", fixed(tokenize_ptb), "pycocoevalcap's: Stanford CoreNLP 3.4.1's PTBTokenizer, lowercased, "
              "its punctuation dropped (COCO captions)", rstrip=False, price=Price(character=0.28e-6, line=5.3e-6,
              dear=3.9e-6, dear_characters=DearCharacters("weighed rule characters", rule_characters), period=3.8e-6,
              run=93e-9, tokens=(2, 1))),
)
