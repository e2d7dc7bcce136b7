"""Proofing part of a game: --only, --component, --sample pick items through one mechanism, print them with
their backs into <game>-selection-<key>-<paper>.pdf (<key> naming the selection) and leave the full kit's files,
and other selections', untouched; the next build of the kit removes them."""

import json
import re
import shutil

import pytest
import yaml
from pypdf import PdfReader

from conftest import make_project, run
from test_game_rules import shipped

# Dino Battles: each deck has its own back, and a build of it validates in a fraction of DinoSpan's time (3 s a
# build of a selection there, most of this file's time)
GAME = "dino-battles"


@pytest.fixture(scope="module")
def proj(tmp_path_factory, shipped_kit):
    """A copy of the game with its kit (the run's shared build of it) in its output folder: a selection must
    leave the kit's files as they are."""
    root = shipped(tmp_path_factory.mktemp("select"), GAME)
    shutil.copytree(shipped_kit / GAME, root / "output" / GAME)
    return root


def kit(root):
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in (root / "output" / GAME).iterdir()
            if "selection" not in p.name}


def written(root, result, game=GAME):
    """The selection PDF and its manifest that a build says it wrote."""
    found = re.search(r"pages? in (\S+-selection-([0-9a-f]{8})-a4\.pdf)", result.output)
    assert found, result.output
    return root / found[1], root / "output" / game / f"manifest-selection-{found[2]}.json"


def dinosaurs(root):
    """Each dinosaur's (id, name, type)."""
    rows = yaml.safe_load((root / "cards" / GAME / "dinosaurs.yaml").read_text(encoding="utf-8"))
    return [(row["id"], row["name"], row["type"]) for row in rows]


def test_only_prints_exactly_the_predators_and_their_backs(proj, monkeypatch):
    import pnp.project as project_mod

    # the proof and its manifest are put in place by one commit, all or none (a kill midway is put back): written
    # one after the other, a pnp killed between the two left the new PDF beside the previous manifest, whose
    # sha256 and items were another PDF's (and the next kit kept that proof as one edited since)
    committed, commit = [], project_mod.commit_files
    monkeypatch.setattr(project_mod, "commit_files", lambda renames, *removed: (committed.append(
        sorted(final.name for final in renames.values())), commit(renames, *removed)))
    before = kit(proj)
    result = run(proj, "build", GAME, "--only", "card.type == 'predator'")
    assert result.exit_code == 0, result.output
    assert "selection of 3 items" in result.output
    pdf, manifest_file = written(proj, result)
    assert [names for names in committed if pdf.name in names] == [sorted([pdf.name, manifest_file.name])], committed
    pages = PdfReader(pdf).pages
    assert len(pages) == 4  # 3 species, 5 copies each: 15 poker cards 9-up, two sheets of fronts, each then its backs
    fronts = pages[0].extract_text() + pages[2].extract_text()
    predators = [(id_, name) for id_, name, kind in dinosaurs(proj) if kind == "predator"]
    assert len(predators) == 3 and all(name in fronts for _, name in predators)
    assert not [name for _, name, kind in dinosaurs(proj) if kind != "predator" and name in fronts]
    assert all("Dino deck" in pages[i].extract_text() for i in (1, 3))  # the deck's own back
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    assert manifest["selection"]["only"] == "card.type == 'predator'" and manifest["file"] == pdf.name
    assert manifest["items"] == {"dinosaurs": [id_ for id_, _ in predators]}
    assert kit(proj) == before  # the full kit's files: same bytes, not even rewritten


def test_a_sample_with_a_seed_picks_the_same_nine_every_time(proj):
    picks = []
    for _ in range(2):
        result = run(proj, "build", GAME, "--component", "dinosaurs", "--component", "items",
                     "--sample", "9", "--seed", "1")
        assert result.exit_code == 0, result.output
        pdf, manifest_file = written(proj, result)
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
        picks.append((pdf.name, manifest["items"], pdf.read_bytes()))
    assert picks[0] == picks[1]
    assert sum(len(v) for v in picks[0][1].values()) == 9


