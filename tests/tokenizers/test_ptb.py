"""The "ptb" tokenizer gives pycocoevalcap's tokens: Stanford CoreNLP 3.4.1's PTBTokenizer, run as
pycocoevalcap 1.2 runs it (java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer
-preserveLines -lowerCase), its PUNCTUATIONS dropped, split on whitespace as its BLEU scorer splits it.
The jar is the one in pycocoevalcap's wheel; a test that runs it fails, never skips, where Java or
pycocoevalcap is missing. Each Java call takes a whole batch of captions."""

import importlib.util
import json
import pydoc_data.topics
import random
import shutil
import string
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactbleu.tokenizers.ptb import PUNCTUATIONS, tokenize_ptb

COCO = Path(__file__).parents[1] / "data" / "coco" / "captions_val2014_fakecap_results.json"


def _jar():
    """pycocoevalcap's CoreNLP jar, with Java to run it, or a failure that says what is missing."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("pycocoevalcap is not installed (pip install pycocoevalcap): its wheel holds the jar these "
                    "tests hold the ptb tokenizer to")
    jar = Path(next(iter(spec.submodule_search_locations))) / "tokenizer" / "stanford-corenlp-3.4.1.jar"
    if not jar.is_file():
        pytest.fail(f"pycocoevalcap's CoreNLP jar is missing at {jar}")
    if shutil.which("java") is None:
        pytest.fail("Java is not on the PATH: these tests run pycocoevalcap's CoreNLP jar, as pycocoevalcap does")
    return jar


def _as_scored(output):
    """pycocoevalcap's reading of the jar's output for a caption: each line right-stripped, split on
    " ", its PUNCTUATIONS dropped, the rest joined by " "; its BLEU scorer splits that on whitespace."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PUNCTUATIONS as DROPPED

    kept = [" ".join(word for word in line.rstrip().split(" ") if word not in DROPPED) for line in output.split("\n")]
    return " ".join(kept).split()


def jar_tokens(captions):
    """The jar's tokens of each caption, in one Java call: pycocoevalcap's command with -ioFileList, so
    that each caption is a file of its own (its "\\n" made " " and a line break after it, as in
    pycocoevalcap's file) and no caption's lookahead reads into the next one."""
    jar = _jar()
    # A memory file system, where there is one, makes writing and reading the many small files cheap.
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as folder:
        root, pairs = Path(folder), []
        for index, caption in enumerate(captions):
            (root / f"{index}.txt").write_bytes((caption.replace("\n", " ") + "\n").encode())
            pairs.append(f"{root / f'{index}.txt'} {root / f'{index}.tok'}\n")
        (root / "files").write_text("".join(pairs), encoding="utf-8")
        subprocess.run(["java", "-cp", str(jar), "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines",
                        "-lowerCase", "-ioFileList", str(root / "files")], check=True, capture_output=True, timeout=600)
        return [_as_scored((root / f"{index}.tok").read_bytes().decode()) for index in range(len(captions))]


def pycocoevalcap_captions(captions):
    """pycocoevalcap's own PTBTokenizer().tokenize on the captions, an image each: the tokenized
    captions as it returns them (one Java call, all the captions in one file)."""
    _jar()
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    result = PTBTokenizer().tokenize({index: [{"caption": caption}] for index, caption in enumerate(captions)})
    return [result[index][0] for index in range(len(captions))]


