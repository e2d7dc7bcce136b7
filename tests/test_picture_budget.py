"""A game's pictures are decoded once per command, and all of them together within the game's budget of
pixels: past it, one error at the element that asked for the picture that crossed it."""

import math
from collections import OrderedDict
from pathlib import Path

import pytest

from PIL import Image, ImageFile

from conftest import make_project, run
from pnp.draw import pictures
from pnp.kit import render
from pnp.layout import budget

CARD = ("size: poker\nelements:\n"
        "  - {type: image, src: 'images/{{ card.id }}.png', x: 5, y: 5, w: 20, h: 20}\n")
IDS = ("lion", "fern", "wolf", "moss")


CARDS_NAMING_PICTURES = "".join(f"- {{id: {name}, name: {name}, kind: beast, power: 1, text: images/{name}.png}}\n"
                                for name in IDS)


def _project(tmp_path, side=500, changes=None):
    """The mini game, each of its four cards drawing its own picture (of a colour no other test uses), more
    pixels than its 20 mm box needs at 600 dpi (473 x 473): each is resampled."""
    root = make_project(tmp_path / "game", {"layouts/mini/card.yaml": CARD, **(changes or {})})
    (root / "layouts/mini/images").mkdir()
    for n, name in enumerate(IDS):
        Image.new("RGB", (side, side * 2), (17, 29 + n, 211)).save(root / f"layouts/mini/images/{name}.png")
    return root


def test_the_real_limits_pass_a_board_picture_and_a_deck_of_full_art_cards_and_stop_a_few_huge_ones():
    # a 33-million-pixel board picture: decoded to check it, and by ReportLab to embed it as it is
    assert 2 * 33_000_000 <= budget.BASE_PIXELS + budget.PIXELS_PER_FACE
    # a full-art poker card (69 x 94 mm with bleed at 600 dpi) in its 63 x 88 mm box: decoded and resampled
    art = [math.ceil(mm / 25.4 * 600) for mm in (69, 94)]
    box = [mm / 25.4 * 72 for mm in (63, 88)]
    needed = pictures.printed_pixels(tuple(art), *box)
    assert needed is not None and 2 * art[0] * art[1] + needed[0] * needed[1] <= budget.PIXELS_PER_FACE  # embedded
    # four cards of 40 million pixels each, resampled: refused before the third (the mini game prints 9 faces)
    assert 3 * 2 * 40_000_000 > budget.BASE_PIXELS + 9 * budget.PIXELS_PER_FACE


@pytest.mark.parametrize("size, box_mm, as_is", [
    ((6000, 6000), (254, 254), True),  # drawn as it is at 600 dpi: was embedded whole, a build of 1.07 GB
    ((7000, 5000), (100, 100), True),  # resampled for its box, to 2362 x 1687: under the cap, kept
    ((3000, 9000), (500, 500), False),  # turned or 16-bit (redrawn at its own size): capped too
])
def test_a_picture_is_embedded_with_at_most_the_pixels_reportlab_can_hold(size, box_mm, as_is):
    # ReportLab keeps about 26 bytes a pixel of a picture it embeds while it compresses it
    drawn = pictures.drawn_pixels(size, as_is, *(mm / 25.4 * 72 for mm in box_mm))
    assert drawn is not None and drawn[0] * drawn[1] <= pictures.MAX_EMBEDDED_PIXELS
    assert abs(drawn[0] / drawn[1] - size[0] / size[1]) < 0.01  # its aspect kept
    if size == (7000, 5000):
        assert drawn == pictures.printed_pixels(size, *(mm / 25.4 * 72 for mm in box_mm))


@pytest.mark.parametrize("changes, where", [
    ({}, "layouts/mini/card.yaml:3:"),  # the element names the picture
    ({"layouts/mini/card.yaml": CARD.replace("images/{{ card.id }}.png", "{{ card.text }}"),
      "cards/mini/cards.yaml": CARDS_NAMING_PICTURES}, "cards/mini/cards.yaml:3:"),  # a field of the card
])
def test_pictures_past_the_budget_are_refused_where_the_one_that_crossed_it_was_asked_for(
        tmp_path, monkeypatch, changes, where):
    root = _project(tmp_path, changes=changes)
    # 9 faces; each picture costs 2 x 500,000 pixels (decoded, resampled): the third crosses 2.1 million
    monkeypatch.setattr(budget, "BASE_PIXELS", 300_000)
    monkeypatch.setattr(budget, "PIXELS_PER_FACE", 200_000)
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if ": error: " in line]
    assert len(errors) == 1, result.output
    assert errors[0].startswith(where)
    assert "too many pixels" in errors[0] and "2,100,000" in errors[0] and "images/wolf.png" in errors[0]
    assert run(root, "build", "mini").exit_code == 1
    assert not (root / "output" / "mini" / "mini-a4.pdf").exists()


