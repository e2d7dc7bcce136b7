"""The design report drawn: headings, notes, vector charts (reportlab.graphics) and tables, from plain blocks
of numbers, into an A4 PDF in the game's fonts (same blocks, same bytes)."""

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import IO, Any

from reportlab.graphics.charts.axes import ValueAxis
from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
from xml.sax.saxutils import escape

from .text import SOFT_HYPHEN, cut_to_width
from .. import PDF_CREATOR
from ..report import shortened
from .fonts import FontSet
from pathlib import Path
from reportlab.pdfgen.canvas import Canvas

# Okabe and Ito's palette: told apart with every common colour-vision deficiency.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
MARKERS = ["FilledCircle", "FilledSquare", "FilledTriangle", "FilledDiamond", "Cross", "FilledStarFive", "Circle",
           "Square"]
INK, GREY = colors.HexColor("#222222"), colors.HexColor("#777777")
LABEL = 7  # points: the smallest text in a chart
FULL, HALF, HEIGHT = 170 * mm, 83 * mm, 58 * mm

Block = dict[str, Any]  # one block of the report, as build.insight makes it (kind, title, figures ...)
Series = list[tuple[str, list[float]]]  # (name, a value per label)
Box = tuple[float, float, float, float]  # (x0, x1, y0, y1): the plot's data range
LineStyle = tuple[str, Any, Any]  # ("points", colour, marker name) or ("trend", colour, group index)
Placed = tuple[float, float, float]  # (left, right, baseline) of a text written on a plot
TableStyles = list[tuple[Any, ...]]  # Platypus table style commands


class Styles:
    def __init__(self, fonts: FontSet) -> None:
        body, bold = fonts.name("Body"), fonts.name("Body", bold=True)
        self.body, self.bold = body, bold
        self.h1 = ParagraphStyle("h1", fontName=fonts.name("Display", bold=True), fontSize=17, leading=21,
                                 spaceBefore=6, spaceAfter=8, textColor=INK, keepWithNext=1)
        self.h2 = ParagraphStyle("h2", fontName=bold, fontSize=12, leading=15, spaceBefore=10, spaceAfter=4,
                                 textColor=INK, keepWithNext=1)
        self.h3 = ParagraphStyle("h3", fontName=bold, fontSize=9, leading=11, textColor=INK)
        self.p = ParagraphStyle("p", fontName=body, fontSize=8.5, leading=11, textColor=INK, spaceAfter=4)
        self.small = ParagraphStyle("small", fontName=body, fontSize=7.5, leading=9, textColor=INK)
        self.finding = ParagraphStyle("finding", parent=self.small, textColor=colors.HexColor("#A33B00"))


def _short(text: object, n: int = 20) -> str:
    return shortened(str(text), n)


def _axis_fonts(chart: VerticalBarChart | LinePlot, font: str) -> None:
    for axis in (getattr(chart, "categoryAxis", None), getattr(chart, "valueAxis", None),
                 getattr(chart, "xValueAxis", None), getattr(chart, "yValueAxis", None)):
        if axis is not None:
            axis.labels.fontName, axis.labels.fontSize, axis.labels.fillColor = font, LABEL, INK
            axis.strokeColor = GREY
            if isinstance(axis, ValueAxis):
                axis.labelTextFormat = _axis_number


def _axis_number(value: float) -> str:
    """A value axis's tick: a whole number of up to 15 digits as it is, any other as %g. ReportLab writes whole
    ticks with '%.0f': an axis to 1e100 printed each as the 101 digits of its float, running over one another."""
    return f"{value:.0f}" if value == int(value) and abs(value) < 1e15 else f"{value:g}"


def _crowded(labels: Sequence[str], width: float) -> bool:
    """Whether category labels must be turned to fit under their bars."""
    longest = max((len(s) for s in labels), default=0)
    return len(labels) > (8 if width < FULL else 16) or longest > 60 / max(len(labels), 1)


def _spaced_names(names: list[str], width: float, turned: bool) -> list[str]:
    """The bars' names, every k-th of them (the last among them) where a bar is narrower than a name's line needs (turned at 45
    degrees, a line needs LABEL * 1.45 points along the axis): 80 bars on a full-width chart wrote their names
    over one another, none readable."""
    step = width / max(1, len(names))
    every = math.ceil(LABEL * 1.45 / step) if turned else 1
    return [name if (len(names) - 1 - i) % every == 0 else "" for i, name in enumerate(names)]  # (the last named)