# What the tokenizer reproduces, a construct an example: the input and the jar's tokens (recorded
# from it, and checked against it below), joined by spaces.
CONSTRUCTS = [
    ("words", "A man riding a wave on top of a surfboard.", "a man riding a wave on top of a surfboard"),
    ("punctuation", "Wait, what? Yes! No; maybe: so... fine.", "wait what yes no maybe so fine"),
    ("double quotes", 'He said "hello" and &quot;bye&quot;', "he said hello and bye"),
    ("single quotes", "a 'quoted' word and 'a' letter", "a quoted word and a letter"),
    ("curly quotes", "“quoted” ‘single’ «guillemets»", "quoted single guillemets"),
    ("low and reversed quotes", "„quoted‟ ‚single‛", "„ quoted ‟ ‚ single"),
    ("brackets", "(round) [square] {curly}", "-lrb- round -rrb- -lsb- square -rsb- -lcb- curly -rcb-"),
    ("contractions", "I can't, won't, don't; I'm sure you're right, it's he'd we've they'll",
     "i ca n't wo n't do n't i 'm sure you 're right it 's he 'd we 've they 'll"),
    ("possessives", "the man's hat, the dogs' bowls, James's car", "the man 's hat the dogs bowls james 's car"),
    ("assimilations", "I cannot, I'm gonna gotta, gimme lemme wanna 'Tis 'twas",
     "i can not i 'm gon na got ta gim me lem me wan na 't is 't was"),
    ("abbreviations", "Mr. Smith, Mrs. Jones, Dr. No, St. Louis, Apple Inc. and Co. etc. e.g. i.e. vs. a.k.a.",
     "mr. smith mrs. jones dr. no st. louis apple inc. and co. etc. e.g. i.e. vs. a.k.a."),
    ("abbreviation at the end", "He lives in the U.S.", "he lives in the u.s."),
    ("acronym before a sentence's first word", "He works in the U.S. The end. Plan B. The end.",
     "he works in the u.s. the end plan b the end"),
    ("letter and period", "a cat on a. I. x.", "a cat on a. i. x."),
    ("abbreviation before a number", "See fig. 3 and no. 5, not fig. or no.", "see fig. 3 and no. 5 not fig or no"),
    ("numbers", "3,000.50 1.5 -3 +4 1:30 .5 12.34.567", "3,000.50 1.5 -3 +4 1:30 .5 12.34.567"),
    ("fractions", "1/2 cup, 3/4 inch, 1 1/2 hours, ½ ⅕", "1/2 cup 3/4 inch 1 1/2 hours 1/2 ⅕"),
    ("dates", "12/25/2014 and 1-2-99", "12/25/2014 and 1-2-99"),
    ("phone numbers", "call (555) 555-1234 or 555.555.5555", "call -lrb-555-rrb- 555-1234 or 555.555.5555"),
    ("currency", "$5 US$10 £5 €5 5¢ ¥5", "$ 5 us$ 10 # 5 $ 5 5 cents ¥ 5"),
    ("percent", "10% off", "10 % off"),
    ("urls and e-mail addresses", "see http://x.com/a?b=c www.google.com example.org or mail user@example.com",
     "see http://x.com/a?b=c www.google.com example.org or mail user@example.com"),
    ("twitter", "@user #hashtag", "@user #hashtag"),
    ("sgml tags", '<b>bold</b> <a href="x y"> <br/> <!-- note -->', '<b> bold </b> <a href="x y"> <br/> <!-- note -->'),
    ("entities", "AT&amp;T &lt;tag&gt; caf&eacute; &mdash; a&nbsp;b &#123;", "at&t < tag > caf&eacute; a b &#123;"),
    ("emoticons", ":-) ;) :D :( :P ^_^ (x.x) <3", ":--rrb- ;-rrb- :d :-lrb- :p ^_^ -lrb-x.x-rrb- < 3"),
    ("ellipses", "wait... what . . . … ok", "wait what ok"),
    ("dashes", "a - b -- c --- d ---- e ----- f – g — h ― i ‒ j", "a b c d e ----- f g h i j"),
    ("ampersands", "AT&T R&D S&P-500 rock & roll", "at&t r&d s&p-500 rock & roll"),
    ("hyphenated words", "a two-story t-shirt x-ray, well-known and co-ed",
     "a two-story t-shirt x-ray well-known and co-ed"),
    ("file names", "photo.jpg and file.txt", "photo.jpg and file.txt"),
    ("apostrophe words", "o'clock rock 'n' roll the '90s y'all d'Alembert O'Neil",
     "o'clock rock 'n' roll the '90s y' all d'alembert o'neil"),
    ("programming names", "c++ and c# and f#", "c++ and c# and f#"),
    ("prefix words", "pro- and anti-war", "pro- and anti-war"),
    ("soft hyphens", "Indo\xadnesian ship\xadping", "indonesian shipping"),
    ("non-ascii letters", "naïve café straße Γεια Москва 東京", "naïve café straße γεια москва 東京"),
    ("greek final sigma", "ΣΟΦΟΣ ΟΔΟΣ-1 ΑΣ1Β", "σοφος οδος-1 ασ1β"),
    ("superscripts", "x² H₂O 10⁻³", "x ² h ₂ o 10 ⁻³"),
    ("untokenizable", "smile 😀 \ue000 \x01 end", "smile end"),
    ("other spaces", "a\xa0b\u2003c\u3000d\te", "a b c d e"),
    ("spaces inside a token", "<!-- , --> and 1 1/2 cups", "<!-- , --> and 1 1/2 cups"),
    ("cjk and kana", "東京タワー ひらがな", "東京タワー ひらがな"),
]

