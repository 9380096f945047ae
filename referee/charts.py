"""Chart geometry: scales, ticks, points and label places, as plain numbers (pure, no I/O).

Why a module of its own: the charts (a match's running balances, a night's
results, a season's running totals) are SVG written by templates, and the
only part that can be wrong in an interesting way is the arithmetic of where
things go. Kept here, free of Flask and of the markup, it is unit-tested
directly, and the templates only print the numbers it returns.

Money stays in integer minor units all the way to the tick values; only
screen coordinates are floats (rounded to 0.1 px, which keeps the SVG small
and is still exact enough to read a balance back from a line).

Styles: a player's colour and line pattern come from the player's place in
the group (:func:`style`), so the same player looks the same on every page
and sheet of the group. The palette is Okabe and Ito's, which colour-blind
readers can tell apart, and every line also has its own dash pattern and a
name label at its end, so no chart depends on colour alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Okabe-Ito colours (the yellow darkened to olive so that it shows on white paper).
PALETTE: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
                            "#8C7A00")
#: Dash patterns: the second eight players get dashes, the third dots, and so on.
DASHES: tuple[str, ...] = ("", "6 3", "2 2", "8 3 2 3")
#: The pot band's fill and the colour of axes and grid.
BAND = "#d9d9d9"
AXIS = "#555555"
GRID = "#e4e4e4"
#: Vertical room of one end label (font size 10): DejaVu Sans from the umlaut of an "Ö" to the tail of a
#: "j" is about 12 units, so 11 let "Göran", "Örjan" and "Märta" touch (issue 28).
LABEL_GAP = 13.0
#: At most this many points per line: more than a 390 px screen can show.
MAX_POINTS = 160


@dataclass(frozen=True)
class Style:
    """How one player's line or bar is drawn."""

    colour: str
    dash: str


