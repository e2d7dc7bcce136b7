"""`pnp icons`: search the whole game-icons.net set offline, and add icons to a game with their credit,
taking the drawings from the set's npm package (here a small copy made by the test, given with --package)."""

import io
import json
import os
import tarfile

import pytest

from conftest import make_project, run


@pytest.fixture
def package(tmp_path):
    """A .tgz shaped like @iconify-json/game-icons, holding two icons and an alias."""
    iconset = {"prefix": "game-icons", "width": 512, "height": 512,
               "icons": {"anchor": {"body": '<path fill="currentColor" d="M0 0h512v512H0z"/>'},
                         "ship-wheel": {"body": '<circle fill="currentColor" cx="256" cy="256" r="200"/>'}},
               "aliases": {"sattelite": {"parent": "anchor"}}}
    data = json.dumps(iconset).encode()
    path = tmp_path / "game-icons.tgz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("package/icons.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def test_search_finds_names_holding_every_word_and_a_typo_offline(tmp_path):
    result = run(tmp_path, "icons", "search", "ship", "wheel")
    assert result.exit_code == 0 and result.stdout.split() == ["ship-wheel"]
    assert "anchor" in run(tmp_path, "icons", "search", "anchr").stdout.split()
    blank = run(tmp_path, "icons", "search", " ", "")
    assert blank.exit_code == 2 and "give a word" in blank.output and "abstract" not in blank.output


def test_add_writes_the_icon_and_its_credit_and_the_game_draws_it(tmp_path, package):
    root = make_project(tmp_path / "proj")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 0, result.output
    svg = root / "layouts/mini/icons/anchor.svg"
    assert svg.read_text().startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"')
    assert 'fill="#000000"' in svg.read_text()
    credits = (root / "layouts/mini/icons/ATTRIBUTION.md").read_text()
    assert "| anchor | anchor.svg | game-icons.net" in credits and "CC BY 3.0" in credits
    again = run(root, "icons", "add", "mini", "anchor", "ship-wheel", "--package", str(package))
    assert again.exit_code == 0 and "wrote layouts/mini/icons/ship-wheel.svg" in again.stdout
    assert (root / "layouts/mini/icons/ATTRIBUTION.md").read_text().count("| anchor |") == 1
    twice = run(root, "icons", "add", "mini", "sattelite", "sattelite", "--package", str(package))
    assert twice.exit_code == 0 and "already in" not in twice.stdout  # one icon named twice, none there before
    card = (root / "layouts/mini/card.yaml").read_text()
    (root / "layouts/mini/card.yaml").write_text(card + "  - {type: icon, icon: anchor, x: 2, y: 2, w: 5}\n")
    assert run(root, "validate").exit_code == 0


def test_add_refuses_an_unknown_name_with_suggestions_and_writes_nothing(tmp_path, package):
    root = make_project(tmp_path / "proj")
    result = run(root, "icons", "add", "mini", "anchor", "anchorr", "--package", str(package))
    assert result.exit_code == 2 and "'anchorr': try anchor" in result.output
    assert not (root / "layouts/mini/icons/anchor.svg").exists()
    result = run(root, "icons", "add", "mini", "anchor", "Con", "--package", str(package))  # (a device on Windows)
    assert result.exit_code == 2 and "'Con' is a name Windows keeps for a device" in result.output, result.output
    result = run(root, "icons", "add", "mini", "", "-", "--package", str(package))  # (not the set's first names)
    assert result.exit_code == 2 and "'': try pnp icons search WORD; '-': try pnp icons search WORD" in result.output


@pytest.mark.parametrize("linked, to", [("layouts/mini/icons", "outside"), ("layouts", "outside"),
                                        ("layouts/mini/icons", "proj/.git"), ("layouts/mini/icons", "proj/cards/mini")])
def test_add_never_writes_through_a_link(tmp_path, package, linked, to):
    """layouts/ a link out, with no layouts/<game>/ behind it: its folders were made outside the project
    before the icons folder was found to lead there; and a link to .git/ or cards/ inside the project was
    written through. As every folder pnp writes into, the icons folder is reached through no link."""
    import shutil

    root = make_project(tmp_path / "proj")
    target = tmp_path / to
    target.mkdir(exist_ok=True)
    before = sorted(target.rglob("*"))
    shutil.rmtree(root / "layouts/mini/icons", ignore_errors=True)
    if linked == "layouts":
        shutil.rmtree(root / "layouts")
    (root / linked).symlink_to(target)
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code != 0 and f"{linked} is a symbolic link" in result.output, result.output
    assert sorted(target.rglob("*")) == before