def _value_axis(axis: ValueAxis, series: Series) -> None:
    """From zero to the largest value, whole-number steps for counts."""
    top = max((max(v) for _, v in series if v), default=1)
    top = top if top > 0 else 1
    low = min(0, min((min(v) for _, v in series if v), default=0))
    axis.valueMin, axis.valueMax, axis.forceZero = low, top, True
    axis.visibleGrid, axis.gridStrokeColor = True, colors.HexColor("#DDDDDD")
    if all(isinstance(v, int) for _, vs in series for v in vs):
        step = axis.valueStep = max(1, _step(top))
        axis.valueMax = -(-top // step) * step  # the tallest bar ends at or under a grid line


def bar_drawing(block: Block, font: str, width: float) -> Drawing:
    """Bars per label, one series (or several side by side, with a legend)."""
    labels, series = block["labels"], block["series"]
    many = _crowded(labels, width)
    bottom = 14 + 3.6 * min(20, max(len(_short(s)) for s in labels)) if many else 24
    legend = len(series) > 1
    d = Drawing(width, HEIGHT + (bottom - 24))
    chart = VerticalBarChart()
    chart.x, chart.y = 26, bottom
    chart.width, chart.height = width - 34 - (70 if legend else 0), HEIGHT - 34
    chart.data = [list(values) for _, values in series]
    chart.categoryAxis.categoryNames = _spaced_names([_short(s) for s in labels], chart.width, many)
    _axis_fonts(chart, font)
    _value_axis(chart.valueAxis, series)
    if chart.valueAxis.valueMin < 0:  # bars below zero: the names go under the chart, not on the zero line
        chart.categoryAxis.joinAxisMode = "bottom"
        chart.categoryAxis.visibleAxis = False
        chart.valueAxis.gridStrokeColor = GREY
    if many:
        chart.categoryAxis.labels.angle, chart.categoryAxis.labels.boxAnchor = 45, "ne"
        chart.categoryAxis.labels.dx, chart.categoryAxis.labels.dy = 2, -2
    chart.barSpacing, chart.groupSpacing = 0.5, 3 if len(labels) < 30 else 1
    for i in range(len(series)):
        chart.bars[i].fillColor, chart.bars[i].strokeColor = colors.HexColor(PALETTE[i % 8]), None
    d.add(chart)
    _keep_inside(d, chart)
    if legend:
        d.add(_legend([(PALETTE[i % 8], name) for i, (name, _) in enumerate(series)], font, width - LEGEND_W, HEIGHT - 12,
                      "FilledSquare"))
    return d


def _keep_inside(d: Drawing, chart: VerticalBarChart | LinePlot) -> None:
    """Move the plot right and up (narrowing it) until what it draws beside itself, a turned category label
    or a wide value label, stays inside the drawing: past its edge it ran into the page margin or the next
    chart. Call it before anything else is added to `d`."""
    for _ in range(3):  # narrowing moves the bars, and their labels with them: settle in a few steps
        left, bottom, _, _ = d.getBounds()
        if left >= 0 and bottom >= 0:
            return
        if left < 0:
            chart.x, chart.width = chart.x - left + 1, chart.width + left - 1
        if bottom < 0:
            chart.y, d.height = chart.y - bottom + 1, d.height - bottom + 1


def _step(top: float) -> int:
    """A whole-number grid step giving at most about six lines."""
    step: float = 1
    i = 0
    while top / step > 6:
        step, i = step * (2, 2.5, 2)[i % 3], i + 1
    return int(step)


LEGEND_W = 64  # points: a legend's room at the drawing's right edge, its swatch and its names


def _legend(entries: list[tuple[str, str]], font: str, x: float, y: float, marker: str) -> Legend:
    """A legend in one column of LEGEND_W points from x, each name cut to its room: in ReportLab's columns of 3
    the 7th and 8th series' names were drawn past the page's edge, the 4th to 6th across it."""
    legend = Legend()
    legend.x, legend.y, legend.fontName, legend.fontSize = x, y, font, LABEL
    legend.alignment, legend.dx, legend.dy, legend.deltay = "right", 6, 6, 10
    legend.columnMaximum, legend.dxTextSpace = max(1, len(entries)), 4
    room = LEGEND_W - legend.dx - legend.dxTextSpace - 2
    legend.colorNamePairs = [(colors.HexColor(c), cut_to_width(_short(n, 14), font, LABEL, room)) for c, n in entries]
    return legend


def _bounds(values: Sequence[float]) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    # values a few steps of a float's last digit apart (1.0 and 1.0000000000000002) span no room an axis can
    # divide: its ticks and the points fell outside the plot, the trend line across the page. They are drawn
    # as the one value they print as, within a span of their size.
    size = max(abs(lo), abs(hi))
    span = hi - lo if hi - lo > size * 1e-9 else size
    pad = span * 0.06 or 1
    return lo - pad, hi + pad


def _scatter_series(groups: list[Block], box: Box) -> tuple[list[list[tuple[float, float]]], list[LineStyle]]:
    """The plot's data and each line's style: a group's points, then its trend (when it has one)."""
    data: list[list[tuple[float, float]]] = []
    styles: list[LineStyle] = []
    for i, g in enumerate(groups):
        colour = colors.HexColor(PALETTE[i % 8])
        data.append(list(dict.fromkeys(p[:2] for p in g["points"])))  # a spot's rows drawn once (counted beside it)
        styles.append(("points", colour, MARKERS[i % 8]))
        if g["trend"]:
            data.append(_clipped(g["trend"], *box))
            styles.append(("trend", colour, i))
    return data, styles


def _style_lines(plot: LinePlot, styles: list[LineStyle]) -> None:
    for i, (what, colour, extra) in enumerate(styles):
        line = plot.lines[i]
        if what == "points":
            line.strokeWidth, line.symbol = 0, makeMarker(extra, size=4.5, fillColor=colour, strokeColor=colour)
            line.strokeColor = None
        else:
            line.strokeColor = colour
            line.strokeWidth, line.strokeDashArray = 1, [None, (4, 2), (1, 2), (6, 2, 1, 2)][extra % 4]


def scatter_drawing(block: Block, font: str) -> Drawing:
    """Points per group (colour and marker), each group's fitted trend, the furthest rows named."""
    groups = [g for g in block["groups"] if g["points"]]
    d = Drawing(FULL, HEIGHT + 30)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 36, 26, FULL - 44 - (80 if len(groups) > 1 else 0), HEIGHT
    (x0, x1) = _bounds([p[0] for g in groups for p in g["points"]] or [0, 1])
    (y0, y1) = _bounds([p[1] for g in groups for p in g["points"]] or [0, 1])
    plot.data, styles = _scatter_series(groups, (x0, x1, y0, y1))
    _axis_fonts(plot, font)
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = x0, x1
    plot.yValueAxis.valueMin, plot.yValueAxis.valueMax = y0, y1
    plot.yValueAxis.visibleGrid = plot.xValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = plot.xValueAxis.gridStrokeColor = colors.HexColor("#E4E4E4")
    _style_lines(plot, styles)
    d.add(plot)
    _keep_inside(d, plot)
    _axis_titles(d, plot, block, font)
    counted = _multiples(d, plot, groups, (x0, x1, y0, y1), font)
    _labels(d, plot, block["labelled"], (x0, x1, y0, y1), font, counted)
    for i, g in enumerate(groups if len(groups) > 1 else ()):
        colour, y = colors.HexColor(PALETTE[i % 8]), HEIGHT + 16 - 11 * i
        d.add(makeMarker(MARKERS[i % 8], x=FULL - 70, y=y + 2.5, size=5, fillColor=colour, strokeColor=colour))
        d.add(String(FULL - 62, y, _short(g["name"], 14), fontName=font, fontSize=LABEL, fillColor=INK))
    return d


def _clipped(trend: Sequence[float], x0: float, x1: float, y0: float, y1: float) -> list[tuple[float, float]]:
    """The trend line y = a x + b between the plot's edges (cut where it would leave the plot). The edges are
    told within a billionth of the plot's span, not of 1: on an axis of 1e-100 every point was inside that, and
    the uncut line ran across the page (the plot narrowed to a sliver to keep it in the drawing)."""
    a, b = trend
    xs = [x0, x1] + ([(y - b) / a for y in (y0, y1)] if a else [])
    near_x, near_y = (x1 - x0) * 1e-9, (y1 - y0) * 1e-9
    inside = sorted(x for x in xs if x0 - near_x <= x <= x1 + near_x and y0 - near_y <= a * x + b <= y1 + near_y)
    if len(inside) < 2:  # (no room to draw it: nothing is drawn, at a spot inside the plot; a line nearly upright
        # in it, of slope 5e-85 over a span of 2e-16, met none of its edges within a float's error, and this spot
        # at a x0 + b, 1e15 points below the plot, made the drawing that tall: the report failed, "a bug in pnp")
        spot = (x0, min(max(a * x0 + b, y0), y1))
        return [spot, spot]
    return [(inside[0], a * inside[0] + b), (inside[-1], a * inside[-1] + b)]


def _axis_titles(d: Drawing, plot: LinePlot, block: Block, font: str) -> None:
    """Each axis's field name along it, cut to the plot's width or height (a long one ran off the page)."""
    d.add(String(plot.x + plot.width / 2, 4, cut_to_width(block["x"], font, 8, plot.width), fontName=font,
                 fontSize=8, fillColor=INK, textAnchor="middle"))
    title = Group(String(0, 0, cut_to_width(block["y"], font, 8, plot.height), fontName=font, fontSize=8,
                         fillColor=INK, textAnchor="middle"))
    title.translate(10, plot.y + plot.height / 2)
    title.rotate(90)
    d.add(title)


MAX_COUNTED = 80  # distinct points up to which a point holding several rows has its count written beside it


def _multiples(d: Drawing, plot: LinePlot, groups: list[Block], box: Box, font: str) -> list[Placed]:
    """Rows on the very same spot would look like one: beside a spot holding several rows, the number of each
    group's rows there, in the group's colour, when the plot has few enough spots to read them."""
    x0, x1, y0, y1 = box
    spots: dict[tuple[float, float], list[tuple[int, int]]] = {}  # a spot -> (group, its rows there)
    placed: list[Placed] = []
    for i, g in enumerate(groups):
        for (x, y), n in sorted(Counter(p[:2] for p in g["points"]).items()):
            spots.setdefault((x, y), []).append((i, n))
    if len(spots) > MAX_COUNTED:
        return placed
    for (x, y), shares in sorted(spots.items()):
        if sum(n for _, n in shares) < 2:
            continue
        px = plot.x + (x - x0) / (x1 - x0) * plot.width + 3.5
        py = plot.y + (y - y0) / (y1 - y0) * plot.height - 8
        start = px
        for i, n in shares:
            text = f"×{n}"
            d.add(String(px, py, text, fontName=font, fontSize=LABEL, fillColor=colors.HexColor(PALETTE[i % 8])))
            px += stringWidth(text, font, LABEL) + 2
        placed.append((start, px, py))
    return placed


def _free_line(ty: float, left: float, width: float, placed: Iterable[Placed], step: float) -> float:
    """The first baseline from `ty`, moving by `step`, where a label from `left` this wide meets no other."""
    while any(abs(ty - q) < 8.5 and left < r and lo < left + width for lo, r, q in placed):
        ty += step
    return ty


def _free_spot(plot: LinePlot, px: float, py: float, width: float, placed: list[Placed]) -> tuple[float, float] | None:
    """(left, baseline) of a label `width` wide beside the point (px, py), within the plot's height, clear of what
    is `placed`: below the point, else above it, on its open side, then on the other; None when no such line is
    free. Searched upwards without a bound, a label beside a column of counted spots stacked above the plot,
    onto the chart's heading."""
    low, high = plot.y + 2, plot.y + plot.height + 3  # (baselines: as high as a point on the plot's top edge puts it)
    open_side = px > plot.x + plot.width * 0.6  # (the right part of the plot has its room on the left)
    for on_left in (open_side, not open_side):
        left = px - 4 - width if on_left else px + 4
        if left < plot.x or left + width > plot.x + plot.width:  # (over the axis's numbers, or off the drawing)
            continue
        for step in (-8.5, 8.5):
            ty = _free_line(min(py + 3, high), left, width, placed, step)
            if low <= ty <= high:
                return left, ty
    return None


def _labels(d: Drawing, plot: LinePlot, labelled: Iterable[tuple[float, float, str]], box: Box, font: str,
            placed: Iterable[Placed]) -> None:
    """The rows furthest from their trend, named beside their points, clear of one another and of the counts
    (`placed`: (left, right, baseline) of what is already written)."""
    x0, x1, y0, y1 = box
    placed = list(placed)
    for x, y, name in labelled:
        px = plot.x + (x - x0) / (x1 - x0) * plot.width
        py = plot.y + (y - y0) / (y1 - y0) * plot.height
        text = _short(name, 28)
        width = stringWidth(text, font, LABEL)
        spot = _free_spot(plot, px, py, width, placed)
        if spot is None:  # (no free line beside it in the plot: left unnamed rather than written over the heading)
            continue
        left, ty = spot
        placed.append((left, left + width, ty))
        dx = -4 if left < px else 4
        d.add(Line(px, py, px + dx * 0.75, ty, strokeColor=GREY, strokeWidth=0.4))
        d.add(String(left, ty, text, fontName=font, fontSize=LABEL, fillColor=INK))


GRID_COLUMNS = 12  # a grid's columns per table: 138 mm beside the row names, 11.5 mm or more each
GRID_PAD = 2  # points either side of a grid cell's figure


def grid_tables(block: Block, st: Styles) -> list[Table]:
    """Counts of one field by another: a cell per pair, shaded by its count, the number written in it (or the
    block's `texts`, shaded against its `top`; a cell of None is left blank). A grid of more than GRID_COLUMNS
    columns is printed as several tables of GRID_COLUMNS, each with the row names, so no column is too narrow
    for its text (a field of 41 values gave columns narrower than their padding)."""
    top = block.get("top") or max((max((c for c in r if c is not None), default=0) for r in block["cells"]),
                                  default=0) or 1
    room = _grid_column(min(GRID_COLUMNS, len(block["cols"]))) - 2 * GRID_PAD
    texts = block.get("texts") or [[_cell_figure(c, room, st.body) for c in r] for r in block["cells"]]
    return [_grid_part(block, st, top, texts, start) for start in range(0, max(1, len(block["cols"])), GRID_COLUMNS)]


def _grid_column(columns: int) -> float:
    """A grid's column width, with `columns` of them in one of its tables."""
    return min(20 * mm, (FULL - 32 * mm) / max(1, columns))


def _cell_figure(count: float, room: float, font: str) -> str:
    """A grid cell's figure in `room` points: as it is, else to fewer significant digits (a weighted count of
    1.45e15 was written '1451827454034850', across the cells beside it); never rounded past the largest float
    (-1.7e308 to one digit is '-2e308', read as minus infinity)."""
    texts = [str(count), *(_significant(count, digits) for digits in (4, 3, 2, 1))]
    return next((t for t in texts if stringWidth(t, font, LABEL + 1) <= room), texts[-1])


def _significant(count: float, digits: int) -> str:
    """`count` to `digits` significant digits, its exponent without '+'; rounded toward 0 where rounding to the
    nearest passes the largest float."""
    from decimal import ROUND_DOWN, Decimal, localcontext

    text = f"{count:.{digits}g}"
    if abs(float(text)) == float("inf"):
        with localcontext(rounding=ROUND_DOWN):
            text = f"{Decimal(repr(count)):.{digits - 1}e}"
    return text.replace("e+", "e")


def _grid_part(block: Block, st: Styles, top: float, texts: list[list[str]], start: int) -> Table:
    """The grid's table of columns start .. start + GRID_COLUMNS."""
    part = slice(start, start + GRID_COLUMNS)
    cols = block["cols"][part]
    head = [Paragraph(f"{escape(_short(block['row_name'], 40))} \\ {escape(_short(block['col_name'], 40))}", st.small)]
    rows = [head + [Paragraph(escape(_short(c, 24)), st.small) for c in cols]]
    style: TableStyles = [("FONT", (0, 0), (-1, -1), st.body, LABEL + 1), ("GRID", (0, 0), (-1, -1), 0.3, GREY),
             ("ALIGN", (1, 1), (-1, -1), "CENTER"), ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
             ("LEFTPADDING", (1, 1), (-1, -1), GRID_PAD), ("RIGHTPADDING", (1, 1), (-1, -1), GRID_PAD)]
    for i, (name, cells) in enumerate(zip(block["rows"], block["cells"]), start=1):
        cells = cells[part]
        rows.append([Paragraph(escape(_short(name, 22)), st.small)]
                    + ["" if c is None else t for c, t in zip(cells, texts[i - 1][part])])
        style += _shades(cells, i, top)
    table = Table(rows, colWidths=[32 * mm] + [_grid_column(len(cols))] * len(cols), repeatRows=1, spaceAfter=4)
    table.setStyle(TableStyle(style))
    return table


def _shades(cells: list[float | None], i: int, top: float) -> TableStyles:
    """Table styles shading row `i`'s cells by their share of `top` (white text on the dark ones)."""
    style: TableStyles = []
    for j, c in enumerate(cells, start=1):
        share = min(abs(c or 0) / abs(top), 1.0)  # (a counts view's weights may be negative: a share of -2 was a traceback)
        style.append(("BACKGROUND", (j, i), (j, i), colors.linearlyInterpolatedColor(
            colors.white, colors.HexColor("#0072B2"), 0, 1, share)))
        if share > 0.55:
            style.append(("TEXTCOLOR", (j, i), (j, i), colors.white))
    return style


def rows_table(block: Block, st: Styles) -> Table:
    """A table of figures: the first column names the row, the others are right-aligned; widths in mm."""
    right = ParagraphStyle("right", parent=st.small, alignment=2)
    rows = [[Paragraph(f"<b>{escape(h)}</b>", st.small if i == 0 else right) for i, h in enumerate(block["header"])]]
    rows += [[Paragraph(escape(str(row[0])), st.small)] + [str(c) for c in row[1:]] for row in block["rows"]]
    table = Table(rows, colWidths=[w * mm for w in block["widths"]], repeatRows=1)
    table.setStyle(TableStyle([("FONT", (1, 1), (-1, -1), st.body, LABEL + 0.5), ("ALIGN", (1, 1), (-1, -1), "RIGHT"),
                               ("VALIGN", (0, 0), (-1, -1), "TOP"), ("LINEBELOW", (0, 0), (-1, -1), 0.3, GREY),
                               ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5)]))
    return table


