"""Rebuilding only what changed: a game built from the same inputs and options is left alone; a change to a
game's data, layouts, the fonts, an icon it draws or the options rebuilds exactly the games it touches; the
bytes do not depend on --jobs or on how a game came to be rebuilt."""

import io
import json
import os
import re
import shutil
import signal
import time

import pytest

from conftest import _write, failing_after, make_project, run
from pnp.project import BUILTIN_FONTS

GAMES = ("mini", "other")


@pytest.fixture
def two_games(tmp_path):
    """The mini game and a copy of it named 'other' that draws a different icon for its strong cards."""
    root = make_project(tmp_path / "proj")
    for tree in ("cards", "layouts"):
        shutil.copytree(root / tree / "mini", root / tree / "other")
    game = root / "cards/other/game.yaml"
    game.write_text(game.read_text().replace("title: Mini Game", "title: Other Game")
                    .replace("star: round-star", "star: cut-diamond"))
    return root


def build(root, *args):
    result = run(root, "build", *args)
    assert result.exit_code == 0, result.output
    return result.output


def rebuilt(output):
    """The games a build drew (the others say 'up to date')."""
    return sorted(re.findall(r"^(\S+): \d+ files?", output, re.M))


def up_to_date(output):
    return sorted(re.findall(r"^(\S+): up to date", output, re.M))


def snapshot(root):
    return {p.relative_to(root / "output").as_posix(): p.read_bytes()
            for p in sorted((root / "output").rglob("*")) if p.is_file()}


def test_an_unchanged_game_is_not_built_again(two_games):
    assert rebuilt(build(two_games)) == sorted(GAMES)
    before = {p: p.stat().st_mtime_ns for p in (two_games / "output").rglob("*")}
    output = build(two_games)
    assert up_to_date(output) == sorted(GAMES) and rebuilt(output) == []
    assert {p: p.stat().st_mtime_ns for p in (two_games / "output").rglob("*")} == before
    assert rebuilt(build(two_games, "--force")) == sorted(GAMES)


@pytest.mark.parametrize("change, games", [
    ("cards/other/cards.yaml", ["other"]),  # one game's data
    ("layouts/mini/card.yaml", ["mini"]),  # one game's layout
    ("fonts/fonts.yaml", list(GAMES)),  # the fonts every PDF embeds: the project's own replacing pnp's
    ("layouts/shared/icons/round-star.svg", ["mini"]),  # an icon only mini draws
])
def test_a_change_rebuilds_exactly_the_games_that_use_it(two_games, change, games):
    build(two_games)
    path = two_games / change
    if change.startswith("fonts/"):  # the project's own copy of pnp's fonts, then an edit to it
        shutil.copytree(BUILTIN_FONTS, two_games / "fonts")
    text = path.read_text(encoding="utf-8")
    edited = text.replace("Lion", "Lioness") if path.suffix == ".yaml" and "cards" in change else text + "\n"
    if change.endswith(".svg"):
        edited = text.replace("</svg>", "<!-- edited --></svg>")
    assert edited != text
    _write(path, edited.encode("utf-8"))  # never through a hard link into the repository's own file
    output = build(two_games)
    assert rebuilt(output) == games, output
    assert up_to_date(output) == sorted(set(GAMES) - set(games))


def test_a_new_simulation_rebuilds_the_game_it_measured(two_games):
    """The rulebook may print what `pnp simulate` measured (output/<game>/simulation.json): a new run is an
    input of that game's next build, and of no other game's."""
    build(two_games)
    results = two_games / "output/mini/simulation.json"
    results.write_text(json.dumps({"games": 40}))
    output = build(two_games)
    assert rebuilt(output) == ["mini"] and up_to_date(output) == ["other"], output
    results.write_text(json.dumps({"games": 80}))
    assert rebuilt(build(two_games)) == ["mini"]


def test_an_option_is_an_input_too(two_games):
    build(two_games)
    assert rebuilt(build(two_games, "--bleed", "3")) == sorted(GAMES)  # same inputs, other options
    assert up_to_date(build(two_games, "--bleed", "3")) == sorted(GAMES)
    assert up_to_date(build(two_games)) == sorted(GAMES)  # each variant has its own files and manifest
    manifest = json.loads((two_games / "output/mini/manifest-bleed3mm.json").read_text())
    assert manifest["bleed_mm"] == 3.0


