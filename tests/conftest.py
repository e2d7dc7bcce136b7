"""Fixtures: a throw-away game project in tmp_path, built from tests/data/base plus per-test changes."""

import contextlib
import fcntl
import functools
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from PIL import Image


from pnp.cli import cli
from skips import pytest_terminal_summary  # noqa: F401 - a hook: each run says what it skipped

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def pytest_configure(config):
    made = _bytecode_folder_of_the_run()  # (here, not on import: a script importing conftest made one for good)
    if made is not None:
        _BYTECODE_FOLDER.append(made)
    config.addinivalue_line("markers", "unforeseen: the test makes pnp meet a bug on purpose (errors.Unforeseen)")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Collecting makes the process's long-lived objects (the test modules, pnp's, their parameters), and hardly
    any garbage: made with the cyclic garbage collector paused, they are not walked by collection after
    collection as they are made (1.7 s of CPU in each worker). The tests then run with the thresholds pnp keeps
    while it checks a game (check.few_collections), for the same reason: a worker holds hundreds of MB (kits
    read back, pnp's parsed source) and makes millions of small objects, and the default thresholds had the
    collector walk them time and again (its passes took 16 s of a run's CPU, 10 to 12 s with these)."""
    import gc

    gc.disable()
    try:
        return (yield)
    finally:
        gc.set_threshold(50_000, 20, 100)
        gc.enable()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """A worker ends holding a million objects and more (kits read back, pnp's source parsed): Python's last
    collections walked them all as the process ended, for about 2 s that the run's end waited on; frozen, they
    are left to the system as the process exits."""
    import gc

    gc.freeze()
    for folder in _BYTECODE_FOLDER:
        shutil.rmtree(folder, ignore_errors=True)


def _bytecode_folder_of_the_run() -> str | None:
    """Where the environment keeps Python from writing bytecode (PYTHONDONTWRITEBYTECODE, as on CI and on this
    project's machines), every `python -m pnp` a test starts compiled pnp's 44,000 lines again: about 0.8 s of CPU
    each. The run keeps their bytecode in a temporary folder of its own instead (PYTHONPYCACHEPREFIX: nothing is
    written beside a source, as the setting wanted), made once by the run's first process and handed to the
    workers (PNP_TESTS_BYTECODE), removed as the run ends (pytest_unconfigure). Returns the folder if this process made it."""
    if not sys.dont_write_bytecode or os.environ.get("PYTHONPYCACHEPREFIX") or os.environ.get("PNP_TESTS_BYTECODE"):
        return None
    import tempfile

    folder = tempfile.mkdtemp(prefix="pnp-tests-bytecode-")
    os.environ["PNP_TESTS_BYTECODE"] = folder
    return folder


_BYTECODE_FOLDER: list[str] = []  # the folder, once this process made it (pytest_configure)


@pytest.fixture(scope="session", autouse=True)
def _pythons_the_tests_start_keep_their_bytecode():
    """The processes a test starts use the run's bytecode folder (see _bytecode_folder_of_the_run). The test
    processes themselves do not: under a prefix Python reads no library's own bytecode, and each worker compiled
    every library it imports again before its first test (3.5 s). Compiling an old library's source warns of its
    string escapes (colorspacious's "\\D"; a SyntaxWarning from Python 3.12, on a command's stderr): the library's
    text, not pnp's, so that one warning is not shown."""
    folder = os.environ.get("PNP_TESTS_BYTECODE")
    if folder and sys.dont_write_bytecode:
        os.environ["PYTHONPYCACHEPREFIX"] = folder
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"),
                                                             "ignore:invalid escape sequence"]))
    yield


@pytest.fixture
def own_disk_cache(tmp_path, monkeypatch):
    """PNP_CACHE_DIR of this test's own, and pnp's disk caches looking for their folder anew: each process looks
    once (DiskCache.folder), so without this the caches stayed in the folder of whichever test of the worker
    used them first, holding other tests' entries."""
    from pnp import template
    from pnp.draw import icons

    folder = tmp_path / "cache"
    monkeypatch.setenv("PNP_CACHE_DIR", str(folder))
    for cache in (template.CODE_CACHE, icons.FORMS):
        monkeypatch.setattr(cache, "_folder", False)
    return folder


