"""The synthetic deck of benchmarks/run.py: a game of N poker cards, and its raw ReportLab twin drawing the
same cards (the speed pnp aims at). Run benchmarks/run.py for the figures."""

import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

GAME = """title: Bench
players: 2
ages: 8+
time: 1 minute
credits: {design: bench}
icons: {gem: cut-diamond}
tables:
  cards:
    fields: {id: {type: id}, name: {type: str}, power: {type: int}, text: {type: text}, next: {type: ref, table: cards}}
components:
  - {id: deck, name: Cards, kind: deck, items: cards, layout: card, back: back}
"""
CARD = """size: poker
elements:
  - {type: rect, x: 0, y: 0, w: 63, h: 88, bleed: true, fill: "#f4efe1"}
  - {type: rect, x: 3, y: 3, w: 57, h: 82, radius: 3, stroke: "#333333", stroke_width: 0.8}
  - {type: text, x: 5, y: 5, w: 53, h: 9, text: "{{ card.name }}", font: Display, size: 14, min_size: 9}
  - {type: icons, icon: gem, count: "{{ card.power }}", x: 5, y: 16, size: 5}
  - {type: text, x: 6, y: 55, w: 51, h: 26, text: "{{ card.text }}", size: 9, min_size: 6.5}
"""
BACK = """size: poker
elements:
  - {type: rect, x: 0, y: 0, w: 63, h: 88, bleed: true, fill: "#234d33"}
  - {type: icon, icon: gem, x: 16, y: 29, w: 31, h: 31, color: "#e8d98a"}
"""
TEXT = "Gain 2 :gem: then **draw a card**. If you have *three* or more, gain 1 more :gem: at the end of the round."
# The raw twin's text: the same words as plain text (Paragraph's own markup would add its XML parser's cost)
RAW_TEXT = TEXT.replace("**", "").replace("*", "").replace(":gem:", "gem")


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def make_project(root, n):
    (root / "cards/bench").mkdir(parents=True)
    (root / "layouts/bench").mkdir(parents=True)
    for rel in ("layouts/shared",):  # pnp reads only files inside the project: link or copy them in (fonts come with pnp)
        shutil.copytree(REPO / rel, root / rel, copy_function=_link_or_copy)
    (root / "cards/bench/game.yaml").write_text(GAME)
    # each card names the next (a ref field checked on every card: a table looked through for each was quadratic)
    rows = [f"- {{id: card-{i}, name: Card number {i}, power: {1 + i % 5}, text: \"{TEXT}\", next: card-{(i + 1) % n}}}"
            for i in range(n)]
    (root / "cards/bench/cards.yaml").write_text("\n".join(rows) + "\n")
    (root / "layouts/bench/card.yaml").write_text(CARD)
    (root / "layouts/bench/back.yaml").write_text(BACK)


def bench_raw(n, fonts, out):
    """The same cards drawn directly into the PDF file `out`: background, frame, name, icon row, wrapped text
    with two icons in it, then the backs (one form), 3x3 on A4 with crop marks. Unlike pnp it reads no data,
    checks nothing and fits no text (it wraps each card's text once, at the size that fits)."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Paragraph

    from pnp.draw.icons import draw_icon
    from pnp.units import MM

    icon = REPO / "layouts/shared/icons/cut-diamond.svg"
    style = ParagraphStyle("t", fontName=fonts.name("Body"), fontSize=9, leading=10.8)
    def crop_marks(c):
        """Short lines outside the 3x3 block on each cut line, as any imposed sheet has."""
        c.setStrokeColor(colors.black)
        c.setLineWidth(0.25)
        for i in range(4):
            x, y = (10.5 + 63 * i) * MM, (16.5 + 88 * i) * MM
            for y0 in (16.5 * MM - 8 * MM, 280.5 * MM + 3 * MM):
                c.line(x, y0, x, y0 + 5 * MM)
            for x0 in (10.5 * MM - 8 * MM, 199.5 * MM + 3 * MM):
                c.line(x0, y, x0 + 5 * MM, y)

    t0 = time.perf_counter()
    c = Canvas(str(out), pagesize=(210 * MM, 297 * MM), invariant=1, initialFontName=fonts.name("Body"))
    for page in range(0, n, 9):
        for k in range(min(9, n - page)):
            x, y = 10.5 * MM + (k % 3) * 63 * MM, 16.5 * MM + (2 - k // 3) * 88 * MM
            c.setFillColor(colors.HexColor("#f4efe1"))
            c.rect(x, y, 63 * MM, 88 * MM, stroke=0, fill=1)
            c.setStrokeColor(colors.HexColor("#333333"))
            c.roundRect(x + 3 * MM, y + 3 * MM, 57 * MM, 82 * MM, 3 * MM, stroke=1, fill=0)
            c.setFillColor(colors.black)
            c.setFont(fonts.name("Display"), 14)
            c.drawString(x + 5 * MM, y + 76 * MM, f"Card number {page + k}")
            for j in range(1 + (page + k) % 5):
                draw_icon(c, icon, x + (5 + 6 * j) * MM, y + 67 * MM, 5 * MM, 5 * MM, colors.black)
            p = Paragraph(RAW_TEXT, style)
            p.wrapOn(c, 51 * MM, 26 * MM)
            p.drawOn(c, x + 6 * MM, y + 7 * MM)
            for ix, iy in ((12, 29), (30, 21)):  # the two inline icons, where the text leaves room for them
                draw_icon(c, icon, x + ix * MM, y + iy * MM, 3.5 * MM, 3.5 * MM, colors.black)
        crop_marks(c)
        c.showPage()
        for k in range(min(9, n - page)):
            x, y = 10.5 * MM + (2 - k % 3) * 63 * MM, 16.5 * MM + (2 - k // 3) * 88 * MM
            if page == 0 and k == 0:
                c.beginForm("back", 0, 0, 63 * MM, 88 * MM)
                c.setFillColor(colors.HexColor("#234d33"))
                c.rect(0, 0, 63 * MM, 88 * MM, stroke=0, fill=1)
                draw_icon(c, icon, 16 * MM, 28 * MM, 31 * MM, 31 * MM, colors.HexColor("#e8d98a"))
                c.endForm()
            c.saveState()
            c.translate(x, y)
            c.doForm("back")
            c.restoreState()
        crop_marks(c)
        c.showPage()
    c.save()
    return time.perf_counter() - t0