def test_a_library_that_makes_the_bytes_is_an_input_too(tmp_path, monkeypatch, request):
    """A kit (or an export) made before Pillow, pypdfium2 or another library that reads, draws or encodes was
    upgraded is made again: only ReportLab's, pikepdf's and svglib's versions were recorded, and an export's
    images stayed the old pypdfium2's for ever."""
    from pnp.kit import inputs
    from pnp.kit.manifest import Manifest, seal
    from pnp.kit.run import already_built
    from pnp.project import Project
    from pnp.units import PrintOptions

    project = Project(make_project(tmp_path / "proj"))
    folder = project.root / "output/mini"
    folder.mkdir(parents=True)
    made = Manifest({"game": "mini", **PrintOptions().record()},
                    inputs={"engine": inputs.engine(), "files": inputs.snapshot(project, "mini")})
    with open(folder / "manifest.json", "w", encoding="utf-8") as f:
        made.write(f)
    seal(folder / "manifest.json")
    assert already_built(project, "mini", PrintOptions(), folder) is not None  # (a kit of no file, as made)
    version = inputs._version
    monkeypatch.setattr(inputs, "_version", lambda name: "99.0" if name == "pypdfium2" else version(name))
    request.addfinalizer(inputs.engine.cache_clear)  # (each process works it out once)
    inputs.engine.cache_clear()
    assert already_built(project, "mini", PrintOptions(), folder) is None


def test_the_data_pnp_reads_to_draw_is_an_input_too(tmp_path, monkeypatch, request):
    """A print service's figures in export/catalogue.yaml changed by a pnp upgrade make its exports again: only
    the package's code and fonts were digested, and an export at the old pixel sizes stayed up to date."""
    from pnp.kit import inputs

    package = tmp_path / "pnp"
    (package / "export").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    catalogue = package / "export/catalogue.yaml"
    catalogue.write_text("tgc: {dpi: 300}\n")
    monkeypatch.setattr(inputs, "ENGINE", package)
    request.addfinalizer(inputs.engine.cache_clear)  # (each process works it out once)
    inputs.engine.cache_clear()
    before = inputs.engine()["code"]
    catalogue.write_text("tgc: {dpi: 600}\n")
    inputs.engine.cache_clear()
    assert inputs.engine()["code"] != before


def test_a_touched_output_file_is_rebuilt(two_games):
    build(two_games)
    (two_games / "output/mini/mini-cards-a4.pdf").write_bytes(b"%PDF-1.4 truncated")
    assert rebuilt(build(two_games)) == ["mini"]
    (two_games / "output/other/mini-not-here.txt").write_text("a stray file changes nothing")
    (two_games / "output/other/other-a4.pdf").unlink()
    assert rebuilt(build(two_games)) == ["other"]


def test_manifest_records_the_inputs_it_was_built_from(two_games):
    build(two_games)
    inputs = json.loads((two_games / "output/other/manifest.json").read_text())["inputs"]
    files = inputs["files"]
    assert "cards/other/cards.yaml" in files and "layouts/other/card.yaml" in files
    assert "layouts/shared/icons/cut-diamond.svg" in files  # the icon it draws ...
    assert "layouts/shared/icons/round-star.svg" not in files  # ... and not the one it does not
    assert not any(f.startswith(("cards/mini/", "layouts/mini/")) for f in files)
    assert {"pnp", "code", "reportlab"} <= set(inputs["engine"])


def test_outputs_do_not_depend_on_jobs_or_on_being_rebuilt_alone(tmp_path, two_games):
    one = tmp_path / "one"
    two = tmp_path / "two"
    build(two_games, "--jobs", "1", "--out", str(one))
    build(two_games, "--jobs", "2", "--out", str(two))
    files = sorted(p.relative_to(one).as_posix() for p in one.rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(two).as_posix() for p in two.rglob("*") if p.is_file())
    for rel in files:
        assert (one / rel).read_bytes() == (two / rel).read_bytes(), rel

    # change a card and back again: the incremental rebuild of that game gives the cold build's bytes
    cards = two_games / "cards/other/cards.yaml"
    original = cards.read_text()
    cards.write_text(original.replace("Lion", "Lioness"))
    build(two_games, "--out", str(one))
    cards.write_text(original)
    assert rebuilt(build(two_games, "--out", str(one))) == ["other"]
    for rel in files:
        assert (one / rel).read_bytes() == (two / rel).read_bytes(), rel


def test_build_jobs_start_no_more_processes_than_cores(tmp_path, monkeypatch):
    """`build -j 64` of five games started five processes on two cores, each holding a game, for no gain past the
    cores: the pool is cut to the cores the process may use (as export's and simulate's are)."""
    from pnp.kit import run as kit_run

    sizes = []

    class Stop(Exception):
        pass

    class Context:
        def Queue(self):  # noqa: N802 (multiprocessing's name)
            return None

        def Condition(self):  # noqa: N802 (the build's MemoryGate)
            return None

        def Array(self, *args, **kwargs):  # noqa: N802
            return None

        def Pool(self, processes, **kwargs):  # noqa: N802
            sizes.append(processes)
            raise Stop

    monkeypatch.setattr(kit_run, "worker_context", lambda method: Context())
    monkeypatch.setattr(kit_run, "usable_cores", lambda: 2)
    with pytest.raises(Stop):  # (force: no game is looked at before the pool starts)
        kit_run.build_games(None, [f"g{n}" for n in range(5)], None, tmp_path, jobs=64, force=True)
    assert sizes == [2]