def test_add_leaves_a_link_to_nothing_where_an_icon_goes(tmp_path, package):
    """The designer's link to an icon kept elsewhere, which is not there now (a shared folder not mounted), was
    replaced by the set's icon: `exists` follows the link and found nothing. An icon already there is left."""
    root = make_project(tmp_path / "proj")
    icons = root / "layouts/mini/icons"
    icons.mkdir(parents=True, exist_ok=True)
    (icons / "anchor.svg").symlink_to(tmp_path / "art/anchor.svg")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 0 and "1 already in layouts/mini/icons" in result.output, result.output
    assert os.readlink(icons / "anchor.svg") == str(tmp_path / "art/anchor.svg")
    assert not (tmp_path / "art").exists()


@pytest.mark.parametrize("alike, said", [
    ("icons/Anchor.svg", "icons/Anchor.svg: error: is there, one file with 'anchor.svg'"),
    ("icons/attribution.md", "icons/attribution.md: error: is there, one with the icons' credits file 'ATTRIBUTION.md'"),
    ("Icons/x.svg", "Icons: error: is there, one with the icons folder 'icons'"),
    ("Mini", "layouts/Mini: error: is there, one with the game's layouts folder 'mini'"),
])
def test_add_refuses_an_icon_named_as_a_file_there_but_for_its_case(tmp_path, package, alike, said):
    """Anchor.svg there: on macOS, Windows or a USB stick anchor.svg was written over it (the designer's drawing
    lost), and here beside it, two files a copy of the game on a Mac would hold as one. So were ATTRIBUTION.md
    beside the designer's attribution.md, icons/ beside their Icons/, and layouts/mini/ beside layouts/Mini/."""
    import shutil

    root = make_project(tmp_path / "proj")
    if alike == "Mini":  # the game's layouts are in layouts/Mini/ alone
        shutil.move(root / "layouts/mini", root / "layouts/Mini")
    else:
        (root / "layouts/mini" / alike).parent.mkdir(parents=True, exist_ok=True)
        (root / "layouts/mini" / alike).write_text("<svg/>")
        said = f"layouts/mini/{said}"
    before = sorted(p.relative_to(root) for p in (root / "layouts").rglob("*"))
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 2 and said in result.output, result.output
    assert sorted(p.relative_to(root) for p in (root / "layouts").rglob("*")) == before


@pytest.mark.parametrize("make, said", [
    (lambda path: path.touch() or os.truncate(path, 3 * 2**30), "ATTRIBUTION.md: error: file is larger than 20 MB"),
    (lambda path: path.write_bytes(b"# Icons\n\xff\xfe"), "ATTRIBUTION.md:2:1: error: not UTF-8 text (byte 0xff)"),
    (os.mkfifo, "ATTRIBUTION.md: error: file is a named pipe"),
])
def test_a_hostile_attribution_file_is_refused_at_it_before_any_icon_is_written(tmp_path, package, make, said):
    """The credits file the icons' rows are added to is read as any game file: a 3 GB sparse file was read
    whole (5 GB of memory), a byte that is not UTF-8 ended in a traceback."""
    root = make_project(tmp_path / "proj")
    icons = root / "layouts/mini/icons"
    icons.mkdir(parents=True, exist_ok=True)
    make(icons / "ATTRIBUTION.md")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 1 and f"layouts/mini/icons/{said}" in result.output
    assert not (icons / "anchor.svg").exists()


def test_a_package_that_is_not_the_icon_set_is_refused_by_name(tmp_path):
    root = make_project(tmp_path / "proj")
    fake = tmp_path / "fake.tgz"
    fake.write_bytes(b"not a tarball")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(fake))
    # (at the file, as every refusal at a file: it was `Error: PATH: not the ...`)
    assert result.exit_code == 2 and result.output.startswith(f"{fake}: error: not the @iconify-json/game-icons "
                                                              "package"), result.output


