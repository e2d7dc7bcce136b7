"""The one sandboxed Jinja environment, bounded in size, depth and time: every template and expression of a
game (constraints, derived fields, macros, layouts, the rulebook) is evaluated here and nowhere else."""

import contextlib
import re
import resource
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from types import CodeType

import jinja2
from jinja2 import StrictUndefined, TemplateError, Undefined, nodes
from jinja2.environment import TemplateExpression
from jinja2.parser import Parser
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import missing

from .cache import DiskCache
from .errors import ExprError, LimitError

# What one template may build. Generous for any real card game, small enough that a mistake (or a hostile
# file) ends as a message in well under a second instead of a hang or a machine out of memory.
MAX_STRING = 1_000_000  # characters in one text, and in a template's whole output
MAX_ITEMS = 100_000  # items in a range or a list built by repetition
MAX_NUMBER_BITS = 4096  # about 1200 decimal digits
MAX_CALL_DEPTH = 100  # macros calling macros
SECONDS_PER_EVALUATION = 2.0
SECONDS_PER_GAME = 10.0  # all of a game's template evaluations together (see `budget`)
MAX_MEMORY_GROWTH = 2 << 30  # bytes of peak memory one evaluation may add
_CHECK_EVERY = 256  # loop steps between two looks at the clock

# Internal class names that would otherwise leak into messages from Python's own errors.
_FRIENDLY = {"Record": "mapping", "MarkedList": "list", "_Guarded": "list", "dict object": "mapping",
             "list object": "list", "str object": "text"}


class _Budget(threading.local):
    """Deadlines of the evaluation in progress on this thread (each thread evaluates on its own)."""

    game_deadline = None  # set by `budget()` for one game
    deadline = None  # this evaluation's, the earlier of its own and the game's
    memory_ceiling = None
    depth = 0  # nested render/evaluate calls: the outermost one owns the deadline
    call_depth = 0  # calls in progress inside templates (macros calling macros)
    steps = 0


_budget = _Budget()


def _peak_memory():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB, macOS bytes


class _Timeout(LimitError):
    """One evaluation ran out of its own time (the same template would for the next item too)."""


def _over_game_budget():
    return LimitError(f"the game's templates took longer than {SECONDS_PER_GAME:g} s in all; pnp stops there "
                      "(a loop that does far too much?)")


def tick():
    """One step of a loop: every few hundred steps, stop the evaluation if it is over its time or memory."""
    _budget.steps += 1
    if _budget.steps % _CHECK_EVERY:
        return
    if _budget.deadline is not None and time.monotonic() > _budget.deadline:
        if _budget.game_deadline is not None and time.monotonic() > _budget.game_deadline:
            raise _over_game_budget()
        raise _Timeout(f"took longer than {SECONDS_PER_EVALUATION:g} s; pnp stops a template there "
                       "(a loop that never ends, or loops nested too deep?)")
    if _budget.memory_ceiling is None:
        _budget.memory_ceiling = _peak_memory() + MAX_MEMORY_GROWTH
    elif _peak_memory() > _budget.memory_ceiling:
        raise LimitError("used too much memory; pnp stops a template there")


@contextlib.contextmanager
def budget(seconds=None):
    """Bound the total time of every evaluation inside the block (one game's validation and build)."""
    previous = _budget.game_deadline
    _budget.game_deadline = time.monotonic() + (SECONDS_PER_GAME if seconds is None else seconds)
    try:
        yield
    finally:
        _budget.game_deadline = previous


class _Evaluation:
    """`with _EVALUATION:` around every render and evaluate. The outermost one sets the deadlines that every
    loop step inside it checks; its memory ceiling is read at the first check, since a system call on every
    evaluation would cost more than most evaluations do."""

    def __enter__(self):
        if _budget.depth == 0:
            now = time.monotonic()
            if _budget.game_deadline is not None and now > _budget.game_deadline:
                raise _over_game_budget()
            deadline = now + SECONDS_PER_EVALUATION
            if _budget.game_deadline is not None:
                deadline = min(deadline, _budget.game_deadline)
            _budget.deadline, _budget.call_depth, _budget.steps = deadline, 0, 0
        _budget.depth += 1

    def __exit__(self, *exc):
        _budget.depth -= 1
        if _budget.depth == 0:
            _budget.deadline = _budget.memory_ceiling = None
        return False


_EVALUATION = _Evaluation()