def test_build_jobs_draw_together_only_games_whose_memory_fits_together(two_games, tmp_path, monkeypatch):
    """`build -j N` drew N games at once, each holding a whole game, whatever their memory together: two
    hostile games near the drawing budgets could pass 1 GB. Each game's need, measured by its check, must fit
    beside the others' in BUILDS_MEMORY; here each alone is more, so they are drawn one after the other."""
    from pnp.kit import render, run as kit_run

    drawing, seen = tmp_path / "drawing", tmp_path / "seen"
    drawing.mkdir()
    real = render.render_game

    def counted(*args, **kwargs):  # (in the workers: forked with this patch)
        me = drawing / str(os.getpid())
        me.touch()
        try:
            for _ in range(10):  # counts the games drawing, giving the other one half a second to start too
                together = len(list(drawing.iterdir()))
                with open(seen, "a") as counts:
                    counts.write(f"{together}\n")
                if together > 1:
                    break
                time.sleep(0.05)
            return real(*args, **kwargs)
        finally:
            me.unlink()

    monkeypatch.setattr(render, "render_game", counted)
    monkeypatch.setattr(kit_run, "usable_cores", lambda: 2)
    monkeypatch.setattr(kit_run, "BUILDS_MEMORY", 1)
    assert rebuilt(build(two_games, "--jobs", "2")) == ["mini", "other"]
    counts = [int(n) for n in seen.read_text().split()]
    assert len(counts) >= 2 and max(counts) == 1, counts


def test_build_jobs_a_check_that_outgrows_its_share_waits_for_room(two_games, tmp_path, monkeypatch):
    """`build -j N` bounded the games drawn at once by their memory, not the games being checked: two hostile
    checks at once could pass 1 GB together. Here two checks fit beside each other as they begin, then grow
    past the room left: the second to grow waits (holding what it has) until the first game ends, or goes on first when both wait (the
    largest): never do both go on with their growth at once."""
    from pnp import check, template
    from pnp.kit import run as kit_run

    growing, seen = tmp_path / "growing", tmp_path / "seen"
    growing.mkdir()
    real = check.validate

    def grown(*args, **kwargs):  # (in the workers: forked with this patch)
        more = b"\1" * (64 << 20)  # resident at once (written), as a check's growing data would be
        template.memory_checkpoint(coming=1)  # the look its next steps would take
        me = growing / str(os.getpid())
        me.touch()
        with open(seen, "a") as counts:
            counts.write(f"{len(list(growing.iterdir()))}\n")
        time.sleep(0.2)
        me.unlink()
        del more
        return real(*args, **kwargs)

    monkeypatch.setattr(check, "validate", grown)
    monkeypatch.setattr(kit_run, "usable_cores", lambda: 2)
    # both workers' memory as they begin (each a copy of this process) fits, with 48 MB to spare
    monkeypatch.setattr(kit_run, "BUILDS_MEMORY", 2 * template.memory_now() + (48 << 20))
    assert rebuilt(build(two_games, "--jobs", "2")) == ["mini", "other"]
    counts = [int(n) for n in seen.read_text().split()]
    assert counts == [1, 1], counts


def test_a_game_whose_process_dies_fails_and_the_others_are_built(two_games, monkeypatch):
    """A worker ended by the system while drawing its game (out of memory, a crash in a library) left
    `build -j 2` waiting for that game's result for good; the memory it was admitted with held the others."""
    from pnp.kit import render, run as kit_run

    real = render.render_game

    def dying(game, *args, **kwargs):  # (in the workers: forked with this patch)
        if game.id == "other":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(game, *args, **kwargs)

    monkeypatch.setattr(render, "render_game", dying)
    monkeypatch.setattr(kit_run, "usable_cores", lambda: 2)
    monkeypatch.setattr(kit_run, "BUILDS_MEMORY", 1)  # (the dead worker's admission must not hold mini's)
    with failing_after(60, "the build waited for good for the game whose process died"):
        result = run(two_games, "build", "--jobs", "2")
    assert result.exit_code == 1, result.output
    assert "other: build failed: its process ended without a word" in result.output
    assert rebuilt(result.output) == ["mini"] and not list((two_games / "output/other").glob("*.pdf"))


