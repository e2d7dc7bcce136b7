"""Rulebooks: layouts/<game>/rulebook.md.j2 (Jinja, then Markdown) laid out with Platypus on any canvas."""

import re
import sys

from markdown_it import MarkdownIt
from reportlab.lib import colors
from reportlab.platypus.doctemplate import ActionFlowable
from reportlab.platypus import Frame, KeepTogether, Spacer, Table, TableStyle

from ..draw import text as rtext
from ..draw.flowables import Heading, Picture, RichText
from ..template import ENV
from ..units import MM

MARGIN = 18 * MM
INK = "#222222"
ACCENT = "#2f5d50"
TIP = colors.HexColor("#eef3ea")


class RulebookError(ValueError):
    def __init__(self, message, line=None):
        super().__init__(message)
        self.message, self.line = message, line


def template_path(game):
    return game.layout_folder / "rulebook.md.j2"


def render_markdown(game):
    """The rulebook's Markdown after Jinja; errors carry the template line."""
    path = template_path(game)
    source = path.read_text(encoding="utf-8")
    try:
        template = ENV.from_string(source)
        return template.render(game.context())
    except Exception as e:  # a template error must name its line, never dump a traceback
        line = getattr(e, "lineno", None)
        tb = sys.exc_info()[2]
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<template>":
                line = tb.tb_lineno
            tb = tb.tb_next
        raise RulebookError(f"rulebook template: {type(e).__name__}: {e}", line) from None


def _inline(children):
    """markdown-it inline tokens -> pnp markup, plus any images found."""
    out, images = [], []
    for t in children or []:
        if t.type == "text":
            out.append(t.content.replace("*", "\\*"))
        elif t.type in ("strong_open", "strong_close"):
            out.append("**")
        elif t.type in ("em_open", "em_close"):
            out.append("*")
        elif t.type == "softbreak":
            out.append(" ")
        elif t.type == "hardbreak":
            out.append("\n")
        elif t.type == "code_inline":
            out.append(t.content)
        elif t.type == "image":
            images.append((t.attrGet("src") or "", "".join(c.content for c in t.children or []),
                           t.attrGet("title") or ""))
        elif t.type in ("link_open", "link_close"):
            continue
        else:
            out.append(t.content)
    text = re.sub(r"[ ]{2,}", " ", "".join(out)).strip()
    return text, images


def _table(rows, commands, fonts, **kw):
    """A Platypus Table whose cell font is ours: Table sets its default (Helvetica) even for flowable cells,
    which would put an unembedded base-14 font into the PDF."""
    table = Table(rows, **kw)
    table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), fonts.name("Body"), 9)] + list(commands)))
    return table