def test_a_seed_below_zero_is_refused(proj):
    """Python's Random takes -S as S: --seed -5 picked seed 5's items into a file named for another selection."""
    before = sorted((proj / "output" / GAME).iterdir())
    result = run(proj, "build", GAME, "--sample", "3", "--seed", "-5")
    assert result.exit_code == 2 and "--seed" in result.output and "-5" in result.output, result.output
    assert sorted((proj / "output" / GAME).iterdir()) == before


def test_two_selections_never_replace_each_others_files(proj):
    """Each selection writes under its own names (they replaced each other's, as `-selection-a4.pdf`); the
    same selection built again writes the same names."""
    first = run(proj, "build", GAME, "--only", "card.type == 'swift'")
    pdf, manifest = written(proj, first)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in (pdf, manifest)}
    second = run(proj, "build", GAME, "--only", "card.type != 'swift'", "--sample", "3")
    other_pdf, other_manifest = written(proj, second)
    assert {other_pdf, other_manifest}.isdisjoint(before)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in before} == before
    assert written(proj, run(proj, "build", GAME, "--only", "card.type == 'swift'")) == (pdf, manifest)


def test_one_selection_typed_several_ways_is_written_under_one_name():
    """--component a --component b, b then a, or a twice (and a --seed with no --sample, which picks nothing)
    printed the same bytes under a name for each way it was typed."""
    from pnp.kit.select import Selection

    names = {Selection(None, components).key() for components in (("a", "b"), ("b", "a"), ("a", "b", "a"))}
    names |= {Selection(None, ("a", "b"), None, seed).key() for seed in (0, 5)}
    assert len(names) == 1
    assert Selection(None, ("a",), 3, 5).key() != Selection(None, ("a",), 3, 0).key()  # (a sample's seed picks)
    assert Selection(None, ("a",)).key() != Selection(None, ("a", "b")).key()


