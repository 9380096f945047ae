"""Long tables of the printed sheets as monospaced text grids, one line per row.

Why: WeasyPrint lays out and draws every table cell as a box of its own with
its own text layout; a 300-round protocol has thousands of cells and took
seconds. Here a row is one line of a ``<pre>`` block: one text layout per
line, a few hundred for the longest protocol. Columns are padded to the
widest value (numbers right-aligned); a column marked ``wrap`` (free text:
notes, void reasons) folds onto continuation lines when the row would be
wider than the page, so nothing is cut. The text read back from the PDF is
the same words in the same order, separated by spaces.

The sheets draw the grid lines with CSS backgrounds (``templates/reports/
base.html``, ``.grid``): one rule per text line, and vertical rules at the
column edges (:meth:`Grid.edges`, in characters).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

#: Characters of DejaVu Sans Mono at 7.5 pt across the A4 text width (186 mm): 116.
PAGE_CHARS = 116
#: Line height of a grid line in points (7.5 pt text, line-height 1.3; ``templates/reports/base.html``).
LINE_PT = 9.75
#: Advance of one character of DejaVu Sans Mono at 7.5 pt (1233/2048 em), and the grid's left padding (1 mm).
CHAR_PT = 7.5 * 1233 / 2048
PAD_PT = 72 / 25.4
#: Blanks between two columns.
GAP = 2


@dataclass(frozen=True)
class Column:
    """A column: its title, right-aligned (numbers) or not, and whether its text may wrap."""

    title: str
    right: bool = False
    wrap: bool = False


@dataclass(frozen=True)
class Row:
    """One row of cells; ``void`` rows are struck through on the sheet."""

    cells: Sequence[str]
    void: bool = False


@dataclass(frozen=True)
class Grid:
    """Column widths fitted to the content; renders the header and the body as text."""

    columns: Sequence[Column]
    rows: Sequence[Row]
    widths: Sequence[int]

    def line(self, cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if col.right else c.ljust(w)
                 for col, c, w in zip(self.columns, cells, self.widths, strict=True)]
        return (" " * GAP).join(parts).rstrip()

    def lines_of(self, row: Row, titles: bool = False) -> list[str]:
        """The row as one or more lines (wrapped columns continue below, others stay blank)."""
        if not titles and all(len(c) <= w for c, w in zip(row.cells, self.widths, strict=True)):
            return [self.line(row.cells)]  # the common case: every cell fits its column
        pieces = [textwrap.wrap(c, w, break_long_words=True, break_on_hyphens=False) or [""]
                  if (col.wrap or titles) and len(c) > w else [c]
                  for col, c, w in zip(self.columns, row.cells, self.widths, strict=True)]
        height = max(len(p) for p in pieces)
        return [self.line([p[k] if k < len(p) else "" for p in pieces]) for k in range(height)]

    def header(self) -> str:
        """The titles; a title wider than its column's values wraps onto a second line (or more)."""
        return "\n".join(self.lines_of(Row([c.title for c in self.columns]), titles=True))

    def body(self) -> Markup:
        """The rows as lines of text (HTML-escaped); void rows inside ``<s class="void">``."""
        out = []
        for row in self.rows:
            text = escape("\n".join(self.lines_of(row)))
            out.append(Markup('<s class="void">{}</s>').format(text) if row.void else text)
        return Markup("\n").join(out)

    def width_css(self) -> str:
        """The grid's width (its characters plus the padding), so the frame ends at the last column."""
        chars = sum(self.widths) + GAP * (len(self.widths) - 1)
        return f"width: {chars * CHAR_PT + 2 * PAD_PT + 1:.1f}pt"

    def edges(self) -> list[int]:
        """Where the vertical rules go, in characters from the left (between columns)."""
        edges, x = [], 0
        for w in self.widths[:-1]:
            x += w + GAP
            edges.append(x - GAP // 2)
        return edges

    def rules_css(self, row_rules: bool = False) -> str:
        """CSS background: the vertical rules at :meth:`edges` (and a rule under each line if asked).

        One small SVG image, one line of text high, repeated down the block:
        WeasyPrint draws a repeated image as one pattern, where a rule of its
        own per column (a gradient each) cost a seventh of the protocol's time.
        """
        width = sum(self.widths) * CHAR_PT + GAP * (len(self.widths) - 1) * CHAR_PT + 2 * PAD_PT + 1
        rects = [f"<rect x='{PAD_PT + e * CHAR_PT - .2:.2f}' y='0' width='.4' height='{LINE_PT:g}' fill='%23999'/>"
                 for e in self.edges()]
        if row_rules:
            rects.append(f"<rect x='0' y='{LINE_PT - .4:g}' width='{width:.1f}' height='.4' fill='%23ccc'/>")
        if not rects:
            return ""
        svg = (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.1f}pt' height='{LINE_PT:g}pt' "
               f"viewBox='0 0 {width:.1f} {LINE_PT:g}'>{''.join(rects)}</svg>")
        return (f'background-image: url("data:image/svg+xml,{svg}"); background-size: {width:.1f}pt {LINE_PT:g}pt; '
                "background-repeat: repeat-y")


def fit(columns: Sequence[Column], rows: Sequence[Row], page: int = PAGE_CHARS) -> Grid:
    """Widths: each column as wide as its widest cell (or the longest word of its title), within ``page``.

    A title wider than its column wraps onto a second header line rather than
    widen every row (every character of every row costs drawing time). When
    the rows are still wider than ``page``, ``wrap`` columns give way (down to
    12 characters), widest first.
    """
    widths = [max([max(len(word) for word in c.title.split() or [""])] + [len(r.cells[k]) for r in rows])
              for k, c in enumerate(columns)]
    over = sum(widths) + GAP * (len(widths) - 1) - page
    wrapping = [k for k, c in enumerate(columns) if c.wrap]
    while over > 0 and wrapping:
        k = max(wrapping, key=lambda i: widths[i])
        take = min(over, widths[k] - max(len(columns[k].title.split()[0]) if columns[k].title else 0, 12))
        if take <= 0:
            break
        widths[k] -= take
        over -= take
    return Grid(columns, rows, widths)