def margins_table(block: Block, st: Styles) -> Table:
    rows = [[Paragraph(f"<b>{h}</b>", st.small) for h in block["header"]]]
    for row in block["rows"]:
        cells = [Paragraph(escape(row[0]), st.small)] + [Paragraph(escape(c), st.small) for c in row[1:4]]
        cells.append(Paragraph(row[4], st.finding if row[4] != "holds" else st.small))
        rows.append(cells)
    table = Table(rows, colWidths=[98 * mm, 20 * mm, 22 * mm, 16 * mm, 14 * mm], repeatRows=1)
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LINEBELOW", (0, 0), (-1, -1), 0.3, GREY),
                               ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2)]))
    return table


# characters of a chart's title, and of its line of text, printed in a half-page column: the column is a table's
# cell, which never splits, and a field named by 3,000 letters made one taller than a page (ReportLab's LayoutError)
IN_COLUMN = 300


def _chart(block: Block, st: Styles, width: float) -> list[Flowable]:
    """A titled chart (or note) as a list of flowables; in a half-page column, its texts cut short."""
    def said(text: str) -> str:
        return escape(text if width >= FULL else shortened(text, IN_COLUMN))
    out: list[Flowable] = [Paragraph(said(block.get("title", "")), st.h3)]
    if block.get("text"):
        out.append(Paragraph(said(block["text"]), st.small))
    if block.get("finding"):
        out.append(Paragraph(said(block["finding"]), st.finding))
    if block["kind"] == "bars" and block["labels"]:
        out.append(bar_drawing(block, st.body, width))
    elif block["kind"] == "scatter":
        out.append(scatter_drawing(block, st.body))
        out += _trend_lines(block, st)
    elif block["kind"] == "grid":
        out.append(Spacer(1, 3))
        out += grid_tables(block, st)
    elif block["kind"] == "intervals" and block["rows"]:
        out.append(intervals_drawing(block, st.body, st.bold, width))
    elif block["kind"] == "rows":
        out.append(Spacer(1, 3))
        out.append(rows_table(block, st))
    return out


