"""What `--imposition gutterfold` cannot fold is found by the check, before the build draws, and printed as a
single-sided printer's user prints a double-sided piece too large to fold: its fronts on one sheet and its
backs on the next, glued back to back. validate --imposition gutterfold says it as the build does."""

from conftest import make_project, run
from pdfread import page_geometry, read, texts

LARGE = "size: [180mm, 250mm]\n"  # fits a sheet of every paper, not half of one
SAID = ("layouts/mini/card.yaml:1:7: warning: component 'deck' prints front and back on separate sheets, to glue "
        "back to back: it does not fit half a page of a4 paper for a gutter fold\n")


def test_a_gutterfold_kit_prints_what_does_not_fit_half_a_page_front_then_back_for_gluing(tmp_path):
    """Run 39 refused it (`validate --imposition gutterfold` and the build, at the layout's size): a game with
    mats too large to fold, dino-ranch, could not be built for a single-sided printer at all. Now each sheet of
    fronts is followed by its sheet of backs, mirrored for a long-edge flip (never moved: --duplex-offset, a
    duplex printer's, is refused with gutterfold), said once as a warning by validate and by the build."""
    chits = ("  - {id: chits, name: Chits, kind: tokens, layout: chit, back: chit}\n"  # backs glued on too
             "components:\n")
    large = make_project(tmp_path / "proj", case={
        "replace": {**{f"layouts/mini/{name}.yaml": [["size: poker\n", LARGE]] for name in ("card", "back")},
                    "cards/mini/game.yaml": [["components:\n", "components:\n" + chits[:chits.index("components")]]]},
        "files": {"layouts/mini/chit.yaml": "size: [30mm, 20mm]\nelements:\n  - {type: rect, x: 0, y: 0, w: 30, h: 20}\n"}})
    checked = run(large, "validate", "mini", "--imposition", "GutterFold")
    assert checked.exit_code == 0 and checked.output.count(SAID) == 1, checked.output
    built = run(large, "build", "mini", "--imposition", "gutterfold", "-j", "1")
    assert built.exit_code == 0, built.output
    assert built.output.count(SAID) == 1, built.output
    chit_front, chit_back = read(large / "output/mini/mini-tokens-a4-gutterfold.pdf").pages
    width = float(chit_front.mediabox[2])  # the token's clip on its back page: its front's, mirrored, not moved
    fronts = {(round(width - x - w, 1), round(y, 1)) for x, y, w, _ in page_geometry(chit_front)[1]}
    assert fronts and fronts == {(round(x, 1), round(y, 1)) for x, y, *_ in page_geometry(chit_back)[1]}
    pages = read(large / "output/mini/mini-cards-a4-gutterfold.pdf").pages
    footers = [next(t for t, *_ in texts(page) if "sheet" in t) for page in pages]
    assert len(pages) == 8 and all("fronts · sheet" in footer for footer in footers[::2]), footers
    assert all("backs of sheet" in f and "glue back to back" in f for f in footers[1::2]), footers
    width = float(pages[0].mediabox[2])
    for front, back in zip(pages[::2], pages[1::2]):  # the back's crop marks: the front's, mirrored, not moved
        fronts = {tuple(sorted((round(width - x, 1), round(y, 1)) for x, y in s)) for s in page_geometry(front)[0]}
        backs = {tuple(sorted((round(x, 1), round(y, 1)) for x, y in s)) for s in page_geometry(back)[0]}
        assert fronts and fronts == backs


def test_a_duplex_offset_keeps_room_for_the_backs_it_moves_or_says_why_not(tmp_path):
    """Cards that fit a sheet leave it when --duplex-offset widens its margins: each is then printed on a page of
    its own with its back to glue on, not moved by the offset. It was said nowhere (exit 0), and a back printed
    double-sided lay the offset away from its front; now a warning at the layout's size says it. A sheet of
    tokens kept no such margin: a 180 mm token's back, moved 20 mm, ran past the paper's edge (exit 0); now its
    sheet keeps the room, and a token too wide for it is refused at its size."""
    from pnp.check import validate
    from pnp.project import find
    from pnp.report import Report
    from pnp.units import MM, PrintOptions

    chits = "  - {id: chits, name: Chits, kind: tokens, layout: chit, back: chit}\n"
    root = make_project(tmp_path / "proj", case={
        "replace": {**{f"layouts/mini/{name}.yaml": [["size: poker\n", "size: [190mm, 255mm]\n"]]
                       for name in ("card", "back")},
                    "cards/mini/game.yaml": [["components:\n", "components:\n" + chits]]},
        "files": {"layouts/mini/chit.yaml": "size: [180mm, 20mm]\nelements:\n  - {type: rect, x: 0, y: 0, w: 180, h: 20}\n"}})

    def said(dx: float) -> list[str]:
        report = Report(root)
        validate(find(root), "mini", report, PrintOptions(duplex_offset=(dx * MM, 0.0)))
        return [str(d) for d in report.errors + report.warnings if "--duplex-offset" in str(d)]

    five = said(5)
    assert len(five) == 1 and "layouts/mini/card.yaml:1:7: warning" in five[0] and "glued on" in five[0], five
    twenty = [d for d in said(20) if "chit.yaml" in d]
    assert len(twenty) == 1 and "layouts/mini/chit.yaml:1:7: error: a 180 x 20 mm token does not fit" in twenty[0]