def test_a_game_that_fails_is_reported_in_order_and_the_others_are_built(two_games):
    (two_games / "cards/mini/cards.yaml").write_text("- {id: lion, name: Lion, kind: beest, power: 4}\n")
    result = run(two_games, "build", "--jobs", "2")
    assert result.exit_code == 1
    assert "cards/mini/cards.yaml:1:" in result.output and "mini: not built" in result.output
    assert rebuilt(result.output) == ["other"]
    assert not (two_games / "output/mini").exists()


def test_up_to_date_repeats_the_warnings_of_the_build(two_games):
    card = two_games / "layouts/mini/card.yaml"
    card.write_text(card.read_text().replace("x: 5, y: 5,", "x: 1, y: 5,"))  # text inside the safe area
    first = build(two_games)
    warning = "layouts/mini/card.yaml:4:50: warning: text reaches within 1.0 mm of the trim"
    assert warning in first
    again = build(two_games)
    assert up_to_date(again) == sorted(GAMES) and warning in again and "(1 warning)" in again


# -- the preview's refreshes: what one edit re-resolves and redraws ----------------------------------------
BOARD_READS_NAMES = """size: [400mm, 300mm]
elements:
  - {type: rect, x: 0, y: 0, w: 400, h: 300, fill: "#ddeeff"}
  - {type: text, x: 10, y: 10, w: 300, h: 20, size: 24, text: "{{ data.cards | map(attribute='name') | join(', ') }}"}
"""
WOLF_OVERFLOWS = ("power: 3\n", "power: 3\n  text: \"" + "howls all night " * 40 + "\"\n")


def _gallery(preview):
    """What the page shows of each face: its image's bytes (None when it has none), and every message."""
    state = preview.state
    faces = {(key, f["side"]): (preview.store.get(f["image"]).png if f["image"] else None, f["stale"])
             for key, card in state["cards"].items() for f in card["faces"]}
    return faces, state["problems"], state["status"]


def test_a_preview_edit_resolves_and_draws_only_what_depends_on_it_and_equals_a_full_refresh(tmp_path):
    from pnp.project import Project
    from pnp.serve.preview import Preview

    root = make_project(tmp_path / "proj", {"layouts/mini/board.yaml": BOARD_READS_NAMES},
                        case={"replace": {"cards/mini/cards.yaml": [WOLF_OVERFLOWS]}})
    project = Project(root.resolve())
    preview = Preview(project, "mini")
    preview.refresh()
    everything = len(preview.memo.resolved)
    assert preview.state["status"] == "errors" and everything > 4
    assert any("text is about" in p["message"] for p in preview.state["problems"])  # wolf's text, said at its line

    cards = root / "cards/mini/cards.yaml"
    text = cards.read_text()
    # Lion's name: not on its front (which prints its id) but on the board, which reads every card's name. A
    # comment above moves every card's lines: the messages must follow them.
    cards.write_text("# the deck\n" + text.replace("name: Lion", "name: Big Lion"))
    preview.refresh()
    # the board alone: the lion's faces print its id and text, not its name (dependencies are by field)
    assert sorted(preview.memo.resolved) == [("board", "front", 0, ())]
    assert preview.memo.reused == everything - 1
    assert preview.drawn == 1  # the board: the lion's faces look as they did
    incremental = _gallery(preview)

    full = Preview(project, "mini")
    full.refresh()
    assert len(full.memo.resolved) == everything and full.memo.reused == 0
    assert _gallery(full) == incremental  # the same images, byte for byte, and the same messages at the same lines
    wolf_text = next(n for n, line in enumerate(cards.read_text().splitlines(), 1) if "howls" in line)
    assert [p["where"]["line"] for p in incremental[1] if "text is about" in p["message"]] == [wolf_text]

    # a layout file's edit forgets the printables that read it alone: the four fronts resolved and drawn again
    card = root / "layouts/mini/card.yaml"
    card.write_text(card.read_text().replace("size: 12}", "size: 11}", 1))
    preview.refresh()
    assert sorted(preview.memo.resolved) == [("deck", "front", n, ()) for n in range(4)] and preview.drawn == 4
    full.refresh()
    assert _gallery(full) == _gallery(preview)


def test_the_preview_memo_reads_no_file_out_of_the_project_nor_a_padded_one_whole(tmp_path):
    """What a refresh compares to the last one: a layouts' text file linked out of the project is never read
    (its content does not count), and a 3 GB sparse note is not read whole (it was: 22 s and 3 GB a refresh)."""
    from pnp.printables import inputs_digest
    from pnp.project import Project
    from pnp.units import PrintOptions

    root = make_project(tmp_path / "proj")
    secret = tmp_path / "secret.md"
    secret.write_text("one")
    (root / "layouts/mini/notes.md").symlink_to(secret)
    with open(root / "layouts/mini/padded.txt", "wb") as f:
        f.truncate(3 << 30)
    project = Project(root)

    class Game:  # what the digest reads of a game
        id = "mini"  # (its output/mini/simulation.json)
        meta = {}
        layout_folder = root / "layouts/mini"

    Game.project = project
    first = inputs_digest(Game, PrintOptions())
    secret.write_text("two")
    assert inputs_digest(Game, PrintOptions()) == first
    (root / "layouts/mini/card.yaml").write_text((root / "layouts/mini/card.yaml").read_text() + "# edited\n")
    assert inputs_digest(Game, PrintOptions()) != first


