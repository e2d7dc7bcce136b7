"""What `--imposition gutterfold` cannot print is found by the check, before the build draws: validate
--imposition gutterfold says it as the build does."""

from conftest import make_project, run

LARGE = "size: [125mm, 180mm]\n"  # fits a sheet of every paper, and half an A4 page, not half a Letter one
SAID = "layouts/mini/card.yaml:1:7: error: component 'deck': its cards do not fit half a page for a gutter fold"


def test_cards_too_large_for_half_a_page_are_refused_by_the_check_of_a_gutterfold_kit(tmp_path):
    """validate said ok, and `build --imposition gutterfold` refused the deck only once it came to draw it (a
    kit on A4 is checked on Letter too, as its pages are: no paper's build refuses what validate passed)."""
    root = make_project(tmp_path / "proj", case={"replace": {f"layouts/mini/{name}.yaml": [["size: poker\n", LARGE]]
                                                             for name in ("card", "back")}})
    checked = run(root, "validate", "mini", "--imposition", "GutterFold")
    assert checked.exit_code == 1 and f"{SAID} (on letter paper: a gutterfold kit prints on every paper pnp offers)\n" \
        in checked.output, checked.output
    built = run(root, "build", "mini", "--imposition", "gutterfold", "--paper", "letter", "-j", "1")
    assert built.exit_code == 1, built.output
    assert f"{SAID}\n" in built.output and "mini: not built (fix the errors above)" in built.output, built.output
    assert not (root / "output/mini").exists() or not list((root / "output/mini").glob("*.pdf"))