# -- bounded operations -------------------------------------------------------------------------------------

def _size(value):
    return len(value) if isinstance(value, (str, list, tuple, bytes)) else None


def _check_int(value, what):
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_STRING:
        raise LimitError(f"{what} {value} is too large (at most {MAX_STRING:,})")


def _check_result(value):
    size = _size(value)
    if size is not None and size > MAX_STRING:
        raise LimitError(f"a template built a value of {size:,} items or characters (at most {MAX_STRING:,})")
    return value


_FORMAT_WIDTH = re.compile(r"%[-#0 +]*(\*|\d+)(?:\.(\*|\d+))?|\{[^{}]*:[^{}]*?(\d{5,})")


def _check_format(fmt):
    """Widths in a %-format or str.format string: '%999999999d' would build a gigabyte of spaces."""
    for m in _FORMAT_WIDTH.finditer(fmt):
        for group in m.groups():
            if group and group != "*" and int(group) > MAX_STRING:
                raise LimitError(f"a format width of {group} is too large (at most {MAX_STRING:,})")
            if group == "*":
                raise LimitError("'*' widths are not allowed in formats")


def _multiply(left, right):
    for seq, n in ((left, right), (right, left)):
        size = _size(seq)
        if size is not None and isinstance(n, int):
            if size * max(n, 0) > MAX_STRING:
                raise LimitError(f"repeating {size:,} items {n:,} times is too large (at most {MAX_STRING:,})")
            return left * right
    if isinstance(left, int) and isinstance(right, int) and \
            left.bit_length() + right.bit_length() > MAX_NUMBER_BITS:
        raise LimitError("a number too large to compute")
    return left * right


def _power(left, right):
    if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0 and \
            right * max(left.bit_length() - 1, 1) > MAX_NUMBER_BITS:
        raise LimitError(f"{left} ** {right} is too large to compute")
    return left ** right


def _modulo(left, right):
    if isinstance(left, str):
        _check_format(left)
    return left % right


def _add(left, right):
    size_l, size_r = _size(left), _size(right)
    if size_l is not None and size_r is not None and size_l + size_r > MAX_STRING:
        raise LimitError(f"joining values of {size_l + size_r:,} characters or items (at most {MAX_STRING:,})")
    return left + right


_BINOPS = {"*": _multiply, "**": _power, "%": _modulo, "+": _add}


