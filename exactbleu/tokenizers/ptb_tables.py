"""The character classes of the ``ptb`` tokenizer's lexer, as the jar's scanner holds them: JFlex's
[:letter:] and [:digit:] of CoreNLP 3.4.1, built in 2014 from Java's Unicode of the day, in the Basic
Multilingual Plane (a letter Unicode added since is untokenizable there, so ``ptb`` keeps these, not
Python's classes)."""

# JFlex's [:letter:] and [:digit:] as the jar's scanner tables hold them: Java's Unicode of 2014, in
# the Basic Multilingual Plane (later letters are untokenizable there). Each range is written as its
# gap after the last one and its length less one, in base 36: "1t.p 6.p" is A-Z, a-z.
_LETTERS = (
    "1t.p 6.p 1b a 4 5.m 1.u 1.cp 4.b e.4 7 1 3l.4 1.1 2.3 8 1.2 1 1.j 1.2a 1.3u 8.4d 9.11 2 7.12 20.q 5.2 19.16 z.1 "
    "1.2q 1 f.1 7.1 a.2 2 g 1.t t.2g b o.w 9.1 4 5.l 4 9 3 n.o 1z 1.a 2f.1h 3 i 7.9 f.6 1.6 5.7 2.1 2.l 1.6 1 3.3 3 g "
    "d.1 1.2 e.1 j.5 4.1 2.l 1.6 1.1 1.1 1.1 v.3 1 j.2 g.8 1.2 1.l 1.6 1.1 1.4 3 i f.1 z.7 2.1 2.l 1.6 1.1 1.4 3 u.1 "
    "1.2 f h 1.5 3.2 1.3 3.1 1 1.1 3.1 3.2 3.b m 1g.7 1.2 1.m 1.9 1.4 3 q.1 6.1 z.7 1.2 1.m 1.9 1.4 3 w 1.1 f.1 i.7 "
    "1.2 1.14 2 g h.1 o.5 5.h 3.n 1.8 1 2.6 1m.1b 1.1 c.6 1m.1 1 2.1 1 2 6.3 1.6 1.2 1 1 2.1 1.3 1.1 9 2.4 1 l.3 w "
    "1r.7 1.z r.4 37.16 k g.5 4.3 3 3.1 7.2 4.c c h.11 1 5 2.16 1.98 1.3 2.6 1 1.3 2.14 1.3 2.w 1.3 2.6 1 1.3 2.e "
    "1.1k 1.3 2.1u 11.f g.2c c.h7 2.g 1.p 5.22 l.c 1.3 e.h e.h e.c 1.2 f.1f z 4 1v.2f 8.14 1 5.1x a.s 1f.t 2.4 b.17 "
    "l.6 1k.m 9.1g 2a 2l.1a h.6 1j.t d.1 a.17 q.z 15.2 a.z 2z.3 1.3 3.1 9.5b 1s.7p 2.5 2.11 2.5 2.7 1 1 1 1.u 2.1g "
    "1.6 1 3.2 1.6 3.3 2.5 4.c 5.2 1.6 38 d g.c 2t 4 2.9 1 3.4 6 1 1 1.3 1.a 2.3 5.4 4 1g.1 22j.1a 1.1a 1.3o 6.3 3.1 "
    "c.11 1 5 2.1j 7 g.m 9.6 1.6 1.6 1.6 1.6 1.6 1.6 1.6 28 d1.1 16.4 5.1 4.2d 6.2 1.2h 1.3 5.14 3.2l h.q 1h.f e8.52t "
    "22.g5o 1f.wc 1v.19 2.7g 3.f a.1 k.1a g.o 8.1x 1d.8 2.2u 2.3 1.3 c.a 25.9 1.2 1.3 1.m t.1f e.1d 1q.5 3 e.r a.m "
    "p.s 7.1a s 1c.14 n.2 1.7 k.m 3 5.1b 1 3.1 2.4 2 1 o.2 2.a 7.2 c.5 2.5 2.5 9.6 1.6 41.y t.8mb c.m 4.1c 6is.a5 "
    "2.2x 12.6 c.4 5 1.9 1.c 1.4 1 1.1 1.1 1.2z x.a2 i.1r 2.1h 14.b 38.4 1.3q 10.p 6.p b.2g 3.5 2.5 2.5 2.2")
_DIGITS = (
    "1c.9 17q.9 3q.9 5i.9 bg.9 3a.9 3a.9 3a.9 3a.9 3a.9 3a.9 3a.9 3a.9 68.9 3a.9 1y.9 7q.9 1y.9 1fq.9 12.9 8c.9 3k.9 "
    "4m.9 6.9 52.9 2e.9 3q.9 6.9 r7q.9 iu.9 12.9 5i.9 3a.9 ba.9 geu.9")


def _ranges(spec: str) -> str:
    """The ranges of a table above as the inside of a character class."""
    out, last = [], -1
    for item in spec.split():
        gap, _, length = item.partition(".")
        first = last + 1 + int(gap, 36)
        last = first + int(length or "0", 36)
        out.append(f"\\u{first:04x}-\\u{last:04x}")
    return "".join(out)


CLASSES = {"[:letter:]": _ranges(_LETTERS), "[:digit:]": _ranges(_DIGITS)}