def test_equal_primitives_have_one_look_whoever_else_holds_their_values(tmp_path):
    """A face's digest is a function of what it shows: a kept primitive (its strings held by the memo too)
    and a newly resolved equal one digest alike (marshal's newer formats wrote shared objects as references,
    so every face of the preview was drawn again after an unrelated edit, depending on memory)."""
    from pnp.layout.prims import Prim
    from pnp.model.game import load_game
    from pnp.printables import Studio
    from pnp.products import component_keys
    from pnp.project import Project
    from pnp.report import Report

    def prims() -> list:
        font, text = "".join(["Bo", "dy"]), "".join(["Roars ", "loudly."])  # new objects, held by no one else
        return [Prim("text", 1.5, 2.0, 30.0, 10.0, style={"font": font, "size": 9.0}, text=text)]

    project = Project(make_project(tmp_path / "proj").resolve())
    studio = Studio(load_game(project, "mini", Report(project.root), component_keys()))
    front = next(p for p in studio.printables() if p.side == "front" and p.item is not None)
    alone = prims()
    shared = prims()
    held = [shared[0].style["font"], shared[0].text, shared[0].style]  # what a memo's kept entry also holds
    assert alone == shared and held
    assert studio._look(front, alone) == studio._look(front, shared)


def test_a_check_after_one_data_file_changed_parses_that_file_alone(tmp_path):
    """A table read from two files: after one is saved, checking the game again parses that file and takes the
    other's items as last parsed (model/load.py PARSED); the messages are those of a fresh parse, at their
    lines."""
    from pnp.check import load
    from pnp.model.load import PARSED
    from pnp.project import Project
    from pnp.report import Report

    root = make_project(tmp_path / "proj", {"cards/mini/more.yaml": "- {id: owl, name: Owl, kind: beest, power: 2}\n"},
                        case={"replace": {"cards/mini/game.yaml": [["  cards:\n", "  cards:\n    files: [cards.yaml, more.yaml]\n"]]}})
    project = Project(root.resolve())

    def checked() -> tuple:
        report = Report(project.root)
        parsed, reused = PARSED.parsed, PARSED.reused
        game = load(project, "mini", report)
        return [i["id"] for i in game.tables["cards"]], [str(d) for d in report.sorted()], \
            PARSED.parsed - parsed, PARSED.reused - reused

    ids, messages, _, _ = checked()
    assert "owl" in ids and any("more.yaml:1:" in m and "beest" in m for m in messages)
    cards = root / "cards/mini/cards.yaml"
    cards.write_text("# a comment moves every card a line down\n" + cards.read_text().replace("name: Lion", "name: Leo"))
    again = checked()
    assert again[2:] == (1, 2)  # cards.yaml parsed again, more.yaml's and game.yaml's parses reused
    PARSED.__init__()  # forget every parse: the same game read from scratch says the same
    assert checked()[:2] == again[:2]


def test_a_layout_file_rewritten_with_its_old_size_and_time_is_read_again(tmp_path, monkeypatch):
    """The layout files' digests are kept by their status (printables._file_digest): a file rewritten with the
    same size and its modification time set back is still read again (its change time moved)."""
    import os

    from pnp import printables
    from pnp.check import load
    from pnp.printables import file_digests
    from pnp.project import Project
    from pnp.report import Report

    root = make_project(tmp_path / "proj")
    project = Project(root.resolve())
    game = load(project, "mini", Report(project.root))
    card = root / "layouts/mini/card.yaml"
    old = card.stat().st_mtime_ns - 10**10
    os.utime(card, ns=(old, old))
    monkeypatch.setattr(printables, "_SETTLED_NS", -10**12)  # every file kept, however new its change time
    before = file_digests(game)
    assert file_digests(game) == before
    text = card.read_text()
    changed = text.replace("#", "%", 1) if "#" in text else text[:-1] + "\t"
    assert len(changed) == len(text) and changed != text
    card.write_text(changed)
    os.utime(card, ns=(old, old))
    after = file_digests(game)
    assert after["layouts/mini/card.yaml"] != before["layouts/mini/card.yaml"]
    assert {k: v for k, v in after.items() if k != "layouts/mini/card.yaml"} == \
        {k: v for k, v in before.items() if k != "layouts/mini/card.yaml"}