class _Guarded:
    """A loop's iterable that checks the time budget as it goes (wrapped round every `{% for %}`)."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        for value in self.items:
            tick()
            yield value


def _bounded_range(*args):
    numbers = range(*args)
    if len(numbers) > MAX_ITEMS:
        raise LimitError(f"range of {len(numbers):,} numbers is too long (at most {MAX_ITEMS:,})")
    return numbers


def _guard_filter(function):
    """A built-in filter with its number arguments and its result kept within the limits."""

    skip = 1 if hasattr(function, "jinja_pass_arg") else 0  # the context Jinja passes first

    def guarded(*args, **kwargs):
        value, params = args[skip] if len(args) > skip else None, args[skip + 1:]
        for param in list(params) + list(kwargs.values()):  # a width, a count: center(10**10)
            _check_int(param, "the number")
        if function.__name__ == "do_replace" and len(params) >= 2:  # s | replace(old, new) can multiply s
            grows = len(str(params[1])) // max(len(str(params[0])), 1)
            if len(str(value)) * max(grows, 1) > MAX_STRING:
                raise LimitError("this replace would build too long a text")
        if function.__name__ == "do_format":
            _check_format(str(value))
        return _check_result(function(*args, **kwargs))

    for attr in ("jinja_pass_arg", "__name__", "__doc__"):
        if hasattr(function, attr):
            setattr(guarded, attr, getattr(function, attr))
    return guarded


class _Undefined(StrictUndefined):
    """Undefined values whose messages say what was missing in the designer's terms."""

    __slots__ = ()

    @property
    def _undefined_message(self):
        if self._undefined_hint:
            return self._undefined_hint
        name, obj = self._undefined_name, self._undefined_obj
        if obj is missing:
            return f"'{name}' is not defined"
        if isinstance(obj, Mapping):
            keys = [str(k) for k in obj]
            from difflib import get_close_matches

            close = get_close_matches(str(name), keys, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            shown = ", ".join(sorted(keys)[:12]) + (", ..." if len(keys) > 12 else "")
            return f"no field '{name}'{hint}; the fields here are: {shown or 'none'}"
        if obj is None:
            return f"no field '{name}': the value is none here (is there no item for this template?)"
        return f"{_describe_value(obj)} has no attribute '{name}'"


def _describe_value(value):
    if value is None:
        return "nothing (none)"
    kinds = {str: "text", int: "a number", float: "a number", bool: "true/false", list: "a list",
             tuple: "a list"}
    for t, word in kinds.items():
        if isinstance(value, t):
            return f"{word} ({_short(repr(value))})" if t in (str, int, float) else word
    return "a value"


def _short(text, n=30):
    return text if len(text) <= n else text[: n - 1] + "…"


_IS_MAPPING = {}  # type -> is it a Mapping: asked on every field a template reads, of a handful of types


def _is_mapping(value):
    found = _IS_MAPPING.get(type(value))
    if found is None:
        found = _IS_MAPPING[type(value)] = isinstance(value, Mapping)
    return found


class _Env(ImmutableSandboxedEnvironment):
    """Templates read the game; they cannot change it (no list.append) nor reach Python internals."""

    intercepted_binops = frozenset(_BINOPS)

    def getattr(self, obj, attribute):
        # A mapping's fields win over its methods, so `card.items` or `goal.values` mean the data.
        if _is_mapping(obj) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    def call_binop(self, context, operator, left, right):
        tick()
        return _BINOPS[operator](left, right)

    def call(self, __context, __obj, *args, **kwargs):
        tick()
        if getattr(__obj, "__self__", None) is not None and isinstance(__obj.__self__, (str, list, bytes)):
            for value in list(args) + list(kwargs.values()):  # 'x'.ljust(10**10)
                _check_int(value, "the number")
        _budget.call_depth += 1
        try:
            if _budget.call_depth > MAX_CALL_DEPTH:
                raise LimitError(f"macros call each other more than {MAX_CALL_DEPTH} deep "
                                 "(a macro that calls itself forever?)")
            return _check_result(super().call(__context, __obj, *args, **kwargs))
        finally:
            _budget.call_depth -= 1

    def wrap_str_format(self, value):
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:  # '{:>999999999}'.format(1): refuse the width before formatting
            _check_format(value.__self__)
        return wrapped

    def _parse(self, source, name, filename):
        """Every `{% for %}` loop steps through a guard that watches the time budget."""
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            loop.iter = nodes.Filter(loop.iter, "_pnp_loop", [], [], None, None, lineno=loop.lineno)
        return tree


ENV = _Env(undefined=_Undefined, autoescape=False, keep_trailing_newline=True)
ENV.filters = {name: _guard_filter(f) for name, f in ENV.filters.items()}


def _percent(part, whole):
    """A whole-number percentage, halves rounded up: matches | percent(data.cards | length)."""
    if not whole:
        return 0
    return int(part * 100 / whole + 0.5)


def _count(items, attribute, value):
    """How many items have `attribute` equal to `value`: data.cards | count('suit', 'red')."""
    return sum(1 for it in items if it.get(attribute) == value)


def _lookup(keys, mapping):
    """A list of ids as the items they name: scenario.goals | lookup(ref.goals)."""
    return [mapping[k] for k in keys]


def _split(text, sep=None):
    """Text cut into a list at `sep` (at spaces when none is given)."""
    return str(text).split(sep)


OWN_FILTERS = {"percent": _percent, "count": _count, "lookup": _lookup, "split": _split}
ENV.filters.update(OWN_FILTERS, _pnp_loop=_Guarded)
ENV.globals.update(max=max, min=min, abs=abs, round=round, sorted=sorted, len=len, sum=sum,
                   range=_bounded_range)
ENV.globals.pop("lipsum", None)  # lipsum(10**9) is a memory bomb, and no game needs filler text


def _no_random(*args, **kwargs):
    raise ValueError("the random filter would print something different on every build (pnp builds the same "
                     "bytes from the same data); choose by a rule instead, e.g. items[loop.index0 % (items | "
                     "length)]")


ENV.filters["random"] = _no_random

# The globals every template sees, as one plain dict: Jinja's own (a ChainMap over the environment's) is copied
# into a new context at every render, and a ChainMap copies key by key in Python (a third of validating a game)
_GLOBALS = dict(ENV.globals)

# -- the public surface -------------------------------------------------------------------------------------

_TEMPLATE_FILES = ("<template>", "<unknown>")


def _template_line(error):
    """The template line a failure happened on, from Jinja's error or from the traceback."""
    line = getattr(error, "lineno", None)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in _TEMPLATE_FILES:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe(error):
    if isinstance(error, LimitError):
        return error.message
    if isinstance(error, TemplateSyntaxError):
        return f"template syntax error: {error.message}"
    if isinstance(error, UndefinedError):
        return _friendly(str(error.message))
    if isinstance(error, SecurityError):
        return "not allowed in a template (pnp templates cannot reach Python internals)"
    if isinstance(error, RecursionError):
        return "nested too deeply (a macro or loop that calls itself forever?)"
    if isinstance(error, MemoryError):
        return "ran out of memory"
    if isinstance(error, ZeroDivisionError):
        return "division by zero"
    if isinstance(error, OverflowError):
        return "a number too large to compute"
    return _friendly(str(error) or type(error).__name__)


def _friendly(message):
    for internal, word in _FRIENDLY.items():
        message = message.replace(f"'{internal}'", word).replace(internal, word)
    return message


# What evaluating a template may raise besides Jinja's own errors: a designer's mistake in an expression,
# or our limits. Anything else is a bug in pnp and should surface as one.
_EXPECTED = (TemplateError, LimitError, TypeError, ValueError, ArithmeticError, AttributeError, KeyError,
             IndexError, RecursionError, MemoryError)


def _failure(error):
    return ExprError(_describe(error), _template_line(error))


def compile_template(source):
    """A compiled template (cached); ExprError with its line for a syntax error."""
    try:
        return _compile_template(source)
    except TemplateError as e:
        raise _failure(e) from None


_TEMPLATES, _EXPRESSIONS = {}, {}
_TOO_SLOW = {}  # source -> the LimitError it ran into: a template that ran out of time once is not run again


def _compile_template(source):
    template = _TEMPLATES.get(source)
    if template is None:
        code = _cached_code(f"template\0{source}", lambda: ENV.compile(source))
        template = _TEMPLATES[source] = ENV.template_class.from_code(ENV, code, _GLOBALS, None)
    return template


def _compile_expression(source):
    expression = _EXPRESSIONS.get(source)
    if expression is None:
        code = _cached_code(f"expression\0{source}", lambda: _expression_code(source))
        template = ENV.template_class.from_code(ENV, code, _GLOBALS, None)
        expression = _EXPRESSIONS[source] = TemplateExpression(template, False)
    return expression


def _expression_code(source):
    """An expression compiled as Jinja's own compile_expression does (`result = EXPR`)."""
    parser = Parser(ENV, source, state="variable")
    expr = parser.parse_expression()
    if not parser.stream.eos:
        raise TemplateSyntaxError("chunk after expression", parser.stream.current.lineno, None, None)
    expr.set_environment(ENV)
    return ENV.compile(_result_of(expr))


def _result_of(expr):
    """The template `result = EXPR` that Jinja compiles an expression as."""
    return nodes.Template([nodes.Assign(nodes.Name("result", "store"), expr, lineno=1)], lineno=1)


# compiling is a fifth of building a game, and the same layouts are built again and again; the sandbox this
# module sets up is part of what compiled code depends on
CODE_CACHE = DiskCache("templates", jinja2.__version__, Path(__file__).read_bytes())


def _cached_code(key: str, make) -> CodeType:
    """Compiled code from the disk cache; an entry that reads back as anything but code (a damaged file that
    still unmarshals) is not trusted: the code is made afresh."""
    code = CODE_CACHE.value(key, make)
    return code if isinstance(code, CodeType) else make()


def compile_expression(source):
    """Check an expression's syntax once (cached); ExprError for a syntax error."""
    try:
        return _compile_expression(str(source))
    except TemplateError as e:
        raise _failure(e) from None


def is_template(value):
    return isinstance(value, str) and ("{{" in value or "{%" in value)


_LOOKUP = re.compile(r"^\{\{\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\}\}$")
_LOOKUPS = {}  # source -> its names when the template is one `{{ a.b.c }}`, else None
_UNSEEN = object()


def _lookup(source, context):
    """A template that is only `{{ card.name }}`, the commonest by far, read as Jinja would read it (a
    mapping's field) without making a Jinja context per item; None when Jinja must run it: a name not in
    `context`, a field that is not there, anything but text or a whole number at the end."""
    names = _LOOKUPS.get(source, _UNSEEN)
    if names is _UNSEEN:
        match = _LOOKUP.match(source)
        names = _LOOKUPS[source] = match.group(1).split(".") if match else None
    if names is None or names[0] not in context:
        return None
    value = context[names[0]]
    for name in names[1:]:  # a mapping's field, as _Env.getattr reads it first; anything else goes to Jinja
        if not _is_mapping(value) or name not in value:
            return None
        value = value[name]
    if type(value) not in (str, int):
        return None
    text = str(value)
    return text if len(text) <= MAX_STRING else None


def render(source, context):
    """Render a string template; plain strings come back untouched (the fast path for most values)."""
    if not is_template(source):
        return source
    quick = _lookup(source, context)
    if quick is not None:
        return quick
    if source in _TOO_SLOW:
        raise _TOO_SLOW[source]
    try:
        with _EVALUATION:
            template = _compile_template(source)
            out, size = [], 0
            for piece in template.generate(context):
                size += len(piece)
                if size > MAX_STRING:
                    raise LimitError(f"the template's text is longer than {MAX_STRING:,} characters")
                out.append(piece)
            return "".join(out)
    except _EXPECTED as e:
        raise _remember(source, e) from None


def evaluate(source, context):
    """Evaluate a Jinja expression (no braces) to a Python value."""
    source = str(source)
    if source in _TOO_SLOW:
        raise _TOO_SLOW[source]
    try:
        with _EVALUATION:
            return _defined(_compile_expression(source)(**context))
    except _EXPECTED as e:
        raise _remember(source, e) from None


def _defined(value):
    """An expression's value, refused if it is (or holds) something undefined: `game.rules.missing` must fail
    here, with its message, not later in code that only then tries to use it."""
    if isinstance(value, Undefined):
        value._fail_with_undefined_error()
    if type(value) in (list, tuple):  # made by the expression (data's own lists and records hold no Undefined)
        for item in value:
            _defined(item)
    elif type(value) is dict:
        for item in value.values():
            _defined(item)
    return value


def _remember(source, error):
    """The ExprError for a failure; a template stopped for taking too long would take as long for the next
    item, so it is not run again: later renders raise the same error at once."""
    failure = _failure(error)
    if isinstance(error, _Timeout):
        _TOO_SLOW[source] = failure
    return failure


def module(source, context):
    """A template of macros (macros.j2) as a module whose macros other templates call."""
    try:
        with _EVALUATION:
            return _compile_template(source).make_module(context)
    except _EXPECTED as e:
        raise _failure(e) from None


# -- the parts of a comparison (the design report's margins) ------------------------------------------------

_OPERATORS = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">="}
_COMPARISONS = {}  # source -> its Comparisons, or None