def _tarball(path, members):
    """A .tgz of (name, bytes) members."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("icons_json, said", [
    (b'{"icons":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "package/icons.json: error: not JSON (or nested too deep)"),
    (json.dumps({"icons": {"anchor": "x"}}).encode(), "icon 'anchor' has no 'body' text"),
    (json.dumps({"icons": {"anchor": {"body": ["x"]}}}).encode(), "icon 'anchor' has no 'body' text"),
    (json.dumps({"icons": {}, "aliases": ["x"]}).encode(), "its aliases are not a mapping"),
    (json.dumps({"icons": {}, "aliases": {"anchor": {"parent": ["x"]}}}).encode(), "has no icon 'anchor'"),
    (json.dumps({"icons": {"anchor": {"body": "", "width": '16" onload="x'}}}).encode(), "'width' is"),
    (json.dumps({"icons": {"anchor": {"body": ""}}, "height": float("nan")}).encode(), "'height' is NaN"),
    # (a whole number past any float: OverflowError, "a bug in pnp")
    (json.dumps({"icons": {"anchor": {"body": "", "width": 10**400}}}).encode(), "'width' is 1000000000"),
    (json.dumps({"icons": {"anchor": {"body": ""}}, "top": -10**400}).encode(), "'top' is -100000000"),
    # (a lone surrogate, which JSON escapes: UnicodeEncodeError once its credit was written, "a bug in pnp")
    (b'{"icons": {"anchor": {"body": "<path/>\\ud800"}}}', "'body' holds U+D800"),
    (b'{"icons": {"anchor": {"body": "<path/>\\u0001"}}}', "'body' holds U+0001"),
])
def test_a_hostile_package_icons_json_is_refused_by_name_before_anything_is_written(tmp_path, icons_json, said):
    root = make_project(tmp_path / "proj")
    package = _tarball(tmp_path / "p.tgz", [("package/icons.json", icons_json)])
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 2 and said in result.output, result.output
    assert not (root / "layouts" / "mini" / "icons").exists()  # (no icon, and no credit of one)


def test_a_package_of_many_members_or_a_pipe_is_refused_without_reading_it_all(tmp_path):
    root = make_project(tmp_path / "proj")
    # 5,000 empty members pack to a few kB; millions would unpack to gigabytes of headers
    many = _tarball(tmp_path / "many.tgz", [(f"m{i}", b"") for i in range(5_000)] + [("package/icons.json", b"{}")])
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(many))
    assert result.exit_code == 2 and "no package/icons.json among its first 100 members" in result.output
    (tmp_path / "unpacked").mkdir()
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(tmp_path / "unpacked"))
    assert result.exit_code == 2 and "unpacked: error: holds no icons.json: give the" in result.output, result.output
    os.mkfifo(tmp_path / "unpacked" / "icons.json")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(tmp_path / "unpacked"))
    assert result.exit_code == 2 and "icons.json: error: a named pipe, not an ordinary file" in result.output
    # a folder someone sent whose icons.json leads out of it: the file it leads to was read (/etc/passwd)
    (tmp_path / "linked").mkdir()
    (tmp_path / "outside.json").write_text(json.dumps({"icons": {"anchor": {"body": "<path d='M0 0'/>"}}}))
    os.symlink(tmp_path / "outside.json", tmp_path / "linked" / "icons.json")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(tmp_path / "linked"))
    assert result.exit_code == 2 and "icons.json: error: a symbolic link (to " in result.output, result.output
    assert not (root / "layouts" / "mini" / "icons" / "anchor.svg").exists()


def test_a_package_whose_extended_header_unpacks_past_the_package_is_refused_unread(tmp_path, monkeypatch):
    """tarfile reads a pax header whole, at the size its header gives: one of 1.5 GB of zeros (1.4 MB packed)
    took 3 GB and 39 s before it was refused. Here the limit is lowered, the header kept small."""
    import gzip

    from pnp.draw import iconset

    monkeypatch.setattr(iconset, "MAX_PACKAGE_BYTES", 64 * 1024)
    root = make_project(tmp_path / "proj")
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, 1024 * 1024
    bomb = tmp_path / "bomb.tgz"
    bomb.write_bytes(gzip.compress(header.tobuf(format=tarfile.USTAR_FORMAT) + b"\0" * (header.size + 1024), 1))
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(bomb))
    assert result.exit_code == 2 and "not the @iconify-json/game-icons package (it unpacks to more than" \
        in result.output, result.output
    cut = tmp_path / "cut.tgz"
    cut.write_bytes(gzip.compress(b"\0" * 2048)[:-12])  # (its end lost in a download)
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(cut))
    assert result.exit_code == 2 and f"{cut}: error: not the @iconify-json/game-icons package" in result.output


def test_an_icon_svglib_ran_out_of_time_on_is_not_read_again_for_every_face(tmp_path, monkeypatch):
    """The preview and a draft draw every face after the check: each face using an icon whose style sheet
    svglib could not finish in its 2 s spent them again (minutes of CPU before the preview came up)."""
    from pnp.draw import icons
    from pnp.errors import LimitError

    tried = []

    def too_slow(svg: bytes, digest: bytes) -> None:
        tried.append(digest)
        raise LimitError("svglib took longer than 2 s of processor time; pnp stops there")

    monkeypatch.setattr(icons, "_why_unreadable", too_slow)
    monkeypatch.setattr(icons, "_over_time", {})
    icon = tmp_path / "slow.svg"
    icon.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><style>rect{}</style></svg>')
    first = icons.unreadable(icon)
    assert first is not None and "took longer than 2 s" in first[0]
    assert icons.unreadable(icon) == first
    assert len(tried) == 1


def test_searches_and_unknown_names_past_what_a_name_holds_are_refused_at_once_cut_short(tmp_path):
    """20,000 words took 18 s to search and 300 unknown names to `icons add` 14 s (each searched for a hint);
    a word of 120,000 characters was quoted whole."""
    words = [f"zq{i}" for i in range(2000)]
    many = run(tmp_path, "icons", "search", *words)
    assert many.exit_code == 2 and "at most 12 words of at most 40 characters" in many.output
    assert len(many.output) < 400
    long = run(tmp_path, "icons", "search", "ab" * 5000)
    assert long.exit_code == 2 and "at most 12 words" in long.output and len(long.output) < 400
    assert run(tmp_path, "icons", "search", *(["ship"] * 50), "wheel").stdout.split() == ["ship-wheel"]
    root = make_project(tmp_path / "proj")
    unknown = run(root, "icons", "add", "mini", *words, "anch" + "o" * 5000 + "r")
    assert unknown.exit_code == 2 and "'zq4': try pnp icons search WORD; and 1,996 more" in unknown.output
    assert len(unknown.output) < 600


@pytest.mark.parametrize("stop_at", [".svg", "ATTRIBUTION.md"])
def test_an_icons_add_stopped_between_its_writes_leaves_no_icon_without_its_credit(tmp_path, package, monkeypatch,
                                                                                    stop_at):
    """Killed after an icon was written and before its row (the icons were written first), the icon stayed without
    its credit for good: the next `icons add` left it as it was, rows and all. The rows go first now."""
    from pnp import project as project_mod

    root = make_project(tmp_path / "proj")
    write = project_mod.write_file

    def stopped(path, data):
        if str(path).endswith(stop_at):
            raise KeyboardInterrupt  # as a kill half way
        write(path, data)

    monkeypatch.setattr(project_mod, "write_file", stopped)
    assert run(root, "icons", "add", "mini", "anchor", "--package", str(package)).exit_code != 0
    monkeypatch.setattr(project_mod, "write_file", write)
    # killed after the credits, validate said ok of the row crediting an icon that is not there
    unplaced = "icons/ATTRIBUTION.md:7:1: warning: credits the icon 'anchor', but 'anchor.svg' is not in"
    assert (unplaced in run(root, "validate", "mini").output) == (stop_at == ".svg")
    assert run(root, "icons", "add", "mini", "anchor", "--package", str(package)).exit_code == 0
    credits = (root / "layouts/mini/icons/ATTRIBUTION.md").read_text()
    assert (root / "layouts/mini/icons/anchor.svg").is_file() and credits.count("| anchor | anchor.svg |") == 1
    assert "warning" not in run(root, "validate", "mini").output


def test_icons_added_at_once_by_two_pnp_each_keep_their_credit(tmp_path, monkeypatch):
    """Two `icons add` at once each read ATTRIBUTION.md and wrote it back with its own rows: the other's icons
    were left without their credit (12 run together kept 4 rows). Threads here, a write slowed to meet."""
    import threading
    import time

    from pnp import project as project_mod
    from pnp.draw import iconset

    root = make_project(tmp_path / "proj")
    wanted = list(iconset.names()[:6])
    data = json.dumps({"prefix": "game-icons", "width": 512, "height": 512,
                       "icons": {n: {"body": '<path d="M0 0h9v9H0z"/>'} for n in wanted}}).encode()
    package = _tarball(tmp_path / "p.tgz", [("package/icons.json", data)])
    write = project_mod.write_file

    def slow_write(path, data):  # the read and the write back of the credits far apart
        time.sleep(0.02)
        write(path, data)

    monkeypatch.setattr(project_mod, "write_file", slow_write)
    project = project_mod.find(root)
    threads = [threading.Thread(target=iconset.add_icons, args=(project, "mini", [n], package)) for n in wanted]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    credits = (root / "layouts/mini/icons/ATTRIBUTION.md").read_text()
    assert [n for n in wanted if f"| {n} | {n}.svg |" not in credits] == []


@pytest.mark.parametrize("blocked", ["layouts/mini/icons", "layouts/mini"])
def test_a_file_where_the_icons_folder_goes_is_said_and_left_as_it_was(tmp_path, package, blocked):
    """A file where the icons folder (or the game's layouts folder) goes: `icons add` said it met something it
    does not handle, "a bug in pnp"; then, of one where the icons folder goes, that "something that is no ordinary
    file (a link, a pipe) is in its place", an ordinary file there."""
    import shutil

    root = make_project(tmp_path / "proj")
    shutil.rmtree(root / blocked, ignore_errors=True)
    (root / blocked).write_text("mine", encoding="utf-8")
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 2 and result.output.startswith("layouts/mini/icons: error: cannot write the icons there: "), \
        result.output
    assert "bug in pnp" not in result.output and (root / blocked).read_text(encoding="utf-8") == "mine"
    assert ("a file, not a folder, stands where their folder goes" in result.output) == blocked.endswith("icons")


@pytest.mark.parametrize("text", ["Roars at 10\\:30:45.", "Roars [[Hour:one:]] :star:", ":star::star: \\\\:star:",
                                  "[[" + "x" * 61 + ":star:]]"])
def test_the_icons_a_text_is_checked_for_are_those_it_draws(text):
    from pnp.draw.text import parse
    from pnp.model.schema import icons_in
    assert icons_in(text) == [run.text for run in parse(text) if run.kind == "icon"]


def test_an_escaped_colon_in_card_text_names_no_icon(tmp_path):
    # '\:' is a colon that starts no icon (reference.md): '10\:30:45' printed as typed, yet validate refused it
    # as an unknown icon ':30:', so the documented escape could not be used on a card
    root = make_project(tmp_path / "proj", case={"replace": {"cards/mini/cards.yaml": [
        ["Roars :star: loudly.", "Roars at 10\\\\:30:45 :star:"]]}})
    result = run(root, "validate")
    assert result.exit_code == 0, result.output


def test_an_icon_is_drawn_once_to_be_checked_and_counted_with_the_disk_cache_off(tmp_path, monkeypatch):
    """With PNP_CACHE_DIR=off, each look at an icon (validation's, each form's, its paints') drew it again in
    the game's time, under `metered`'s tracing: DinoSpan drew its 50 icons 270 times (a second of its budget),
    and once more to count what each paints."""
    from pnp.draw import icons

    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    monkeypatch.setattr(icons.FORMS, "_folder", False)
    drawn = []
    operators = icons._operators

    def counted(*args: object, **kwargs: object) -> object:
        drawn.append(args[1])
        return operators(*args, **kwargs)

    monkeypatch.setattr(icons, "_operators", counted)
    icon = tmp_path / "fresh.svg"  # (content no other test draws: nothing known of it yet)
    icon.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                    '<rect x="1" y="2" width="3" height="4" fill="#123457"/><circle cx="5" cy="5" r="2"/></svg>')
    assert [icons.unreadable(icon) for _ in range(3)] == [None] * 3
    assert icons.icon_paints(icon) == 2 and icons.icon_paints(icon) == 2
    assert len(drawn) == 1