def _trend_lines(block: Block, st: Styles) -> list[Flowable]:
    lines: list[str] = []
    for g in block["groups"]:
        if g["trend"]:
            a, b = g["trend"]
            who = f"{g['name']}: " if g["name"] else ""
            lines.append(f"{who}{block['y']} = {a:.3g} x {block['x']} {'+' if b >= 0 else '-'} {abs(b):.3g} "
                         f"({len(g['points'])} rows)")
    return [Paragraph(escape("; ".join(lines)), st.small)] if lines else []


ROW = 11  # points between the rows of an interval chart
FLAGGED = "#D55E00"  # an interval that leaves out the reference: vermillion and a diamond, not only a colour


def _tick_text(value: float, form: str) -> str:
    if form == "%":
        return f"{value:.0%}"
    if form == "+%":
        return f"{value:+.0%}" if value else "0"
    return f"{value:g}"


def _fitted(text: str, font: str, width: float) -> str:
    """`text`, cut with an ellipsis to fit `width` points at the label size."""
    return cut_to_width(text, font, LABEL, width + 0.01)


def intervals_drawing(block: Block, font: str, bold: str, width: float) -> Drawing:
    """A dot per row with its interval as a whisker, in one or more side-by-side panels that share the rows
    (each with its scale, ticks and a dashed reference line); a row's note is written on the right. A dot
    whose interval leaves out its panel's reference is drawn as a vermillion diamond."""
    rows, panels = block["rows"], block["panels"]
    label_w = min(max(stringWidth(r["label"], font, LABEL) for r in rows) + 6, 40 * mm)
    note_w = min(max((stringWidth(r.get("note", ""), font, LABEL) for r in rows), default=0) + 6, 52 * mm)
    gap = 26  # between panels: room for the end ticks' labels of both
    panel_w = (width - label_w - note_w - gap * len(panels)) / len(panels)
    top, bottom = 14, 16
    height = top + ROW * len(rows) + bottom
    d = Drawing(width, height)
    for i in range(0, len(rows), 2):  # every other row shaded, to follow a row across the panels
        d.add(Rect(0, height - top - ROW * (i + 1), width, ROW, fillColor=colors.HexColor("#F2F2F2"),
                   strokeColor=None))
    for i, r in enumerate(rows):
        y = height - top - ROW * (i + 1) + 3.5
        d.add(String(label_w - 4, y, _fitted(r["label"], font, label_w - 6), fontName=font, fontSize=LABEL,
                     fillColor=INK, textAnchor="end"))
        d.add(String(width - note_w + 4, y, _fitted(r.get("note", ""), font, note_w - 6), fontName=font,
                     fontSize=LABEL, fillColor=INK))
    for k, panel in enumerate(panels):
        left = label_w + gap / 2 + k * (panel_w + gap)
        _panel(d, panel, [r["values"][k] for r in rows], (left, panel_w, bottom, height - top), font, bold)
    return d


