"""The pnp command line: validate, build, list. No logic here beyond wiring and printing."""

import contextlib
import errno
import io
import os
import re
import socket
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import click

from . import __version__, cache, project as project_mod, ready_for_interrupts
from .errors import PnpError, UsageError, cannot_write, unforeseen
from .report import Diagnostic, Report, bounded_message, counted, printable, shell_word, shown
from .units import IMPOSITIONS, MARK_STYLES, PAPER_SIZES

if TYPE_CHECKING:
    from urllib.parse import ParseResult

    from .export.registry import ExportFormat
    from .kit import Outcome
    from rich.progress import Progress, TaskID, TextColumn

    from .kit.changes import State
    from .kit.select import Selection
    from .project import Project
    from .units import PrintOptions

EPILOG = "Exit status: 0 ok, 1 invalid data or failed build, 2 usage error (unknown game, bad option)."


# a number on the command line: plain ASCII decimals only. Python's int() and float(), and click's types after
# them, also read '1_0' as 10, Arabic-Indic or fullwidth digits, 'inf' and 'nan': a typo passed as a number
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_WHOLE_TEXT = re.compile(r"[+-]?[0-9]+")


def _check_plain(kind: click.ParamType, value: Any, param: click.Parameter | None, ctx: click.Context | None,
                 whole: bool) -> None:
    """Fail `kind`'s conversion of a command-line value that is not a number written plainly (a default
    already is a number)."""
    if isinstance(value, str) and not (_WHOLE_TEXT if whole else _DECIMAL_TEXT).fullmatch(value.strip()):
        example = "a whole number such as 12" if whole else "a decimal number such as 2.5"
        kind.fail(f"{value!r} is not {example} (digits 0-9 only).", param, ctx)


def _in_range(kind: "click.FloatRange | click.IntRange", convert: Callable[[], Any], value: Any,
              param: click.Parameter | None, ctx: click.Context | None) -> Any:
    """`convert()`, a range's conversion of a plain number, failing out of range with the value as typed: click
    said the number it read, `--bleed` of 400 nines as 'inf is not in the range 0<=x<=6', `--jobs -0` as 0, and
    quoted a 400-digit --jobs whole."""
    try:
        return convert()
    except click.BadParameter:
        if not isinstance(value, str) or kind.min is None or kind.max is None:
            raise
        ends = [f"{end:,}" if isinstance(end, int) else f"{end:g}" for end in (kind.min, kind.max)]
        kind.fail(f"{shown(value.strip())} is out of range: give a number from {ends[0]} to {ends[1]}.", param, ctx)


class _NumberRange(click.FloatRange):
    """A FloatRange of plain decimals (which leaves out nan: it compares false with both bounds, and no
    imposition counts cards on a page nan millimetres wide)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        _check_plain(self, value, param, ctx, whole=False)
        return _in_range(self, lambda: super(_NumberRange, self).convert(value, param, ctx), value, param, ctx)


class _WholeRange(click.IntRange):
    """An IntRange of plain whole numbers."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        _check_plain(self, value, param, ctx, whole=True)
        return _in_range(self, lambda: super(_WholeRange, self).convert(value, param, ctx), value, param, ctx)


class _NamedPath(click.Path):
    """click.Path, never empty: `--out "$DIR"` with DIR unset (an empty text) was taken as no --out at all, and
    the build replaced the kit in output/ (or --root "" checked the current folder), exit 0; a name of spaces
    alone made a folder no one can see in a listing."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():  # (`--out "$A $B"`, both unset, is a space)
            said = "is empty" if value == "" else "is only spaces"
            self.fail(f"{value!r} {said}: name a folder or file (or leave the option out for its default).",
                      param, ctx)
        ending = project_mod.folder_ending(os.fsdecode(value)) if isinstance(value, (str, bytes)) else ""
        if ending and not self.dir_okay:  # (Python's paths drop a trailing '/': a file of that name was written)
            self.fail(f"{printable(os.fsdecode(value))!r} ends in {ending!r}, which names a folder: name a file.",
                      param, ctx)
        # (in pnp's words, not click's "Directory 'f.txt' is a file." or "File 'cards' is a directory.")
        if not self.file_okay and isinstance(value, (str, bytes)) and os.path.isfile(value):
            self.fail(f"{printable(os.fsdecode(value))!r} is a file, not a folder: name a folder.",
                      param, ctx)
        if not self.dir_okay and isinstance(value, (str, bytes)) and os.path.isdir(value):
            self.fail(f"{printable(os.fsdecode(value))!r} is a folder, not a file: name a file.", param, ctx)
        converted = super().convert(value, param, ctx)
        if not self.file_okay:  # (click refuses an ordinary file there, not a named pipe or a device)
            kind = project_mod.special_file(converted)  # (None too for nothing there yet: made when written)
            if kind is not None:
                self.fail(f"{printable(os.fsdecode(converted))!r} is {kind}, not a folder.", param, ctx)
            self._leads_somewhere(converted, param, ctx)
        return converted

    def _leads_somewhere(self, path: Any, param: click.Parameter | None, ctx: click.Context | None) -> None:
        """Fail for a folder named through a symbolic link to nothing (the folder itself, or one it is in): the folder
        cannot be made there, and each command said "cannot write to LINK: File exists", the system's word for
        making a folder where the link is."""
        try:
            walked = Path(os.path.abspath(os.fsdecode(path)))  # (abspath drops a trailing '/', which follows the link)
            for link in [*reversed(walked.parents), walked]:
                if link.is_symlink() and not _leads_anywhere(link):
                    self.fail(f"{printable(str(link))!r} is a symbolic link to {printable(os.readlink(link))!r}, which "
                              "does not exist: make that folder, or name another.", param, ctx)
        except (OSError, ValueError, TypeError):  # (unreadable: the command says why when it writes)
            return


class _Choice(click.Choice):
    """click.Choice read in any case of its ASCII letters, as every choice option of every command reads its value
    (`--paper LETTER` worked where `--imposition GUTTERFOLD` and `--format PNG` were refused): the value given is the
    choice as written in pnp's list. Only A-Z are folded, not click's casefold, which reads other letters as ASCII
    ones too (the long s 'ſ' as 's': `--format tt\u017f` was tts); the help lists the choices as before."""

    def __init__(self, choices: "Iterable[str]") -> None:
        super().__init__(choices, case_sensitive=True)  # (the folding is normalize_choice's, below)

    def normalize_choice(self, choice: object, ctx: click.Context | None) -> str:
        return _folded(super().normalize_choice(choice, ctx))


def _folded(value: str) -> str:
    """A choice's value as pnp reads it: its ASCII capitals as small letters (a list of choices, --agents, too)."""
    return value.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _agent_named(name: str) -> str:
    """An --agents name as pnp reads it: folded as a choice is where that names an agent, else as typed, so that
    the refusal quotes what was typed (`x\\x1b[2Jy` was quoted as 'x\\x1b[2jy')."""
    from .simulate.agents import make_agent

    folded = _folded(name)
    try:
        make_agent(folded)
    except ValueError:
        return name
    return folded


def _leads_anywhere(link: Path) -> bool:
    """Whether the symbolic link `link` leads to something (or cannot be told: a loop of links is said as one where
    the command follows it)."""
    try:
        os.stat(link)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        pass
    return True