def test_running_out_of_memory_checking_an_icon_is_not_kept_as_its_verdict(tmp_path, monkeypatch, own_disk_cache):
    """MemoryError (the machine's, or a limit set on pnp) drawing an icon to check it was caught as the file's
    fault and kept on disk: every later run refused the icon, "cannot be drawn: MemoryError"."""
    from pnp.draw import icons

    icon = tmp_path / "fresh.svg"  # (content no other test draws: nothing known of it yet)
    icon.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="4" cy="6" r="3"/></svg>')
    monkeypatch.setattr(icons, "_over_time", {})
    monkeypatch.setattr(icons, "_checked", {})

    def out_of_memory(svg: bytes, digest: bytes) -> None:
        raise MemoryError()

    with monkeypatch.context() as short:
        short.setattr(icons, "_drawing_problem", out_of_memory)
        said = icons.unreadable(icon)
    assert said is not None and "ran out of memory" in said[0]
    monkeypatch.setattr(icons, "_over_time", {})  # (a later run)
    monkeypatch.setattr(icons, "_checked", {})
    assert icons.unreadable(icon) is None


def test_an_icon_is_drawn_from_the_bytes_that_were_checked(tmp_path, monkeypatch):
    """An icon's file was read to be drawn, then read again to be checked: a file saved over between the two
    readings (an editor saving it as pnp draws) was drawn unchecked. The bytes drawn are the bytes checked."""
    from reportlab.lib import colors

    from pnp.draw import icons
    from pnp.draw.canvas import new_canvas
    from pnp.errors import DataError

    refused = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text>hi</text></svg>'
    accepted = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="5" height="5"/></svg>'
    icon = tmp_path / "swapped.svg"
    icon.write_bytes(accepted)
    readings = iter([refused])  # the first reading finds the file refused, every later one the file accepted
    monkeypatch.setattr(icons, "read_icon", lambda path, beneath=None: next(readings, accepted))
    monkeypatch.setattr(icons, "_checked", {})
    monkeypatch.setattr(icons, "_forms", {})
    with pytest.raises(DataError) as raised:
        icons.draw_icon(new_canvas(io.BytesIO(), "Helvetica"), icon, 0, 0, 10, 10, colors.black)
    assert raised.value.message.startswith("icon 'swapped': ") and "<text>" in raised.value.message