def style(index: int) -> Style:
    """The style of the player at ``index`` in the group (stable across every page of the group)."""
    k = max(index, 0)
    return Style(PALETTE[k % len(PALETTE)], DASHES[(k // len(PALETTE)) % len(DASHES)])


def nice_step(span: int, ticks: int) -> int:
    """A tick step of 1, 2 or 5 times a power of ten (at least 1) giving about ``ticks`` intervals."""
    if span <= 0 or ticks <= 0:
        return 1
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return max(1, int(factor * power))
    return max(1, int(10 * power))  # pragma: no cover - the loop always returns


def ticks(lo: int, hi: int, count: int = 5) -> list[int]:
    """Round tick values covering ``lo``..``hi`` (both included), about ``count`` intervals."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        hi = lo + 1
    step = nice_step(hi - lo, count)
    first = math.floor(lo / step) * step
    last = math.ceil(hi / step) * step
    return list(range(first, last + step, step))


@dataclass(frozen=True)
class Scale:
    """A linear map from data values to screen coordinates."""

    d0: float
    d1: float
    r0: float
    r1: float

    def __call__(self, value: float) -> float:
        if self.d1 == self.d0:
            return round((self.r0 + self.r1) / 2, 1)
        return round(self.r0 + (value - self.d0) * (self.r1 - self.r0) / (self.d1 - self.d0), 1)


@dataclass(frozen=True)
class Tick:
    pos: float
    value: int


@dataclass(frozen=True)
class Line:
    """One player's running balance: points, style, and where the name label goes."""

    name: str
    style: Style
    points: tuple[tuple[float, float], ...]
    xs: tuple[int, ...]
    values: tuple[int, ...]
    label_y: float

    @property
    def svg_points(self) -> str:
        return " ".join(f"{x:g},{y:g}" for x, y in self.points)


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    zero_y: float
    lines: tuple[Line, ...]
    band: str              # SVG path of the pot band ("" when there is no pot)
    band_label_y: float
    band_value: int        # the pot at the last point
    sampled: bool          # True when the lines show every n-th x only

    @property
    def label_x(self) -> float:
        return self.right + 4

    @property
    def flat(self) -> bool:
        """Nothing ever moved (every value 0, no pot): a chart would say nothing."""
        return not self.band and not any(v for line in self.lines for v in line.values)


def sample(count: int, limit: int = MAX_POINTS) -> list[int]:
    """Indices of at most ``limit`` evenly spread points out of ``count``, first and last included."""
    if count <= limit:
        return list(range(count))
    step = (count - 1) / (limit - 1)
    return sorted({round(k * step) for k in range(limit)})


def spread(wanted: Sequence[float], gap: float, lo: float, hi: float) -> list[float]:
    """Label positions near ``wanted`` but at least ``gap`` apart, kept within ``lo``..``hi``.

    Labels are pushed down in order of their wanted place, then the whole
    stack is pulled back up if it ran past ``hi``.
    """
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    out = [0.0] * len(wanted)
    prev = lo - gap
    for i in order:
        prev = max(wanted[i], prev + gap)
        out[i] = prev
    overflow = prev - hi
    if overflow > 0:
        for i in order:
            out[i] -= overflow
        prev_up = hi + gap
        for i in reversed(order):  # keep the gaps after the shift, from the bottom up
            prev_up = min(out[i], prev_up - gap)
            out[i] = prev_up
    return [round(v, 1) for v in out]


def line_chart(xs: Sequence[int], series: Mapping[str, Sequence[int]], styles: Mapping[str, Style], *,
               band: Sequence[int] | None = None, width: int = 360, height: int = 220,
               label_width: int = 64, x_count: int = 6, y_count: int = 5) -> LineChart:
    """Lines of integer values over integer ``xs`` (rounds, nights), with an optional band from 0.

    ``series`` maps a name to one value per x; ``band`` (the pot) is drawn as
    an area between 0 and its value.
    """
    keep = sample(len(xs))
    kx = [xs[i] for i in keep]
    labels = len(series) + (1 if band is not None and any(band) else 0)
    # Every end label needs LABEL_GAP; a chart with more names than fit is drawn taller, never with labels
    # on top of each other (issue 28: Göran, Örjan and Märta's umlauts and descenders met at 11 px).
    height = max(height, math.ceil(8.0 + 4 + (labels - 1) * LABEL_GAP + 30))
    left, top, bottom = 44.0, 8.0, float(height - 30)  # below: a row of tick labels, then the axis title
    right = float(width - label_width)
    values = [v for vals in series.values() for v in vals] + list(band or []) + [0]
    y_vals = ticks(min(values), max(values), y_count)
    y = Scale(y_vals[0], y_vals[-1], bottom, top)
    x_lo, x_hi = (kx[0], kx[-1]) if kx else (0, 1)
    x_vals = [v for v in ticks(x_lo, x_hi, x_count) if x_lo <= v <= x_hi] or [x_lo]
    x = Scale(x_lo, x_hi, left, right) if x_hi != x_lo else Scale(x_lo - 1, x_hi + 1, left, right)
    names = list(series)
    ends = [y(series[n][keep[-1]]) if keep else y(0) for n in names]
    band_path, band_end, band_value = "", 0.0, 0
    if band is not None and any(band):
        upper = [f"{x(xs[i]):g},{y(band[i]):g}" for i in keep]
        band_path = f"M{x(kx[0]):g},{y(0):g} L" + " L".join(upper) + f" L{x(kx[-1]):g},{y(0):g} Z"
        band_value = band[keep[-1]]
        band_end = (y(0) + y(band_value)) / 2
    label_ys = spread(ends + ([band_end] if band_path else []), LABEL_GAP, top + 4, bottom)
    px = [x(v) for v in kx]  # the x of each kept point, once for all lines
    lines = tuple(
        Line(name=n, style=styles[n], points=tuple(zip(px, (y(series[n][i]) for i in keep), strict=True)),
             xs=tuple(kx), values=tuple(series[n][i] for i in keep), label_y=label_ys[k])
        for k, n in enumerate(names))
    return LineChart(width=width, height=height, left=left, right=right, top=top, bottom=bottom,
                     x_ticks=tuple(Tick(x(v), v) for v in x_vals), y_ticks=tuple(Tick(y(v), v) for v in y_vals),
                     zero_y=y(0), lines=lines, band=band_path, band_label_y=label_ys[-1] if band_path else 0.0,
                     band_value=band_value, sampled=len(keep) < len(xs))


@dataclass(frozen=True)
class Bar:
    name: str
    style: Style
    value: int
    x: float
    y: float
    w: float
    h: float
    label_x: float
    anchor: str      # "start" (label right of the bar) or "end" (left of it)

    @property
    def mid_y(self) -> float:
        return round(self.y + self.h / 2, 1)


@dataclass(frozen=True)
class BarChart:
    width: int
    height: int
    name_x: float
    zero_x: float
    top: float
    bottom: float
    ticks: tuple[Tick, ...]
    bars: tuple[Bar, ...]


def bar_chart(values: Mapping[str, int], styles: Mapping[str, Style], *, width: int = 360, row: int = 20,
              name_width: int = 92, value_width: int = 58, tick_count: int = 4) -> BarChart:
    """Horizontal bars from a zero line: positive to the right, negative to the left.

    Room for the value label is kept on both sides, so a label never runs
    off the chart whichever way its bar points.
    """
    names = list(values)
    top = 16.0
    bottom = top + row * max(len(names), 1)
    vals = [values[n] for n in names] + [0]
    t = ticks(min(vals), max(vals), tick_count)
    x = Scale(t[0], t[-1], name_width + value_width * (1 if t[0] < 0 else 0.15),
              width - value_width * (1 if t[-1] > 0 else 0.15))
    zero = x(0)
    bars = []
    for k, n in enumerate(names):
        v = values[n]
        end = x(v)
        bx, bw = (zero, end - zero) if v >= 0 else (end, zero - end)
        bars.append(Bar(name=n, style=styles[n], value=v, x=bx, y=round(top + k * row + 3, 1),
                        w=round(max(bw, 0.0), 1), h=float(row - 6),
                        label_x=round(end + 3, 1) if v >= 0 else round(end - 3, 1),
                        anchor="start" if v >= 0 else "end"))
    return BarChart(width=width, height=int(bottom + 6), name_x=float(name_width - 4), zero_x=zero, top=top,
                    bottom=bottom, ticks=tuple(Tick(x(v), v) for v in t), bars=tuple(bars))