def _panel(d: Drawing, panel: dict[str, Any], values: list[tuple[float, float, float] | None],
           box: tuple[float, float, float, float], font: str, bold: str) -> None:
    """One panel of an interval chart: title, grid and tick labels, reference line, then each row's interval."""
    left, w, floor, ceiling = box
    lo, hi = panel["min"], panel["max"]

    def x(v: float) -> float:
        return left + (min(max(v, lo), hi) - lo) / ((hi - lo) or 1) * w
    d.add(String(left + w / 2, ceiling + 4, panel["title"], fontName=bold, fontSize=LABEL, fillColor=INK,
                 textAnchor="middle"))
    for t in panel["ticks"]:
        d.add(Line(x(t), floor, x(t), ceiling, strokeColor=colors.HexColor("#DDDDDD"), strokeWidth=0.4))
        d.add(String(x(t), floor - 9, _tick_text(t, panel["format"]), fontName=font, fontSize=LABEL,
                     fillColor=INK, textAnchor="middle"))
    d.add(Line(left, floor, left + w, floor, strokeColor=GREY, strokeWidth=0.5))
    reference = panel.get("reference")
    if reference is not None:
        d.add(Line(x(reference), floor, x(reference), ceiling, strokeColor=GREY, strokeWidth=0.8,
                   strokeDashArray=(3, 2)))
    for i, v in enumerate(values):
        if v is None:
            continue
        value, low, high = v
        y = ceiling - ROW * (i + 1) + ROW / 2
        d.add(Line(x(low), y, x(high), y, strokeColor=INK, strokeWidth=0.8))
        for end in (low, high):
            d.add(Line(x(end), y - 2, x(end), y + 2, strokeColor=INK, strokeWidth=0.8))
        flagged = reference is not None and (low > reference or high < reference)
        colour = colors.HexColor(FLAGGED if flagged else PALETTE[0])
        d.add(makeMarker("FilledDiamond" if flagged else "FilledCircle", x=x(value), y=y, size=5 if flagged else 4.5,
                         fillColor=colour, strokeColor=colour))