def test_an_embedded_jpeg_or_png_pillow_cannot_open_is_said_as_what_it_is():
    """A 12-bit JPEG embedded in an icon was said to be "not a PNG or JPEG image": it is said as the JPEG it is,
    in pnp's words, as a game's own picture is; a PNG of a bit depth its colour type does not have too."""
    import base64
    import zlib

    from PIL import Image

    from pnp.draw import icons

    jpeg = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(jpeg, "JPEG")
    frame = jpeg.getvalue().index(b"\xff\xc0")
    deep = jpeg.getvalue()[:frame + 4] + bytes([12]) + jpeg.getvalue()[frame + 5:]

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return len(payload).to_bytes(4, "big") + kind + payload + zlib.crc32(payload, zlib.crc32(kind)).to_bytes(4, "big")

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", (8).to_bytes(4, "big") * 2 + bytes([3, 0, 0, 0, 0]))
           + chunk(b"IDAT", zlib.compress(bytes(72))) + chunk(b"IEND", b""))
    said = [icons._embedded_problem(base64.b64encode(data).decode())[0] for data in (deep, png, b"GIF89a")]
    assert said[0].startswith("cannot be used: a JPEG of 12-bit samples"), said
    assert said[1].startswith("cannot be used: a PNG of a bit depth (3) and colour type (0)"), said
    assert said[2] == "is not a PNG or JPEG image", said