# Where pycocoevalcap's own batch gives a caption other tokens than the caption alone has: the
# captions of a batch, what pycocoevalcap returns for them (recorded from it, checked below), and
# what the ptb tokenizer gives, each caption on its own.
DEPARTURES = [
    # A line break of its own (\r, \v, \f, \x85, \u2028, \u2029; pycocoevalcap replaces only \n) makes the
    # jar end the line there: pycocoevalcap then gives each caption the next one's tokens. The ptb
    # tokenizer keeps each caption's tokens its own, as the jar gives them across its lines.
    ("a caption's own line break", ["a\rb", "c d", "e"], ["a", "b", "c d"], ["a b", "c d", "e"]),
    ("a caption's own line separator", ["a\u2028b c", "d"], ["a", "b c"], ["a b c", "d"]),
    # The jar's lookahead reads past a caption's line break into the next caption.
    ("a letter and period before a caption that starts a sentence", ["Plan B.", "The end"], ["plan b", "the end"],
     ["plan b.", "the end"]),
    ("an abbreviation before a caption that starts with a number", ["See no.", "5 dogs"], ["see no.", "5 dogs"],
     ["see no", "5 dogs"]),
    # The last caption of pycocoevalcap's file has no line break after it to complete a lookahead.
    ("a smiley that ends the last caption", ["x", "smile :)"], ["x", "smile -rrb-"], ["x", "smile :-rrb-"]),
    ("a year that ends the last caption", ["x", "class of '99"], ["x", "class of 99"], ["x", "class of '99"]),
]

# Drawn text: letters, digits, every ASCII punctuation mark, curly quotes, dashes, ellipses, other
# scripts and emoji, every kind of space and line break, any character, and pieces of the rules.
CHARACTERS = (string.ascii_letters + string.digits + string.punctuation + "\u2018\u2019\u201c\u201d\u201a\u201e\u2013"
              "\u2014\u2012\u2015\u2026\u00e9\u00df\u00e7\u00c9\u00ab\u00bb\u03a3\u03c3\u03b1\u0391\u0416\u044f\u6771\u4eac"
              "\u3072\u30ab\U0001f600\U0001f44d\u00ad\u00bd\u00a3\u20ac \t\u00a0\u2000\u2003\u200a\u3000\u200b\u202f"
              "\ufeff\r\x0b\x0c\x85\u2028\u2029\n\x00\x7f")
PIECES = ("cannot|gonna|gimme|'tis|Mr.|Mrs.|Dr.|St.|Inc.|Co.|co. ltd|Pty. Ltd.|etc.|e.g.|U.S.|U.K.|a.k.a.|no. 5|fig."
          "|The |A |He |It |'s|n't|'ll|don't|can't|o'clock|'n'|'90s|y'all|http://|https://|www.|.com|.org|@|#|&amp;"
          "|&lt;|&gt;|&quot;|&apos;|&nbsp;|&mdash;|&eacute;|<b>|</b>|<a href=\"x y\">|<!--|:)|:-(|;)|^_^|(x.x)|1/2"
          "|1 1/2|3,000.50|.5|(555) 555-1234|12/25/2014|...|. . .|--|---|-----|AT&T|S&P-500|c++|c#|pro-|anti-|x.txt"
          "|x.jpg|'|\"|`|``").split("|")
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.sampled_from(CHARACTERS),
                          st.characters(exclude_categories=("Cs",))), max_size=20).map("".join)


def drawn_text(rng):
    pieces = rng.randrange(24)
    return "".join(rng.choice(PIECES) if rng.random() < 0.3 else rng.choice(CHARACTERS) for _ in range(pieces))