@pytest.mark.parametrize("limit, said", [
    ("MAX_PDF_PICTURE_BYTES", "of pictures with it, which pnp keeps in memory"),
    # six boards of 6000 x 6000 noise: the sixth embedded (26 bytes a pixel) past 280 MB of the others, 1.05 GB
    ("MAX_EMBEDDING_PEAK_BYTES", "would take more memory than pnp allows"),
    ("MAX_KIT_PICTURE_BYTES", "to copy them into the all-in-one PDF"),
])
def test_a_pdf_holding_more_bytes_of_pictures_than_pnp_keeps_is_refused_at_the_picture(tmp_path, monkeypatch,
                                                                                       limit, said):
    """ReportLab holds every picture's stream until the PDF is written: 60 full-art cards of incompressible
    pictures took a build to 2.3 GB, then (written part by part) 993 MB. Past MAX_PDF_PICTURE_BYTES the
    picture that crosses it is refused at the element that drew it, and the previous kit is kept; so is one
    whose embedding (decoded) would take the memory past MAX_EMBEDDING_PEAK_BYTES, before it is taken."""
    root = _project(tmp_path)
    assert run(root, "build", "mini").exit_code == 0
    kit = root / "output" / "mini" / "mini-a4.pdf"
    before = kit.read_bytes()
    monkeypatch.setattr(pictures, limit, 1)  # (the first picture crosses it)
    result = run(root, "build", "mini", "--force")
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith("layouts/mini/card.yaml:3:"), result.output
    assert "picture 'images/" in errors[0] and said in errors[0]
    assert kit.read_bytes() == before


def test_each_picture_is_decoded_once_by_a_build(tmp_path, monkeypatch):
    root = _project(tmp_path, side=501)
    decoded = []
    load = ImageFile.ImageFile.load

    def counted(image):
        if image.tile and image.size == (501, 1002):
            decoded.append(image.size)
        return load(image)

    monkeypatch.setattr(ImageFile.ImageFile, "load", counted)
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    assert len(decoded) == 4  # one per picture: checked and resampled at once, drawn from that


def test_a_resampled_picture_larger_than_the_memory_kept_for_them_is_drawn_all_the_same(tmp_path, monkeypatch):
    root = _project(tmp_path, side=502)
    monkeypatch.setattr(pictures, "KEPT_BYTES", 0)  # was a KeyError: the picture just made was let go at once
    result = run(root, "build", "mini")
    assert result.exit_code == 0, result.output
    assert (root / "output" / "mini" / "mini-cards-a4.pdf").exists()


def test_a_running_preview_pays_for_the_pictures_of_the_faces_it_keeps(tmp_path, monkeypatch):
    """A running preview keeps the checks and faces of the cards an edit did not touch, and decodes none of
    their pictures again: it pays for their pixels all the same, so a game just past its pixels is refused
    there as by a fresh preview and the build, at the same place. (It paid for the edited card's alone, and
    said 'ok'.)"""
    from pnp.project import Project
    from pnp.serve.preview import Preview

    made = []
    original = budget.DrawingBudget.__init__
    monkeypatch.setattr(budget.DrawingBudget, "__init__", lambda self, *a: (original(self, *a), made.append(self))[0])
    root = _project(tmp_path, changes={
        "layouts/mini/card.yaml": CARD.replace("images/{{ card.id }}.png", "{{ card.text }}"),
        "cards/mini/cards.yaml": CARDS_NAMING_PICTURES})
    Image.new("RGB", (600, 1200), (17, 99, 211)).save(root / "layouts/mini/images/big.png")
    cards = root / "cards/mini/cards.yaml"
    unedited = cards.read_text()
    cards.write_text(unedited.replace("text: images/lion.png", "text: images/big.png"))
    assert run(root, "validate", "mini").exit_code == 0
    monkeypatch.setattr(budget, "BASE_PIXELS", made[-1].pixels - 1)  # the bigger picture just past the limit
    monkeypatch.setattr(budget, "PIXELS_PER_FACE", 0)
    cards.write_text(unedited)
    preview = Preview(Project(root.resolve()), "mini")
    assert preview.refresh()["status"] == "ok", preview.state["problems"]
    cards.write_text(unedited.replace("text: images/lion.png", "text: images/big.png"))
    fresh = Preview(Project(root.resolve()), "mini")
    seen = [[(p["message"], p["where"]["at"]) for p in state["problems"] if p["severity"] == "error"]
            for state in (preview.refresh(), fresh.refresh())]
    assert seen[0] == seen[1] and len(seen[0]) == 1 and "too many pixels" in seen[0][0][0], seen
    built = [line for line in run(root, "build", "mini").output.splitlines() if "too many pixels" in line]
    assert len(built) == 1 and built[0].startswith(seen[0][0][1] + ": error: "), built