def flowables(blocks: Iterable[Block], st: Styles) -> list[Flowable]:
    """The report's blocks as Platypus flowables; small charts two to a row."""
    out: list[Flowable] = []
    pending: list[Block] = []

    def flush() -> None:
        if pending:
            cells = [_chart(b, st, HALF) for b in pending] + ([[]] if len(pending) == 1 else [])
            table = Table([cells], colWidths=[FULL / 2] * 2)
            table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                       ("BOTTOMPADDING", (0, 0), (-1, -1), 8)]))
            out.append(table)
            pending.clear()
    for block in blocks:
        kind = block["kind"]
        if kind in ("bars", "note") and not block.get("wide"):
            pending.append(block)
            if len(pending) == 2:
                flush()
            continue
        flush()
        if kind in ("h1", "h2", "h3", "p", "finding"):
            out.append(Paragraph(escape(block["text"]), getattr(st, kind)))
        elif kind == "table":
            out += [margins_table(block, st), Spacer(1, 8)]
        else:
            out.append(KeepTogether(_headings(out) + _chart(block, st, FULL) + [Spacer(1, 8)]))
    flush()
    return out


def _headings(out: list[Flowable]) -> list[Flowable]:
    """The headings just before a chart, taken off `out` to be kept with it: ReportLab keeps a heading with
    the next flowable, but not with a KeepTogether (a heading was left alone at the foot of a page)."""
    taken: list[Flowable] = []
    while out and isinstance(out[-1], Paragraph) and out[-1].getKeepWithNext():
        taken.insert(0, out.pop())
    return taken


