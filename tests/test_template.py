"""The sandbox's bounds, directly: each refusal is an ExprError with a plain message, never a hang."""

import pytest

from pnp import template
from pnp.errors import ExprError


@pytest.mark.parametrize("source, message", [
    ("{{ range(10**9) | list }}", "range of 1,000,000,000 numbers is too long"),
    ("{{ 'x' * 10**10 }}", "repeating 1 items 10,000,000,000 times is too large"),
    ("{{ 7 ** 100000 }}", "7 ** 100000 is too large to compute"),
    ("{{ 'x'.ljust(10**10) }}", "the number 10000000000 is too large"),
    ("{{ '{:>999999999}'.format(1) }}", "a format width of 999999999 is too large"),
    ("{{ '%999999999d' % 1 }}", "a format width of 999999999 is too large"),
    ("{{ [1, 2].append(3) }}", "not allowed in a template"),
    ("{{ card.__class__ }}", "not allowed in a template"),
    ("{{ card.nothing }}", "no field 'nothing'; the fields here are: name"),
    ("{{ lipsum(10) }}", "'lipsum' is not defined"),
    ("{% for a in range(99999) %}{{ 'x' * 99999 }}{% endfor %}", "text is longer than 1,000,000 characters"),
])
def test_refused_with_a_message(source, message):
    with pytest.raises(ExprError) as e:
        template.render(source, {"card": {"name": "Lion"}})
    assert message in e.value.message


def test_a_loop_that_never_ends_is_stopped_at_the_time_limit(monkeypatch):
    monkeypatch.setattr(template, "SECONDS_PER_EVALUATION", 0.2)
    with pytest.raises(ExprError, match="took longer than 0.2 s"):
        template.render("{% for a in range(99999) %}{% for b in range(99999) %}{% endfor %}{% endfor %}", {})


def test_a_macro_calling_itself_is_stopped_by_depth():
    macros = template.module("{% macro down(n) %}{{ down(n + 1) }}{% endmacro %}", {})
    with pytest.raises(ExprError, match="macros call each other more than 100 deep"):
        template.render("{{ m.down(0) }}", {"m": macros})


def test_the_game_budget_covers_all_its_evaluations_together(monkeypatch):
    monkeypatch.setattr(template, "SECONDS_PER_GAME", 0.0)
    with template.budget(0.0):
        with pytest.raises(ExprError, match="the game's templates took longer than"):
            template.evaluate("1 + 1", {})
    assert template.evaluate("1 + 1", {}) == 2  # outside the game's budget, evaluation goes on


def test_fields_win_over_mapping_methods():
    assert template.render("{{ card.items }}", {"card": {"items": 3}}) == "3"


@pytest.mark.parametrize("expression", ["game.missing", "[1, game.missing]", "{'a': game.missing}"])
def test_an_expression_that_names_nothing_fails_where_it_is_evaluated(expression):
    with pytest.raises(ExprError, match="no field 'missing'"):
        template.evaluate(expression, {"game": {"title": "T"}})


def test_compiled_templates_are_kept_on_disk_and_a_damaged_entry_is_compiled_again(tmp_path, monkeypatch):
    from pnp import template as tm
    from pnp.cache import DiskCache

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    cache = DiskCache("templates", "test")
    made = []

    def make():
        made.append(1)
        return tm.ENV.compile("{{ a * 2 }}")

    code = cache.value("template\0{{ a * 2 }}", make)
    files = list(cache.folder().glob("*.marshal"))
    assert len(files) == 1 and made == [1]
    again = cache.value("template\0{{ a * 2 }}", make)
    assert made == [1] and again.co_code == code.co_code  # read back, not compiled
    template = tm.ENV.template_class.from_code(tm.ENV, again, tm.ENV.make_globals(None), None)
    assert template.render(a=21) == "42"
    files[0].write_bytes(b"not marshal data")
    cache.value("template\0{{ a * 2 }}", make)
    assert made == [1, 1]  # compiled again, and the entry rewritten
    assert cache.value("template\0{{ a * 2 }}", make) and made == [1, 1]
    assert DiskCache("templates", "another version").folder() != cache.folder()


def test_a_cache_folder_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    from pnp.cache import DiskCache, private_folder

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "shared"))
    private_folder("templates", "v1").chmod(0o777)
    assert DiskCache("templates", "v1").folder() is None
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    assert DiskCache("templates", "v1").folder() is None


def test_syntax_errors_still_say_their_line_with_the_cache():
    with pytest.raises(ExprError) as e:
        template.compile_template("ok\n{{ card.name }\n")
    assert e.value.line == 2


def test_the_random_filter_is_refused_because_builds_must_repeat():
    with pytest.raises(ExprError) as e:
        template.render("{{ ['a', 'b', 'c'] | random }}", {})
    assert "same bytes" in e.value.message