def test_an_icons_long_names_and_values_are_quoted_cut_short_as_every_message_quotes_them(tmp_path):
    """An icon's media query was quoted whole (one of 5,000 characters made a line of 5,000), and its lengths, ids
    and references outside it were cut by hand each its own way: each is quoted as every message quotes a name."""
    from pnp.draw import icons
    from pnp.report import QUOTE_LIMIT

    long = "x" * 5000
    svgs = {"media": f'<style>@media ({long}: 1) {{ rect {{ fill: red }} }}</style><rect width="5" height="5"/>',
            "length": f'<rect width="5{long}" height="5"/>',
            "id": f'<rect id="{long}" width="5" height="5"/><rect id="{long}" width="5" height="5"/>'
                  f'<use href="#{long}"/>',
            "outside": f'<image width="5" height="5" href="https://{long}.png"/>'}
    for name, body in svgs.items():
        icon = tmp_path / f"{name}.svg"
        icon.write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{body}</svg>')
        found = icons.unreadable(icon)
        assert found is not None and "x" * QUOTE_LIMIT not in found[0] and "x" * (QUOTE_LIMIT - 10) + "…" in found[0], \
            (name, found[0][:300])


def test_add_refuses_a_folder_where_an_icon_goes(tmp_path, package):
    """A folder named as the icon's file was counted "1 already in", exit 0: the icon was never there."""
    root = make_project(tmp_path / "proj")
    (root / "layouts/mini/icons/anchor.svg").mkdir(parents=True)
    result = run(root, "icons", "add", "mini", "anchor", "--package", str(package))
    assert result.exit_code == 2 and "already in" not in result.output, result.output
    assert "layouts/mini/icons/anchor.svg: error: a folder stands where the icon 'anchor' goes" in result.output


