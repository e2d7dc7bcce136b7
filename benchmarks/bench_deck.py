"""Benchmark: pnp building a 1000-card poker deck vs raw ReportLab drawing the same cards.

Run: python3 benchmarks/bench_deck.py [--cards 1000]. Prints seconds for each and the ratio; asserts nothing.
"""

import argparse
import io
import os
import shutil
import sys
import tempfile
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
    fields: {id: {type: id}, name: {type: str}, power: {type: int}, text: {type: text}}
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


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def make_project(root, n):
    (root / "cards/bench").mkdir(parents=True)
    (root / "layouts/bench").mkdir(parents=True)
    for rel in ("fonts", "layouts/shared"):  # pnp reads only files inside the project: link or copy them in
        shutil.copytree(REPO / rel, root / rel, copy_function=_link_or_copy)
    (root / "cards/bench/game.yaml").write_text(GAME)
    rows = [f"- {{id: card-{i}, name: Card number {i}, power: {1 + i % 5}, text: \"{TEXT}\"}}" for i in range(n)]
    (root / "cards/bench/cards.yaml").write_text("\n".join(rows) + "\n")
    (root / "layouts/bench/card.yaml").write_text(CARD)
    (root / "layouts/bench/back.yaml").write_text(BACK)


def bench_pnp(root):
    from pnp.build import render_game, validate as validate_game
    from pnp.project import find
    from pnp.report import Report

    project = find(root)
    t0 = time.perf_counter()
    game, studio = validate_game(project, "bench", Report())
    t1 = time.perf_counter()
    result = render_game(game, studio)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, result.pages


def bench_raw(n, fonts):
    """The same cards drawn directly: background, frame, name, icon row, wrapped text; backs once as a form."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Paragraph

    from pnp.draw.icons import draw_icon
    from pnp.units import MM

    icon = REPO / "layouts/shared/icons/cut-diamond.svg"
    style = ParagraphStyle("t", fontName=fonts.name("Body"), fontSize=9, leading=10.8)
    t0 = time.perf_counter()
    for _ in range(2):  # pnp writes each page twice: the per-kind PDF and the all-in-one PDF
        c = Canvas(io.BytesIO(), pagesize=(210 * MM, 297 * MM), invariant=1, initialFontName=fonts.name("Body"))
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
                p = Paragraph(TEXT.replace(":gem:", "gem"), style)
                p.wrapOn(c, 51 * MM, 26 * MM)
                p.drawOn(c, x + 6 * MM, y + 7 * MM)
            c.showPage()
            for k in range(min(9, n - page)):
                x, y = 10.5 * MM + (2 - k % 3) * 63 * MM, 16.5 * MM + (2 - k // 3) * 88 * MM
                c.setFillColor(colors.HexColor("#234d33"))
                c.rect(x, y, 63 * MM, 88 * MM, stroke=0, fill=1)
            c.showPage()
        c.save()
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=1000)
    args = parser.parse_args()
    from pnp.draw.fonts import load_fonts
    from pnp.project import find

    tmp = Path(tempfile.mkdtemp())
    try:
        make_project(tmp / "proj", args.cards)
        check, draw, pages = bench_pnp(tmp / "proj")
        raw = bench_raw(args.cards, load_fonts(find(tmp / "proj")))
    finally:
        shutil.rmtree(tmp)
    print(f"{args.cards} cards, {sum(pages.values())} pages written")
    print(f"pnp validate (data + every layout, text fit): {check:6.2f} s")
    print(f"pnp render (per-kind + all-in-one PDFs):     {draw:6.2f} s")
    print(f"raw ReportLab, same pages twice:             {raw:6.2f} s")
    print(f"ratio render / raw: {draw / raw:.2f}x; validate + render / raw: {(check + draw) / raw:.2f}x")


if __name__ == "__main__":
    main()