class _Whole(click.types.IntParamType):
    """click.INT, of plain whole numbers."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        _check_plain(self, value, param, ctx, whole=True)
        return super().convert(value, param, ctx)


def _print_report(report: Report, what: str) -> None:
    for line in report.printed():
        click.echo(line, err=True)
    click.echo(report.summary(what), err=True)


class _Group(click.Group):
    """Shows a PnpError that escapes a command as click shows its own: one line, exit code 2 for a usage
    error and 1 otherwise (pnp's errors know nothing of click). Any other exception is a bug in pnp, shown
    the same way at the input it was working on (errors.unforeseen), never as a traceback."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as e:  # `pnp --<ESC>[2J`: click's own message quotes the option
            raise _printable(e) from None

    def invoke(self, ctx: click.Context) -> Any:
        _print_any_name()
        try:
            return super().invoke(ctx)
        except PnpError as e:
            raise _shown(e) from None
        except click.ClickException as e:
            raise _printable(e) from None
        except (click.exceptions.Exit, click.Abort):
            raise
        except Exception as e:  # noqa: BLE001 - the last resort: a bug in pnp, said in one line with its place
            if isinstance(e, OSError) and e.filename is None:  # what pnp prints could not be written: main says so
                raise
            raise _shown(unforeseen(e, f"pnp {ctx.invoked_subcommand or ''}".strip())) from None


def _print_any_name() -> None:
    """Standard output shows a text that is not UTF-8 escaped (\\udcff), as standard error does: a name the
    system allows (--out a folder named with the byte 0xff) was printed after the build with Python's strict
    UTF-8 of most locales, and failed there as a bug in pnp. Python's UTF-8 mode (the C and POSIX locales) writes
    with surrogateescape, which writes such a byte back but fails on any other lone surrogate (a template's
    "\\udc00" in a glossary term a message quotes: `validate --json` failed as a bug in pnp): escaped too."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None and getattr(sys.stdout, "errors", None) in ("strict", "surrogateescape"):
        reconfigure(errors="backslashreplace")


def _shown(error: PnpError) -> click.ClickException:
    """A pnp error as click shows its own, or, when it names its place in a file, as every message about a file
    is shown (`file:line:col: error: ...`, report.Diagnostic): `pnp convert` said click's `Error: file:line:col:
    ...`, where validate and build say the house form an editor and a script read."""
    if error.mark is not None:  # (a Diagnostic's line is bounded and printable already; its place said whole:
        # a file's path cut in its middle would no longer name it, nor an editor open at its line)
        at_its_place = _AtItsPlace(str(Diagnostic("error", error.message, error.mark)))
        at_its_place.exit_code = error.exit_code  # type: ignore[misc]  # click sets it per class; this one is pnp's
        return at_its_place
    shown = click.ClickException(str(error))  # (bounded once, by _printable: a part pasted is marked till then)
    shown.exit_code = error.exit_code  # type: ignore[misc]
    return _printable(shown)


class _AtItsPlace(click.ClickException):
    """A refusal that says its own place and severity (`file:line:col: error: ...`): shown as it is, without
    click's `Error: ` before it."""

    def show(self, file: Any = None) -> None:
        click.echo(self.format_message(), file=file if file is not None else sys.stderr)


def _printable(error: click.ClickException) -> click.ClickException:
    """The error with each line of its message printable (report.printable): a value of the command line
    quoted in it (`pnp serve $'x\\e[2J'`, an unknown game, agent or option) cleared the terminal or
    forged its words, where the messages of data files already said such characters as escapes. Bounded as
    pnp's own messages are (bounded_message): click quotes an option's value whole, and `--paper` of 50,000
    letters was said in a line of 50 KB."""
    error.message = "\n".join(  # type: ignore[misc]  # click's own attribute, said anew
        printable(line) for line in bounded_message(error.message).split("\n"))
    return error


@click.group(cls=_Group, epilog=EPILOG)
@click.version_option(__version__, prog_name="pnp")
@click.option("--root", type=_NamedPath(file_okay=False), default=None,
              help="The game project folder holding cards/ and layouts/ (default: the current folder).")
@click.pass_context
def cli(ctx: click.Context, root: str | None) -> None:
    """pnp turns a game's YAML card data and layouts into validated, print-ready PDFs.

    \b
    Typical use, in a folder holding cards/ and layouts/:
      pnp list                 the games found and what is in each box
      pnp validate             check the data of every game
      pnp build                build every game: output/<game>/*.pdf + manifest.json
      pnp build evo --paper letter --bleed 3
      pnp export evo --format tts   images for Tabletop Simulator (pnp export --help: every format)
      pnp changes evo          the cards changed since the last build (--since a commit)
      pnp report evo           the design report: every table charted, the game's views, the rules' margins
      pnp simulate dino-battles --games 500 --agents random,mcts   self-play with cards/<game>/rules.py
      pnp serve evo            a live preview in the browser, updated on every save
      pnp new mygame           start a game of your own that builds at once
      pnp icons search anchor  find icons among game-icons.net's 4,000 (pnp icons add GAME NAME copies one)
      pnp reference            everything a layout or game.yaml can say
    """
    if root is not None and os.path.isabs(root) and not _current_folder_there():
        # run in a folder deleted since, with an absolute --root: work from the root (ReportLab asks for the
        # current folder as it is imported, and every command given --root was told to 'give --root'); a
        # relative --root is not guessed at, the folder it was relative to being gone, and said so
        with contextlib.suppress(OSError):
            os.chdir(root)
    ctx.obj = root


def _project(ctx: click.Context) -> "Project":
    project = project_mod.find(ctx.obj)
    cache.keep_out_of(*_as_received(project))  # a cache inside them would be their sender's
    return project


def _as_received(project: "Project") -> list[Path]:
    """The folders that may have come with a game someone sent: the project's, and the work tree of the git
    repository it is in (a pull request to a repository holding the project in a subfolder), unless that holds
    the user's home folder (a repository of the user's own files, ~ itself, holds every project they have)."""
    found = project_mod.repository(project.root)
    try:
        home: Path | None = Path.home().resolve()
    except (RuntimeError, OSError):  # (no home folder known)
        home = None
    sent = found is not None and not (home is not None and home.is_relative_to(found[1].resolve()))
    return [project.root] + ([found[1]] if found is not None and sent else [])


@cli.command(epilog=EPILOG)
@click.argument("games", nargs=-1)
@click.option("--json", "as_json", is_flag=True,
              help="Print the problems as one JSON document on standard output (for editors and CI): each with "
                   "its severity, code, message, file, line, col and the item it concerns, then the counts.")
@click.option("--imposition", type=_Choice(IMPOSITIONS), default="duplex", show_default=True,
              help="Check the kit `pnp build --imposition` makes with this imposition (gutterfold prints each "
                   "front and its back on the halves of one A4 page; cards too large for half of it are said, and "
                   "print front and back on separate sheets, to glue back to back).")
@click.pass_context
def validate(ctx: click.Context, games: tuple[str, ...], as_json: bool, imposition: str) -> None:
    """Check games' data against their rules model and layouts (all games when none are named).

    Prints one line per problem as path:line:col: error: message, then a summary.
    """
    from .check import validate as validate_game
    from .draw.pictures import checked_only
    from .units import PrintOptions

    project = _project(ctx)
    selected = project.select(games)
    report = Report(project.root)
    options = PrintOptions(imposition=imposition) if imposition != "duplex" else None  # (None: the default kit's)
    with checked_only():  # (nothing is drawn after)
        for game_id in selected:
            validate_game(project, game_id, report, options)
    what = f"validated {len(selected)} game{'s' * (len(selected) != 1)}"
    if as_json:
        import json

        click.echo(json.dumps(report.as_json(what), indent=2, ensure_ascii=False))
    else:
        _print_report(report, what)
    ctx.exit(report.exit_code)


@cli.command(epilog=EPILOG)
@click.argument("games", nargs=-1)
@click.option("--paper", type=_Choice(PAPER_SIZES), default="a4",
              show_default=True, help="Paper size of the printable PDFs.")
@click.option("--out", "out_dir", type=_NamedPath(file_okay=False), default=None,
              help="Write to DIR/<game>/ instead of output/<game>/.")
@click.option("--bleed", type=_NumberRange(0, 6), default=0.0, show_default=True,
              help="Bleed in mm printed around each card (3 for most print shops; 0 for home printing).")
@click.option("--ink-saver", is_flag=True,
              help="Print large areas of colour (card backs, boards' backgrounds) as their outline on white paper, "
                   "keeping everything that carries information: well under half the ink. Files get '-inksaver' "
                   "in their names.")
@click.option("--imposition", type=_Choice(IMPOSITIONS), default="duplex", show_default=True,
              help="duplex: backs on the following page, for double-sided printing; gutterfold: fronts and "
                   "backs side by side on one page, to fold together (for single-sided printers; what is too large "
                   "for half a page prints its backs on sheets of their own, to glue on).")
@click.option("--duplex-offset", metavar="X,Y", default="0,0", callback=lambda ctx, param, value: _offset(value),
              help="Millimetres your printer misplaces the back of a page, as read on `pnp calibrate`'s sheet; "
                   "back pages are moved to make up for it, and sheets with backs keep margins that much wider so nothing "
                   "moves off the paper (duplex imposition only).")
@click.option("--marks", type=_Choice(MARK_STYLES), default="lines", show_default=True,
              help="Crop marks: lines continue every cut into the margins; corners mark each card's corners "
                   "(between cards too, where they are spaced apart); none for a cutting machine. Outside the "
                   "cut and 5 mm clear of the paper's edge. Files get '-cornermarks' or '-nomarks' in their "
                   "names.")
@click.option("--draft", is_flag=True,
              help="Build even with errors: every card that can be drawn is, a card with an error is drawn "
                   "marked with its messages (the rest as usual), in files named '-draft' that cannot pass for a "
                   "print-ready kit. Still exits 1 while there are errors.")
@click.option("--jobs", "-j", type=_WholeRange(1, 64), default=None, metavar="N",
              help="Build N games at once, each in its own process, at most one per core, drawn at once while "
                   "the memory their checks measured fits in 700 MB together [default: the number of cores].")
@click.option("--force", is_flag=True,
              help="Rebuild even the games whose data, layouts, fonts, options and pnp itself did not change "
                   "since their last build.")
@click.option("--changed-since", "since", metavar="MANIFEST|COMMIT", default=None,
              help="Also write <game>-reprint-<key>-<paper>.pdf (<key> names MANIFEST|COMMIT) holding only the "
                   "cards and components added or changed since that build's manifest.json or that git commit "
                   "(fronts with their backs).")
@click.option("--only", metavar="EXPR", default=None,
              help="Proof only the items for which this expression is true, e.g. \"card.era == 'Triassic'\" "
                   "(items as layouts see them); writes <game>-selection-<key>-<paper>.pdf (<key> names the "
                   "selection), not the kit.")
@click.option("--component", "components", metavar="ID", multiple=True,
              help="Proof only this component (repeat for more); writes the selection PDF, not the kit.")
@click.option("--sample", type=_WholeRange(1, 100_000), default=None, metavar="N",
              help="Proof N items picked at random (among those --only and --component keep).")
@click.option("--seed", type=_WholeRange(0, 2**63 - 1), default=0, show_default=True,
              help="The random seed of --sample, from 0: the same seed picks the same items.")
@click.pass_context
def build(ctx: click.Context, games: tuple[str, ...], paper: str, out_dir: str | None, bleed: float, ink_saver: bool,
          imposition: str, duplex_offset: tuple[float, float], marks: str, draft: bool, jobs: int | None, force: bool,
          since: str | None, only: str | None, components: tuple[str, ...], sample: int | None, seed: int) -> None:
    """Validate, then build games' PDFs (all games when none are named).

    \b
    Writes output/<game>/ (or --out DIR/<game>/):
      <game>-<paper>.pdf          everything: rulebook, cards, tokens, boards, aids, dice
      <game>-<kind>-<paper>.pdf   one file per kind of component
      <game>-boards-fullsize.pdf  boards on one page each, for a print shop
      manifest.json               components, counts, sizes, pages, file checksums and the inputs built from
    Every option that is not the home kit's is in the names (evo-letter-bleed3mm-inksaver.pdf,
    manifest-letter-bleed3mm-inksaver.json), so no build overwrites another's files. A game whose inputs did not
    change since its last build with the same options is not built again ("up to date"; --force builds it
    anyway). A game whose data is invalid is not built, and its previous output is left as it was. A second
    build of a game while one writes its folder waits for it.
    """

    from .kit import build_games, default_jobs
    from .units import MM, PrintOptions

    _unread_build_options(ctx, sample, imposition, duplex_offset)
    project = _project(ctx)
    selected = project.select(games)
    options = PrintOptions(paper.lower(), bleed * MM, ink_saver, imposition, (duplex_offset[0] * MM, duplex_offset[1] * MM),
                           marks, draft)
    force = force or draft  # a draft is drawn again every time: its errors are said again
    out_root = _out_root(project, out_dir, selected)
    from .kit.select import Selection

    selection = Selection(only, tuple(components), sample, seed)
    if selection and since is not None:  # a selection writes a proof, not the kit: the reprint asked for was never written
        raise UsageError("--changed-since writes a reprint beside the kit; --only, --component and --sample write "
                         "a proof instead of the kit: give one or the other")
    if only is not None:  # said at once, not after the games are loaded and checked (seconds each)
        _check_only_syntax(only)
    if selection:
        ctx.exit(_build_selection(project, selected, options, out_root, selection))
    from .kit.changes import states_before

    # (--changed-since "" is a state asked for, refused as such: it built the kit, no reprint, exit 0)
    before = states_before(project, selected, since, options, out_root) if since is not None else {}
    outcomes = build_games(project, selected, options, out_root, jobs or default_jobs(), force, _progress())
    report = Report(project.root)
    built = 0
    for outcome in outcomes:
        report.diagnostics += outcome.diagnostics
        if outcome.status in ("built", "up to date", "draft"):
            built += 1
            where = f"{_shown_path(project, Path(outcome.files[0]).parent)}/{outcome.all_name}"
            said = "up to date" if outcome.status == "up to date" else counted(len(outcome.files), "file")
            if outcome.status == "draft":
                said = f"DRAFT, not for print ({counted(outcome.marked, 'item')} marked with " \
                       f"errors), {said}"
            click.echo(f"{outcome.game_id}: {said}, {counted(outcome.pages, 'page')} in {where}")
            if outcome.game_id in before:
                _reprint(project, outcome, before[outcome.game_id], options, report)
    _print_report(report, f"built {built} of {len(selected)} game{'s' * (len(selected) != 1)}")
    ctx.exit(report.exit_code)


def _unread_build_options(ctx: click.Context, sample: int | None, imposition: str,
                          duplex_offset: tuple[float, float]) -> None:
    """UsageError, before any work, for an option of `pnp build` that what else was given does not read: it was
    left unused without a word, exit 0, as export's options a format does not read were (_taken_by)."""
    if sample is None and ctx.get_parameter_source("seed") not in (None, click.core.ParameterSource.DEFAULT):
        # (it was left unused without a word: the user believed the kit or proof drawn at random by that seed)
        raise UsageError("--seed: only --sample reads it (the seed of its random pick); give --sample N or leave "
                         "--seed out")
    if imposition == "gutterfold" and any(duplex_offset):
        # (no back page of a gutterfold kit is moved: it built a kit like the gutterfold one under names of its own)
        raise UsageError("--duplex-offset: a gutterfold kit is printed single-sided, so no back page is moved to "
                         "make up for a duplex printer (only --imposition duplex reads it); leave it out")


def _check_only_syntax(only: str) -> None:
    """UsageError for an --only expression that is not one (a syntax error, or nothing)."""
    from .template import ExprError, compile_expression

    if not only.strip():  # (Jinja's own words, "unexpected 'end of template'", said nothing of what to give)
        raise UsageError(f"--only {only!r}: an empty expression; give one that is true of the items to proof, "
                         "such as \"card.era == 'Triassic'\"")
    try:
        compile_expression(only)
    except ExprError as e:
        raise UsageError(f"--only {only!r}: {e.message}") from None


def _build_selection(project: "Project", games: list[str], options: "PrintOptions", out_root: Path,
                     selection: "Selection") -> int:
    """A proof of part of each game, beside its kit (kit.select.proof); returns the exit code."""
    from .kit.select import proof

    report = Report(project.root)
    for game_id in games:
        done = proof(project, game_id, options, selection, out_root / game_id, report)
        if done is not None:
            pdf, pages, count = done
            click.echo(f"{game_id}: selection of {counted(count, 'item')}, {counted(pages, 'page')} in "
                       f"{_shown_path(project, pdf)}")
    _print_report(report, f"proofed {len(games)} game{'s' * (len(games) != 1)}")
    return report.exit_code


def _reprint(project: "Project", outcome: "Outcome", state: "State", options: "PrintOptions",
             report: Report) -> None:
    """Say the reprint of what changed since `state`, written beside the game's kit (kit.changes); a reprint
    that cannot be written (a folder or a read-only file in its place) is an error in `report`."""
    from .kit.changes import write_reprint

    folder = Path(outcome.files[0]).parent
    try:
        done = write_reprint(project, outcome.game_id, folder, state, options)
    except UsageError as e:  # a file of the user's at the reprint's name
        report.error(f"{outcome.game_id}: reprint failed: {e.message}", e.mark)
        return
    except OSError as e:
        refused = cannot_write(project.rel(folder), e, project.rel)
        report.error(f"{outcome.game_id}: reprint failed: {refused.message}", refused.mark)
        return
    if done.path is None:
        click.echo(f"{outcome.game_id}: nothing added or changed since {done.since}; no reprint")
        return
    click.echo(f"{outcome.game_id}: reprint of {counted(done.items, 'item')} changed since "
               f"{done.since}, {counted(done.pages, 'page')} in {_shown_path(project, done.path)}")
    _echo_lines(done.lines)


@cli.command(epilog=EPILOG)
@click.argument("games", nargs=-1)
@click.option("--since", metavar="MANIFEST|COMMIT", default=None,
              help="Compare with this build manifest or git commit (default: the game's last build).")
@click.option("--paper", type=_Choice(PAPER_SIZES), default="a4",
              show_default=True, help="The paper of the build compared with (its manifest).")
@click.option("--ink-saver", is_flag=True, help="Compare with a build made with --ink-saver (its faces look otherwise).")
@click.option("--out", "out_dir", type=_NamedPath(file_okay=False), default=None,
              help="Where the builds are, if not output/.")
@click.pass_context
def changes(ctx: click.Context, games: tuple[str, ...], since: str | None, paper: str, ink_saver: bool,
            out_dir: str | None) -> None:
    """List the cards and components added, removed and changed since a build or a commit.

    \b
    Each printed face is compared by what it shows (look) and the data it is made from (data):
      pnp changes dinospan                  since the last `pnp build dinospan`
      pnp changes dinospan --since HEAD~3   since a git commit
    `pnp build GAME --changed-since ...` also writes a PDF of just those faces to reprint.
    """

    from .kit.changes import game_changes, names_a_file, newer_build
    from .kit.inputs import manifest_name
    from .units import PrintOptions

    project = _project(ctx)
    selected = project.select(games)
    if since and names_a_file(since) and len(selected) != 1:
        raise UsageError("--since MANIFEST compares one game: name it")
    options = PrintOptions(paper.lower(), ink_saver=ink_saver)
    # the builds are looked for where build writes them: `output -> ~` (a link in a folder someone sent) made
    # pnp read a manifest outside the project, said to be output/<game>/manifest.json
    out_root = _out_root(project, out_dir, selected, protected=(), writes=False) if since is None else project.output
    report = Report(project.root)
    for game_id in selected:
        found, _ = game_changes(project, game_id, since, options, out_root, report)
        if found is None:
            continue
        n = len(found.added) + len(found.removed) + len(found.changed)
        click.echo(f"{game_id}: {n or 'nothing'} changed since {found.since}" +
                   (f" ({len(found.changed)} changed, {len(found.added)} added, {len(found.removed)} removed)"
                    if n else ""))
        _echo_lines(found.lines())
        note = newer_build(project, Path(out_root) / game_id / manifest_name(options)) if since is None else None
        if note is not None:
            # (its paths said whole: pasted; printable as every line a game or a folder puts words in: newer_build
            # makes each of its parts so, and the line is kept so whatever a later note holds)
            click.echo(printable(bounded_message(f"{game_id}: note: {note}")))
    if report.errors:
        _print_report(report, "changes")
    ctx.exit(report.exit_code)


def _shown_path(project: "Project", path: Path) -> str:
    """Where a command wrote, as its line of output says it: printable (--out a folder named with a line break
    and an escape sequence forged a line of output and coloured the terminal)."""
    return printable(project.rel(path))


def _echo_lines(lines: list[str]) -> None:
    """Lines said at once: echoed one by one, the 230,000 faces a manifest can list took 5 s to say."""
    if lines:
        click.echo("\n".join(lines))


def _base_url(value: str | None) -> str | None:
    """--base-url: an http(s) address, or nothing."""
    from urllib.parse import urlparse

    if value is None:
        return None
    try:
        parsed = urlparse(value)
        _ = parsed.port  # a port of letters or past 65535 (https://ex.com:99999/): no address a player can load
    except ValueError:  # urllib's own refusal: a bracketed IPv6 host left open ('http://[::1'), such a port
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.hostname or parsed.port == 0 or \
            not value.isprintable() or any(c.isspace() for c in value):  # (port 0: no server is at it)
        raise click.BadParameter(f"{shown(value)} is not an http:// or https:// address")
    if problem := _folder_address_problem(value, parsed):
        raise click.BadParameter(f"{shown(value)} {problem}")
    return value


def _folder_address_problem(value: str, parsed: "ParseResult") -> str | None:
    """Why the http(s) address `value` (`parsed`) names no folder an export's images can be named under, or None."""
    from urllib.parse import unquote

    if parsed.username is not None or parsed.password is not None:
        # written into the save every player loads, the password went to each of them (and to anyone they send it)
        return "holds a user name or password (before an @): the save shared with the players would hold it; give " \
               "the folder's public address"
    if parsed.query or parsed.fragment or parsed.params or value.endswith(("?", "#", ";")):
        # the images' names are appended to the address: after a ? or # every image would load the same file
        return "has a query or fragment (?, # or ;): give the folder's address alone"
    if any(unquote(segment) in (".", "..") for segment in re.split(r"[/\\]", parsed.path)):
        # a browser or Tabletop Simulator resolves them (https://ex.com/a/../ is https://ex.com/): the save named
        # its images under an address other than the one given, one its folder may not be at
        return "has . or .. in its path: give the folder's address as it is"
    if unwritten := sorted({c for c in value if c.isascii() and not (c.isalnum() or c in _URL_CHARACTERS)}):
        # (an address holds them only escaped: a browser reads https://ex.com\a/ as https://ex.com/a/, and the
        # save named its images by an address whose host was 'ex.com\a')
        return f"holds {', '.join(map(shown, unwritten))}, which an address holds only escaped (%HH)"
    if re.search("%(?![0-9A-Fa-f]{2})", value):
        return "holds a % not followed by two hex digits, which is no escape (% itself is %25)"
    return None


_URL_CHARACTERS = "-._~:/?#[]@!$&'()*+,;=%"  # the ASCII an address holds as itself besides letters and digits (RFC 3986)


def _export_formats() -> dict[str, "ExportFormat"]:
    """The registered export formats (pnp.export.registry), imported only when `export` needs them."""
    from .export.registry import registered

    return registered()


class _Registered:
    """A click attribute read from the export formats' registry when it is used, not when the CLI is built: a
    format may register after (a module of pnp.export, or a test's), and `pnp` itself need not import them."""

    def __init__(self, read: Callable[[dict[str, "ExportFormat"]], object]) -> None:
        self.read = read

    def __get__(self, owner: object, cls: type | None = None) -> object:
        return self if owner is None else self.read(_export_formats())

    def __set__(self, owner: object, value: object) -> None:
        """click sets the attribute as it builds the command: the registry says it instead."""


class _FormatChoice(_Choice):
    choices = _Registered(tuple)  # type: ignore[assignment]  # read from the registry when used


class _FormatOption(click.Option):
    help = _Registered(lambda formats: "; ".join(f"{name}: {fmt.help}" for name, fmt in formats.items()) + ".")  # type: ignore[assignment]


class _ExportCommand(click.Command):
    help = _Registered(lambda formats: _EXPORT_HELP.format(formats="\n".join(  # type: ignore[assignment]
        f"      {name:<5} " + fmt.writes.replace("\n", "\n            ") for name, fmt in formats.items())))


_EXPORT_HELP = """Export games' faces as image files (all games when none are named).

    \b
    Writes output/<game>/export/<format>/ (or --out DIR/<game>/<format>/), replacing it whole. png with
    another --dpi or --bleed than 300 and 3 writes a folder of its own (png-150dpi/, png-bleed0mm/), so
    that no export replaces another's files:
{formats}
    tgc, mpc, drivethru: a deck is printed as the service's product whose trim is within 1 mm of
    its own (the list: pnp/export/catalogue.yaml), at its own size, never stretched; a deck no
    product fits (or of cards of several sizes) is left out with a warning (an export left with
    nothing at all is an error); a deck without a back layout gets plain white backs, with a warning.
    Every image is rendered from the same drawing as the PDFs and checked (pixel size, RGB) before the old
    folder is replaced. export.json records what it was made from: an export whose game files, settings and
    pnp did not change is not made again ("up to date"; --force makes it anyway).
    """  # {formats}: each registered format's name and what it writes


@cli.command(epilog=EPILOG, cls=_ExportCommand, short_help="Export games' faces as image files.")
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", cls=_FormatOption, type=_FormatChoice(()), required=True)
@click.option("--out", "out_dir", type=_NamedPath(file_okay=False), default=None,
              help="Write to DIR/<game>/<format>/ instead of output/<game>/export/<format>/.")
@click.option("--dpi", type=_WholeRange(72, 1200), default=300, show_default=True,
              help="Resolution of the png format.")
@click.option("--bleed", type=_NumberRange(0, 6), default=3.0, show_default=True,
              help="Millimetres of art around each face in the png format (the print services' formats use "
                   "their own).")
@click.option("--jobs", "-j", type=_WholeRange(1, 64), default=None, metavar="N",
              help="Encode images in N processes, at most one per core [default: the number of cores].")
@click.option("--force", is_flag=True, help="Export even when nothing changed since the last export.")
@click.option("--base-url", metavar="URL", default=None, callback=lambda ctx, param, value: _base_url(value),
              help="tts: the public address the export folder is uploaded to; the save names its images there "
                   "instead of by file:/// path, so every player's Tabletop Simulator loads them.")
@click.pass_context
def export(ctx: click.Context, games: tuple[str, ...], fmt: str, out_dir: str | None, dpi: int, bleed: float, jobs: int | None,
           force: bool, base_url: str | None) -> None:

    from .kit import default_jobs
    from .export.run import export_game
    from .units import MM, PrintOptions

    _taken_by(ctx, fmt)
    project = _project(ctx)
    report = Report(project.root)
    selected = project.select(games)
    bleed = round(bleed, 2) + 0.0  # to the 0.01 mm its folder's name says (as a kit's --bleed)
    options = {"print": PrintOptions(), "dpi": dpi, "bleed": bleed * MM, "base_url": base_url}
    named = _export_folder(fmt, dpi, bleed)
    done = 0
    folders = {game_id: project_mod.output_path(project, out_dir, game_id, named, replaced_whole=True) if out_dir else
               project_mod.output_path(project, None, game_id, "export", named, replaced_whole=True)
               for game_id in selected}
    for folder in folders.values():  # (the folder itself, if in the way, is said by the export: its own or not)
        # (an export writes three levels below its folder at most: tts's cards/<component>/<face>.png)
        project_mod.folders_on_the_way(project, folder, itself=False, levels=3)
    for game_id, folder in folders.items():
        with _export_bar(game_id) as bar:
            result = export_game(project, game_id, fmt, folder, options, jobs or default_jobs(), bar, force)
        report.diagnostics += result.diagnostics
        if result.ok:
            assert result.folder is not None  # an export that went through names its folder
            done += 1
            said = "up to date" if result.up_to_date else f"{result.files} files"
            click.echo(f"{game_id}: {said} in {_shown_path(project, result.folder)}/")
    _print_report(report, f"exported {done} of {len(selected)} game{'s' * (len(selected) != 1)} as {fmt}")
    ctx.exit(report.exit_code)


def _taken_by(ctx: click.Context, fmt: str) -> None:
    """UsageError for an option given that the format `fmt` does not read (ExportFormat.takes): it was left unused
    without a word, and `--format tgc --dpi 600` wrote the service's own size, exit 0."""
    from .export.registry import TAKEN_BY_SOME, registered

    taken = registered()[fmt].takes
    for name in TAKEN_BY_SOME:
        if name not in taken and ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT):
            readers = [other for other, format_ in registered().items() if name in format_.takes]
            raise UsageError(f"--{name.replace('_', '-')}: the {fmt} format does not read it (only "
                             f"{', '.join(readers) or 'no format'}); leave it out")


def _export_folder(fmt: str, dpi: int, bleed_mm: float) -> str:
    """The folder an export writes: its format's name, with png's --dpi and --bleed when they are not the
    defaults (png-150dpi-bleed0mm), so that an export with other options never replaces another's files."""
    if fmt != "png":
        return fmt
    parts = [f"{dpi}dpi"] * (dpi != 300) + [f"bleed{bleed_mm:g}mm"] * (bleed_mm != 3.0)
    return "-".join([fmt, *parts])


@cli.command("report", epilog=EPILOG)
@click.argument("games", nargs=-1)
@click.option("--out", "out_dir", type=_NamedPath(file_okay=False), default=None,
              help="Write to DIR/<game>/ instead of output/<game>/.")
@click.pass_context
def design_report(ctx: click.Context, games: tuple[str, ...], out_dir: str | None) -> None:
    """Write each game's design report: output/<game>/<game>-report.pdf (all games when none are named).

    \b
    The report charts the game's numbers from its data:
      every table    its rows; each number's min, median, max and histogram; each enum, ref and yes/no
                     field's count per value (a value no row uses shows as 0 and is named)
      views          the charts game.yaml's report: declares (scatter, counts, histogram, bars)
      margins        every constraint with the value the data gives, its limit and how far it is from
                     failing, nearest first
      simulation     the last `pnp simulate` run (output/<game>/simulation.json): win rates with 95%
                     intervals, matchups, length, ends, items taken and their win gap, balance rules
    A game whose data has errors gets no report.
    """

    from .insight.tables import write_game_report

    project = _project(ctx)
    selected = project.select(games)
    out_root = _out_root(project, out_dir, selected)
    report = Report(project.root)
    written = 0
    with (_progress() or _no_bars()) as bars:
        for game_id in selected:
            path = write_game_report(project, game_id, out_root / game_id, report, bars.on_event)
            if path is not None:
                written += 1
                bars.echo(f"{game_id}: report in {_shown_path(project, path)}")
    _print_report(report, f"reported on {written} of {len(selected)} game{'s' * (len(selected) != 1)}")
    ctx.exit(report.exit_code)


@cli.command(epilog=EPILOG)
@click.argument("game")
@click.option("--games", "-n", type=_WholeRange(1, 1_000_000), default=100, show_default=True,
              help="Games per seating of the agents.")
@click.option("--players", "-p", type=_WholeRange(1, 16), default=2, show_default=True, help="Players per game: a count game.yaml's players allows.")
@click.option("--agents", default="random", show_default=True, metavar="LIST",
              help="Comma-separated agents: random, greedy (one-step look-ahead on the rules' heuristic), mcts "
                   "(information-set MCTS, 32 iterations a decision) or mcts-N. Every seating of them is played "
                   "(each agent in each seat against each other), --games times.")
@click.option("--seed", type=_Whole(), default=0, show_default=True,
              help="The run's seed, from 0: game g plays with seed S+g, so the same seed gives the same results file.")
@click.option("--jobs", "-j", type=_WholeRange(1, 64), default=None, metavar="N",
              help="Play in N processes [default: the number of cores], 7 at most: they share the rules' 1 GB of "
                   "memory with the process that loads the rules, 128 MB each at least. The results do not depend "
                   "on it.")  # (simulate.api's MAX_WORKERS and WORKER_MEMORY, not imported: every command would load it)
@click.option("--out", "out_dir", type=_NamedPath(file_okay=False), default=None,
              help="Write DIR/<game>/simulation.json instead of output/<game>/simulation.json.")
@click.option("--log", is_flag=True,
              help="Print every move of every game, 100,000 lines at most (use with --games 1 to replay one).")
@click.pass_context
def simulate(ctx: click.Context, game: str, games: int, players: int, agents: str, seed: int, jobs: int | None,
             out_dir: str | None, log: bool) -> None:
    """Play GAME many times with its cards/GAME/rules.py and check its balance rules.

    \b
    Writes output/GAME/simulation.json: win rate per seat, per agent and per pairing of agents (with 95%
    confidence intervals), game length, how games end, and for each item the rules track how often it was
    taken or played and the win rate of those who took it against those who did not; then checks game.yaml's
    balance: rules on those figures. A game that fails (the rules raise, offer no move, never end) is
    named with its seed and turn. Only this command (and tests) runs a game's rules.py.
    """

    _with_fixed_hash_seed()  # (first: nothing imported in vain)
    from .simulate import Options, replay_folder, simulate as run_simulation, summary_lines
    from .simulate.run import games_in

    project = _project(ctx)
    game_id = project.select([game])[0]
    options = Options(games=games, players=players, agents=tuple(_agent_named(a.strip()) for a in agents.split(",")),
                      seed=seed, jobs=jobs or project_mod.usable_cores(), log=log)
    out_folder = project_mod.output_path(project, out_dir, game_id)  # as every command's: not a link, not cards/
    report = Report(project.root)
    with _simulation_bar(game_id, games_in(options)) as advance:
        sim = run_simulation(project, game_id, options, out_folder, report, advance, _pnp_as_run(ctx))
    for index, game_seed, lines in sim.logs:
        click.echo(f"game {index} (seed {game_seed})")
        for line in lines:
            click.echo(f"  {line}")
    if sim.log_lines_dropped:
        click.echo(f"(the log stops here: {sim.log_lines_dropped:,} more lines are not kept; replay one game with "
                   f"--games 1 --seed S --log --out {replay_folder(out_folder)})")
    if sim.summary is not None:
        click.echo("\n".join(summary_lines(sim)))
        if sim.path is not None:
            click.echo(f"{game_id}: results in {_shown_path(project, sim.path)}", err=True)
    _print_report(report, f"simulated {game_id}")
    ctx.exit(report.exit_code)


FIXED_HASH_SEED = "0"  # Python's PYTHONHASHSEED that `pnp simulate` runs with
_COMMAND_LINE = {"on": False}  # set by main(): pnp is a process of its own (not a command run inside a test's)


def _with_fixed_hash_seed() -> None:
    """`pnp simulate` run again, at once, as the same command line with PYTHONHASHSEED fixed: Python orders a
    set of texts by a hash it seeds anew in each process, so rules choosing among `{card.id for ...}` (any
    set of texts) played other games from the same seed in each run: another simulation.json, and a failed
    game's replay line replayed another game. The processes playing the rules are pnp's own, forked: they
    hash as it does. Only pnp's own command line (main) is run again, never a process that runs pnp's
    commands (a test's). Told by the hashing Python does (sys.flags), not by the variable: `python -E` or `-I`
    ignores it, and hashed anew in each run. Where a process cannot be replaced by another (Windows: its
    execve starts another and ends this one, and the console that ran pnp took its prompt back at once), the
    command runs as a process of pnp's, whose exit code pnp's is: there no seed was fixed, and each run
    played other games."""
    if not _COMMAND_LINE["on"] or sys.flags.hash_randomization == 0:
        return
    if os.environ.get("PYTHONHASHSEED") == FIXED_HASH_SEED and not sys.flags.ignore_environment:
        return  # (run again already, and Python still hashes anew: never again)
    command = _command_line_again()
    if command is None:
        return
    environment = {name: value for name, value in os.environ.items()  # (what -E and -I have Python ignore)
                   if not (sys.flags.ignore_environment and name.startswith("PYTHON"))}
    environment["PYTHONHASHSEED"] = FIXED_HASH_SEED
    with contextlib.suppress(OSError):  # (then played with this process's hashing, as before)
        sys.stdout.flush()
        sys.stderr.flush()
        if os.name == "posix":
            os.execve(sys.executable, command, environment)
        import subprocess

        with subprocess.Popen(command, env=environment) as process:
            while True:
                try:
                    code = process.wait()
                    break
                except KeyboardInterrupt:  # (Ctrl-C reached both: the command, told too, ends as it does)
                    continue
        os._exit(_exit_code_of(code))


def _exit_code_of(returncode: int) -> int:
    """A process's exit code (Popen.returncode) as pnp's own, as os._exit takes it (a C int): Windows gives its
    code unsigned, and a crash's or Ctrl-C's (0xC0000005, 0xC000013A) was past os._exit's bound, an
    OverflowError traceback where the command had ended: its 32 bits read as a signed int are the same code
    there. A process a signal ended (a negative code, on POSIX) is 128 + the signal's number, as shells say it."""
    if returncode < 0:
        return 128 - returncode
    return returncode - (1 << 32) if (1 << 31) <= returncode < (1 << 32) else min(returncode, (1 << 31) - 1)


# Python's options that take a value (`-W error`, `-Werror`): read past, looking for where the program starts
_OPTIONS_WITH_A_VALUE = frozenset("cmWX")
_LONG_OPTIONS_WITH_A_VALUE = frozenset({"--check-hash-based-pycs"})


def _program_run(command_line: list[str]) -> list[str] | None:
    """The program a Python command line (sys.orig_argv) runs and its arguments, as written, read past Python's
    options as Python reads them: `-c CODE ...` (or `-cCODE`, `-EcCODE`), `-m MODULE ...` or `FILE ...`; None
    for a program read from standard input (`-`, or none named)."""
    at = 1
    while at < len(command_line):
        word = command_line[at]
        if word == "--":  # options end: a program's file follows
            return command_line[at + 1:] if command_line[at + 1:at + 2] not in ([], ["-"]) else None
        if word == "-":
            return None
        if not word.startswith("-"):
            return command_line[at:]
        if word.startswith("--"):
            at += 2 if word in _LONG_OPTIONS_WITH_A_VALUE else 1
            continue
        at += 1
        for place, letter in enumerate(word[1:], 2):
            if letter in _OPTIONS_WITH_A_VALUE:
                value = word[place:] if place < len(word) else None
                if value is None and at < len(command_line):
                    value, at = command_line[at], at + 1
                if letter in "cm" and value is not None:
                    return [f"-{letter}", value, *command_line[at:]]
                break
    return None


def _command_line_again() -> list[str] | None:
    """This process's command line, to run it again with PYTHONHASHSEED set: as given, or, where Python was
    told to ignore the environment (-E, or -I: -E with -s and -P), with its settings written out without that
    (the environment's PYTHON variables are left out instead). Read from the command line Python was given
    (sys.orig_argv), never from sys.argv, which the program may have set: a script setting sys.argv[0] to 'pnp'
    before calling main() was run again as a file 'pnp' of the current folder. None for a program read from
    standard input (it was read: run again, it read nothing, did nothing, and said nothing with exit 0)."""
    import subprocess

    program = _program_run(sys.orig_argv)
    if program is None:
        return None
    if not sys.flags.ignore_environment:
        return [sys.executable, *sys.orig_argv[1:]]
    # the options reproducing this interpreter's settings, as multiprocessing starts its own (-W, -X, -O, -B...);
    # Python's own, not promised by it: where it is gone, played with this process's hashing
    settings = getattr(subprocess, "_args_from_interpreter_flags", None)
    if settings is None:
        return None
    options = [written for option in settings() for written in {"-I": ["-s", "-P"], "-E": []}.get(option, [option])]
    return [sys.executable, *options, *program]


class _simulation_bar:
    """A progress bar over a run's games, on a terminal only; yields the function that advances it."""

    def __init__(self, game_id: str, total: int) -> None:
        self.bars: "Progress | None" = None
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self.bars = Progress(_described(), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
            self.task = self.bars.add_task(f"{game_id}: playing", total=total)

    def __enter__(self) -> Callable[[int], None] | None:
        if self.bars is None:
            return None
        self.bars.start()
        bars = self.bars
        return lambda n: bars.update(self.task, advance=n)

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.bars is not None:
            self.bars.stop()
        return False


@cli.command(epilog=EPILOG)
@click.option("--paper", type=_Choice(PAPER_SIZES), default="a4",
              show_default=True, help="The paper you will print on.")
@click.option("--out", "out_dir", type=_NamedPath(file_okay=False), default=None,
              help="Write to DIR instead of output/.")
@click.pass_context
def calibrate(ctx: click.Context, paper: str, out_dir: str | None) -> None:
    """Write a duplex calibration sheet: output/calibrate-<paper>.pdf.

    Print it double-sided and hold it to the light; the sheet says how to read your printer's offset
    between the front and back of a page, for `pnp build --duplex-offset X,Y`.
    """

    from .kit import write_calibration

    project = _project(ctx)
    folder = project_mod.output_path(project, out_dir)
    project_mod.folders_on_the_way(project, folder)  # (as build's: the file in the way named, not the folder)
    path = write_calibration(project, paper.lower(), folder)
    click.echo(f"wrote {_shown_path(project, path)}: print it double-sided (flip on the long edge) and follow its steps")


@cli.command("list", epilog=EPILOG)
@click.argument("games", nargs=-1)
@click.pass_context
def list_games(ctx: click.Context, games: tuple[str, ...]) -> None:
    """Show the games found and their components with counts."""
    from .check import load

    project = _project(ctx)
    report = Report(project.root)
    for game_id in project.select(games):
        game = load(project, game_id, report)
        meta: Mapping[str, Any] = game.meta or {}
        # (a value validate refuses is held as None: 'players: [2, 4]' was listed as 'None players')
        players, time = ("?" if meta.get(key) is None else meta[key] for key in ("players", "time"))
        click.echo(f"{game_id}: {game.title} ({players} players, {time})")
        for c in game.components:
            click.echo(f"  {c.count:>4} × {c.name} [{c.kind}]")
    if report.errors:
        errors = len(report.errors)
        click.echo(f"({errors} data error{'s' if errors > 1 else ''}: run 'pnp validate')", err=True)


@cli.command(epilog=EPILOG)
@click.argument("game")
@click.option("--from", "start", type=_Choice(["deck", "board", "tokens"]), default="deck",
              show_default=True, help="What the new game starts with besides its token sheet and rulebook: a "
                                      "deck of cards with a back, a board tiled over the paper, or nothing more.")
@click.option("--title", default=None, help="The game's title (default: made from GAME, e.g. my-game -> My Game).")
@click.pass_context
def new(ctx: click.Context, game: str, start: str, title: str | None) -> None:
    """Start a new game: cards/GAME/ and layouts/GAME/ with a small game that validates and builds at once.

    \b
    Every file is commented to say what to change. Never overwrites: an existing game's folders are left
    alone. Then:
      pnp validate GAME && pnp build GAME
    """
    from .new import new_game

    made: list[Path] = []  # the folders of --root this made, deepest first: taken back when no game is written
    if ctx.obj:  # `new` is the one command that may start a project folder: the others need one to exist
        root = Path(ctx.obj).absolute()
        made = [folder for folder in (root, *root.parents) if not folder.exists()]
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # (under a file, it was a traceback)
            raise UsageError(f"--root {ctx.obj}: cannot make the folder: {e.strerror or e}") from None
    project = _project(ctx)
    try:
        files = new_game(project, game, start, title)
    except UsageError:  # (a refused title left the --root it made, empty)
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    for path in files:
        click.echo(f"wrote {_shown_path(project, path)}")
    pnp = _pnp_as_run(ctx)
    where = printable(f"{ctx.obj.rstrip('/')}/") if ctx.obj else ""
    click.echo(f"next: {pnp} validate {game} && {pnp} build {game}   (then edit {where}cards/{game}/game.yaml)")


def _pnp_as_run(ctx: click.Context) -> str:
    """pnp as a hint's command writes it: a hint must work where the user is, so with --root, the next command
    needs it too (a failed game's replay line, pasted, said there was no game: it ran in another folder)."""
    return f"pnp --root {shell_word(ctx.obj)}" if ctx.obj else "pnp"


@cli.command(epilog=EPILOG)
@click.argument("table_file", type=_NamedPath(dir_okay=False))
@click.option("--to", "fmt", type=_Choice(["csv", "xlsx", "yaml"]), required=True,
              help="The format to write.")
@click.option("--out", type=_NamedPath(dir_okay=False), default=None,
              help="The file to write (default: beside TABLE_FILE, with the new format's extension).")
@click.option("--force", is_flag=True, help="Replace the file written if it exists.")
@click.pass_context
def convert(ctx: click.Context, table_file: str, fmt: str, out: str | None, force: bool) -> None:
    """Write a table's file (YAML, CSV or XLSX) in another of those formats.

    \b
    TABLE_FILE is a file of cards/<game>/ that game.yaml reads a table from. A spreadsheet has a header
    row of field names and a row per item; a list or map field holds YAML flow text in its cell, such as
    [a, b] or {plants: 2}. Each cell is read by its field's type, so converting back gives the same data
    (YAML comments are not carried over). To use the new file, point the table's `file:` at it.
      pnp convert cards/evo/events.yaml --to xlsx
    """

    from .model.convert import convert as write

    project = _project(ctx)
    beside = Path(table_file).absolute().with_suffix("." + fmt)  # tables live in cards/: writing there is its job
    suffixes = (".yaml", ".yml") if fmt == "yaml" else ("." + fmt,)
    if out and Path(out).suffix.lower() not in suffixes:  # `--to xlsx --out game.yaml --force` wrote a zip there
        raise UsageError(f"--out {out}: {'an' if fmt == 'xlsx' else 'a'} {fmt.upper()} file is named *{suffixes[0]}; "
                         "pnp names every file it writes for what it holds")
    out_path = project_mod.output_path(project, out, default=beside, out_names="a file",
                                       protected=tuple(p for p in project_mod.PROTECTED if p != "cards"))
    project_mod.folders_on_the_way(project, out_path, itself=False, levels=0, makes_folders=False)  # (a file, written as a temporary beside it)
    target, count = write(project, table_file, fmt, out_path, force,
                          lambda message, mark: click.echo(str(Diagnostic("warning", message, mark)), err=True))
    click.echo(f"wrote {_shown_path(project, target)}: {count} item{'s' * (count != 1)}")


@cli.group(epilog=EPILOG)
def icons() -> None:
    """Find icons among the 4,000+ of game-icons.net and add them to a game (CC BY 3.0: credit the set).

    \b
      pnp icons search ship          the icon names holding every word
      pnp icons add mygame anchor    writes layouts/mygame/icons/anchor.svg and its credit
    Then `icon: anchor` in a layout, or `:anchor:` in card text.
    """


@icons.command("search", epilog=EPILOG)
@click.argument("words", nargs=-1, required=True)
def icons_search(words: tuple[str, ...]) -> None:
    """List the game-icons.net icons whose name holds every WORD (or the closest names). Works offline."""
    from .draw.iconset import search

    if not any(word.strip() for word in words):  # every name holds no word: forty names unasked for, exit 0
        raise UsageError("icons search: give a word of the name, e.g. pnp icons search ship")
    found = search(list(words))
    if not found:
        raise UsageError(f"no icon name holds {shown(' '.join(words))}; try a shorter or another word")
    for name in found:
        click.echo(name)


@icons.command("add", epilog=EPILOG)
@click.argument("game")
@click.argument("names", nargs=-1, required=True)
@click.option("--package", type=_NamedPath(exists=True), default=None,
              help="The @iconify-json/game-icons npm package (.tgz or its unpacked folder) to take the icons "
                   "from, for a computer offline; by default pnp downloads it once (2.7 MB, checked against "
                   "its published SHA-512) and keeps it in its cache.")
@click.pass_context
def icons_add(ctx: click.Context, game: str, names: tuple[str, ...], package: str | None) -> None:
    """Copy game-icons.net icons into layouts/GAME/icons/ with a row each in its ATTRIBUTION.md. An icon
    already there is left as it is."""
    from .draw.iconset import add_icons

    project = _project(ctx)
    wanted = list(dict.fromkeys(names))  # a name given twice is one icon, not one written and one "already in"
    written = add_icons(project, game, wanted, Path(package) if package else None)
    for path in written:
        click.echo(f"wrote {_shown_path(project, path)}")
    if len(written) < len(wanted):
        click.echo(f"{len(wanted) - len(written)} already in {_shown_path(project, project.layouts / game / 'icons')}")


@cli.command(epilog=EPILOG)
def reference() -> None:
    """Print the reference: units, game.yaml, field types, component kinds, layout files, text styles,
    every element with its parameters, and what templates see (docs/reference.md is this output)."""
    from .reference import reference as text

    click.echo(text(), nl=False)


@cli.command(epilog=EPILOG)
@click.argument("games", nargs=-1)
@click.option("--port", type=_WholeRange(0, 65535), default=8000, show_default=True, help="The port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (the default is this computer only; 0.0.0.0 is every network, "
                   "which shows the project's files to anyone who can reach this computer).")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="A host name the page may be opened by besides localhost, IP addresses and --host "
                   "(repeatable); any other name is refused, against DNS rebinding.")
@click.pass_context
def serve(ctx: click.Context, games: tuple[str, ...], port: int, host: str, allow_hosts: tuple[str, ...]) -> None:
    """Preview games in a browser, updated on every save (all games when none are named).

    The page shows every card, token, board and aid of the game with its data, the file and line it comes
    from and its validation messages, errors first; the rulebook as pages; a link to the latest build.
    Ctrl-C stops it.
    """
    from .serve.app import not_a_host_name
    from .serve.app import serve as run

    project = _project(ctx)
    selected = project.select(games)
    if not host.strip():  # the system took it for every address, and the URL shown was http://:8000/
        raise UsageError("--host: empty; give an address such as 127.0.0.1 (this computer) or 0.0.0.0 (every network)")
    for name in allow_hosts:
        if not name.isascii() and not_a_host_name(name):  # (a name of other letters is sent in its ASCII form)
            raise UsageError(f"--allow-host {shown(name)}: a browser sends a name of letters past ASCII in its "
                             "ASCII form (xn--..., as the address bar or `idn2` shows it): give that form")
        if not_a_host_name(name):
            raise UsageError(f"--allow-host {shown(name)}: not a host name; give the name alone, such as "
                             "preview.lan (no port, no http://)")
    no_such_host = UsageError(f"--host {shown(host)}: this computer finds no such address or host name; give an "
                              "address such as 127.0.0.1 (this computer) or 0.0.0.0 (every network), without a port "
                              "(--port is the port)")
    try:  # a name past ASCII goes to the resolver in its IDNA form, which one of bytes not UTF-8 or a label over
        # 63 letters has none of: the socket's TypeError or UnicodeError was pnp's internal error
        host.isascii() or host.encode("idna")
    except UnicodeError:
        raise no_such_host from None
    try:
        run(project, selected, host, port, _on_listening, allow_hosts)
    except _OutputNotWritten as e:  # (main says it: 'pnp: cannot write its output: ...', exit 1)
        raise e.error from None
    except socket.gaierror:  # (said in the resolver's words, "Name or service not known", for `--host localhost:80`)
        raise no_such_host from None
    except OSError as e:
        # (escaped: a --host typed with a line break split the refusal in two lines, the second forged)
        raise UsageError(f"cannot listen on {printable(host)}:{port}: {e.strerror or e}") from None


class _OutputNotWritten(Exception):
    """What `pnp serve` says could not be written (its output closed or on a full disk): told apart from the
    socket's own OSError, which was said 'cannot listen on 127.0.0.1:8000: No space left on device', exit 2."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


def _on_listening(url: str, warning: str | None) -> None:
    """What `pnp serve` says once its socket listens: the warning for an address others can reach, and the URL."""
    try:
        if warning:
            click.echo(f"pnp serve: {warning}", err=True)
        click.echo(f"pnp serve: {url}  (Ctrl-C stops it)")
    except OSError as e:
        raise _OutputNotWritten(e) from None


def _out_root(project: "Project", out_dir: str | None, games: list[str],
              protected: tuple[str, ...] = project_mod.PROTECTED, writes: bool = True) -> Path:
    """Where the games' folders go (--out or output/), each checked by project.output_path: real folders
    inside the project, never in the `protected` folders (those pnp reads, where it writes nothing); where the
    command `writes` there, no file in the way of one (said before the work: project.folders_on_the_way)."""
    for game_id in games:
        folder = project_mod.output_path(project, out_dir, game_id, protected=protected)
        if writes:
            project_mod.folders_on_the_way(project, folder)
    return project_mod.output_path(project, out_dir, protected=protected)


def _offset(value: object) -> tuple[float, float]:
    """'X,Y' in millimetres -> (x, y); a usage error otherwise."""
    parts = str(value).split(",")
    if len(parts) != 2 or not all(_DECIMAL_TEXT.fullmatch(part.strip()) for part in parts):
        raise click.BadParameter(f"expected X,Y in millimetres such as 0.5,-1, got {value!r}")
    x, y = float(parts[0]), float(parts[1])
    if not (abs(x) <= 20 and abs(y) <= 20):  # (a long string of digits reads as inf)
        raise click.BadParameter(f"{x:g},{y:g} mm is more than any printer is out; read it again on the sheet")
    return x, y


class _Printing(Protocol):
    """Progress (kit.run.Progress) that also prints a line (the report command's)."""

    def __enter__(self) -> "_Printing": ...

    def __exit__(self, *exc: Any) -> bool | None: ...

    def on_event(self, event: str, game_id: str = "", value: Any = None) -> None: ...

    def echo(self, line: str) -> None: ...


def _described() -> "TextColumn":
    """A bar's description column, its text shown as written: a game folder named 'g{0}' was a format field (a
    bug in pnp at `pnp simulate`), and names or labels holding '[link=...]' or '[x]' were rich markup (a link in
    the terminal, a word hidden)."""
    from rich.progress import TextColumn

    return TextColumn("{task.description}", style="bold", markup=False)


class _Bars:
    """A rich progress bar per game being built, fed by the build's events."""

    def __init__(self) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn,
                                   TimeElapsedColumn)

        self.bars = Progress(SpinnerColumn(), _described(), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(), transient=True)
        self.tasks: dict[str, TaskID] = {}

    def __enter__(self) -> "_Bars":
        self.bars.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        return self.bars.__exit__(*exc)

    def echo(self, line: str) -> None:
        self.bars.console.print(line, markup=False, highlight=False)

    def on_event(self, event: str, game_id: str = "", value: Any = None) -> None:
        if event == "check":
            self.tasks[game_id] = self.bars.add_task(f"{game_id}: checking the data", total=None)
        elif event == "start" and game_id in self.tasks:
            self.bars.update(self.tasks[game_id], total=value, description=f"{game_id}: drawing")
        elif event == "end" and game_id in self.tasks:
            self.bars.remove_task(self.tasks.pop(game_id))
        elif event == "wait":
            self.echo(f"pnp: {value}")
        elif event == "step" and game_id in self.tasks:
            task = self.tasks[game_id]
            self.bars.update(task, advance=1, description=f"{game_id}: {value}")


def _no_bars() -> "_Printing":
    """What the report command prints through when there is no terminal for bars."""
    from .kit.run import Quiet

    class NoBars(Quiet):
        def echo(self, line: str) -> None:
            click.echo(line)

    return NoBars()


class _ExportBar:
    """One bar for the images of a game's export, on a terminal only."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.bars: "Progress | None" = None
        self.task: TaskID | None = None
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

            self.bars = Progress(_described(), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), transient=True)

    def __enter__(self) -> "_ExportBar":
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        if self.task is not None and self.bars is not None:  # a task only on bars
            self.bars.stop()
        return False

    def __call__(self, event: str, value: int) -> None:
        if not self.bars:
            return
        if event == "start":  # started only now: export's worker processes are forked before this thread runs
            self.bars.start()
            self.task = self.bars.add_task(f"{self.game_id}: images", total=value)
        elif self.task is not None:
            self.bars.update(self.task, advance=value)


def _export_bar(game_id: str) -> _ExportBar:
    return _ExportBar(game_id)


def _progress() -> "_Bars | None":
    """Progress bars on a terminal; none (the build's own quiet default) when output is piped or in CI."""
    return _Bars() if sys.stderr.isatty() else None


def _current_folder_there() -> bool:
    """Whether the process's current folder still exists (os.getcwd fails once it was deleted)."""
    try:
        os.getcwd()
    except OSError:
        return False
    return True


class _ClosedOutput(io.TextIOBase):
    """The standard output of a pnp run with it closed (`pnp list >&-`): Python leaves sys.stdout None, and
    click printed nothing to it without a word, so `pnp list` and `pnp validate --json`, whose output is what
    they are run for, ended 0 with it lost. Writing to it fails as writing to a full disk fails (main)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "its standard output is closed")


def _standard_streams_held() -> None:
    """A closed standard stream (0, 1 or 2) is held open on the null device, so that no file pnp opens takes its
    number, and a program pnp runs, or a library writing to descriptor 1, does not write into one of pnp's
    files; what pnp prints to a closed standard output fails (_ClosedOutput)."""
    for number in (0, 1, 2):
        try:
            os.fstat(number)
        except OSError:
            held = os.open(os.devnull, os.O_RDWR)
            if held != number:
                os.dup2(held, number)
                os.close(held)
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    # closed standard error (`pnp build 2>&-`): its messages go where the user sent them, nowhere, as with
    # 2>/dev/null; Python left it None and the first progress check (isatty) was 'a bug in pnp'. Standard input
    # likewise reads as empty, not None.
    if sys.stderr is None:
        sys.stderr = open(2, "w", closefd=False, errors="backslashreplace")  # noqa: SIM115 - for the run
    if sys.stdin is None:
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - for the run


def main() -> None:
    _COMMAND_LINE["on"] = True
    _standard_streams_held()
    ready_for_interrupts()
    try:
        cli.main()
    except OSError as e:
        if e.filename is not None:  # a file's own error escaping a command: a bug, shown whole
            raise
        if not _current_folder_there():  # (its FileNotFoundError, of no file name, was said as output not written)
            with contextlib.suppress(OSError):
                sys.stderr.write("pnp: the current folder is gone (deleted or moved since the shell entered it): "
                                 "cd into the project again, or give --root\n")
            os._exit(2)
        # what pnp prints could not be written (its output sent to a full disk): one line, not a traceback
        with contextlib.suppress(OSError):
            sys.stderr.write(f"pnp: cannot write its output: {e.strerror or e}\n")
        os._exit(1)  # leaving normally flushes the same output again and fails the same way