@pytest.fixture(autouse=True)
def _no_project_kept_from_the_cache_after_its_test(monkeypatch):
    """A command keeps the cache out of its project through the environment (cache.keep_out_of), which in a
    test's process would outlive the test."""
    monkeypatch.setenv("PNP_NO_CACHE_IN", "")
    monkeypatch.delenv("PNP_NO_CACHE_IN")


@pytest.fixture(autouse=True)
def _no_bug_hidden_by_the_last_resort(request, monkeypatch):
    """pnp says a bug it meets in one line instead of a traceback (errors.unforeseen). In a test such a line
    would pass for a refusal: every one said in this process fails the test, with the bug's traceback, unless
    the test is marked `unforeseen` (it makes the bug on purpose)."""
    import traceback

    from pnp.errors import Unforeseen

    met = []
    made = Unforeseen.__init__

    def noted(self, *args, **kwargs):
        met.append(sys.exc_info()[1])  # made while handling the bug's exception
        made(self, *args, **kwargs)

    monkeypatch.setattr(Unforeseen, "__init__", noted)
    yield
    if met and request.node.get_closest_marker("unforeseen") is None:
        pytest.fail("pnp met a bug (said as an internal error):\n" + "".join(traceback.format_exception(met[0])))


@pytest.fixture(autouse=True)
def _no_game_budget_left_open():
    """A game's template budget (template.budget) open on this thread once its test is done would be joined by
    every later game of the worker, which then ran out of a time long spent (one CI run failed 350 tests so,
    far from what left it open): the test that leaves it open fails here, and the budget is closed."""
    yield
    from pnp import template

    state = template._budget
    if state.games or state.owner is not None or state.depth:
        left = f"{state.games} budget block(s), {state.depth} evaluation(s)"
        state.games, state.owner, state.depth, state.seconds_left, state.stopped = 0, None, 0, None, None
        state.memory_ceiling, state.deadline = None, None
        pytest.fail(f"the test left a game's template budget open: {left}")


