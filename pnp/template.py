"""The one sandboxed Jinja environment: data constraints, derived fields and layouts all use it."""

import functools

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from .model.load import Record


class _Env(SandboxedEnvironment):
    def getattr(self, obj, attribute):
        # A Record's fields win over Mapping methods, so `card.items` or `goal.values` mean the data.
        if isinstance(obj, Record) and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)


def _percent(part, whole):
    """Whole-number percentage, rounding halves up (Python's round() would round 22.5 to 22)."""
    if not whole:
        return 0
    return int(part * 100 / whole + 0.5)


def _count(items, attribute, value):
    return sum(1 for it in items if it.get(attribute) == value)


def _lookup(keys, mapping):
    """A list of ids -> the items they name, e.g. scenario.goals | lookup(ref.goals)."""
    return [mapping[k] for k in keys]


ENV = _Env(undefined=StrictUndefined, autoescape=False,
           keep_trailing_newline=True)
ENV.filters.update(percent=_percent, count=_count, lookup=_lookup, split=lambda s, sep=None: str(s).split(sep))
ENV.globals.update(max=max, min=min, abs=abs, round=round, sorted=sorted, len=len, sum=sum)


class ExprError(Exception):
    """A template or expression failed; `message` says why, without a traceback."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


def _describe(e):
    if hasattr(e, "lineno") and e.__class__.__name__ == "TemplateSyntaxError":
        return f"template syntax error: {e.message}"
    return f"{type(e).__name__.replace('Error', ' error').lower()}: {e}"


@functools.lru_cache(maxsize=None)
def _compile_template(source):
    return ENV.from_string(source)


@functools.lru_cache(maxsize=None)
def _compile_expression(source):
    return ENV.compile_expression(source, undefined_to_none=False)


def is_template(value):
    return isinstance(value, str) and ("{{" in value or "{%" in value)


def render(source, context):
    """Render a string template; plain strings come back untouched (the fast path for most values)."""
    if not is_template(source):
        return source
    try:
        return _compile_template(source).render(context)
    except TemplateError as e:
        raise ExprError(_describe(e)) from None
    except (TypeError, ValueError, ZeroDivisionError, AttributeError, KeyError) as e:
        raise ExprError(f"template failed: {e}") from None


def evaluate(source, context):
    """Evaluate a Jinja expression (no braces) to a Python value."""
    try:
        return _compile_expression(str(source))(**context)
    except TemplateError as e:
        raise ExprError(_describe(e)) from None
    except (TypeError, ValueError, ZeroDivisionError, AttributeError, KeyError) as e:
        raise ExprError(f"expression failed: {e}") from None
