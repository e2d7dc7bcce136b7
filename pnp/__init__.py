"""pnp: turn a game's YAML card databases into validated, print-ready PDFs."""

import contextlib
import mimetypes
import os
import signal
import sys
import threading
import time
import types

__version__ = "0.1.0"
# the /Creator every PDF pnp writes starts with: how pnp tells its own PDF from a user's (project.refuse_unmarked_pdf)
PDF_CREATOR = "pnp"

# ReportLab, when first imported, runs ~/.reportlab_mods and ~/.reportlab_settings (or modules of those names on the
# import path) as Python: code outside the project, which could also change the bytes of every PDF, and with HOME
# a file (HOME=/dev/null in a service) its import ended in pnp's internal error (NotADirectoryError). Empty modules
# of those names, in place before ReportLab's first import, are what it finds instead: it reads neither file.
# The settings module also carries ReportLab's font and CMap search paths, each emptied: at its first import
# ReportLab looked up some seventy folders whatever the game, ~/.fonts, ~/Library/Fonts, /Library/Fonts and
# folders of the current one (a received game's: its fonts/, and 'C:\\Program Files\\...\\CMap' named relatively),
# and put those found on the path it opens a font by name from. pnp names every font it draws with by its path
# in pnp/fonts or the project (draw.fonts), so none of those folders is ever needed.
for _name in ("reportlab_mods", "reportlab_settings"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
for _setting in ("T1SearchPath", "TTFSearchPath", "CMapSearchPath"):
    setattr(sys.modules["reportlab_settings"], _setting, ())


def _import_reportlab_settings_without_listing_system_fonts() -> None:
    """ReportLab's defaults module, at its first import on Linux, lists every folder under /usr/share/fonts
    (os.walk) for its search paths, which the settings above replace at once: that one import runs with a walk
    that finds nothing, so no system font folder is listed. Cheap (about a millisecond) and before any thread."""
    if "reportlab.rl_settings" in sys.modules:
        return
    walk = os.walk
    os.walk = lambda *args, **kwargs: iter(())
    try:
        import reportlab.rl_settings  # noqa: F401
    except ImportError:  # (a broken install: cli's own import of ReportLab says so)
        pass
    finally:
        os.walk = walk


_import_reportlab_settings_without_listing_system_fonts()


# Python's mimetypes, at its first use, reads the system's lists of file types (/etc/mime.types and eight more
# places: /etc/apache2/, /usr/local/etc/httpd/, ...), outside the project; openpyxl's import uses it, so every
# `pnp convert` to or from a spreadsheet read them, and a type a list gave could have changed the bytes of the
# spreadsheet written. Python's own table is what pnp and its libraries use instead.
mimetypes.knownfiles.clear()


# the environment variables libraries read as settings at their first import: ReportLab's RL_<setting>, Pillow's
# allocator's (PILLOW_ALIGNMENT, PILLOW_BLOCK_SIZE, PILLOW_BLOCKS_MAX), openpyxl's choice of XML writer
# (OPENPYXL_LXML=False wrote every spreadsheet of `pnp convert` in other bytes) and reader
_LIBRARY_SETTINGS = ("RL_", "PILLOW_", "OPENPYXL_")


def _forget_library_settings() -> None:
    """Take the variables of _LIBRARY_SETTINGS out of the environment before those libraries are first imported.
    ReportLab reads each RL_<setting> as that setting of every PDF: RL_useA85=0 or RL_pageCompression=0 gave
    other bytes for the same game (a variable set for another program, unseen), and a value it cannot read
    (RL_invariant=yes) ended every command, `pnp list` too, in pnp's internal error (ValueError); pnp sets what
    its PDFs need itself (draw.canvas). Pillow printed its own warning, with its source file and line, for a
    value it cannot read (PILLOW_BLOCK_SIZE=x), on every command."""
    for variable in [name for name in os.environ if name.upper().startswith(_LIBRARY_SETTINGS)]:
        del os.environ[variable]


_forget_library_settings()


def _import_from_absolute_folders_only() -> None:
    """Take the folders PYTHONPATH names by a relative name ('' or 'lib': the folder pnp runs in, or one inside
    it) off the import path, and off PYTHONPATH for the processes pnp starts. An empty entry, as a careless
    `export PYTHONPATH=$PYTHONPATH:/tools` leaves, is the current folder, often a game someone sent: its
    click.py ran at pnp's start and its multiprocessing.py in every worker. (Python itself runs a
    sitecustomize.py of such a folder before pnp starts: README.) A folder PYTHONPATH also names by its
    absolute path stays."""
    given = os.environ.get("PYTHONPATH")
    if given is None:
        return
    try:  # each entry as Python reads it; the one pnp itself was found in stays (PYTHONPATH=../pnp), absolute
        own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        entries = [(entry, os.path.abspath(entry)) for entry in given.split(os.pathsep)]
    except OSError:  # (the current folder is gone: nothing is found in it either; cli says so)
        entries = [(entry, entry) for entry in given.split(os.pathsep) if os.path.isabs(entry)]
        own = ""
    kept = [folder for entry, folder in entries if os.path.isabs(entry) or folder == own]
    if not sys.flags.ignore_environment:  # (-E: Python read none of it)
        relative = {folder for _, folder in entries} - set(kept)
        sys.path[:] = [entry for entry in sys.path if entry not in relative]
    if kept:
        os.environ["PYTHONPATH"] = os.pathsep.join(kept)
    else:
        del os.environ["PYTHONPATH"]


# pnp is the program (its script, or python -m pnp, whose argv[0] is -m while it is found), not a library a
# program imports: that program's import path and signals are its own
_THE_PROGRAM = os.path.basename(sys.argv[0] if sys.argv else "") in ("pnp", "pnp.exe", "-m")
if _THE_PROGRAM:
    _import_from_absolute_folders_only()


def _interrupted_while_starting(signum: int, frame: object) -> None:
    """Ctrl-C before pnp's command line runs: nothing is written yet, so pnp ends at once, as click says an
    interrupted command ended (a KeyboardInterrupt raised in the import of pnp's modules, a second or so, printed
    Python's traceback)."""
    os.write(2, b"\nAborted!\n")
    os._exit(1)


_MAIN_PROCESS = [0]  # the process whose command line took the handlers below (ready_for_interrupts)


def _terminated(signum: int, frame: types.FrameType | None) -> None:
    """SIGTERM or SIGHUP (a terminal closed, `kill`, a CI's timeout) ends a command as Ctrl-C does, its clean-up
    run: it ended pnp where it stood, and a build left its temporary files (.done.pnp-....tmp) in the output
    folder until the next run. A worker process forked since ends by the signal itself, as it did."""
    if os.getpid() != _MAIN_PROCESS[0]:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    _INTERRUPTED_BY[0] = signum
    raise KeyboardInterrupt


_INTERRUPTED_BY = [int(signal.SIGINT)]  # the signal whose handler raised the last KeyboardInterrupt


def _interrupt_not_lost(unraisable: "sys.UnraisableHookArgs") -> None:
    """A Ctrl-C, SIGTERM or SIGHUP that came while a finalizer ran (an object's __del__, a weak reference's
    callback: a regex's, an import lock's) raised its KeyboardInterrupt where Python can only print it: it printed
    'Exception ignored ... Traceback ... KeyboardInterrupt' and the command went on to its end, exit 0, as if never
    stopped. The signal is sent again instead, to be raised where the command runs (its clean-up, Aborted!): sent
    from another thread a moment later, as sent from this one it is raised in this hook, where it is lost again."""
    if (unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt)
            and threading.current_thread() is threading.main_thread()):
        import _thread

        signum, _INTERRUPTED_BY[0] = _INTERRUPTED_BY[0], int(signal.SIGINT)
        with contextlib.suppress(RuntimeError):  # (Python exiting: no thread starts, and nothing is left to stop)
            _thread.start_new_thread(_send_again, (threading.main_thread().ident, signum))
        return
    sys.__unraisablehook__(unraisable)