# Characters pnp draws in the report besides the blocks' texts: a spot's count (×3), a label cut short (…)
DRAWN_BESIDE = "×…"


def unmapped_characters(blocks: Iterable[Block], fonts: FontSet, title: str) -> dict[str, str]:
    """Each character the report prints that a font it is set in has no glyph for (FontSet.unmapped: it would
    print blank), with that font's family, in the order printed: a level 1 heading is set in Display's bold
    (Styles.h1), any other text in Body's regular and bold, as is the footer's title."""
    printed: dict[str, dict[str, None]] = {"Display": {}, "Body": dict.fromkeys(DRAWN_BESIDE + title)}
    for block in blocks:
        into = printed["Display" if block["kind"] == "h1" else "Body"]
        for text in _texts(block):
            into.update(dict.fromkeys(text))
    missing: dict[str, str] = {}
    for family, chars in printed.items():
        text = "".join(ch for ch in chars if ch not in LINE_SPACES + SOFT_HYPHEN)  # (never printed so: see _spaced)
        if fonts.maps_all(text, family):  # (nearly always: one set test)
            continue
        for bold in (True,) if family == "Display" else (False, True):
            for ch in text:
                if ch not in missing and fonts.unmapped(ch, family, bold) is not None:
                    missing[ch] = family
    return missing