def test_a_font_subset_is_made_once_for_the_same_glyphs_in_the_same_order(tmp_path):
    """draw/fonts.py: a registered font gives the subset bytes it made for the same glyphs again (a PDF drawn
    anew, as the preview draws an edited card, is byte for byte the same), and makes a new one for others."""
    from reportlab.pdfbase import pdfmetrics

    from pnp.draw.canvas import new_canvas
    from pnp.draw.fonts import load_fonts
    from pnp.project import Project

    project = Project(make_project(tmp_path / "proj").resolve())
    name = load_fonts(project).name("Body")
    subsets = pdfmetrics.getFont(name).face.makeSubset

    def pdf(text: str) -> bytes:
        out = io.BytesIO()
        canvas = new_canvas(out, name)
        canvas.setFont(name, 12)
        canvas.drawString(10, 10, text)
        canvas.save()
        return out.getvalue()

    first = pdf("Roar \u00e9")
    made = subsets.made
    again = pdf("Roar \u00e9")
    assert again == first and subsets.made == made  # the same glyphs: kept
    assert pdf("Roar \u00fc") != first and subsets.made == made + 1
    subsets.kept.clear()  # made anew, the subset's bytes are the same
    assert pdf("Roar \u00e9") == first and subsets.made == made + 2


def test_a_simulation_file_not_as_simulate_writes_it_is_named_not_the_template_reading_it(tmp_path):
    """output/<game>/simulation.json may come with a game someone sent, of any shape: a template that reads
    it failed at its own line, which was not at fault."""
    root = make_project(tmp_path / "proj")
    template = root / "layouts/mini/rulebook.md.j2"
    template.write_text(template.read_text(encoding="utf-8") +
                        "\n{% if simulation %}{{ simulation.notes.get('cards') }}{% endif %}\n", encoding="utf-8")
    assert run(root, "validate").exit_code == 0
    (root / "output/mini").mkdir(parents=True)
    (root / "output/mini/simulation.json").write_text(json.dumps({"notes": "not a mapping"}))
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "output/mini/simulation.json: error: not as `pnp simulate` writes it: the rulebook template " \
           "(layouts/mini/rulebook.md.j2:" in result.output, result.output
    template.write_text(template.read_text(encoding="utf-8") + "{{ 1 + }}\n", encoding="utf-8")
    assert "layouts/mini/rulebook.md.j2:" in run(root, "validate").output.split(": error:")[0]  # the template's own


def test_a_simulation_file_of_figures_simulate_never_writes_is_refused_at_the_part(tmp_path):
    """A first seat winning '700% (95% interval -300-1200%)' of '-5 games' was printed in the rulebook from a
    simulation.json someone sent, exit 0, where the design report left those parts out with a warning: the
    rulebook reads the file through the same shape check, refused at the first part not of it."""
    root = make_project(tmp_path / "proj")
    template = root / "layouts/mini/rulebook.md.j2"
    template.write_text(template.read_text(encoding="utf-8") + "\n{% if simulation %}{{ simulation.games }} games, "
                        "first seat {{ simulation.seat_win_rate[0].rate }}{% endif %}\n", encoding="utf-8")
    (root / "output/mini").mkdir(parents=True)
    sim = root / "output/mini/simulation.json"
    rate = {"rate": 0.5, "low": 0.4, "high": 0.6, "n": 40}
    sim.write_text(json.dumps({"games": 40, "seat_win_rate": [rate], "players": 2}, indent=1))
    assert run(root, "validate").exit_code == 0
    sim.write_text(json.dumps({"games": 40, "seat_win_rate": [{**rate, "rate": 7, "high": 12}], "players": -5},
                              indent=1, sort_keys=True))
    result = run(root, "validate")
    assert result.exit_code == 1
    assert "output/mini/simulation.json:3:2: error: not as `pnp simulate` writes it: 'players' and 1 more" \
        in result.output, result.output
    sim.write_text(json.dumps({"games": 40, "game": "other"}, indent=1, sort_keys=True))
    assert "output/mini/simulation.json:2:2: error: a simulation of the game 'other', not of 'mini': run `pnp " \
        "simulate mini`" in run(root, "validate").output
    template.write_text(template.read_text(encoding="utf-8").split("{% if simulation %}")[0], encoding="utf-8")
    assert run(root, "validate").exit_code == 0  # a rulebook printing no figure does not read the file


FAKE_LIBRARY = """import os, sys
open(os.path.join(os.getcwd(), "ran.txt"), "w").write("the game folder's code ran")
# then the real library, so that a regression fails this test rather than hanging the pool
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
del sys.modules["multiprocessing"]
import multiprocessing
sys.modules[__name__] = multiprocessing
"""