class Side:
    """One side of a comparison, compiled on its own: `names` are the context's names it reads."""

    def __init__(self, node):
        self.names = frozenset(n.name for n in node.find_all(nodes.Name)) | (
            {node.name} if isinstance(node, nodes.Name) else set())
        self._expression = TemplateExpression(ENV.from_string(_result_of(node)), False)

    def value(self, context):
        """The side's value, bounded like any evaluation; ExprError when it fails."""
        try:
            with _EVALUATION:
                return _defined(self._expression(**context))
        except _EXPECTED as e:
            raise _failure(e) from None


def comparisons(source):
    """The comparisons an expression is made of at its top: `A op B`, a chain `A <= B <= C` (two pairs), or
    several of those joined by `and`; each as (left Side, operator, right Side). None when the expression is
    anything else (an `or`, a test, a macro's output...) or cannot be parsed."""
    source = str(source)
    if source not in _COMPARISONS:
        _COMPARISONS[source] = _parse_comparisons(source)
    return _COMPARISONS[source]


def _parse_comparisons(source):
    try:
        parser = Parser(ENV, source, state="variable")
        tree = parser.parse_expression()
        if not parser.stream.eos:
            return None
    except TemplateError:
        return None
    pairs = []
    for node in _conjuncts(tree):
        if not isinstance(node, nodes.Compare) or any(o.op not in _OPERATORS for o in node.ops):
            return None
        left = Side(node.expr)
        for operand in node.ops:
            right = Side(operand.expr)
            pairs.append((left, _OPERATORS[operand.op], right))
            left = right
    return pairs


def _conjuncts(node):
    """`a and b and c` -> a, b, c (the operands of top-level `and`s)."""
    if isinstance(node, nodes.And):
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]