def _differing(captions, expected):
    return [(caption, tokenize_ptb(caption), want) for caption, want in zip(captions, expected, strict=True)
            if tokenize_ptb(caption) != want]


@pytest.mark.parametrize(("construct", "text", "tokens"), CONSTRUCTS, ids=[row[0] for row in CONSTRUCTS])
def test_each_construct(construct, text, tokens):
    assert tokenize_ptb(text) == tokens.split()


@pytest.mark.parametrize(("departure", "captions", "pycocoevalcap", "ours"), DEPARTURES,
                         ids=[row[0] for row in DEPARTURES])
def test_each_departure(departure, captions, pycocoevalcap, ours):
    assert [" ".join(tokenize_ptb(caption)) for caption in captions] == ours != pycocoevalcap


@pytest.mark.slow
def test_the_constructs_are_the_jars():
    texts = [text for _, text, _ in CONSTRUCTS]
    assert [" ".join(tokens) for tokens in jar_tokens(texts)] == [tokens for _, _, tokens in CONSTRUCTS]


@pytest.mark.slow
def test_the_departures_are_pycocoevalcaps():
    for _, captions, recorded, ours in DEPARTURES:
        assert pycocoevalcap_captions(captions) == recorded
        assert [" ".join(tokens) for tokens in jar_tokens(captions)] == ours  # each caption alone


@pytest.mark.slow
def test_punctuations_are_pycocoevalcaps():
    _jar()
    from pycocoevalcap.tokenizer.ptbtokenizer import PUNCTUATIONS as THEIRS

    assert list(PUNCTUATIONS) == THEIRS


@pytest.mark.slow
def test_pycocoevalcaps_example_captions():
    """pycocoevalcap's 1,000 example captions, through its own PTBTokenizer call."""
    captions = [result["caption"] for result in json.loads(COCO.read_text(encoding="utf-8"))]
    assert len(captions) == 1000
    expected = [caption.split() for caption in pycocoevalcap_captions(captions)]
    assert _differing(captions, expected) == []


@pytest.mark.slow
def test_every_line_of_pythons_own_prose():
    """Every line of pydoc_data's topics (about 11,000): quotes, brackets, code, URLs, abbreviations."""
    lines = [line for text in pydoc_data.topics.topics.values() for line in text.split("\n")]
    assert len(lines) > 5000
    assert _differing(lines, jar_tokens(lines)) == []


@pytest.mark.slow
def test_drawn_text():
    """3,000 strings drawn from the alphabet and the pieces above, with a fixed seed."""
    rng = random.Random(20141)
    texts = [drawn_text(rng) for _ in range(3000)]
    assert _differing(texts, jar_tokens(texts)) == []


@pytest.mark.slow
@settings(max_examples=8)  # a Java process a batch; test_drawn_text draws 3,000 strings in one
@given(texts=st.lists(TEXT, min_size=50, max_size=100))
def test_drawn_batches(texts):
    """Each example a batch of drawn strings through one Java call."""
    assert _differing(texts, jar_tokens(texts)) == []


def test_the_docs_list_every_construct_and_departure_the_tests_pin():
    """docs/captions.md's two tables are these: a row for each construct, with its tokens, and a row
    for each departure, with what pycocoevalcap returns and what ptb gives."""
    page = (Path(__file__).parents[2] / "docs" / "captions.md").read_text(encoding="utf-8")
    reproduced = page.split("### What it reproduces", 1)[1].split("\n### ", 1)[0]
    departed = page.split("### Where it departs from pycocoevalcap", 1)[1].split("\n### ", 1)[0]

    def rows(table):
        return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table.splitlines()
                if line.startswith("| ") and not line.startswith("| construct")]

    assert [(row[0], row[2]) for row in rows(reproduced)] == [(name, f"`{tokens}`") for name, _, tokens in CONSTRUCTS]
    listed = rows(departed)
    assert [row[0] for row in listed] == [name for name, *_ in DEPARTURES]
    for row, (_, _, pycocoevalcap, ours) in zip(listed, DEPARTURES):
        assert row[2] == ", ".join(f"`{one}`" for one in pycocoevalcap) and row[3] == ", ".join(f"`{one}`" for one in ours)