def test_worker_processes_started_afresh_do_not_import_from_the_game_folder(two_games, monkeypatch):
    """Where the system cannot fork (Windows), build workers are new Pythons started in the game folder, which
    came first on their import path: a `multiprocessing` package in a received game ran as they started."""
    import multiprocessing

    real_context = multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: real_context(method or "spawn"))
    monkeypatch.delenv("PYTHONSAFEPATH", raising=False)
    (two_games / "multiprocessing").mkdir()
    (two_games / "multiprocessing" / "__init__.py").write_text(FAKE_LIBRARY)
    monkeypatch.chdir(two_games)
    build(two_games, "--jobs", "2")
    assert (two_games / "output" / "other").is_dir()
    assert not (two_games / "ran.txt").exists()


def test_links_to_one_file_are_digested_once_each_as_the_file_it_names(tmp_path, monkeypatch):
    """19,000 icon links to one file were each resolved, and opened folder by folder, from the project's folder:
    2 s of every build's up-to-date check. A link's digest is that of the name its links lead to, followed as
    written, once; a loop, a link out of the project or to a hidden file is still said as when resolved."""
    import hashlib

    import pnp.kit.inputs as inputs
    from pnp.project import Project

    icons, art = tmp_path / "layouts/g/icons", tmp_path / "art"
    for folder in (icons, art, tmp_path / "cards/g", tmp_path / ".h"):
        folder.mkdir(parents=True)
    (art / "t.svg").write_bytes(b"<svg/>")
    (tmp_path / ".h/s.svg").write_bytes(b"secret")
    (tmp_path.parent / "outside.svg").write_bytes(b"outside")
    for i in range(60):
        (icons / f"l{i}.svg").symlink_to("../../../art/t.svg")
    for name, target in {"a": "b.svg", "b": "a.svg", "out": "../../../../outside.svg", "hid": "../../../.h/s.svg",
                         "via": "l0.svg"}.items():
        (icons / f"{name}.svg").symlink_to(target)
    project = Project(tmp_path)
    digested: list[Path] = []
    real_file_digest = inputs._file_digest
    monkeypatch.setattr(inputs, "_file_digest", lambda *args: digested.append(args[1]) or real_file_digest(*args))
    found = inputs.snapshot(project, "g")
    assert len(digested) == 5, digested  # t.svg, the loop's two names, outside.svg, s.svg
    monkeypatch.setattr(inputs, "_file_digest", real_file_digest)
    assert found == {project.rel(path): inputs._digest(project, path) for path in icons.iterdir()}
    assert {found[f"layouts/g/icons/{name}.svg"] for name in ("l0", "l59", "via")} == \
        {hashlib.sha256(b"<svg/>").hexdigest()}
    assert (found["layouts/g/icons/out.svg"], found["layouts/g/icons/hid.svg"]) == \
        ("outside the project", "a hidden file")


def test_the_previews_digests_follow_links_to_one_file_once_and_keep_it_by_its_status(tmp_path, monkeypatch):
    """Each refresh of the preview resolved each of 19,000 icon links to one picture twice (is it a folder? then
    its content) and read it, never kept (a link's status says nothing of its target's): 4.5 s a save. A link is
    digested as the file it leads to, once, and kept by that file's status; a link out of the project is
    still never read."""
    import hashlib
    from types import SimpleNamespace

    from pnp import printables
    from pnp.printables import file_digests
    from pnp.project import Project

    root = tmp_path / "proj"
    icons = root / "layouts/g/icons"
    for folder in (icons, root / "art", root / "cards/g"):
        folder.mkdir(parents=True)
    (root / "art/t.svg").write_bytes(b"<svg/>")
    (tmp_path / "outside.svg").write_bytes(b"outside")
    for i in range(40):
        (icons / f"l{i}.svg").symlink_to("../../../art/t.svg")
    (icons / "none.svg").symlink_to("nothere.svg")
    (icons / "out.svg").symlink_to("../../../../outside.svg")
    project = Project(root)
    game = SimpleNamespace(project=project, layout_folder=root / "layouts/g", id="g")
    monkeypatch.setattr(printables, "_SETTLED_NS", -10**12)  # every file kept, however new its change time
    resolved: list[str] = []
    inside = Project.inside
    monkeypatch.setattr(Project, "inside", lambda self, path, *a, **k: resolved.append(str(path)) or
                        inside(self, path, *a, **k))
    first = file_digests(game)
    assert {first[f"layouts/g/icons/l{i}.svg"] for i in range(40)} == {hashlib.sha256(b"<svg/>").hexdigest()}
    assert len([path for path in resolved if "/icons/" in path]) <= 3, resolved  # t.svg (checked, read), out.svg
    assert "layouts/g/icons/none.svg" not in first  # (a link to nothing is no file)
    assert first["layouts/g/icons/out.svg"] != hashlib.sha256(b"outside").hexdigest()  # (never read)
    resolved.clear()
    assert file_digests(game) == first
    assert sorted(path for path in resolved if "/icons/" in path) == \
        [str(icons / "../../../../outside.svg"), str(icons / "../../../art/t.svg")]  # (its content kept, not read)