def _send_again(thread: int | None, signum: int) -> None:
    """The signal sent to the main thread once its finalizer has returned (a real signal, not interrupt_main: it
    also ends a wait in a system call)."""
    time.sleep(0.02)
    if thread is not None:
        signal.pthread_kill(thread, signum)


def ready_for_interrupts() -> None:
    """Ctrl-C raises KeyboardInterrupt again, as the commands expect (their clean-up runs, click says Aborted!);
    so do SIGTERM and SIGHUP, unless ignored (nohup)."""
    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _MAIN_PROCESS[0] = os.getpid()
    sys.unraisablehook = _interrupt_not_lost
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, _terminated)
    if hasattr(os, "register_at_fork") and not _FORK_HOOKED[0]:
        _FORK_HOOKED[0] = True
        os.register_at_fork(after_in_child=_terminated_by_default)


_FORK_HOOKED = [False]


def _terminated_by_default() -> None:
    """In a process pnp forks (a build's, an export's, a simulation's worker), SIGTERM and SIGHUP end it at once,
    as the system does: _terminated, inherited, runs only when the process's main thread next runs Python, and a
    signal the system handed to another of its threads (end_with_parent's watch, a queue's feeder) left a worker
    waiting on its pool's task queue for good: `pnp build -j` hung after building every game, its pool's
    terminate() waiting for a worker its SIGTERM never ended."""
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is _terminated:
            signal.signal(number, signal.SIG_DFL)


# only when pnp itself is the program: a program importing pnp keeps its own Ctrl-C
if _THE_PROGRAM and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_while_starting)