def test_the_pictures_kept_for_drawing_are_dropped_before_the_all_in_one_pdf_is_assembled(tmp_path, monkeypatch):
    # the all-in-one PDF is its parts' pages copied, nothing drawn: qpdf's own memory came on top of up to 192 MB
    # of kept pictures and of the drawing's freed buffers (a game of large pictures: 1.28 GB)
    root = _project(tmp_path)
    made, kept_when_assembling = [], []
    keep, assemble = pictures._keep, render._assemble

    def keeping(key: str, data: bytes) -> tuple[bytes, str]:
        made.append(key)
        return keep(key, data)

    def assembling(target, parts, studio) -> None:
        kept_when_assembling.append(len(pictures._kept))
        assemble(target, parts, studio)

    monkeypatch.setattr(pictures, "_kept", OrderedDict())  # (none kept from the tests before)
    monkeypatch.setattr(pictures, "_keep", keeping)
    monkeypatch.setattr(render, "_assemble", assembling)
    assert run(root, "build", "mini").exit_code == 0
    assert len(made) == 4 and kept_when_assembling == [0]  # four resampled for the cards, none left at the end


def test_the_pdfs_the_all_in_one_pdf_copies_hold_their_pictures_together_within_one_cap(tmp_path, monkeypatch):
    # qpdf copies every stream of the parts into memory to write the all-in-one PDF: four boards of noise PNGs and
    # 46 token pictures, each PDF under its own cap, took a build to 1.28 GB. The board's picture, drawn after the
    # cards', crosses the cap that all of them together pass by one byte
    board = (Path(__file__).parent / "data/base/layouts/mini/board.yaml").read_text(encoding="utf-8")
    root = _project(tmp_path, changes={"layouts/mini/board.yaml": board + (
        "  - {type: image, src: images/lion.png, x: 10, y: 10, w: 100, h: 100}\n")})
    tallies = []

    def shared(canvas, tally: list[int]) -> None:
        tallies.append(tally)
        pictures.share_kit_pictures(canvas, tally)

    monkeypatch.setattr(render, "share_kit_pictures", shared)
    assert run(root, "build", "mini").exit_code == 0
    assert len(tallies) >= 2 and all(tally is tallies[0] for tally in tallies)  # one tally for the game's PDFs
    kit = root / "output" / "mini" / "mini-a4.pdf"
    before = kit.read_bytes()
    monkeypatch.setattr(pictures, "MAX_KIT_PICTURE_BYTES", tallies[0][0] - 1)
    result = run(root, "build", "mini", "--force")
    errors = [line for line in result.output.splitlines() if ": error: " in line]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert errors[0].startswith("layouts/mini/board.yaml:5:") and "all-in-one PDF" in errors[0]
    assert kit.read_bytes() == before


def test_the_kept_pictures_are_given_up_before_an_embedding_would_take_memory_on_top_of_them(tmp_path, monkeypatch):
    # the resampled pictures kept for the next PDF are a cache: a picture-heavy build peaked at 889 MB, 191 MB of
    # them kept while the biggest picture was embedded. Kept 64 MB here, the first embedding (about 3 MB) with them
    # would pass a peak of 48 MB: they are dropped (with the cards' own, resampled before), and the build goes on
    root = _project(tmp_path)
    monkeypatch.setattr(pictures, "_kept", OrderedDict(kept=(bytes(64 << 20), "0")))
    monkeypatch.setattr(pictures, "MAX_EMBEDDING_PEAK_BYTES", 48 << 20)
    given_up = []

    def forget() -> None:
        given_up.append(list(pictures._kept))
        pictures._kept.clear()

    monkeypatch.setattr(pictures, "forget_kept", forget)
    assert run(root, "build", "mini").exit_code == 0
    assert given_up and given_up[0][0] == "kept"



def test_a_proof_or_reprint_of_a_kit_within_the_budget_is_within_it_too(tmp_path, monkeypatch):
    # each picture costs 1,000,000 pixels (decoded, resampled), the kit's 9 faces allow 4,140,000: a reprint or a
    # proof of the lion's 2 faces (write_selection) was sized afresh, 920,000, and refused the picture the kit drew
    root = _project(tmp_path)
    monkeypatch.setattr(budget, "BASE_PIXELS", 0)
    monkeypatch.setattr(budget, "PIXELS_PER_FACE", 460_000)
    assert run(root, "build", "mini").exit_code == 0
    before = tmp_path / "before.json"
    before.write_bytes((root / "output/mini/manifest.json").read_bytes())
    cards = root / "cards/mini/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("name: Lion", "name: Lioness"), encoding="utf-8")
    for args, made in ((["--changed-since", str(before)], "reprint"), (["--only", "card.id == 'lion'"], "selection")):
        result = run(root, "build", "mini", *args)
        assert result.exit_code == 0, result.output
        assert list((root / "output/mini").glob(f"mini-{made}-*-a4.pdf")), result.output
