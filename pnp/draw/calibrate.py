"""The duplex calibration sheet: scales on the front, a cross on the back. Printed double-sided and held to
the light, it shows how far this printer puts the back of a page from where it should be; `pnp build
--duplex-offset X,Y` then moves every back page to make up for it."""

import io

from reportlab.lib import colors

from .. import PDF_CREATOR

from ..units import MM
from .fonts import FontSet
from .canvas import Canvas, new_canvas

SCALE = 15  # mm each way from the centre
STEPS = (
    "Print both pages on one sheet: double-sided, flip on the long edge, at 100 % (actual size).",
    "Hold the sheet against a window or a lamp: the cross printed on the back shows through.",
    "Read where the back's upright line meets the scale across (X), and where its level line meets the "
    "scale up and down (Y). Right and up count as plus, left and down as minus.",
    "Build with pnp build --duplex-offset X,Y (for example --duplex-offset 0.5,-1). A printer that is spot "
    "on reads 0,0 and needs nothing.",
)


def calibration_sheet(paper: tuple[float, float], fonts: FontSet, title: str) -> bytes:
    """The two pages as PDF bytes."""
    buf = io.BytesIO()
    c = new_canvas(buf, fonts.name("Body"), paper)
    c.setTitle(title)
    c.setCreator(PDF_CREATOR)  # the mark that tells pnp's own sheet from a user's file of its name
    pw, ph = paper
    cx, cy = pw / 2, ph / 2
    c.setFont(fonts.name("Display"), 18)
    c.drawString(20 * MM, ph - 25 * MM, title)
    c.setFont(fonts.name("Body"), 10)
    y = ph - 35 * MM
    for n, step in enumerate(STEPS, 1):
        for k, line in enumerate(_wrap(step, 95)):
            c.drawString(20 * MM, y, f"{n}.  {line}" if k == 0 else f"     {line}")
            y -= 5 * MM
        y -= 1.5 * MM
    _scales(c, fonts, cx, cy)
    c.setFont(fonts.name("Body"), 8)
    c.drawCentredString(cx, 20 * MM, "front · the back's cross should fall on the 0 of both scales")
    c.showPage()
    c.setStrokeColor(colors.black)
    c.setLineWidth(0.3)
    c.line(cx - 60 * MM, cy, cx + 60 * MM, cy)  # the back's cross, through the centre of the page
    c.line(cx, cy - 60 * MM, cx, cy + 60 * MM)
    c.setFont(fonts.name("Body"), 8)
    c.drawCentredString(cx, 20 * MM, "back")
    c.showPage()
    c.save()
    return buf.getvalue()


def _scales(c: Canvas, fonts: FontSet, cx: float, cy: float) -> None:
    """Two millimetre scales meeting at the page centre, X along a line across (ticks below it, numbers
    above) and Y along a line up (ticks right of it, numbers left): a tick every 0.5 mm, a longer one every
    mm, numbered every 5 mm."""
    c.setStrokeColor(colors.black)
    c.setFont(fonts.name("Body"), 6.5)
    for half in range(-2 * SCALE, 2 * SCALE + 1):
        mm = half / 2
        tick = 4 * MM if half % 10 == 0 else 2.5 * MM if half % 2 == 0 else 1.2 * MM
        c.setLineWidth(0.25)
        c.line(cx + mm * MM, cy, cx + mm * MM, cy - tick)  # X: ticks hang below the line
        c.line(cx, cy + mm * MM, cx + tick, cy + mm * MM)  # Y: ticks stand right of the line
        if half % 10 == 0 and half:
            label = f"{mm:+g}"
            c.drawCentredString(cx + mm * MM, cy + 1.2 * MM, label)
            c.drawRightString(cx - 1 * MM, cy + mm * MM - 0.8 * MM, label)
    c.setLineWidth(0.3)
    c.line(cx - SCALE * MM, cy, cx + SCALE * MM, cy)
    c.line(cx, cy - SCALE * MM, cx, cy + SCALE * MM)
    c.setFont(fonts.name("Body", bold=True), 8)
    c.drawString(cx + SCALE * MM + 2 * MM, cy - 1 * MM, "X")
    c.drawString(cx - 1 * MM, cy + SCALE * MM + 2 * MM, "Y")


def _wrap(text: str, width: float) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + [line]