def _mini_studio_noting_id_reads(tmp_path, monkeypatch):
    """(a Studio of the test game, its deck, the list into which each read of an item's id is noted): how often
    a rulebook picture's lookup reads the deck's ids."""
    from pnp.model import reads as reads_module
    from pnp.model.game import load_game
    from pnp.printables import Studio
    from pnp.products import component_keys
    from pnp.project import Project
    from pnp.report import Report

    project = Project(make_project(tmp_path / "proj").resolve())
    studio = Studio(load_game(project, "mini", Report(project.root), component_keys()))
    deck = studio.game.component("deck")
    assert deck is not None
    ids_read: list = []
    real_note = reads_module.note
    monkeypatch.setattr(reads_module, "note", lambda key: (ids_read.append(key) if key[2:] == ("id",) else None,
                                                           real_note(key)))
    return studio, deck, ids_read


def test_a_rulebook_picture_finds_its_item_by_the_tables_ids_read_once(tmp_path, monkeypatch):
    """A picture of `component:deck/<id>` found its item by reading every face's id, again for each picture:
    4,000 pictures of a 4,000-card deck read 16 million ids (40 s to validate). The faces are indexed once; a
    lookup reads the table's membership (which items by which ids), which a changed id reaches as it reached
    the id read."""
    from pnp.model.reads import MEMBERS, recording
    from pnp.products import rulebook

    studio, deck, ids_read = _mini_studio_noting_id_reads(tmp_path, monkeypatch)
    with recording() as seen:
        found = [[p.side for p in rulebook._faces(studio, deck, name, back)]
                 for _ in range(5) for name in ("fern", "lion", "nobody") for back in (False, True)]
    assert found == [["front"], ["back"], ["front"], ["back"], [], []] * 5, found
    assert len(ids_read) <= 2 * len(deck.items), ids_read  # (each face's id once, not once per picture)
    assert ("cards", MEMBERS, None) in seen


def test_a_rulebook_picture_naming_no_item_is_suggested_one_without_walking_the_faces_again(tmp_path, monkeypatch):
    """A picture of `component:deck/<id>` naming no item walked every face for the ids to suggest among, again
    for each such picture: 9,000 pictures naming no item of a 300-card deck walked 2.7 million faces (10 s to
    validate). The ids are the index's, made once."""
    from pnp.errors import DataError
    from pnp.products import rulebook

    studio, deck, ids_read = _mini_studio_noting_id_reads(tmp_path, monkeypatch)
    said = []
    for i in range(10):
        with pytest.raises(DataError) as raised:
            rulebook.picture(studio, f"component:deck/lionx{i}")
        said.append(raised.value.message)
    assert "has no item 'lionx0' (did you mean 'lion'?)" in said[0], said
    assert len(ids_read) <= len(deck.items), ids_read  # (each face's id once, not once per picture)


def test_a_rulebook_diagram_finds_its_picture_without_scanning_every_face_again(tmp_path, monkeypatch):
    """A picture of `layout:NAME/TABLE/ITEM` found its printable by scanning every face of every component, again
    for each picture: 4,000 diagrams beside a 4,000-card deck compared 48 million faces. They are indexed once
    per lists of faces."""
    from pnp.model.game import load_game
    from pnp.printables import Studio
    from pnp.products import component_keys, rulebook
    from pnp.project import Project
    from pnp.report import Report

    book = "# Rules\n\n![a](layout:card/cards/lion)\n\n![b](layout:card/cards/fern)\n"
    project = Project(make_project(tmp_path / "proj", {"layouts/mini/rulebook.md.j2": book}).resolve())
    studio = Studio(load_game(project, "mini", Report(project.root), component_keys()))
    scans = []

    class Counted(list):
        def __iter__(self):
            scans.append(1)
            return super().__iter__()

    held = {c.id: Counted(studio.of(c)) for c in studio.game.components}
    monkeypatch.setattr(studio, "of", lambda component: held[component.id])
    found = [rulebook._diagram_printable(studio, src).item["id"]
             for _ in range(10) for src in ("layout:card/cards/lion", "layout:card/cards/fern")]
    assert found == ["lion", "fern"] * 10, found
    assert len(scans) <= len(held), len(scans)  # (each component's faces once, not once per picture)