@pytest.fixture(autouse=True)
def _no_signal_handler_left_changed():
    """A test that changes how the process takes Ctrl-C or a stop and leaves it so changes every later test of its
    worker (pnp simulate takes Ctrl-C as its stop only where it is Python's own): the test that leaves it changed
    fails here, and it is put back. (An alarm's handler is pnp's to leave: a game played in this process leaves
    one that passes over an alarm the kernel delivers late.)"""
    before = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    changed = [signal.Signals(number).name for number, handler in before.items() if signal.getsignal(number) != handler]
    for number, handler in before.items():
        signal.signal(number, handler)
    if changed:
        pytest.fail(f"the test left the handler of {', '.join(changed)} changed")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/data/bad/*.errors from the current output (review the diff!)")


def _link_or_copy(src, dst):
    """Hard links where the file system allows them (fast, no space), else copies: either way the files
    really are inside the project, as pnp requires of every file a game names."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _write(path, data):
    """Write a file of the throw-away project, never through a hard link into the repository's own."""
    if path.exists() and path.stat().st_nlink > 1:
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@functools.cache
def _tree(top: Path) -> tuple[tuple[str, ...], tuple[tuple[str, Path], ...]]:
    """The folders and files under `top`, each by its path relative to it (folders before what they hold),
    listed once per process: most tests make a project (golden cases, spreadsheets), and walking the same
    tree with shutil.copytree (a listing, a stat and the folder's times copied, for each) was most of the
    8 ms a project took."""
    folders, files = [], []
    for here, subfolders, names in os.walk(top):
        subfolders.sort()
        rel = os.path.relpath(here, top)
        folders.append(rel)
        files += [(os.path.normpath(os.path.join(rel, name)), Path(here) / name) for name in sorted(names)]
    return tuple(folders), tuple(files)


def _copied(top: Path, root: Path, link: bool) -> None:
    """The files under `top` put at the same places under `root`: hard links (or copies) where `link`, else
    copies of their bytes with their times, so that a test writing a file of its project never writes the
    repository's."""
    folders, files = _tree(top)
    for rel in folders:
        os.makedirs(root / rel, exist_ok=True)
    for rel, source in files:
        if link:
            _link_or_copy(source, root / rel)
        else:
            data, times = _content(source)
            (root / rel).write_bytes(data)
            os.utime(root / rel, ns=times)


@functools.cache
def _content(source: Path) -> tuple[bytes, tuple[int, int]]:
    """A file of the base game: its bytes and its times (as shutil.copy2 gave them), read once per process."""
    status = source.stat()
    return source.read_bytes(), (status.st_atime_ns, status.st_mtime_ns)


def share_repo_assets(root):
    """Give a throw-away project the repository's shared icons (fonts come with pnp)."""
    _copied(REPO / "layouts/shared", root / "layouts/shared", link=True)


def make_project(root, changes=None, images=None, case=None):
    """Copy the base mini game to `root` with the repo's fonts and icons, then apply a case's changes:
    files (text; None deletes), replace (path -> [[old, new], ...]), images (path -> [w, h] or
    {size: [w, h], truncate: bytes kept}), bytes (path -> latin-1 text), symlinks (path -> target;
    '{outside}' is a folder beside the project) and fifos (paths made named pipes)."""
    _copied(DATA / "base", root, link=False)
    share_repo_assets(root)
    case = dict(case or {})
    outside = root.parent / "outside"
    for rel, content in {**(changes or {}), **case.get("files", {})}.items():
        path = root / rel
        if content is None:
            path.unlink()
            continue
        _write(path, content.encode("utf-8"))
    for rel, pairs in case.get("replace", {}).items():
        path = root / rel
        text = path.read_text(encoding="utf-8")
        for old, new in pairs:
            assert old in text, f"{old!r} not in {rel}"
            text = text.replace(old, new, 1)
        _write(path, text.encode("utf-8"))
    for rel, raw in case.get("bytes", {}).items():
        _write(root / rel, raw.encode("latin-1"))
    for rel, spec in {**(images or {}), **case.get("images", {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        size = spec["size"] if isinstance(spec, dict) else spec
        Image.new("RGB", tuple(size), "#888888").save(path)
        if isinstance(spec, dict) and spec.get("truncate"):
            path.write_bytes(path.read_bytes()[: spec["truncate"]])
    for rel, target in case.get("symlinks", {}).items():
        path = root / rel
        if "{outside}" in target:
            outside.mkdir(exist_ok=True)
            target = target.replace("{outside}", str(outside))
            Path(target).write_text("secret: 1\n")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to(target)
    for rel in case.get("fifos", []):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    return root


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj")


def run(root, *args):
    """Run the CLI in-process; returns click's Result (exit_code, stdout, stderr)."""
    return CliRunner().invoke(cli, ["--root", str(root), *args], catch_exceptions=False)


@pytest.fixture(scope="session")
def shipped_kit(tmp_path_factory, worker_id):
    """Every shipped game built once, with the default options, for every test that reads the shipped kits
    (test_shipped_games, test_tuckbox): the build is the slowest setup of the suite, so the workers of one run
    share it, the first to ask building it under a lock while the others wait (pytest-xdist's own recipe)."""
    if worker_id == "master":  # one process: its own temporary folder is the run's
        shared = tmp_path_factory.getbasetemp()
    else:  # the workers' folders (popen-gw0, ...) sit in the run's folder, made afresh each run
        shared = tmp_path_factory.getbasetemp().parent
    out = shared / "shipped-kit"
    with open(shared / "shipped-kit.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "shipped-kit.built").exists():
            shutil.rmtree(out, ignore_errors=True)  # a worker that failed half-way left it
            result = run(REPO, "build", "--out", str(out))
            assert result.exit_code == 0, result.output
            (out / "build-output.txt").write_text(result.output, encoding="utf-8")  # (what it said, for the tests)
            (shared / "shipped-kit.built").touch()
    return out


def load_case(path):
    """A bad-input case: what to change in the base mini game, and the command to run (validate)."""
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def counted_calls(monkeypatch, module, name: str, method: str, noted=lambda argument: argument) -> list:
    """Put in `module`'s `name` a stand-in whose `method` notes `noted(its argument)` in the list returned, then
    does the real work: how often a piece of work is done, counted where it is done."""
    real = getattr(getattr(module, name), method)
    calls: list = []

    def counted(argument, *rest):
        calls.append(noted(argument))
        return real(argument, *rest)

    monkeypatch.setattr(module, name, type("Counted", (), {method: staticmethod(counted)}))
    return calls


@contextlib.contextmanager
def failing_after(seconds: int, message: str):
    """Within it, a test that waits `seconds` for good fails with `message` (SIGALRM), where it would hold its
    worker until the suite's end; the handler is put back after (a handler left in place failed a later test of
    the worker that raises SIGALRM itself)."""
    previous = signal.signal(signal.SIGALRM, lambda *a: pytest.fail(message))
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
