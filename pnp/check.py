"""Validation beyond the data: every layout resolves for every item, text fits, icons and images exist."""

import re

from PIL import Image

from .draw.paint import ColourError, colour
from .layout.spec import LayoutError
from .model.schema import did_you_mean
from .products import die, rulebook
from .products.sheets import items_of
from .report import Mark
from .units import MM

ICON_IN_TEXT = re.compile(r":([a-z0-9][a-z0-9-]*):")


def walk(studio):
    """(component, layout name, item, primitives) for everything printed, fronts and backs."""
    for component in studio.game.components:
        if component.kind == "rulebook":
            continue
        for key in ("layout", "back"):
            if component.spec.get(key) is None:
                continue
            for item in _distinct(items_of(component)):
                name = studio.layout_name(component, key, item)
                layout = studio.layouts.get(name)
                if component.kind == "die" and key == "layout":
                    for value in die.faces_of(layout, studio.game.context(item=item)):
                        yield component, name, item, studio.resolve(name, item, face=value)
                else:  # through the studio's cache: the build draws what validation resolved
                    yield component, name, item, studio.resolve(name, item)


def _distinct(items):
    seen, out = set(), []
    for it in items:
        if id(it) not in seen:
            seen.add(id(it))
            out.append(it)
    return out


def check_layouts(studio, report):
    """Resolve every layout for every item and report what would print wrong, with file:line."""
    game = studio.game
    painter = studio.painter(None)
    reported = set()

    def once(message, mark):
        if (message, mark) not in reported:
            reported.add((message, mark))
            report.error(message, mark)

    for component in game.components:
        if component.kind != "rulebook" and not component.spec.get("layout"):
            once(f"component '{component.id}' needs a 'layout'", component.spec.mark)
    warned = set()
    try:
        for component, name, item, prims in walk(studio):
            label = f" ({item.get('id')})" if item is not None and item.get("id") else ""
            for p in prims:
                _check_prim(p, painter, game, once, label, studio)
            if component.kind in ("deck", "aid"):  # cut with a blade: keep words clear of the cut
                _check_safe_area(studio.layouts.get(name), prims, report, warned)
    except LayoutError as e:
        for message, mark in getattr(e, "all", [(e.message, e.mark)]):
            once(message, mark)
    except ValueError as e:
        once(str(e), None)
    _check_rulebook(studio, report)


def _check_prim(p, painter, game, once, label, studio):
    for key in ("fill", "stroke", "color"):
        if key in p.style:
            try:
                colour(p.style[key])
            except ColourError as e:
                once(str(e), p.mark)
    if p.kind == "icon" and not game.icons.exists(p.text):
        once(f"unknown icon '{p.text}'{did_you_mean(p.text, game.icons.names())}", p.mark)
    elif p.kind == "text":
        for name in ICON_IN_TEXT.findall(p.text):
            if not game.icons.exists(name):
                once(f"unknown icon ':{name}:' in text{label}{did_you_mean(name, game.icons.names())}", p.mark)
        if not studio.fonts.has(p.style["font"]):
            once(f"unknown font '{p.style['font']}' (fonts.yaml has {', '.join(studio.fonts.families)})", p.mark)
            return
        fitted = painter.fit_text(p)
        if fitted.overflow:
            once(f"text overflows its {p.w / MM:.1f} x {p.h / MM:.1f} mm box even at {p.style['min_size']:g} pt"
                 f"{label}: '{_short(p.text)}'", p.mark)
    elif p.kind == "image":
        _check_image(p, game, once)


def _check_safe_area(layout, prims, report, warned):
    """Text must stay inside the safe area (`safe:` in from the trim), where a slightly off cut cannot
    reach it. Reported once per layout element, as a warning: the print still works."""
    s = layout.safe
    for p in prims:
        if p.kind != "text" or p.mark in warned:
            continue
        if p.x < s - 0.01 or p.y < s - 0.01 or p.x + p.w > layout.width - s + 0.01 or p.y + p.h > layout.height - s + 0.01:
            warned.add(p.mark)
            report.warning(f"text box reaches within {min(p.x, p.y, layout.width - p.x - p.w, layout.height - p.y - p.h) / MM:.1f} mm "
                           f"of the trim, inside the {s / MM:g} mm safe area", p.mark)


def _check_image(p, game, once):
    path = game.layout_folder / p.text
    if not path.is_file():
        once(f"image '{p.text}' not found (looked in {game.project.rel(game.layout_folder)}/)", p.mark)
        return
    try:
        with Image.open(path) as im:
            px_w, px_h = im.size
    except Exception as e:  # Pillow raises several types for bad files
        once(f"image '{p.text}' cannot be read: {e}", p.mark)
        return
    dpi = min(px_w / (p.w / 72), px_h / (p.h / 72)) if p.w and p.h else 1e9
    need = p.style.get("min_dpi", 150)
    if dpi < need:
        once(f"image '{p.text}' is {px_w}x{px_h} px: {dpi:.0f} dpi at its printed size "
             f"{p.w / MM:.0f}x{p.h / MM:.0f} mm, below the {need:g} dpi minimum", p.mark)


def _check_rulebook(studio, report):
    game = studio.game
    path = rulebook.template_path(game)
    if not any(c.kind == "rulebook" for c in game.components):
        return
    shown = game.project.rel(path)
    if not path.is_file():
        report.error("rulebook template not found", Mark(shown))
        return
    try:
        markdown = rulebook.render_markdown(game)
    except rulebook.RulebookError as e:
        report.error(e.message, Mark(shown, e.line or 0, 1 if e.line else 0))
        return
    studio.rulebook_markdown = markdown
    for n, line in enumerate(markdown.splitlines(), 1):
        for name in ICON_IN_TEXT.findall(line):
            if not game.icons.exists(name):
                report.error(f"unknown icon ':{name}:' in the rendered rulebook line {n}"
                             f"{did_you_mean(name, game.icons.names())}", Mark(shown))
        for src in re.findall(r"!\[[^\]]*\]\(([^)\s]+)", line):
            try:
                rulebook.resolve_picture(game, studio, src)
            except (ValueError, LayoutError) as e:
                report.error(str(getattr(e, "message", e)), Mark(shown))


def _short(text, n=40):
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"