def test_an_icons_add_killed_while_writing_leaves_no_hidden_file_for_good(tmp_path, package):
    """SIGKILLed while it wrote an icon or the credits, `icons add` left .anchor.svg.pnp-<hex>.tmp (or
    .ATTRIBUTION.md.pnp-<hex>.tmp) in the designer's icons folder, which no later run removed. The next removes
    them; another file's temporary written a moment ago is kept."""
    root = make_project(tmp_path / "proj")
    icons = root / "layouts/mini/icons"
    icons.mkdir()
    from pnp.errors import temporary_name

    left = [icons / temporary_name("anchor.svg", "01234567"), icons / temporary_name("ATTRIBUTION.md", "ba987654")]
    for path in left:
        path.write_bytes(b"<svg")
    own = icons / temporary_name("notes.txt", "01234567")  # another file's, written a moment ago: perhaps a live pnp's
    own.write_bytes(b"mine")
    assert run(root, "icons", "add", "mini", "anchor", "--package", str(package)).exit_code == 0
    assert not any(p.exists() for p in left) and own.read_bytes() == b"mine"
    assert (icons / "anchor.svg").is_file()


def test_a_long_chain_of_icon_aliases_is_followed_once_for_all_its_names():
    # each alias's chain was followed from its start, at each check and each suggestion: 20,000 aliases in a chain
    # (a0: a1, a1: a2...) took minutes to validate; a circle still stops where it comes round
    import time

    from pnp.model.icons import IconIndex

    index = IconIndex.__new__(IconIndex)  # (no folder: the aliases alone)
    index.aliases = {f"a{i}": f"a{i + 1}" for i in range(5_000)} | {"a5000": "coin", "x": "y", "y": "x", "w": "x"}
    index._resolved = {}
    start = time.perf_counter()
    assert all(index._resolve(f"a{i}") == "coin" for i in range(5_001))
    assert [index._resolve(name) for name in ("w", "y", "x", "w", "coin")] == ["x", "y", "x", "x", "coin"]
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize("checks, body", [
    ("_element_problem", '<rect width="1" height="1"/>' * 2_000),
    ("_refused", '<path d="M0 0' + " 1 1" * 10_010 + '"/>'),
])
def test_an_icon_of_too_many_elements_is_refused_before_each_is_checked(monkeypatch, checks, body):
    """Each element's checks took 65 us: an icon of 20,000 elements was checked whole before it was refused for
    them (200 such icons, 25 s outside the game's time budget); a path's numbers took 0.4 s per MB to check before
    it was refused for their count. Counted first, each is refused unchecked."""
    from pnp.draw import icons

    def checked(node, *args):
        assert node.tag.endswith("}svg"), "an element of an icon of too many elements was checked"
        return None

    monkeypatch.setattr(icons, checks, checked)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 9 9">{body}</svg>'.encode()
    problem = icons._outside_reference(svg)
    assert problem is not None and "more than 2,000 elements and attributes" in problem[0]



def test_an_icon_too_large_is_named_from_the_project_folder(tmp_path):
    """A refused icon file is named as every message names a file (from the project's folder), never by the
    computer's whole path."""
    from pnp.draw import icons
    from pnp.errors import DataError

    icon = tmp_path / "layouts" / "shared" / "icons" / "big.svg"
    icon.parent.mkdir(parents=True)
    icon.write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'>" + b" " * icons.MAX_ICON_BYTES + b"</svg>")
    with pytest.raises(DataError) as raised:
        icons.read_icon(icon, tmp_path)
    assert raised.value.mark is not None and raised.value.mark.file == "layouts/shared/icons/big.svg"
