"""The "Which BLEU?" view's pictures of a conventions result: the spread of every convention as an
SVG strip plot, and the table of those that give a reported score."""

import html
from collections.abc import Mapping
from typing import Any

import pandas as pd

AGGREGATES = ("corpus", "sentence mean")


def spread_rows(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The plot's rows: each arithmetic the conventions name, in their order, as a corpus score and
    as a mean of sentence scores."""
    arithmetics = dict.fromkeys(row["arithmetic"] for row in result["conventions"])
    return [(arithmetic, aggregate) for arithmetic in arithmetics for aggregate in AGGREGATES]


def spread_plot(result: Mapping[str, Any]) -> str:
    """Every convention's score, on 0..100, as a dot on its arithmetic's row (a convention on 0..1
    on top of its twin on 0..100), those that give the reported score marked: an SVG, so the page
    needs no plotting library."""
    rows = result["conventions"]
    matched = set(result["matches"])
    low = min(row["percent"] for row in rows)
    high = max(row["percent"] for row in rows)
    left, width, line = 150, 560, 34
    lines = spread_rows(result)
    dots = []
    for number, row in sorted(enumerate(rows), key=lambda item: item[0] in matched):  # the marked ones last, on top
        y = 28 + line * lines.index((row["arithmetic"], row["aggregate"]))
        x = left + width * row["percent"] / 100
        mark = number in matched
        title = html.escape(f"{row['score']:.2f}: {row['preset']} {row['options'] or ''} {row['aggregate']}")
        dots.append(f"<circle cx='{x:.1f}' cy='{y}' r='{6 if mark else 3.5}' fill='{'#dd5522' if mark else '#4c72b0'}'"
                    f" fill-opacity='{1 if mark else 0.35}' class='{'match' if mark else 'convention'}'>"
                    f"<title>{title}</title></circle>")
    labels = "".join(f"<text x='{left - 10}' y='{32 + line * number}' text-anchor='end' font-size='13'>"
                     f"{html.escape(arithmetic)}, {aggregate}</text>"
                     for number, (arithmetic, aggregate) in enumerate(lines))
    bottom = len(lines)
    ticks = "".join(f"<line x1='{left + width * t / 100}' x2='{left + width * t / 100}' y1='12' "
                    f"y2='{20 + line * bottom}' stroke='#ddd'/><text x='{left + width * t / 100}' "
                    f"y='{36 + line * bottom}' text-anchor='middle' font-size='12'>{t}</text>"
                    for t in range(0, 101, 10))
    heading = f"{len(rows) // 2} conventions, from {low:.2f} to {high:.2f} BLEU (on 0-100) on these lines"
    if result["reported"] is not None:
        heading += f"; {len(result['matches'])} give {html.escape(result['reported'])}"
    return (f"<div id='which-bleu'><div style='font-weight:700;margin-bottom:4px'>{heading}</div>"
            f"<svg viewBox='0 0 {left + width + 20} {48 + line * bottom}' width='100%' role='img' "
            f"aria-label='every convention&#39;s BLEU'>{ticks}{labels}{''.join(dots)}</svg></div>")


def conventions_table(result: Mapping[str, Any]) -> pd.DataFrame:
    """The conventions that give the reported score, the common ones first; with none reported,
    every convention on 0..100, highest first."""
    rows = ([result["conventions"][number] for number in result["matches"]] if result["reported"] is not None
            else sorted((row for row in result["conventions"] if row["scale"] == 100), key=lambda row: -row["score"]))
    return pd.DataFrame({
        "BLEU": [round(row["score"], 4) for row in rows],
        "scale": [f"0-{row['scale']}" for row in rows],
        "aggregate": [row["aggregate"] for row in rows],
        "preset": [row["preset"] for row in rows],
        "options": [", ".join(f"{name}={value}" for name, value in row["options"].items()) or "-" for row in rows],
    })