class Rulebook:
    """Builds the flowables of one game's rulebook; `draw(canvas)` lays them out page by page."""

    def __init__(self, studio):
        self.studio, self.game = studio, studio.game
        self.fonts = studio.fonts
        if studio.rulebook_markdown is None:  # validation has usually rendered it already
            studio.rulebook_markdown = render_markdown(self.game)
        self.markdown = studio.rulebook_markdown

    # -- text helpers --------------------------------------------------------
    def _icon(self, canvas, name, x, y, w, h, col):
        self.studio.painter(canvas).icon(canvas, name, x, y, w, h, col)

    def para(self, markup, **kw):
        style = dict(fonts=self.fonts, draw_icon=self._icon, color=INK)
        style.update(kw)
        return RichText(markup, **style)

    # -- markdown -> flowables -------------------------------------------------
    def story(self, registry):
        md = MarkdownIt("commonmark").enable("table")
        tokens = md.parse(self.markdown)
        flow, i = [], 0
        list_stack = []
        while i < len(tokens):
            t = tokens[i]
            if t.type == "heading_open":
                level = int(t.tag[1])
                text, _ = _inline(tokens[i + 1].children)
                size = {1: 20, 2: 14, 3: 11.5}[min(level, 3)]
                flow.append(Heading(text, level, registry, fonts=self.fonts, draw_icon=self._icon,
                                    family="Display", size=size, leading=1.2,
                                    color=ACCENT if level < 3 else INK,
                                    space_before={1: 14, 2: 10, 3: 6}[min(level, 3)], space_after=4))
                i += 3
                continue
            if t.type == "paragraph_open":
                text, images = _inline(tokens[i + 1].children)
                if images:
                    flow.append(self.pictures(images))
                if text:
                    indent = 4 * MM * len(list_stack)
                    flow.append(self.para(text, indent=0, space_after=5 if not list_stack else 2)
                                if not list_stack else self._list_item(text, list_stack, tokens, i))
                i += 3
                continue
            if t.type in ("bullet_list_open", "ordered_list_open"):
                list_stack.append([t.type.startswith("ordered"), int(t.attrGet("start") or 1)])
            elif t.type in ("bullet_list_close", "ordered_list_close"):
                list_stack.pop()
                if not list_stack:
                    flow.append(Spacer(1, 3))
            elif t.type == "list_item_close" and list_stack:
                list_stack[-1][1] += 1
            elif t.type == "table_open":
                end = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
                flow.append(self.table(tokens[i:end]))
                i = end + 1
                continue
            elif t.type == "blockquote_open":
                end, depth = i, 0
                for j in range(i, len(tokens)):
                    depth += {"blockquote_open": 1, "blockquote_close": -1}.get(tokens[j].type, 0)
                    if depth == 0:
                        end = j
                        break
                flow.append(self.tip(tokens[i + 1:end]))
                i = end + 1
                continue
            elif t.type == "hr":
                flow.append(Spacer(1, 8))
            i += 1
        return _keep_headings_with_next(flow)

    def _list_item(self, text, stack, tokens, i):
        ordered, number = stack[-1]
        depth = len(stack)
        first = tokens[i - 1].type == "list_item_open"
        bullet = (f"{number}." if ordered else "•") if first else ""
        item = self.para(text, indent=0, space_after=2.5)
        label = self.para(bullet, space_after=0, align="right", color=ACCENT)
        table = _table([[label, item]], colWidths=[6 * MM * depth, None], fonts=self.fonts, commands=[("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (0, 0), 2 * MM), ("RIGHTPADDING", (1, 0), (1, 0), 0),
                                   ("TOPPADDING", (0, 0), (-1, -1), 0), ("BOTTOMPADDING", (0, 0), (-1, -1), 1)])
        return table

    def table(self, tokens):
        rows, row, header_rows = [], None, 0
        in_head = False
        for t in tokens:
            if t.type == "thead_open":
                in_head = True
            elif t.type == "thead_close":
                in_head = False
            elif t.type == "tr_open":
                row = []
            elif t.type == "tr_close":
                rows.append(row)
                header_rows += in_head
            elif t.type == "inline" and row is not None:
                text, _ = _inline(t.children)
                row.append(self.para(f"**{text}**" if in_head else text, size=9, space_after=0, leading=1.25))
        table = _table(rows, repeatRows=header_rows, hAlign="LEFT", colWidths=self._column_widths(rows), fonts=self.fonts, commands=[
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.Color(0.7, 0.7, 0.7)),
            ("BACKGROUND", (0, 0), (-1, header_rows - 1), colors.HexColor("#dfe8e2")) if header_rows else
            ("BACKGROUND", (0, 0), (0, 0), colors.white),
            ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ])
        return KeepTogether([Spacer(1, 3), table, Spacer(1, 6)]) if len(rows) < 14 else table

    def _column_widths(self, rows, padding=12):
        """Narrow columns keep their natural width; the rest of the text width goes to the wide ones."""
        avail = self.studio.paper[0] - 2 * MARGIN
        ncols = max(len(r) for r in rows)
        natural = [0.0] * ncols
        for r in rows:
            for k, cell in enumerate(r):
                lines, _ = rtext.layout(rtext.parse(cell.markup), self.fonts, cell.family, cell.size, 1e6)
                natural[k] = max(natural[k], max(line.width for line in lines) + padding)
        if sum(natural) <= avail:
            return natural
        fair = avail / ncols
        narrow = [w for w in natural if w <= fair]
        wide = [k for k, w in enumerate(natural) if w > fair]
        spare = avail - sum(narrow)
        total_wide = sum(natural[k] for k in wide)
        return [natural[k] if natural[k] <= fair else spare * natural[k] / total_wide for k in range(ncols)]

    def tip(self, tokens):
        inner = []
        for k, t in enumerate(tokens):
            if t.type == "inline":
                text, _ = _inline(t.children)
                inner.append(self.para(text, size=9.5, space_after=3))
        box = _table([[inner]], hAlign="LEFT", fonts=self.fonts, commands=[("BACKGROUND", (0, 0), (-1, -1), TIP),
                                 ("LINEBEFORE", (0, 0), (0, -1), 2, colors.HexColor(ACCENT)),
                                 ("LEFTPADDING", (0, 0), (-1, -1), 4 * MM), ("RIGHTPADDING", (0, 0), (-1, -1), 4 * MM),
                                 ("TOPPADDING", (0, 0), (-1, -1), 3 * MM), ("BOTTOMPADDING", (0, 0), (-1, -1), 2 * MM)])
        return KeepTogether([Spacer(1, 2), box, Spacer(1, 6)])

    def pictures(self, images):
        cells = [self.picture(src, caption, title) for src, caption, title in images]
        if len(cells) == 1:
            return cells[0]
        table = _table([cells], fonts=self.fonts, commands=[("VALIGN", (0, 0), (-1, -1), "BOTTOM")])
        return table

    def picture(self, src, caption, title):
        component, item, layout_name = resolve_picture(self.game, self.studio, src)
        layout = self.studio.layouts.get(layout_name)
        # a component is shown at card size; a diagram (layout:) at its own size, up to the text width
        width = 48 * MM if component is not None else min(layout.width, self.studio.paper[0] - 2 * MARGIN)
        if title.strip():
            from ..units import length
            width = length(title.strip())

        def draw(canvas, name=layout_name, it=item):
            self.studio.draw_item(canvas, name, it, 0, 0, clip_bleed=0)

        cap = self.para(f"*{caption}*", size=8.5, align="center", space_after=0) if caption else None
        return Picture(draw, (layout.width, layout.height), width, caption, cap)

    # -- pages ------------------------------------------------------------------
    def title_page(self):
        meta = self.game.meta
        facts = " · ".join(str(x) for x in (f"{meta.get('players')} players", f"ages {meta.get('ages')}",
                                             meta.get("time")) if x)
        flow = [Spacer(1, 40 * MM),
                self.para(self.game.title, family="Display", size=34, leading=1.1, align="center",
                          color=ACCENT, space_after=6)]
        if meta.get("subtitle"):
            flow.append(self.para(f"*{meta['subtitle']}*", size=14, align="center", space_after=10))
        flow.append(self.para(facts, size=12, align="center", space_after=18))
        for role, who in (meta.get("credits") or {}).items():
            flow.append(self.para(f"**{str(role).replace('_', ' ').capitalize()}:** {who}", size=10,
                                  align="center", space_after=3))
        flow.append(Spacer(1, 12 * MM))
        flow.append(self.para("A print-and-play edition made with pnp. Rules and card text written for this "
                              "edition; see Credits at the end.", size=8.5, align="center", color="#666666"))
        return flow

    def toc(self, entries):
        flow = [self.para("Contents", family="Display", size=20, color=ACCENT, space_after=8)]
        for level, text, page in entries:
            if level > 2:
                continue
            row = _table([[self.para(("**" + text + "**") if level == 1 else text, size=10.5 if level == 1 else 9.5,
                                    space_after=0, indent=0 if level == 1 else 5 * MM),
                          self.para(str(page), size=10, align="right", space_after=0)]],
                        colWidths=[None, 14 * MM], fonts=self.fonts, commands=[("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                                     ("TOPPADDING", (0, 0), (-1, -1), 1.5 if level == 1 else 0.5),
                                     ("BOTTOMPADDING", (0, 0), (-1, -1), 0.5)])
            flow.append(row)
        return flow

    def credits(self, registry):
        meta = self.game.meta
        flow = [Heading("Credits", 1, registry, fonts=self.fonts, draw_icon=self._icon, family="Display",
                        size=20, color=ACCENT, space_before=14, space_after=4)]
        for role, who in (meta.get("credits") or {}).items():
            flow.append(self.para(f"**{str(role).replace('_', ' ').capitalize()}:** {who}", space_after=3))
        fonts = ", ".join(f"{name} ({lic.split('/')[0]}, SIL Open Font License)"
                          for name, lic in self.fonts.licences.values())
        flow.append(self.para(f"**Fonts:** {fonts}.", space_after=3))
        used = sorted(icons_used(self.game, self.studio))
        flow.append(self.para(
            "**Icons:** from game-icons.net by Lorc, Delapouite and the other game-icons.net contributors, "
            "licensed under CC BY 3.0 (creativecommons.org/licenses/by/3.0). Icons used in this game: "
            + ", ".join(used) + ".", space_after=3))
        return flow

    def draw(self, canvas):
        """Lay the rulebook out until the table of contents' page numbers settle; returns the page count."""
        entries = []
        for _ in range(4):
            registry = []
            pages = self._layout_pass(canvas, entries, registry, dry=True)
            if registry == entries:
                break
            entries = registry
        registry = []
        pages = self._layout_pass(canvas, entries, registry, dry=False)
        return pages

    def _layout_pass(self, canvas, entries, registry, dry):
        from reportlab.pdfgen.canvas import Canvas
        import io

        target = Canvas(io.BytesIO(), pagesize=self.studio.paper, invariant=1,
                        initialFontName=self.fonts.name("Body")) if dry else canvas
        first_page = target.getPageNumber()
        parts = [self.title_page(), self.toc(entries or [(1, "…", 0)]), self.story(registry) + self.credits(registry)]
        pw, ph = self.studio.paper
        page = 0
        for part in parts:
            flow = list(part)
            while flow:
                page += 1
                frame = Frame(MARGIN, MARGIN, pw - 2 * MARGIN, ph - 2 * MARGIN - 4 * MM, leftPadding=0,
                              rightPadding=0, topPadding=0, bottomPadding=0, showBoundary=0)
                _fill(frame, flow, target)
                if page > 1:
                    self._furniture(target, page)
                target.showPage()
        if first_page != 1:
            registry[:] = [(lv, tx, pg - first_page + 1) for lv, tx, pg in registry]
        return page

    def _furniture(self, canvas, page):
        pw, _ = self.studio.paper
        canvas.saveState()
        canvas.setFont(self.fonts.name("Body"), 8)
        canvas.setFillColor(colors.Color(0.4, 0.4, 0.4))
        canvas.drawCentredString(pw / 2, 10 * MM, f"{self.game.title} · {page}")
        canvas.restoreState()


def _keep_headings_with_next(flow):
    """A heading never ends a page: it travels with the block that follows it (and a run of headings
    with the first block after them)."""
    out, pending = [], []
    for f in flow:
        if isinstance(f, Heading):
            pending.append(f)
            continue
        if pending:
            out.append(KeepTogether(pending + [f]))
            pending = []
        else:
            out.append(f)
    return out + pending


def _fill(frame, flow, canvas):
    """Add flowables to the frame, splitting the one that does not fit; stops when the frame is full."""
    placed = 0
    while flow:
        head = flow[0]
        if isinstance(head, ActionFlowable):  # a frame or page break from KeepTogether: start a new page
            del flow[0]
            if placed:
                return
            continue
        if frame.add(head, canvas, trySplit=0):
            del flow[0]
            placed += 1
            continue
        parts = frame.split(head, canvas)
        if parts and not (len(parts) == 1 and parts[0] is head):
            flow[0:1] = parts
            if isinstance(parts[0], ActionFlowable):
                continue
            if frame.add(flow[0], canvas, trySplit=0):
                del flow[0]
                placed += 1
                continue
        if placed == 0:  # nothing fits on an empty page: never loop forever
            raise RulebookError(f"a block of the rulebook is too large for a page: {type(head).__name__}")
        return


def resolve_picture(game, studio, src):
    """'component:ID[/ITEM]' or 'layout:NAME[/TABLE/ITEM]' -> (component, item, layout name);
    ValueError with a clear message otherwise."""
    if src.startswith("layout:"):
        name, _, rest = src[len("layout:"):].partition("/")
        table, _, item_id = rest.partition("/")
        item = None
        if table:
            item = game.context()["ref"].get(table, {}).get(item_id)
            if item is None:
                raise ValueError(f"picture '{src}': no item '{item_id}' in table '{table}'")
        studio.layouts.get(name)  # raises LayoutError if missing
        return None, item, name
    if not src.startswith("component:"):
        raise ValueError(f"picture '{src}': use component:<id>[/<item id>] or layout:<name>[/<table>/<item id>]")
    ref = src[len("component:"):]
    cid, _, item_id = ref.partition("/")
    component = game.component(cid)
    if component is None:
        raise ValueError(f"picture '{src}': no component '{cid}'")
    items = component.items or [None]
    item = items[0]
    if item_id:
        item = next((it for it in component.items if it.get("id") == item_id), None)
        if item is None:
            raise ValueError(f"picture '{src}': component '{cid}' has no item '{item_id}'")
    return component, item, studio.layout_name(component, "layout", item)


def icons_used(game, studio):
    """Icon files (aliases resolved) that the printed components and the rulebook really draw."""
    from ..check import walk

    names = set()
    for _component, _layout, _item, prims in walk(studio):
        for p in prims:
            if p.kind == "icon":
                names.add(p.text)
            elif p.kind == "text":
                names.update(re.findall(r":([a-z0-9][a-z0-9-]*):", p.text))
    names.update(re.findall(r":([a-z0-9][a-z0-9-]*):", studio.rulebook_markdown or ""))
    return {game.icons.path(n).stem for n in names if game.icons.path(n) is not None}