LINE_SPACES = "\t\n\r"  # what write_report prints as a space: a Paragraph does, a chart's String drew the font's box


def _spaced(value: Any) -> Any:
    """A block (or any part of it) with each tab and line break of its texts a space, as a paragraph prints
    them: a chart's label, an axis title or the footer drew them as the font's missing-character box; and
    without soft hyphens, markers pnp never prints (text.SOFT_HYPHEN): they drew a hyphen there."""
    if isinstance(value, str):
        return value.translate(_AS_SPACE)
    if isinstance(value, dict):
        return {key: _spaced(part) for key, part in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_spaced(part) for part in value)
    return value


_AS_SPACE = str.maketrans({**dict.fromkeys(LINE_SPACES, " "), SOFT_HYPHEN: None})


def _texts(value: object) -> Iterable[str]:
    """Every text a block holds (its kind aside), however deep in its lists and mappings."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, part in value.items():
            if key != "kind":
                yield from _texts(part)
    elif isinstance(value, (list, tuple)):
        for part in value:
            yield from _texts(part)


def write_report(path: Path | IO[bytes], blocks: Iterable[Block], fonts: FontSet, title: str) -> None:
    """Write the blocks as an A4 PDF (page numbers in the footer) at `path`, or into it when it is a binary
    file such as io.BytesIO (the preview serves the report from memory)."""
    st = Styles(fonts)
    blocks, title = [_spaced(block) for block in blocks], _spaced(title)

    def footer(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        canvas.setFont(st.body, 7.5)
        canvas.setFillColor(GREY)
        number = f"page {doc.page}"
        # a long title is cut to the room left of the page number (it ran over it and off the page): a game
        # without a rulebook has no other cap on its title's length
        room = A4[0] - 40 * mm - stringWidth(f"{number}  : design report", st.body, 7.5)
        canvas.drawString(20 * mm, 10 * mm, f"{cut_to_width(title, st.body, 7.5, room)}: design report")
        canvas.drawRightString(A4[0] - 20 * mm, 10 * mm, number)
    doc = SimpleDocTemplate(path if hasattr(path, "write") else str(path), pagesize=A4, leftMargin=20 * mm, rightMargin=20 * mm, topMargin=16 * mm,
                            bottomMargin=18 * mm, title=f"{title}: design report", author="pnp", invariant=1,
                            creator=PDF_CREATOR,  # the mark that tells pnp's own report from a user's file

                            initialFontName=st.body)
    doc.build(flowables(blocks, st), onFirstPage=footer, onLaterPages=footer)