@pytest.mark.parametrize("args, message", [
    (["--only", "card.type =="], "template syntax error"),
    (["--only", ""], "--only '': an empty expression; give one"),  # an empty one built the whole kit with exit 0
    (["--only", "  "], "--only '  ': an empty expression; give one"),  # (then Jinja's "end of template")
    (["--component", "dinosaurs", "--changed-since", "HEAD"], "--changed-since writes a reprint beside the kit"),
    (["--seed", "7"], "--seed: only --sample reads it"),  # the kit was built, the seed unused, exit 0
    (["--component", "dinosaurs", "--seed", "0"], "--seed: only --sample reads it"),  # (given, if as the default)
])
def test_a_selection_that_cannot_be_made_says_why(proj, args, message):
    result = run(proj, "build", GAME, *args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("args, message", [
    (["--only", "card.kindd == 1"], "no field 'kindd' (did you mean 'kind'?)"),
    (["--component", "nope"], "--component 'nope': mini has no such component"),
    (["--component", ""], "--component '': mini has no such component"),  # (it was said "--component : ...")
    (["--only", "card.kind == 'rock'"], "the selection keeps nothing"),
])
def test_a_selection_the_game_cannot_make_says_why(project, args, message):
    """Said once the game is loaded (the test game: DinoSpan took 2.5 s a case to load for the same words)."""
    result = run(project, "build", "mini", *args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output



SLOW = "(range(10000) | map('string') | list | length) > 0"  # about 0.3 s, under every limit of its own


@pytest.mark.parametrize("only, limit", [
    # each item's evaluation had its own 2 s: one just under it ran for minutes over a game's items, exit 0
    (SLOW, ("SECONDS_PER_GAME", 0.3)),
    # the item it timed out on, and every later one (a too-slow expression is not run again), were left out of
    # a proof that said ok, as if they could not answer it
    (f"item.id == 'lion' or {SLOW}", ("SECONDS_PER_EVALUATION", 0.1)),
])
def test_an_only_expression_out_of_time_is_refused_not_taken_for_an_item_it_cannot_answer(tmp_path, monkeypatch,
                                                                                          only, limit):
    from conftest import make_project

    root = make_project(tmp_path / "proj")
    monkeypatch.setattr(f"pnp.template.{limit[0]}", limit[1])
    result = run(root, "build", "mini", "--only", only)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"--only {only!r}: " in result.output and "took longer than" in result.output
    assert not list((root / "output").glob("mini/*selection*"))


def test_the_next_build_of_the_kit_removes_the_proofs_beside_it_unless_edited(tmp_path, monkeypatch):
    """Every selection ever proofed stayed in the folder, drawn from what the game was then, and passed for the
    game as it is; the kit's next build (which holds every item) takes them away, except one changed since."""
    root = make_project(tmp_path)
    assert run(root, "build", "mini").exit_code == 0
    proofs = [written(root, run(root, "build", "mini", "--sample", "1", "--seed", str(seed)), "mini")
              for seed in (0, 1, 2)]
    with monkeypatch.context() as patched:  # a pnp killed once the proof was in place, before it sealed its manifest:
        patched.setattr("pnp.kit.select.seal", lambda path: None)  # the proof was kept for good, as a received one
        proofs.append(written(root, run(root, "build", "mini", "--sample", "1", "--seed", "3"), "mini"))
    letter = run(root, "build", "mini", "--sample", "1", "--seed", "0", "--paper", "letter")
    assert letter.exit_code == 0, letter.output
    kept_pdf, kept_manifest = proofs[1]
    proofs[2][0].unlink()  # (or a pnp killed between removing a proof and its manifest: the manifest stayed for good)
    kept_pdf.write_bytes(kept_pdf.read_bytes() + b"%the user's note\n")
    # a proof's manifest this user's pnp did not write (a received folder's, forged: it was read, its PDF hashed,
    # however large, however many hard links to one file) is never read: its proof is kept
    received = [proofs[0][0].with_name("mini-selection-deadbeef-a4.pdf"),
                proofs[0][1].with_name("manifest-selection-deadbeef.json")]
    for made, copy in zip(proofs[0], received):
        shutil.copyfile(made, copy)
    game = root / "cards/mini/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("title: ", "title: New ", 1), encoding="utf-8")
    # a pnp killed once the kit was in place and its manifest sealed, before it removed the proofs: the next build
    # found the kit up to date and kept the proofs of the game as it was, for good; now they go in the step
    # (commit_files, all or none) that puts the new kit in place
    import pnp.kit.render as render

    removed, commit = [], render.commit_files
    monkeypatch.setattr(render, "commit_files", lambda renames, gone=(): (removed.extend(p.name for p in gone),
                                                                          commit(renames, gone)))
    assert run(root, "build", "mini").exit_code == 0
    assert proofs[0][0].name in removed and proofs[0][1].name in removed
    folder = root / "output/mini"
    assert not proofs[0][0].exists() and not proofs[0][1].exists()
    assert not proofs[2][1].exists() and not proofs[3][0].exists() and not proofs[3][1].exists()
    assert kept_pdf.exists() and kept_manifest.exists()
    assert all(copy.exists() for copy in received)
    assert len(list(folder.glob("mini-selection-*-letter.pdf"))) == 1  # another build's options: its own


@pytest.mark.parametrize("count, what, said", [(1, "page", "1 page"), (2, "page", "2 pages"), (0, "item", "0 items"),
                                               (1, "file", "1 file"), (1200, "page", "1,200 pages")])
def test_a_selection_reprint_or_build_says_its_counts_with_their_nouns(count, what, said):
    # 'selection of 1 item, 1 pages' was said of a one-page proof (and '1 files' of a build, '1 pages' of a reprint)
    from pnp.report import counted  # (the one helper the command line, the proof and the messages share)
    assert counted(count, what) == said

