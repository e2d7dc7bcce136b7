"""The sandbox's bounds, directly: each refusal is an ExprError with a plain message, never a hang."""

import datetime
import gc
import weakref
from collections.abc import Mapping

import pytest

from pnp import template
from pnp.errors import ExprError, LimitError


@pytest.mark.parametrize("source, message", [
    ("{{ range(10**9) | list }}", "range of 1,000,000,000 numbers is too long"),
    ("{{ 'x' * 10**10 }}", "repeating a text of 1 character 10,000,000,000 times is too large"),
    ("{{ [1, 2] * 10**6 }}", "repeating a list of 2 items 1,000,000 times is too large"),
    ("{{ 7 ** 100000 }}", "a template made a number of more than 4,096 bits"),
    # powers held to MAX_NUMBER_BITS as every other result: 2 ** 4096 (4,097 bits) was made, 2**4095 * 2 refused
    ("{{ 2 ** 4096 }}", "a template made a number of more than 4,096 bits"),
    ("{{ (-2) ** 4096 }}", "a template made a number of more than 4,096 bits"),
    ("{{ 3 ** 2585 }}", "a template made a number of 4,098 bits (at most 4,096"),
    # a character code out of range is no number too large: said as what the field takes
    ("{{ '%c' | format(-1) }}", "%c and {:c} take a character code from 0 to 1,114,111"),
    ("{{ '%c' % 1114112 }}", "%c and {:c} take a character code from 0 to 1,114,111"),
    ("{{ '{:c}'.format(-1) }}", "%c and {:c} take a character code from 0 to 1,114,111"),
    ("{{ 'x'.ljust(10**10) }}", "the number 10000000000 is too large"),
    # a count Python holds in a machine word, bounded as the replace filter's ("a number too large to compute")
    ("{{ 'abc'.replace('b', 'x', 2 ** 70) }}", "the count given to replace of text, 1180591620717411303424 is too"),
    ("{{ 'a,b'.split(',', 2 ** 70) }}", "the maxsplit given to split of text, 1180591620717411303424 is too large"),
    ("{{ [1] | batch(linecount=10**9, fill_with=0) | list }}", "the number 1000000000 is too large"),
    # slice's signature is its function's, one argument after the context its wrapper takes: read at its place
    ("{{ [1, 2, 3] | slice(10**8) | list }}", "the number 100000000 is too large"),
    ("{{ [1, 2, 3] | slice(slices=10**8) | list }}", "the number 100000000 is too large"),
    ("{{ 'x' | center(2**4000) }}", "the number 13182040934309431001038897942… is too large"),
    ("{{ '{:>999999999}'.format(1) }}", "a format width of 999999999 is too large"),
    ("{{ '%999999999d' % 1 }}", "a format width of 999999999 is too large"),
    ("{{ [1, 2].append(3) }}", "not allowed in a template"),
    ("{{ card.__class__ }}", "not allowed in a template"),
    ("{{ card.nothing }}", "no field 'nothing'; the fields here are: name"),
    # an empty list's first or last item said in pnp's words (Jinja's "No first item, sequence was empty.")
    ("{{ [] | first }}", "`first` of an empty list: there is no item to take"),
    ("{{ [] | last }}", "`last` of an empty list: there is no item to take"),
    # an index past a list's end said as one ("a list has no attribute '10'")
    ("{{ [1, 2, 3, 4][10] }}", "[10]: the list has 4 items, [0] to [3] (or [-4] to [-1] from its end)"),
    ("{{ [][0] }} {{ 'abc'[-4] }}", "[0]: the list is empty"),
    # an index past the end quoted, not copied (1,200 digits were)
    ("{{ 'a'[2 ** 4000] }}", "[13182040934309431001038897942…]: the text has 1 character"),
    # a recursive loop whose values lead back to one another, said as the loop it is (it read "macros call ...")
    ("{% for c in [card] recursive %}{{ loop([card]) }}{% endfor %}", "a recursive loop goes more than 100 levels"),
    # a loop over no list, and loop() given other than one value, said in pnp's words (Python's: "'NoneType'
    # object is not iterable", "LoopContext.__call__() missing 1 required positional argument: 'iterable'")
    ("{% for t in none %}{% endfor %}", "a `for` (or a recursive loop's `loop(...)`) goes over a "
                                                         "list, a mapping's keys or a range, not nothing (none)"),
    ("{% for t in 5 %}{% endfor %}", "goes over a list, a mapping's keys or a range, not a whole number (5)"),
    ("{% for c in [1] recursive %}{{ loop(5) }}{% endfor %}", "not a whole number (5)"),
    ("{% for c in [1] recursive %}{{ loop() }}{% endfor %}", "loop(...) in a recursive loop is given one value"),
    ("{% for c in [1] recursive %}{% call(x) loop([]) %}{% endcall %}{% endfor %}", "loop(...) in a recursive"),
    # a `for` of two names over values that are not pairs ("too many values to unpack (expected 2)")
    ("{% for k, v in {'ab': 1, 'cde': 2} %}{% endfor %}", "a `for` of 2 names is given text ('cde') of 3 characters"),
    ("{% for a, b in [[1, 2]] recursive %}{{ loop([5]) }}{% endfor %}", "a `for` of 2 names is given a whole "
                                                                          "number (5), not 2 values"),
    ("{% set a, b = 1 %}", "a `set` of 2 names is given a whole number (1), not 2 values"),
    ("{% set a, b = [1, 2, 3] %}", "a `set` of 2 names is given a list of 3 values, not 2 values"),
    ("{% set a, b = [1] %}", "a `set` of 2 names is given a list of 1 value, not 2 values"),  # (it said "1 values")
    ("{{ lipsum(10) }}", "'lipsum' is not defined"),
    ("{% for a in range(99999) %}{{ 'x' * 99999 }}{% endfor %}", "text is longer than 1,000,000 characters"),
    # sizes computed from the inputs, before anything is built
    ("{% set a = 'x' * 600000 %}{{ a ~ a }}", "the text joined with ~ would be longer than 1,000,000"),
    ("{% set a = 'x' * 600000 %}{% set b %}{{ a }}{{ a }}{% endset %}", "a block's text would be longer"),
    ("{% macro m(a) %}{{ a }}{{ a }}{% endmacro %}{{ m('x' * 600000) }}", "a block's text would be longer"),
    ("{% set a = 'x' * 600000 %}{{ '%s%s' | format(a, a) }}", "this format's text would be longer"),
    ("{% set a = 'x' * 600000 %}{{ '{0}{0}'.format(a) }}", "this format's text would be longer"),
    ("{% set a = 'x' * 600000 %}{{ '%(a)s%(a)s' % {'a': a} }}", "this format's text would be longer"),
    ("{{ '{:>{w}}'.format(1, w=10**9) }}", "widths given as arguments ('{:{}}') are not allowed"),
    ("{{ [10 ** 300] * 5000 }}", "the printed text would be longer"),
    ("{{ ([10 ** 300] * 5000) | tojson }}", "the text given to tojson would be longer"),
    ("{{ (['x' * 1000] * 900) | join('-' * 200) }}", "what join builds would be longer"),
    ("{{ ('-' * 200).join(['x' * 1000] * 900) }}", "what join builds would be longer"),
    ("{{ ('x' * 1000).replace('', 'y' * 1000) }}", "what replace builds would be longer"),
    ("{{ ('\n' * 999999) | indent(1000) }}", "what indent builds would be longer"),
    ("{{ ('x' * 300000).strip('y' * 300000) }}", "stripping any of 300,000 characters from a text of 300,000"),
    ("{{ sum([[1] * 1000] * 2000, []) }}", "holding more than 1,000,000 items"),
    ("{{ ([[1] * 1000] * 2000) | sum(start=[]) }}", "holding more than 1,000,000 items"),
    # only the methods offered: the others are refused by name, saying which there are
    ("{{ 'x'.encode('rot13') }}", "'encode' of text is not allowed in a template; templates may call these "
                                  "methods of text: capitalize, center, count,"),
    ("{{ '{a}'.format_map({'a': 1}) }}", "'format_map' of text is not allowed in a template"),
    ("{{ ('\t' * 9).expandtabs(1000) }}", "'expandtabs' of text is not allowed in a template"),
    ("{{ card.copy() }}", "'copy' of a mapping is not allowed in a template; templates may call these methods of "
                          "a mapping: get, items, keys, values"),
    ("{{ [1, 2].copy() }}", "'copy' of a list is not allowed in a template; templates may call these methods of "
                            "a list: count, index"),
    ("{{ (5).to_bytes(10**6, 'big') }}", "'to_bytes' of a number is not allowed in a template"),
    ("{{ card.keys().isdisjoint([]) }}", "templates may call no method of the keys, values or items of a mapping"),
    ("{{ ['x'] | map(attribute='swapcase') | join }}", "'swapcase' of text is not allowed in a template"),
    ("{{ '{0.swapcase}'.format('a') }}", "'swapcase' of text is not allowed in a template"),
    # tojson's indent repeats once per line and per container around it (800 MB were built before)
    ("{{ ([[1, 2, 3]] * 100) | tojson(indent=999999) }}", "what tojson builds would be longer"),
    # ignoring case, sort, unique, min, max and groupby copy every text at once in C (900 MB before a look)
    ("{{ range(3) | map('string') | map('center', 400000) | sort }}", "what sort builds would be longer"),
    # a number made from text has the bound of numbers computed (base 16 has no length limit in Python)
    ("{{ ('f' * 999999) | int(base=16) }}", "a template made a number of 3,999,996 bits (at most 4,096"),
    # a text's characters count as often as a list holds it: `in` compared each reference, a terabyte in C
    ("{% set s = 'x' * 999999 %}{{ 'y' in [s] * 2 }}", "holding more than 1,000,000 items and characters"),
    ("{{ ('x' * 100000) | wordwrap(1) }}", "wrapping this text at 1 would take too long"),
    ("{{ round(5, -10**8) }}", "rounding to 100000000 digits is too many"),
    # a memory address would print: the same data would not build the same bytes
    ("{{ card.items }}", "is a function or an object, not a value, and cannot be printed"),
    # a method whose object shows no address printed itself ("<bound method LoopContext.changed of ...>")
    ("{% for i in [1] %}{{ loop.changed }}{% endfor %}", "<LoopContext.changed> is a function or an object"),
    ("{{ '%s' % [cycler(1, 2)] }}", "is a function or an object, not a value, and cannot be printed"),
    ("{{ 'a {} {.items}'.format(1, card) }}", "is a function or an object, not a value, and cannot be printed"),
    # an object with no literal form ('<...>'): what Jinja calls it, or an address ('<TemplateModule memory:7f..>')
    ("{{ [self] }}", "<TemplateReference> is a function or an object, not a value"),
    ("{% for i in [1] %}{{ loop }}{% endfor %}", "<LoopContext> is a function or an object, not a value"),
    # a function templates are given, named as written (was "<_said_as_written.<locals>.checked>", pnp's names)
    ("{{ range }}", "<range> is a function or an object, not a value"),
    # what compiling costs, and Python's and Jinja's own recursion
    ("{{ 1 }}" + "x" * 1_000_000, "the template is 1,000,007 characters long"),
    ("{{ " + " + ".join(["1"] * 250) + " }}", "more than 50 operators, brackets or blocks inside one another"),
    ("{{ " + "(" * 300 + "1" + ")" * 300 + " }}", "more than 50 operators, brackets or blocks inside one another"),
    ("{% for a in [1] %}" * 25 + "{% endfor %}" * 25, "too many loops, blocks or brackets inside one another"),
    # a filter binds before an operator: Python's words named pow() and the text '1.2 kB' nobody wrote
    ("{{ 10 ** 1200 | filesizeformat }}", "'**' cannot work on a whole number (10) and text ('1.2 kB') (a filter "
                                          "applies before an operator"),
    ("{{ card - 1 }}", "'-' cannot work on a mapping and a whole number (1)"),
    ("{{ 'abc' | filesizeformat }}", "filesizeformat takes a number of bytes, not text ('abc')"),
    # a value that is no number printed 0 (int) or 0.0 (float) when no default was given: a cost of 'X'
    ("{{ 'X' | int }}", "int of text ('X'), which is no number: it would print 0; give the number it stands for"),
    ("{{ ['3'] | int }}", "int of a list, which is no number"),
    ("{{ ['1', 'two'] | map('float') | join }}", "float of text ('two'), which is no number"),
    # a mapping's value that is none, named by a %-format, printed 'None' (an optional field left out)
    ("{{ '%(name)s %(friend)s' % {'name': card.name, 'friend': none} }}", "a %-format is given none, which would"),
    ("{{ '%(a)s' | format(a=none) }}", "a %-format is given none, which would print as the word 'None'"),
    # a block given to a macro that never prints it (Jinja said 'This is most likely a bug.')
    ("{% macro h(c) %}<{{ c }}>{% endmacro %}{% call h(1) %}x{% endcall %}", "the macro h is given a block by "
                                                                              "{% call %} (or `caller=`) but never"),
    # sameas is identity, which a text from the data never has with one written (false on every card, exit 0)
    ("{{ card.name is sameas 'Lion' }}", "`is sameas` asks whether two values are one object in memory"),
    ("{{ [1] | select('sameas', 1) | list }}", "`is sameas` asks whether two values are one object in memory"),
    # odd, even and divisibleby take a value modulo a number: on a text, % formats it (a gigabyte built here)
    ("{{ '%0999999999d' is odd }}", "`is odd` takes numbers, not text ('%0999999999d')"),
    ("{{ ['%0999999999d'] | select('divisibleby', 5) | list }}", "`is divisibleby` takes numbers, not text"),
    ("{{ 4 is divisibleby('2') }}", "`is divisibleby` takes numbers, not text ('2')"),
    # batch's and slice's count: batch(0) printed [[], [0, 1, 2]], batch(2.5) one batch, slice(-1) nothing
    ("{{ range(3) | batch(0) | list }}", "batch takes a whole number of at least 1, not a whole number (0)"),
    ("{{ range(3) | batch(linecount=2.5) | list }}", "batch takes a whole number of at least 1, not a number"),
    ("{{ range(3) | slice(-1) | list }}", "slice takes a whole number of at least 1, not a whole number (-1)"),
    # a float where a whole number goes, in pnp's words ('float' object cannot be interpreted as an integer)
    ("{{ 'abcdef' | truncate(0.1 + 0.2) }}", "the filter truncate takes a whole number as its length, not a number (0.3)"),
    ("{{ 'ab' | center(0.3) }}", "the filter center takes a whole number as its width, not a number (0.3)"),
    ("{% for i in range(1 / 4) %}{% endfor %}", "range takes whole numbers, not a number (0.25)"),
    # range of what is no whole number, in pnp's words ("'NoneType' object cannot be interpreted as an integer")
    ("{% for i in range(card.get('friend')) %}{% endfor %}", "range takes whole numbers, not nothing (none)"),
    ("{{ range(1, 5, 0) | list }}", "range's step (its third number) is 0"),
    ("{{ range() | list }}", "range takes 1 to 3 whole numbers"),
    # round and abs of what is no number, in pnp's words ("type NoneType doesn't define __round__ method", "bad
    # operand type for abs(): '_Undefined'")
    ("{{ card.get('cost') | round }}", "round takes a number, not nothing (none)"),
    ("{{ round('2.5') }}", "round takes a number, not text ('2.5')"),
    ("{{ 'x' | abs }}", "abs takes a number, not text ('x')"),
    ("{{ card.cost | round }}", "no field 'cost'"),
    # a field name of digits is read as a number, and a text key of those digits was "no field '1' (did you mean '1'?)"
    ("{{ [{'1': 'x'}] | map(attribute='1') | join }}", "no field numbered 1: the field '1' is a text"),
    # a list read by what is no whole number ("a list has no attribute 'None'")
    ("{{ [1][card.get('friend')] }}", "a list is read by whole numbers ([0], [1]...), not nothing (none)"),
    ("{% set ns = namespace(1) %}", "namespace takes names and their values, `namespace(count=0)`, or one mapping, "
                                    "not a whole number (1)"),
    ("{% set ns = namespace({}, {}) %}", "namespace takes names and their values, `namespace(count=0)`, or one "
                                         "mapping, not 2 values"),
    ("{{ [] | max }}", "the filter max is given no items: test them first, `xs | max if xs else 0`"),
    ("{{ min([] | select('odd')) }}", "the function min is given no items: give it the value to take then, `min(items, "),
    ("{{ 'ab'.ljust(2.5) }}", "ljust of text takes a whole number there, not a number (2.5)"),
    ("{{ 'a,b'.split(',', 1.0) }}", "split of text takes a whole number there, not a number (1.0)"),
    ("{{ 1.25 | round(0.5) }}", "the filter round takes a whole number as its precision, not a number (0.5)"),
    ("{{ round(1.25, 0.5) }}", "rounding takes a whole number of digits, not a number (0.5)"),
    # a filter of items given no items, in pnp's words ('int' object is not iterable)
    ("{{ (1 / 3) | length }}", "the filter length takes a list (or text, a mapping), not a number (0.333333333333)"),
    ("{{ 5 | join }}", "the filter join takes a list (or text, a mapping), not a whole number (5)"),
    ("{{ 'a' | dictsort }}", "the filter dictsort takes a mapping, not text ('a')"),
    ("{{ len(5) }}{{ max(5) }}", "the function len takes a list (or text, a mapping), not a whole number (5)"),
    ("{{ sorted(0.5) }}", "the function sorted takes a list (or text, a mapping), not a number (0.5)"),
    ("{{ 5 | as_typed }}", "as_typed escapes text, and was given"),
    # a filter or test that does not exist, with the one it may be a typo of (Jinja: "No filter named 'uper'.")
    ("{{ card.name | uper }}", "template syntax error: there is no filter named 'uper' (did you mean 'upper'?)"),
    ("{{ [1] | select('od') | list }}", "there is no test named 'od' (did you mean 'odd'?)"),
    ("{{ [1] | map(none) | list }}", "there is no filter named nothing (none)"),
    # a word outside a filter's choices, in pnp's words (Jinja's 'You can only sort by either "key" or "value"')
    ("{{ {'a': 1} | dictsort(by=none) }}", "the filter dictsort takes a by of 'key' or 'value', not nothing"),
    ("{{ [1.5] | map('round', 0, 'up') | list }}", "the filter round takes a method of 'common', 'ceil' or 'floor'"),
    # a field's name given as none read the items whole, as if none had been named
    ("{{ [card] | selectattr(none) | list }}", "the filter selectattr takes the name of a field to read, not nothing"),
    ("{{ [card] | rejectattr(none) | list }}", "the filter rejectattr takes the name of a field to read, not nothing"),
    ("{{ card | dictsort(reverse=none) }}", "the filter dictsort takes true or false as its reverse, not nothing"),
    ("{{ [2, 1] | sort(reverse='yes') }}", "the filter sort takes true or false as its reverse, not text ('yes')"),
    ("{{ [card] | map | list }}", "the filter map takes a filter's name, `map('upper')`, or a field's"),
    ("{{ [card] | selectattr | list }}", "the filter selectattr takes the name of a field, `selectattr('name')`"),
    ("{{ card | attr(none) }}", "the filter attr takes the name of a field to read, not nothing (none)"),
    # a field's name with an empty part blamed the item ("text ('Lion') has no attribute ''"), or (sort's) was
    # read as the part before it alone
    ("{{ [card] | map(attribute='') | list }}", "the filter map takes the name of a field to read, not an empty text"),
    ("{{ [card] | map(attribute='name.') | list }}", "the filter map is given the field name 'name.', which ends in a dot"),
    ("{{ [card] | groupby('.name') }}", "the field name '.name', which starts with a dot"),
    ("{{ [card] | count_by('a..b') }}", "the field name 'a..b', which has two dots in a row"),
    ("{{ [card] | sort(attribute='name,') }}", "the filter sort is given the field name '', which is empty (of 'name,'"),
    # a none inside what is written as text, refused as a none alone is (it printed [None], Python's form)
    ("{{ '{}'.format([none]) }}", "a list written as text holds none (its item [0]), which would print as the word 'None'"),
    ("{{ card.name ~ (none,) }}", "a list written as text holds none (its item [0]), which would print as the word 'None'"),
    ("{{ '%s' % [{'a': none}] }}", "a mapping written as text holds none (at 'a'), which would print"),
    ("{{ {'a': none}.items() }}", "a mapping written as text holds none"),
    # `in` of what holds nothing, or of an item it cannot hold, in pnp's words (Python's "argument of type
    # 'NoneType' is not iterable", "'in <string>' requires string as left operand, not int")
    ("{{ 'x' in card.get('friend') }}", "`in` looks in a list, text or mapping, not in nothing (none)"),
    ("{{ 0 < 1 not in 5 }}", "`in` looks in a list, text or mapping, not in a whole number (5)"),
    ("{{ 1 in card.name }}", "`in` of text looks for text, not a whole number (1)"),
    ("{{ [1] | select('in', none) | list }}", "`in` looks in a list, text or mapping, not in nothing (none)"),
    ("{{ {} is in card }}", "`in` of a mapping looks for one of its keys, which a mapping cannot be"),
    # a call's `**m` / `*l` of what cannot be spread, in pnp's words (Python's "keywords must be strings",
    # "pnp.template._Env.call() argument after ** must be a mapping, not list")
    ("{{ dict(**{1: 2}) }}", "a mapping spread into a call's names (`**m`) has keys that are text"),
    ("{{ dict(**[1]) }}", "`**` before a value in a call spreads a mapping, not a list"),
    ("{{ dict(*1) }}", "`*` before a value in a call spreads a list, not a whole number"),
])
def test_refused_with_a_message(source, message):
    with pytest.raises(ExprError) as e:
        template.render(source, {"card": {"name": "Lion"}})
    assert message in e.value.message


def test_a_none_inside_is_still_written_by_what_writes_none_as_itself():
    # tojson writes it as JSON's null, pprint and %r as Python writes a value: they are asked to
    assert template.render("{{ [none] | tojson }} {{ [none] | pprint }} {{ '%r' % [none] }}", {}) \
        == "[null] [None] [None]"


def test_the_macros_module_is_no_printed_value():
    """`[macros]` printed '[<TemplateModule memory:7f9054e10f10>]': another address on every run."""
    macros = template.module("{% macro m() %}x{% endmacro %}", {})
    for source in ("{{ [macros] }}", "{{ macros }}", "{{ '%s' % [macros] }}"):
        with pytest.raises(ExprError) as e:
            template.render(source, {"macros": macros})
        assert e.value.message.startswith("<TemplateModule> is a function or an object, not a value"), source
    assert template.render("{{ macros.m() }}", {"macros": macros}) == "x"


def test_a_long_value_quoted_in_a_message_is_cut_short():
    with pytest.raises(ExprError) as e:
        template.render("{{ card[('x' * 900000)] }} {{ ('y' * 900000) | float }}", {"card": {"name": "Lion"}})
    assert "no field 'xxxxxxxxxx" in e.value.message and len(e.value.message) < 200


def test_sizes_within_the_limits_are_built():
    source = "{% set a = 'x' * 400000 %}{{ (a ~ a) | length }} {{ sum([[1, 2], [3]], []) }} {{ 'ab' | replace('a', 'aa') }}"
    assert template.render(source, {}) == "800000 [1, 2, 3] aab"
    assert template.render("{{ [1, 2] | map('string') | join('-') }} {{ '%s:%d' % ('a', 1) }}", {}) == "1-2 a:1"
    # numbers of 4,096 bits, as many as any result may have, made by a power and by a product
    assert template.render("{{ (2 ** 4095) % 10 }} {{ (3 * (2 ** 4094 + 1)) % 10 }} {{ '%c' % 65 }}", {}) == "8 5 A"


@pytest.mark.parametrize("source, printed", [
    ("{{ cards | selectattr('cost', 'gt', 2000000) | map(attribute='id') | join }}", "b"),
    ("{{ [3000000] | select('equalto', 3000000) | list }}", "[3000000]"),
    ("{{ '%d gold' | format(2500000) }}", "2500000 gold"),
    ("{{ none | default(2500000, true) }} {{ [1] | sum(start=1500000) }}", "2500000 1500001"),
    ("{{ [2000000].count(2000000) }} {{ 'abc'.find('c', 0, 2000000) }}", "1 2"),
])
def test_a_number_given_as_a_value_may_be_any_size(source, printed):
    """Only the arguments that say how much is built (a width, a count of lines) are bounded: a value compared
    or printed was refused as 'too large' past a million."""
    assert template.render(source, {"cards": [{"id": "a", "cost": 5}, {"id": "b", "cost": 3000000}]}) == printed


def test_int_and_float_read_numbers_blanks_and_nothing_and_print_a_default_given():
    """Only a value that is no number with no default given is refused (test_refused_with_a_message)."""
    source = ("{{ '3.7' | int }} {{ '' | int }} {{ none | int }} {{ 'X' | int(5) }} {{ 'q' | int(default=7) }} "
              "{{ 'ff' | int(base=16) }} {{ '2.5' | float }} {{ ' ' | float }} {{ 'abc' | float(1) }} {{ true | int }}")
    assert template.render(source, {}) == "3 0 0 5 7 255 2.5 0.0 1 1"


@pytest.mark.parametrize("source, printed", [
    # halves away from zero, as a designer reads "round" (Python's and Jinja's rounded them to even: 2 and 0.12)
    ("{{ 2.5 | round }} {{ -2.5 | round }} {{ 0.125 | round(2) }} {{ 25 | round(-1) }}", "3.0 -3.0 0.13 30"),
    ("{{ round(2.5) }} {{ round(-0.5) }} {{ round(0.125, 2) }} {{ round(25, -1) }} {{ round(3.5) }}", "3 -1 0.13 30 4"),
    # on the decimal written: the float nearest 2.675 lies below it (round() gave 2.67)
    ("{{ 2.675 | round(2) }} {{ round(2.675, 2) }} {{ 1.005 | round(2) }}", "2.68 2.68 1.01"),
    # ceil and floor too: Jinja multiplied by a power of ten in floats (1.1 * 10 is 11.000000000000002)
    ("{{ 1.1 | round(1, 'ceil') }} {{ 0.29 | round(2, 'floor') }} {{ 25 | round(-1, 'ceil') }}", "1.1 0.29 30.0"),
    ("{{ 5 | round }} {{ 2.4 | round }} {{ 1.25 | round(5) }} {{ 123.456 | round(-1) }}", "5 2.0 1.25 120.0"),
    # a negative number rounded to zero prints 0.0, not '-0.0'
    ("{{ -0.4 | round }} {{ -0.001 | round(2) }} {{ -0.5 | round(0, 'ceil') }} {{ round(-0.4) }}", "0.0 0.0 0.0 0"),
    # percent rounds as round does, on the decimals written (in floats 0.285 * 100 is 28.499999999999996)
    ("{{ 1 | percent(8) }} {{ -1 | percent(8) }} {{ 0.285 | percent(1) }} {{ 2 | percent(3) }}", "13 -13 29 67"),
    # formats round as round does (Python's formatting rounds the binary value's halves to even: 2.67 and 0.12)
    ("{{ '%.2f' | format(2.675) }} {{ '%.2f' | format(0.125) }} {{ '%.2f' % -2.675 }} {{ '%.0f' % 2.5 }}",
     "2.68 0.13 -2.68 3"),
    ("{{ '{:.2f}'.format(2.675) }} {{ '{:.2f}'.format(0.125) }} {{ '{:,.2f}'.format(1234.125) }} {{ '{:.0f}'.format(2.5) }}",
     "2.68 0.13 1,234.13 3"),
    # each field at its own precision; %e and %g (and a spec without a type) count significant digits
    ("{{ '%(x).2f %(x).1f' % {'x': 0.125} }} {{ '{0:.2f} {0:.1f} {1:.2}'.format(0.125, 0.125) }}", "0.13 0.1 0.13 0.1 0.13"),
    ("{{ '%.1e' % 125 }} {{ '{:.2g}'.format(0.125) }} {{ '%f' % 2.0000005 }} {{ '{:.1%}'.format(0.00125) }} "
     "{{ '%(a).2f' | format(a=2.675) }}", "1.3e+02 0.13 2.000001 0.1% 2.68"),
    # rounded to zero, a negative number writes 0.0 as round gives it, not '-0.0'
    ("{{ '%.1f' % -0.04 }} {{ '{:+.1f}'.format(-0.04) }}", "0.0 +0.0"),
    # and a zero worked out from a negative number prints 0.0 wherever it prints ('-0.0', '-0' before)
    ("{{ 0 * -1.5 }} {{ [0 * -1.5] }} {{ '%.1f' % (0 * -1.5) }} {{ '{:g}'.format(0 * -1.5) }} {{ -0.0 ~ '' }}",
     "0.0 [0.0] 0.0 0 0.0"),
    ("{{ '{:.2n}'.format(0.125) }} {{ '{:n}'.format(125) }} {{ '{}'.format(0.125) }}", "0.13 125 0.125"),
    # a format marked safe still escapes its values (its keys taken out as plain text, not escaped)
    ("{{ ('<i>%(a)s %(b).2f</i>' | safe) % {'a': 'x<y', 'b': 0.125} }}", "<i>x&lt;y 0.13</i>"),
])
def test_round_rounds_halves_away_from_zero_on_the_decimal_written(source, printed):
    assert template.render(source, {}) == printed


@pytest.mark.parametrize("source, printed", [
    # a float worked out prints at most 12 significant digits, without the noise of binary fractions
    ("{{ 0.1 + 0.2 }} {{ 'x' ~ (0.1 + 0.2) }} {{ 2 / 3 }} {{ -0.1 - 0.2 }} {{ 100 / 3 }} {{ 1e22 / 3 }}",
     "0.3 x0.3 0.666666666667 -0.3 33.3333333333 3.33333333333e+21"),
    # whole numbers, and values as written (up to 15 digits), print as they did
    ("{{ 3.0 }} {{ 7 }} {{ 10 / 4 }} {{ 0.123456789012345 }} {{ card.n }} {{ 10 ** 20 }}",
     "3.0 7 2.5 0.123456789012345 98765.4321012 100000000000000000000"),
    # and so where a float becomes text otherwise: string (and the text filters), join, %s and '{}'.format
    ("{{ [0.1 + 0.2, 1.5] | join(' ') }} {{ [{'a': 2 / 3}] | join(attribute='a') }} {{ (0.1 + 0.2) | string }} "
     "{{ (0.1 + 0.2) | upper }}", "0.3 1.5 0.666666666667 0.3 0.3"),
    ("{{ [1, 2] | join(0.1 + 0.2) }} {% set n = namespace(b=2 / 3) %}{{ n }}", "10.32 <Namespace {'b': 0.666666666667}>"),
    ("{{ (0.1 + 0.2) | replace('.', ',') }} {{ (2 / 3) | indent(2) }} {{ (0.1 + 0.2) | wordwrap(40) }}",
     "0,3 0.666666666667 0.3"),
    ("{{ '%s' % (0.1 + 0.2) }} {{ '%s|%d' % (0.1 + 0.2, 2) }} "
     "{{ '{} {!s} {:}'.format(0.1 + 0.2, 2 / 3, -0.1 - 0.2) }} {{ '%s' | format(card.n) }}",
     "0.3 0.3|2 0.3 0.666666666667 -0.3 98765.4321012"),
    # a field with a width or sign but no precision or type writes a float as str does too
    ("{{ '{:>6}|{:+}|{:,}|{:>5}'.format(0.1 + 0.2, 0.1 + 0.2, 1e5 / 3, 1.5) }}", "   0.3|+0.3|33,333.3333333|  1.5"),
    # and inside a list, tuple or mapping written out whole: printed, joined, string, tojson, pprint
    ("{{ [0.1 + 0.2, card.n] }} {{ {'a': (2 / 3, [0.1 + 0.2])} }} {{ [[0.1 + 0.2]] | join }} {{ [0.1 + 0.2] ~ '' }}",
     "[0.3, 98765.4321012] {'a': (0.666666666667, [0.3])} [0.3] [0.3]"),
    ("{{ [0.1 + 0.2] | string }} {{ {'a': [2 / 3]} | tojson }} {{ (0.1 + 0.2) | tojson }} {{ [0.1 + 0.2, 'x'] | pprint }}",
     '[0.3] {"a": [0.666666666667]} 0.3 [0.3, \'x\']'),
])
def test_a_float_worked_out_prints_without_binary_noise(source, printed):
    assert template.render(source, {"card": {"n": 98765.4321012}}) == printed


def test_a_namespace_holding_itself_prints_as_python_writes_it():
    """Its size is counted once around: six characters a turn up to the million took a second or more per print,
    and the template ran out of time."""
    source = "{% set ns = namespace(a=1) %}{% set ns.a = ns %}{% for i in range(20) %}{{ ns }}{% endfor %}"
    assert template.render(source, {}) == "<Namespace {'a': <Namespace {...}>}>" * 20


@pytest.mark.parametrize("source", ["{{ 'abc' | truncate(0) }}", "{{ cycler() }}"])
def test_what_jinja_asserts_on_is_a_message(source):
    with pytest.raises(ExprError) as e:  # Jinja's own wording: only that there is one
        template.render(source, {})
    assert e.value.message


def test_compiling_is_bounded_by_the_number_of_tokens():
    with pytest.raises(ExprError) as e:
        template.compile_template("{{ 1 }}" * (template.MAX_TOKENS // 3 + 1))
    assert "more than 25,000 names, operators and tags" in e.value.message


def test_a_deeply_nested_template_is_refused_at_its_line():
    with pytest.raises(ExprError) as e:
        template.compile_template("ok\n\n{{ " + " and ".join(["x"] * 60) + " }}")
    assert e.value.line == 3 and "inside one another" in e.value.message


NESTING_LOOP = "{% set ns = namespace(a=1) %}\n{% for i in range(STEPS) %}{% set ns.a = [ns.a] %}{% endfor %}{{ ns.a | length }}"


def test_lists_built_inside_one_another_are_bounded_in_depth():
    # printing or comparing a list 100,000 deep recursed in C for seconds, past any time limit
    source = NESTING_LOOP.replace("STEPS", str(template.MAX_BUILT_DEPTH))
    assert template.render(source, {}) == "\n1"
    with pytest.raises(ExprError) as e:
        template.render(source.replace("range(", "range(1 + "), {})
    assert e.value.line == 2 and f"lists, mappings or namespaces more than {template.MAX_BUILT_DEPTH} deep" in e.value.message


@pytest.mark.parametrize("made", ["{1: ns.a}.items()", "{1: ns.a}.values()", "[ns.a] | groupby('real')"])
def test_views_and_groups_built_inside_one_another_are_bounded_in_depth(made):
    # a mapping's view or a group (groupby's, a named tuple) was counted as its length, never looked inside
    source = NESTING_LOOP.replace("[ns.a]", made).replace("STEPS", str(template.MAX_BUILT_DEPTH + 1))
    with pytest.raises(ExprError) as e:
        template.render(source, {})
    assert f"lists, mappings or namespaces more than {template.MAX_BUILT_DEPTH} deep" in e.value.message


DOUBLING = ("{% set ns = namespace(a=1, b=1) %}{% for i in range(21) %}{% set ns.a = MADE %}"
            "{% set ns.b = MADE.replace('ns.a', 'ns.b') %}{% endfor %}")


@pytest.mark.parametrize("made", ["{1: ns.a, 2: ns.a}.items()", "[[ns.a]] | groupby(0)"])
def test_a_view_or_group_holding_the_one_before_twice_is_counted_whole(made):
    # forty such steps made two values that comparing never ended, in C code that no time limit stops
    source = DOUBLING.replace("MADE.replace('ns.a', 'ns.b')", made.replace("ns.a", "ns.b")).replace("MADE", made)
    with pytest.raises(ExprError) as e:
        template.render(source + "{{ ns.a == ns.b }}", {})
    assert "more than 1,000,000 items and characters within one another" in e.value.message


def test_a_view_printed_is_measured_whole():
    # each pair its items() gave was let go once measured, the next made at its address taken for the view
    # inside itself: 65,000 pairs measured as 500 characters, and printing one of forty steps never ended
    view = 1
    for _ in range(15):
        view = {1: view, 2: view}.items()
    assert template.printed_size(view, 100_000) > 100_000


def test_namespaces_inside_one_another_are_bounded_in_depth_where_they_are_printed():
    # a namespace is changed after it is made: printing is where its depth is known (it was Python's stack
    # running out, "nested too deeply (a macro or loop that calls itself forever?)", or nothing under 200)
    source = NESTING_LOOP.replace("[ns.a]", "namespace(x=ns.a)").replace("ns.a | length", "ns.a")
    assert template.render(source.replace("STEPS", str(template.MAX_BUILT_DEPTH - 1)), {}).startswith("\n<Namespace")
    with pytest.raises(ExprError) as e:
        template.render(source.replace("STEPS", "150"), {})
    assert f"lists, mappings or namespaces more than {template.MAX_BUILT_DEPTH} deep" in e.value.message


def test_a_namespace_quoted_by_pnp_is_measured_first(monkeypatch):
    # a repeat given a namespace quotes it: one holding two of the one before, forty times over, was written
    # for ever (pnp's own repr(), outside any template's time limit)
    monkeypatch.setattr(template, "MAX_STRING", 10_000)
    wide = template._Namespace(a=1)
    for _ in range(40):
        wide = template._Namespace(x=wide, y=wide)
    with pytest.raises(LimitError, match="the namespace's text would be longer than 10,000"):
        repr(wide)


def test_groups_print_as_the_tuples_they_are():
    # groupby's groups (named tuples) were printed as Python writes them: 0.30000000000000004, and the none of
    # the items that leave the field out (`(None, [...])`)
    assert template.render("{{ [{'k': 0.1 + 0.2}] | groupby('k') }}", {}) == "[(0.3, [{'k': 0.3}])]"
    with pytest.raises(ExprError, match="a list written as text holds none"):
        template.render("{{ cards | groupby('k') }}", {"cards": [_GameMapping({"k": None})]})


def test_a_list_built_of_one_sized_already_is_not_walked_again(monkeypatch):
    # each step of `{% set ns.a = [ns.a] %}` walked the whole nesting again: quadratic (600 steps took 3 s)
    looked_at = []
    real = template._is_held_data
    monkeypatch.setattr(template, "_is_held_data", lambda item: looked_at.append(item) or real(item))
    template.render(NESTING_LOOP.replace("STEPS", "100"), {})
    assert len(looked_at) <= 2 * 100  # (one new list a step; walked again, 5,050)


def test_a_big_list_held_again_in_a_loop_is_walked_once(monkeypatch):
    # the memo of what was sized forgot all once the counts it kept passed a million: a list of one big list,
    # made again each turn, counted the big list's 100,000 items each time, so every tenth turn walked it again
    # (2,000 turns ran to the time limit). It forgets by what its containers hold of their own now
    walked = []
    real = template._held_items
    monkeypatch.setattr(template, "_held_items", lambda c: (walked.append(c) if len(c) > 1000 else None) or real(c))
    out = template.render("{% set big = range(100000) | list %}{% for i in range(200) %}{% set v = [big] %}"
                          "{{ v | length }}{% endfor %}", {})
    assert out == "1" * 200 and len(walked) <= 2  # (forgetting it: 20)


def test_a_loop_that_never_ends_is_stopped_at_the_time_limit(monkeypatch):
    monkeypatch.setattr(template, "SECONDS_PER_EVALUATION", 0.2)
    with pytest.raises(ExprError, match="took longer than 0.2 s"):
        template.render("{% for a in range(99999) %}{% for b in range(99999) %}{% endfor %}{% endfor %}", {})


def test_a_filter_whose_own_loop_is_slow_is_stopped_at_the_time_limit(monkeypatch):
    # urlize walks a text word by word in Python: one call on a long text ran 15 s past the 2 s limit
    import jinja2.filters

    finished = []

    def urlize(*args, **kwargs):
        text = real_urlize(*args, **kwargs)
        finished.append(True)
        return text

    real_urlize = jinja2.filters.urlize
    monkeypatch.setattr(jinja2.filters, "urlize", urlize)
    monkeypatch.setattr(template, "SECONDS_PER_EVALUATION", 0.2)
    with pytest.raises(ExprError, match="took longer than 0.2 s"):
        template.render("{{ ('a.b ' * 200000) | urlize | length }}", {}, markup=True)  # (the rulebook's)
    assert not finished  # stopped inside the filter, not once it had done all its work


def test_urlize_on_a_word_its_pattern_would_take_minutes_on_is_refused_before_it_runs():
    # its search for a word's closing punctuation tries every place in the word, in C: 20,000 ')' took 12 s
    with pytest.raises(ExprError, match="urlize would take too long on this text \\(a word of 20,002 characters\\)"):
        template.render("{{ (')' * 20000 ~ 'a)') | urlize }}", {}, markup=True)  # (the rulebook's)
    assert template.render("{{ 'see www.example.com.' | urlize }}", {}, markup=True).count(
        "https://www.example.com") == 1


class _GameMapping(Mapping):
    """A mapping of the game's (no dict: its views are a game's, counted by their length where they are held)."""

    def __init__(self, data):
        self._data = data

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def test_a_mappings_views_are_sized_by_what_they_print_before_they_are_printed():
    # a view was printed by repr() to learn whether it could be: `[big.items()] * 100000` made a 2 MB repr of
    # a game's mapping 100,000 times (261 s); its contents are counted as a list's are
    with pytest.raises(ExprError, match="the printed text would be longer than 1,000,000"):
        template.render("{{ [big.values()] * 1000 }}", {"big": _GameMapping({"a": "x" * 2000})})
    # a view of a mapping the template made holds what that mapping holds, as a list would: refused once built
    with pytest.raises(ExprError, match="holding more than 1,000,000 items and characters within one another"):
        template.render("{{ [{'a': 'x' * 2000}.values()] * 1000 }}", {})
    assert template.render("{{ {'a': 1}.keys() | list }}", {}) == "['a']"


def test_a_games_mappings_held_many_times_count_their_entries_so_comparing_them_is_bounded():
    # each view or table counted as one item: `[big.items()] * 1000 == [big.items()] * 1000` compared 1,000
    # mappings of 20,000 entries in Python's own code, outside any limit (7 s)
    from pnp.model.load import Record

    big = Record({f"k{i}": i for i in range(20_000)})
    with pytest.raises(ExprError, match="holding more than 1,000,000 items"):
        template.render("{{ [big.items()] * 1000 == [big.items()] * 1000 }}", {"big": big})
    assert template.render("{{ ([big] * 40) | length }}", {"big": big}) == "40"


def test_a_games_items_and_tables_print_their_views_as_a_dicts_do():
    # Mapping's own views printed otherwise: `{{ card.keys() }}` printed "KeysView({'id': 'lion', 'cost': 2})",
    # every value with its key, and `{{ data.items() }}` "ItemsView({...})"; a template's own dict printed
    # `dict_keys(['id', 'cost'])`
    from pnp.model.load import Record
    from pnp.model.reads import Tables, Tracked

    card = Tracked.of(Record({"id": "lion", "cost": 2}), ("cards", 0))
    source = "{{ card.keys() }} {{ card.values() }} {{ card.items() }} {{ data.keys() }} {{ data.items() | length }}"
    assert template.render(source, {"card": card, "data": Tables({"cards": [card]})}) == template.render(
        source, {"card": {"id": "lion", "cost": 2}, "data": {"cards": [{}]}}) == (
        "dict_keys(['id', 'cost']) dict_values(['lion', 2]) dict_items([('id', 'lion'), ('cost', 2)]) "
        "dict_keys(['cards']) 1")


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


def test_once_the_game_budget_is_spent_it_is_said_once_and_the_rest_is_skipped(monkeypatch):
    from pnp.errors import BudgetSpent

    slow = "(range(20000) | map('string') | list | length) > 0"
    with template.budget(0.2):
        with pytest.raises(ExprError, match="the game's templates took longer than") as e:
            for _ in range(10_000):
                template.evaluate(slow, {})
        with pytest.raises(BudgetSpent) as spent:  # not an ExprError: callers do not report it again
            template.evaluate("1 + 1", {})
        assert not isinstance(spent.value, ExprError) and spent.value.message == e.value.message
    assert template.evaluate("1 + 1", {}) == 2


def test_a_game_out_of_template_time_is_told_once_at_the_line_being_evaluated(tmp_path, monkeypatch):
    from conftest import DATA, make_project, run

    monkeypatch.setattr(template, "SECONDS_PER_GAME", 0.3)
    cards = "\n".join(f"- {{id: c{i}, name: C{i}, kind: beast, power: 4}}" for i in range(100))
    game = (DATA / "base/cards/mini/game.yaml").read_text().replace(
        'strong: "item.power >= 4"', "strong: \"(range(50000) | map('string') | list | length) > 0\"")
    root = make_project(tmp_path / "proj", {"cards/mini/cards.yaml": cards, "cards/mini/game.yaml": game})
    result = run(root, "validate")
    assert "Traceback" not in result.output and result.exit_code == 1
    told = [line for line in result.stderr.splitlines() if "took longer" in line]
    assert told == ["cards/mini/game.yaml:21:15: error: derived field 'strong': the game's templates took longer "
                    "than 0.3 s in all; pnp stops the game here (a loop that does far too much?)"]


def test_a_game_over_its_memory_is_stopped(monkeypatch):
    # a flat list of 1 MB texts: built as [new, ns.l] it was also a list more than 100 deep by step 100, and on
    # a machine where the memory was measured after that step, the depth bound spoke first
    monkeypatch.setattr(template, "MAX_MEMORY_GROWTH", 64 << 20)
    source = ("{% set ns = namespace(l=[]) %}{% for i in range(1000) %}"
              "{% set ns.l = ns.l + [namespace(v='x' * 999990 ~ i)] %}{% endfor %}")
    with template.budget():
        with pytest.raises(ExprError, match="the templates used more than 64 MB of memory"):
            template.render(source, {})


def test_what_an_earlier_game_left_in_a_cycle_is_collected_before_the_next_games_ceiling_is_set(monkeypatch):
    # values an earlier game left in a reference cycle (a stopped template's error, traceback and frames did,
    # before failures kept nothing) stay until collected: counted into the next game's starting point, a long
    # `pnp serve` let the second check of a game reach 1.9 GB. What is asserted is that the cycle is gone when
    # the next ceiling is read, not a resident size: how much of a freed 64 MB the allocator hands back to the
    # system differs between machines (a fresh CI runner kept 40 MB of it)
    monkeypatch.setattr(template, "MAX_MEMORY_GROWTH", 64 << 20)
    # the process's memory as the budget reads it: set here, as whether an allocation takes new pages from the
    # system or reuses freed ones is the allocator's (a full run reused them, and no growth was seen)
    resident = [1 << 30]
    monkeypatch.setattr(template, "_memory", lambda: resident[0])
    monkeypatch.setattr(template, "_collected_at", [resident[0]])  # (collected just now)

    class Left:
        cycle: object
        data: bytes

    collecting = gc.isenabled()
    gc.disable()  # (only the budget's own collection may free the cycle)
    try:
        left = Left()
        left.cycle, left.data = left, b"x" * (32 << 20)
        resident[0] += 32 << 20  # (four times the growth that makes a collection worth it)
        was_left = weakref.ref(left)
        del left
        assert was_left() is not None
        with template.budget():
            assert was_left() is None
    finally:
        if collecting:
            gc.enable()


def test_a_failed_template_keeps_nothing_it_built():
    # a validation keeps every card's error: through it (its context's traceback, and the cycle of fake frames
    # Jinja's own traceback rewriting made) each kept all its template had built, until 141 failing cards
    # reached the memory budget, stopped there naming an unrelated card
    source = "{% set big = 'x' * card.n %}{{ big ~ big }}"
    kept, before = [], template._memory()
    gc.disable()  # (as few collections run while a game is checked)
    try:
        for _ in range(40):
            with pytest.raises(ExprError, match="longer than 1,000,000") as failure:
                template.render(source, {"card": {"n": 999_999}})
            kept.append(failure.value)
        assert template._memory() - before < (10 << 20), (template._memory() - before) >> 20  # 40 MB kept before
    finally:
        gc.enable()


def test_fields_win_over_mapping_methods():
    assert template.render("{{ card.items }}", {"card": {"items": 3}}) == "3"
    # the attr filter reads a field as `.` does: it said "no field 'name' (did you mean 'name'?)"
    card = {"card": {"items": 3, "name": "Lion"}}
    assert template.render("{{ card | attr('items') }} {{ card | attr('name') }}", card) == "3 Lion"


@pytest.mark.parametrize("source", ["{{ [card.nmae] }}", "{{ (1, card.nmae) ~ '' }}", "{{ '%s' % ({'a': card.nmae},) }}",
                                    "{{ dict(a=card.nmae) | dictsort | string }}"])
def test_a_value_holding_a_missing_field_fails_when_printed(source):
    with pytest.raises(ExprError, match="no field 'nmae'"):
        template.render(source, {"card": {"name": "Lion"}})


def test_an_if_without_else_still_prints_nothing():
    assert template.render("{{ 's' if card.n != 1 }}|{{ ['a' if card.n != 1] | length }}", {"card": {"n": 1}}) == "|1"


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

    code = cache.value("template\0{{ a * 2 }}", make, tm._is_code)
    files = list(cache.folder().glob("*.marshal"))
    assert len(files) == 1 and made == [1]
    again = cache.value("template\0{{ a * 2 }}", make, tm._is_code)
    assert made == [1] and again.co_code == code.co_code  # read back, not compiled
    template = tm.ENV.template_class.from_code(tm.ENV, again, tm.ENV.make_globals(None), None)
    assert template.render(a=21) == "42"
    files[0].write_bytes(b"not marshal data")
    cache.value("template\0{{ a * 2 }}", make, tm._is_code)
    assert made == [1, 1]  # compiled again, and the entry rewritten
    assert cache.value("template\0{{ a * 2 }}", make, tm._is_code) and made == [1, 1]
    assert DiskCache("templates", "another version").folder() != cache.folder()


def test_a_cache_folder_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    from pnp.cache import DiskCache, private_folder

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "shared"))
    private_folder("templates", "v1").chmod(0o777)
    assert DiskCache("templates", "v1").folder() is None
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    assert DiskCache("templates", "v1").folder() is None


def test_a_cache_inside_a_folder_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    """Another user could rename the checked cache folder away and put a link to one of theirs in its place;
    a sticky folder (as /tmp) lets no one else rename what is the user's."""
    from pnp.cache import DiskCache

    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setenv("PNP_CACHE_DIR", str(shared / "pnp"))
    shared.chmod(0o777)
    assert DiskCache("templates", "v1").folder() is None
    shared.chmod(0o1777)
    assert DiskCache("templates", "v1").folder() is not None
    link = tmp_path / "link"
    link.symlink_to(shared)
    shared.chmod(0o777)  # reached through a link: the folders checked are the ones it leads to
    monkeypatch.setenv("PNP_CACHE_DIR", str(link / "pnp"))
    assert DiskCache("templates", "v1").folder() is None


def test_the_folders_pnp_makes_for_its_cache_are_private_whatever_the_umask(tmp_path, monkeypatch):
    """Under Ubuntu's umask 002 the folders above the cache's own that pnp made (~/.cache/pnp) were group-writable,
    and the same pnp then refused them as folders others could write to: no cache was ever used."""
    import os

    from pnp.cache import DiskCache

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "made/pnp"))
    previous = os.umask(0o002)
    try:
        folder = DiskCache("templates", "v1").folder()
    finally:
        os.umask(previous)
    assert folder is not None and (tmp_path / "made").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("env", [{"PNP_CACHE_DIR": "cache"}, {"XDG_CACHE_HOME": "cache"}])
def test_a_relative_cache_folder_is_not_used(tmp_path, monkeypatch, env):
    """A relative cache would be in the folder pnp runs in: a game someone sent could hold its entries."""
    from pnp.cache import DiskCache

    monkeypatch.delenv("PNP_CACHE_DIR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    assert DiskCache("templates", "v1").folder() is None and not list(tmp_path.iterdir())


def test_syntax_errors_still_say_their_line_with_the_cache():
    with pytest.raises(ExprError) as e:
        template.compile_template("ok\n{{ card.name }\n")
    assert e.value.line == 2


def test_the_random_filter_is_refused_because_builds_must_repeat():
    with pytest.raises(ExprError) as e:
        template.render("{{ ['a', 'b', 'c'] | random }}", {})
    assert "same bytes" in e.value.message


def test_count_by_gives_each_value_its_count_in_the_order_first_seen():
    cards = [{"suit": "red"}, {"suit": "blue"}, {"suit": "red"}, {"suit": None}]  # (an optional field left out)
    assert template.evaluate("cards | count_by('suit')", {"cards": cards}) == {"red": 2, "blue": 1, None: 1}
    assert template.render("{{ (cards | count_by('suit')).get('green', 0) }}", {"cards": cards}) == "0"


@pytest.mark.parametrize("expression", ["cards | count('siut', 'red')", "cards | count_by('siut')"])
def test_count_and_count_by_refuse_a_field_the_items_lack(expression):
    """As map(attribute=...) and item.field do: read with .get, a misspelt field was none on every item, so
    count('siut', 'red') gave 0 and count_by('siut') {None: 2}, printed without a word."""
    cards = [{"suit": "red"}, {"suit": "blue"}]
    with pytest.raises(ExprError) as e:
        template.evaluate(expression, {"cards": cards})
    assert "no field 'siut' (did you mean 'suit'?)" in e.value.message


def test_the_game_running_out_of_time_is_said_at_the_template_where_it_did(tmp_path, monkeypatch):
    """Said at its file and line even when the next element of the same card is what finds the time spent
    (that error was dropped, and the message came without a place)."""
    from conftest import make_project, run

    monkeypatch.setattr(template, "SECONDS_PER_GAME", 0.3)
    slow = "{% for i in range(99999) %}{% for j in range(99) %}{% endfor %}{% endfor %}"
    root = make_project(tmp_path / "proj", case={"replace": {"layouts/mini/card.yaml": [
        ['text: "{{ card.id }}"', f'text: "{slow}"']]}})
    result = run(root, "validate")
    errors = [line for line in result.stderr.splitlines() if ": error: " in line or line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith("layouts/mini/card.yaml:4:"), result.stderr
    assert "took longer than 0.3 s in all" in errors[0]


def test_a_patterns_matching_time_is_spent_from_the_games_budget(tmp_path, monkeypatch):
    """Each value stops at its own timeout, and all of them together at the game's: values that each take a
    little under the timeout cannot add up without end."""
    from conftest import make_project, run

    monkeypatch.setattr(template, "SECONDS_PER_GAME", 0.05)
    slow = "a" * 27  # about a tenth of a second each with (a|aa)+b: under the 0.5 s of one match
    root = make_project(tmp_path / "proj", case={"replace": {
        "cards/mini/game.yaml": [["name: {type: str, max_len: 20}", 'name: {type: str, pattern: "(a|aa)+b"}']],
        "cards/mini/cards.yaml": [["name: Lion", f"name: {slow}"], ["name: Fern", f"name: {slow}"]]}})
    result = run(root, "validate")
    errors = [line for line in result.stderr.splitlines() if "took longer than" in line]
    assert len(errors) == 1 and errors[0].startswith("cards/mini/cards.yaml:2:9: error: name: matching the pattern")
    assert "took longer than 0.05 s" in errors[0], errors


def test_the_game_running_out_of_time_on_icons_is_said_once_where_it_stopped(tmp_path, monkeypatch, own_disk_cache):
    """Endless icons that each stay under their own limit spend the game's time: said once, as the game's checking
    (not its templates), at the element reading the icon it stopped at; each later icon said it again, as
    'the SVG file cannot be drawn', an answer kept for the next run."""
    from conftest import make_project, run

    monkeypatch.setattr(template, "SECONDS_PER_GAME", 0.5)
    monkeypatch.setattr(template, "SECONDS_PER_EVALUATION", 5)  # each icon under its own limit: the game stops
    slow = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><style>x g g g g g g g g g g g g rect '
            '{fill: #00000N}</style>' + "<g>" * 40 + '<rect width="5" height="5"/>' + "</g>" * 40 + "</svg>")
    files = {f"layouts/mini/icons/slow{i}.svg": slow.replace("N", str(i)) for i in range(6)}
    text = " ".join(f":slow{i}:" for i in range(6))
    root = make_project(tmp_path / "proj", case={"files": files, "replace": {
        "cards/mini/cards.yaml": [["Roars :star: loudly.", text]]}})
    result = run(root, "validate")
    errors = [line for line in result.stderr.splitlines() if ": error: " in line or line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("layouts/mini/card.yaml:5:") and "checking this game took longer than 0.5 s" in errors[0]
    assert "reading icon 'slow" in errors[0] and "templates" not in errors[0]
    # nothing was kept of icons not read to their end: the next run stops the same way, said once (at the
    # same icon or a later one, as icons read to their end in the first run are kept), never "cannot be drawn"
    again = [line for line in run(root, "validate").stderr.splitlines() if ": error: " in line]
    assert len(again) == 1 and again[0].split("reading icon 'slow")[0] == errors[0].split("reading icon 'slow")[0]


def test_a_librarys_cleanup_failing_as_a_limit_unwinds_it_still_says_the_limit():
    """ReportLab, stopped by the game's time inside a setattr, deleted the attribute it had not set in its
    finally block: the AttributeError hid the limit (CI saw it once in a thousand runs)."""
    from pnp.errors import LimitError

    def library_step():
        try:
            raise LimitError("checking this game took longer than 5 s of processing time in all")
        finally:
            raise AttributeError("'Image' object has no attribute '_parent'")

    with template.budget(), pytest.raises(LimitError, match="took longer than 5 s"):
        with template.metered("drawing the icon"):
            library_step()
    with template.budget(), pytest.raises(AttributeError):  # an error of its own is not taken for a limit
        with template.metered("drawing the icon"):
            raise AttributeError("no such thing")



def test_the_games_time_running_out_in_a_library_that_goes_on_past_it_is_said_where_it_ran_out(monkeypatch):
    """A library that catches an error inside its work and goes on (svglib passing over a shape it cannot draw)
    caught the limit so: the icon was drawn, and the next template said the game's time ran out, at no file and
    line (one full run of the suite in four)."""
    from pnp.errors import LimitError

    monkeypatch.setattr(template, "SECONDS_PER_GAME", 0.05)

    def step() -> int:
        return 1

    def library() -> None:
        try:
            while True:
                step()
        except Exception:  # noqa: BLE001 - as the library does
            pass

    with template.budget(), pytest.raises(LimitError, match="took longer than 0.05 s .* in the library"):
        with template.metered("the library"):
            library()


def test_the_processor_time_alarm_names_the_work_wherever_it_lands_and_never_after_the_block():
    """The alarm can land while another error unwinds the block, in a context manager's __exit__ before
    `metered` sees it: there it must already say whose work ran out of time (CI printed a bare "out of time"
    for an icon). Caught there and gone past, it is said again as the block ends (a library swallowing it
    passed the limit). One the kernel delivers after the block ends does nothing."""
    import signal

    from pnp.errors import LimitError

    said = None
    with template.budget():
        with pytest.raises(LimitError) as again, template.metered("svglib"):
            try:
                signal.raise_signal(signal.SIGVTALRM)  # the alarm, caught before metered could name it
            except LimitError as e:
                said = e.message
        signal.raise_signal(signal.SIGVTALRM)  # late: nothing is raised, and the process goes on
    assert said is not None and said.startswith("svglib took longer than"), said
    assert again.value.message == said

def test_text_too_long_is_said_at_the_line_of_plain_text_where_it_went_past_the_limit():
    # Jinja writes a run of plain text as one piece, at the line the run begins: 20,000 lines of rulebook
    # text were refused at the line of the `{% endfor %}` before them
    source = "{% for i in range(2) %}{{ i }}{% endfor %}\n" + "".join(f"line {i}\n" for i in range(2000))
    with pytest.raises(ExprError) as e:
        template.render(source, {}, max_chars=1000)
    assert source.splitlines()[e.value.line - 1] == "line 123"  # "01" + 998 characters reach into it


# every method templates may call, called as a template would: the same value as Python's
OFFERED_CALLS = {
    "text": {
        "capitalize": "'ab cd'.capitalize()",
        "center": "'ab'.center(6, '*')",
        "count": "'abab'.count('a')",
        "endswith": "'ab'.endswith('b')",
        "find": "'abc'.find('c')",
        "format": "'{}-{x}'.format(1, x=2)",
        "index": "'abc'.index('b')",
        "isalnum": "'a1'.isalnum()",
        "isalpha": "'ab'.isalpha()",
        "isdecimal": "'12'.isdecimal()",
        "isdigit": "'12'.isdigit()",
        "islower": "'ab'.islower()",
        "isnumeric": "'12'.isnumeric()",
        "isspace": "' '.isspace()",
        "istitle": "'Ab'.istitle()",
        "isupper": "'AB'.isupper()",
        "join": "'-'.join(['a', 'b'])",
        "ljust": "'ab'.ljust(4, '.')",
        "lower": "'AB'.lower()",
        "lstrip": "' ab '.lstrip()",
        "partition": "'a-b-c'.partition('-')",
        "removeprefix": "'pre-x'.removeprefix('pre-')",
        "removesuffix": "'x.yaml'.removesuffix('.yaml')",
        "replace": "'aab'.replace('a', 'c', 1)",
        "rfind": "'abab'.rfind('a')",
        "rindex": "'abab'.rindex('b')",
        "rjust": "'ab'.rjust(4, '0')",
        "rpartition": "'a-b-c'.rpartition('-')",
        "rsplit": "'a b c'.rsplit(' ', 1)",
        "rstrip": "' ab '.rstrip()",
        "split": "'a,b'.split(',')",
        "splitlines": "'a\\nb'.splitlines()",
        "startswith": "'ab'.startswith('a')",
        "strip": "'xabx'.strip('x')",
        "title": "'ab cd'.title()",
        "upper": "'ab'.upper()",
        "zfill": "'7'.zfill(3)",
    },
    "a list": {
        "count": "[1, 2, 1].count(1)",
        "index": "(3, 4).index(4)",
    },
    "a mapping": {
        "get": "{'a': 1}.get('b', 2)",
        "items": "{'a': 1}.items() | list",
        "keys": "{'a': 1}.keys() | list",
        "values": "{'a': 1}.values() | list",
    },
    "a number": {
        "is_integer": "(2.0).is_integer()",
    },
    # (of DATES' values: a template writes no date; the data's YAML does)
    "a date": {**{name: f"d.{name}" for name in ("year", "month", "day", "hour", "minute", "second", "microsecond")},
               **{name: f"t.{name}" for name in ("days", "seconds", "microseconds")},
               **{name: f"d.{name}()" for name in ("isoformat", "weekday", "isoweekday")}},
}
DATES = {"d": datetime.datetime(2020, 1, 2, 10, 30, 5, 7), "t": datetime.timedelta(days=3, seconds=4, microseconds=5)}


@pytest.mark.parametrize("kind", [kind for kind in template.METHOD_KINDS if kind.offered],
                         ids=lambda kind: kind.name)
def test_every_offered_method_is_called_as_python_would(kind):
    calls = OFFERED_CALLS[kind.name]
    assert set(calls) == kind.offered  # (a method offered later needs its call here)
    for call in calls.values():
        python = call.removesuffix(" | list")
        expected = eval(python, {}, dict(DATES)) if python == call else list(eval(python))
        assert template.evaluate(call, DATES) == expected, call


@pytest.mark.parametrize("call", ["d.today()", "d.now()", "d.astimezone()", "d.timestamp()", "d.strftime('%s')",
                                  "d.fromtimestamp(0)", "d.ctime()", "d.tzinfo", "'{:%s}'.format(d)",
                                  "'{:%c}'.format(d)", "'{:%10Y}'.format(d)",
                                  # (its arguments were said in Python's words: "Unknown timespec value")
                                  "d.isoformat(timespec='x')", "d.weekday(1)"])
def test_a_date_neither_reads_the_clock_nor_the_machine_s_time_zone(call):
    """A YAML date's today() printed the day of the build (other bytes each day), astimezone(), timestamp() and
    a format's %s read the system's zone files, outside the project: only its fields and isoformat are offered,
    and a format writes its fields."""
    with pytest.raises(ExprError, match="of a date is not allowed in a template|the format of a date writes its own "
                                        "fields|the method (isoformat|weekday) of a date"):
        template.evaluate(call, DATES)
    assert template.evaluate("'{:%d %B %Y, %H:%M}'.format(d)", DATES) == "02 January 2020, 10:30"


def test_a_date_in_a_list_or_mapping_prints_as_it_does_alone():
    """[d] printed Python's "[datetime.datetime(2020, 1, 2, 10, 30, 5, 7)]", and tojson said "Object of type
    datetime is not JSON serializable"."""
    assert template.render("{{ [d] }} {{ {'t': t} }} {{ [d] | pprint }}", DATES) == \
        "[2020-01-02 10:30:05.000007] {'t': 3 days, 0:00:04.000005} [2020-01-02 10:30:05.000007]"
    assert template.render("{{ d | tojson }} {{ [t] | tojson }}", DATES) == \
        '"2020-01-02 10:30:05.000007" ["3 days, 0:00:04.000005"]'
    assert template.render("{{ '{:>12}'.format(t) }}|{{ '{:%Y}'.format(d) }}", DATES) == "3 days, 0:00:04.000005|2020"


def test_a_refused_method_is_said_at_its_line_and_a_game_s_own_fields_still_win():
    with pytest.raises(ExprError) as e:
        template.render("{{ card.name }}\n{{ card.name.swapcase() }}", {"card": {"name": "Lion"}})
    assert e.value.line == 2 and e.value.message.startswith("'swapcase' of text is not allowed in a template")
    card = {"name": "Lion", "copy": "a field", "items": "another"}
    assert template.render("{{ card.copy }} {{ card.items }} {{ card.get('name') }}", {"card": card}) == \
        "a field another Lion"
    groups = "{% for g in [{'a': 1}, {'a': 1}] | groupby('a') %}{{ g.grouper }}:{{ g.list | length }}{% endfor %}"
    assert template.render(groups, {}) == "1:2"  # a group's own attributes, not a tuple's methods
    assert template.render("{% set ns = namespace(n=1) %}{% set ns.n = ns.n + 1 %}{{ ns.n }}", {}) == "2"


def test_a_namespace_is_changed_only_where_it_was_made():
    """One made at the top of macros.j2 is shared by every item: a macro counting in it printed 1, 2, 3, 4 on four
    cards, numbers that hung on the order they were drawn in."""
    macros = template.module("{% set seen = namespace(n=0) %}{% macro count() %}{% set seen.n = seen.n + 1 %}"
                             "{{ seen.n }}{% endmacro %}{% macro own() %}{% set ns = namespace(n=0) %}"
                             "{% set ns.n = ns.n + 1 %}{{ ns.n }}{% endmacro %}", {})
    assert [template.render("{{ macros.own() }}", {"macros": macros}) for _ in range(2)] == ["1", "1"]
    with pytest.raises(ExprError) as e:
        template.render("{{ macros.count() }}", {"macros": macros})
    assert "this namespace (set .n) was made elsewhere (at the top of macros.j2, or in a derived field?) and cannot " \
        "be changed here" in e.value.message
    cycling = template.module("{% set c = cycler('a', 'b') %}{% set j = joiner() %}{% macro cy() %}{{ c.next() }}"
                              "{% endmacro %}{% macro jo() %}{{ j() }}{% endmacro %}", {})
    for name in ("cy", "jo"):
        with pytest.raises(ExprError) as e:
            template.render(f"{{{{ macros.{name}() }}}}", {"macros": cycling})
        assert "was made elsewhere" in e.value.message
    assert template.render("{% set c = cycler(1, 2) %}{% set j = joiner('-') %}{% for i in range(3) %}{{ j() }}"
                           "{{ c.next() }}{% endfor %}", {}) == "1-2-1"


def test_a_lazy_filter_result_and_a_loop_are_read_only_where_they_were_made():
    """`map` at the top of macros.j2 was used up by the first card (the others printed nothing), and a loop kept in
    a namespace there answered loop.changed(card.kind) from the card drawn before."""
    macros = template.module(
        "{% set names = ['a', 'b'] | map('upper') %}{% set kept = names | list %}{% set ns = namespace(l=0, r=0) %}"
        "{% for i in [1] %}{% set ns.l = loop %}{% endfor %}"
        "{% for i in [[1]] recursive %}{% if i is number %}{% set ns.r = loop %}{% else %}{{ loop(i) }}{% endif %}"
        "{% endfor %}{% macro lazy() %}{{ names | join }}{% endmacro %}{% macro listed() %}{{ kept | join }}"
        "{% endmacro %}{% macro changed(x) %}{{ ns.l.changed(x) }}{% endmacro %}"
        "{% macro inner(x) %}{{ ns.r.changed(x) }}{% endmacro %}{% macro inside() %}{{ names.items | list | length }}"
        "{% endmacro %}", {})
    assert [template.render("{{ macros.listed() }}", {"macros": macros}) for _ in range(2)] == ["AB", "AB"]
    for call, what in (("lazy()", "this filter's result"), ("changed(1)", "this loop"), ("inner(1)", "this loop")):
        with pytest.raises(ExprError) as e:
            template.render(f"{{{{ macros.{call} }}}}", {"macros": macros})
        assert e.value.message.startswith(f"{what}") and "was made elsewhere" in e.value.message, call
    with pytest.raises(ExprError) as e:  # the iterator it holds was reachable as `.items`: the first card read
        template.render("{{ macros.inside() }}", {"macros": macros})  # it whole, the others printed 0
    assert "has no attribute 'items'" in e.value.message
    assert template.render("{% for k in [1, 1, 2] %}{{ loop.changed(k) }}{% endfor %}{% for i in [[1, [2]]] recursive %}"
                           "{% if i is number %}{{ i }}{% else %}{{ loop(i) }}{% endif %}{% endfor %}"
                           "{% set g = [1] | map('string') %}{{ g | join }}{{ g | join }}", {}) == "TrueFalseTrue121"
    # an expression's value (a derived field, read by every layout) is kept whole, not as a stream read once
    assert template.evaluate("['a', 'b'] | map('upper')", {}) == ["A", "B"]


def test_a_subclass_s_own_methods_are_closed_too():
    """A game's Record adds with_values and merged_over, safe text adds unescape: methods the table of
    METHOD_KINDS does not offer, refused as a built-in type's are (their data stay readable)."""
    from pnp.model.load import Mark, Record

    card = Record({"name": "Lion"}, mark=Mark("cards/mini/cards.yaml", 3, 3))
    for call in ("card.with_values({})", "card.mark_of('name')", "(card.name | safe).unescape()"):
        with pytest.raises(ExprError) as e:
            template.evaluate(call, {"card": card})
        assert "is not allowed in a template" in e.value.message, call
    assert template.evaluate("card.name ~ ' ' ~ card.get('name')", {"card": card}) == "Lion Lion"


def test_a_text_beginning_with_a_template_files_name_and_a_nul_is_compiled_as_itself():
    """The cache key of a text was the text alone, of a file's template its name, a NUL and its source: the
    text '<macros>\\0S' was given the code of the macros file S (in memory and on disk)."""
    from pnp.template import MACROS_FILE, _compile_template

    assert _compile_template("{{ 6 * 7 }}", MACROS_FILE).render() == "42"
    assert _compile_template(f"{MACROS_FILE}\0{{{{ 6 * 7 }}}}").render() == f"{MACROS_FILE}\x0042"


def test_a_mapping_of_the_data_prints_as_one_a_template_builds():
    """A map field or a layout's vars printed whole showed pnp's class name: "Record({'red': 1})"."""
    from pnp.model.load import Record

    cost = Record({"red": 1, "blue": 2})
    assert template.render("{{ cost }}|{{ [cost] }}", {"cost": cost}) == "{'red': 1, 'blue': 2}|[{'red': 1, 'blue': 2}]"


def test_a_format_naming_a_missing_key_says_so():
    """'%(nmae)s' % card failed with the message "'nmae'" alone."""
    with pytest.raises(ExprError, match="no field or key 'nmae'"):
        template.render("{{ '%(nmae)s' % card }}", {"card": {"name": "Lion"}})


def test_compiled_code_kept_in_memory_is_bounded_and_what_was_let_go_compiles_again(monkeypatch):
    """A long `pnp serve` session compiles every edited text anew: the compiled templates and expressions kept
    in memory grew without end."""
    monkeypatch.setattr(template, "MAX_COMPILED_KEPT", 4)
    monkeypatch.setattr(template, "_EXPRESSIONS", {})
    monkeypatch.setattr(template, "_TEMPLATES", {})
    for n in range(10):
        assert template.evaluate(f"{n} + 1", {}) == n + 1
        assert template.render(f"{{{{ {n} * 2 }}}}", {}) == str(n * 2)
    assert 0 < len(template._EXPRESSIONS) <= 4 and 0 < len(template._TEMPLATES) <= 4
    assert template.evaluate("0 + 1", {}) == 1  # let go long ago: compiled again


def test_no_cache_is_kept_or_read_inside_the_project(tmp_path, monkeypatch, own_disk_cache):
    """With PNP_CACHE_DIR inside the project (a CI caching its workspace while it checks a received game), the
    game's own planted entries, well formed, would be loaded as code: pnp keeps no cache there, and writes
    nothing into the project."""
    from conftest import make_project, run

    root = make_project(tmp_path / "proj")
    monkeypatch.setenv("PNP_CACHE_DIR", str(root / ".cache"))
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    assert not (root / ".cache").exists()


def test_the_project_is_kept_out_of_the_cache_by_identity_not_by_name_alone(tmp_path, monkeypatch):
    """A CI's PNP_CACHE_DIR named the workspace otherwise than resolve names the project (a bind mount, letter case
    on a disk that ignores it): compared by name, the cache was kept inside the project and a received game's
    planted entries were run as template code. Renamed after keep_out_of, the folder is such another name."""
    from pnp import cache

    project = tmp_path / "proj"
    project.mkdir()
    cache.keep_out_of(project)
    project.rename(tmp_path / "workspace")
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "workspace/.cache"))
    assert cache.private_folder("templates", "v1") is None and not (tmp_path / "workspace/.cache").exists()
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert cache.private_folder("templates", "v1") is not None


def test_a_comment_alone_makes_a_template():
    """Jinja's comment is Jinja too: a rulebook whose only Jinja was a `{# note #}` printed the note."""
    assert template.render("{# a note for the designer #}Draw a card.", {}) == "Draw a card."


def test_text_without_jinja_is_held_to_the_length_limit():
    """A text that is no template is held to `max_chars` as a rendered one is, at the line passing it: a
    rulebook of 1.2 MB of plain Markdown was set where the same text with one `{{ }}` was refused."""
    with pytest.raises(ExprError) as refused:
        template.render("line\n" * 10, {}, max_chars=12, too_long="longer than {max_chars:,}")
    assert (refused.value.message, refused.value.line) == ("longer than 12", 3)


@pytest.mark.parametrize("source", ["{{ card.n > 2 }}", "{{- card.n -}}", "{% if card.n %}1{% endif %}"])
def test_an_expression_written_as_a_template_is_told_to_lose_its_braces(source):
    # an expression parsed `{{ x }}` as a mapping of a set: the refusal said "expected token ':', got '}'"
    with pytest.raises(ExprError, match="an expression is written without braces"):
        template.compile_expression(source)


def test_an_expression_holding_braces_of_its_own_is_read_as_written():
    assert template.evaluate("{'a': {'b': 2}}['a']['b'] * 2", {}) == 4


@pytest.mark.parametrize("expression, said", [
    ("['lino'] | lookup(goals)", "lookup: no id 'lino' among the 2 it looks in (did you mean 'lion'?)"),
    ("'lion' | lookup(goals)", "lookup takes a list of ids, got text 'lion'"),
    # (these three were said in Python's words: "'NoneType' object is not iterable", "no id None")
    ("none | lookup(goals)", "lookup takes a list of ids, got nothing (none)"),
    ("['lion'] | lookup(none)", "lookup looks ids up in a mapping of id: item, as lookup(ref.cards), not nothing"),
    ("[none] | lookup(goals)", "lookup: no id none among the 2"),
])
def test_lookup_names_the_id_it_cannot_find_and_refuses_text(expression, said):
    """A missing id was said as "no field or key 'lino' in the value formatted", as if a format had failed,
    and a text's letters were looked up one by one (ids of one letter each found an item)."""
    with pytest.raises(ExprError) as e:
        template.evaluate(expression, {"goals": {"lion": 1, "l": 2}})
    assert said in e.value.message


@pytest.mark.parametrize("source, said", [
    ("{{ true | truncate }}", "truncate cuts text, and was given true/false"),
    ("{{ [1, 2] | truncate }}", "truncate cuts text, and was given a list"),
    ("{{ sum(true, true) }}", "sum adds the items of a list, and was given true/false"),
    # (a filter applies before the operator: the escaped text was said "a value (Markup('10'))")
    ("{{ 2.5 * 10 | tojson }}", "a number (2.5) and text ('10')"),
    # (percent said "unsupported operand type(s) for /: 'str' and 'list'")
    ("{{ 'ab' | percent([1, 2]) }}", "percent takes numbers (part | percent(whole)), and the part is text ('ab')"),
    ("{{ 3 | percent(true) }}", "and the whole is true/false"),
])
def test_truncate_and_sum_refuse_in_pnps_words_what_they_cannot_read(source, said):
    """Said in Python's words: "object of type 'bool' has no len()", "'bool' object is not iterable"."""
    with pytest.raises(ExprError) as e:
        template.render(source, {})
    assert said in e.value.message


def test_truncate_cuts_a_number_as_printed():
    assert template.render("{{ 1234567890123 | truncate(8, true, '', 0) }}", {}) == "12345678"


@pytest.mark.parametrize("value", [("a", "b"), None])
def test_split_refuses_what_is_not_text(value):
    """A list was cut as Python prints it (['a', 'b'] | split(',') gave "['a'" and " 'b']", brackets and
    quotes printed) and a field left out as the word 'None'."""
    with pytest.raises(ExprError) as e:
        template.evaluate("tags | split(',')", {"tags": value})
    assert "split cuts text, and was given" in e.value.message


def test_no_cache_is_kept_or_read_inside_the_repository_holding_the_project(tmp_path, monkeypatch, own_disk_cache):
    """A CI checking a pull request to a repository whose pnp project is a subfolder caches its workspace, the
    repository: planted entries there would be loaded as code as well (only the project's folder was kept out)."""
    from conftest import make_project, run

    (tmp_path / "repo/.git").mkdir(parents=True)
    root = make_project(tmp_path / "repo/game")
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "repo/.ci-cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # (not the repository's: ~ itself may be one, of the user's)
    result = run(root, "validate")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "repo/.ci-cache").exists()


def test_running_out_of_memory_compiling_is_said_at_the_line_writing_the_template(tmp_path, monkeypatch,
                                                                                  own_disk_cache):
    """Python or Jinja running out of memory compiling a template (the machine's, or a limit set on pnp) was
    'a bug in pnp' said at the game's component, or 'too many loops' where Python's compile ran out: it is
    the template's error, at the line writing it, as for an expression."""
    from conftest import make_project, run

    tokenize = template._Env._tokenize

    def short_of_memory(self, source, *args, **kwargs):
        if "oom" in source:
            raise MemoryError()
        return tokenize(self, source, *args, **kwargs)

    monkeypatch.setattr(template._Env, "_tokenize", short_of_memory)
    root = make_project(tmp_path / "p", case={"replace": {
        "layouts/mini/card.yaml": [['text: "{{ card.text }}"', 'text: "{{ card.text }}{# oom #}"']],
        "layouts/mini/back.yaml": [["w: 63, h: 88,", "w: 63, h: 88, when: \"'oom' != 1\","]]}})
    result = run(root, "validate", "mini")
    assert result.exit_code == 1, result.output
    for line in ("layouts/mini/card.yaml:5:51: error: text: pnp ran out of memory compiling this template",
                 "layouts/mini/back.yaml:3:50: error: when: pnp ran out of memory compiling this expression"):
        assert line in result.output, result.output


def test_running_out_of_memory_reading_a_constraint_for_its_margin_is_said_at_its_line(tmp_path, monkeypatch):
    """The design report reads each constraint again for its margins (template.comparisons); running out of
    memory there was 'a bug in pnp' with no file or line: it is said at the constraint's line."""
    from conftest import make_project, run

    def short_of_memory(node):
        raise MemoryError()

    monkeypatch.setattr(template, "_conjuncts", short_of_memory)
    root = make_project(tmp_path / "p", case={"replace": {"cards/mini/game.yaml": [
        ["expr: data.cards | length == 4", "expr: data.cards | length == 4 and 'r35c' != 1"]]}})
    result = run(root, "report", "mini")
    assert result.exit_code == 1
    assert "cards/mini/game.yaml:23:11: error: constraint: pnp ran out of memory reading this expression" \
        in result.output, result.output


def test_running_out_of_memory_compiling_a_fields_pattern_is_said_at_its_line(tmp_path, monkeypatch):
    """The regular expression engine writes a counted repeat out (`a{4294967294}`, gigabytes: now refused by its
    size before compiling); where memory ran out compiling (a limit set on pnp, a pattern within that size) it
    was 'a bug in pnp' at the game, no line."""
    import regex

    from conftest import make_project, run
    from pnp.model import schema

    compile_pattern = regex.compile

    def short_of_memory(pattern, *args, **kwargs):
        if pattern == "a{99999}":
            raise MemoryError()
        return compile_pattern(pattern, *args, **kwargs)

    monkeypatch.setattr(schema.regex, "compile", short_of_memory)
    root = make_project(tmp_path / "p", case={"replace": {"cards/mini/game.yaml": [
        ["name: {type: str, max_len: 20}", 'name: {type: str, pattern: "a{99999}"}']]}})
    result = run(root, "validate", "mini")
    assert result.exit_code == 1
    # (said at the pattern itself, not at its field's spec: SpecError carries where an option is written)
    assert "cards/mini/game.yaml:15:34: error: field 'name': 'pattern' is too large to compile (pnp ran out of " \
           "memory" in result.output, result.output


def test_a_percent_format_is_parsed_once_for_its_size_and_its_rounding(monkeypatch):
    """`%` with keys read the format's conversions for the size it may write, then again to round its numbers."""
    parsed = []
    conversion = template._CONVERSION

    class Counting:
        def finditer(self, text):
            parsed.append(text)
            return conversion.finditer(text)

    monkeypatch.setattr(template, "_CONVERSION", Counting())
    monkeypatch.setattr(template, "_LAST_CONVERSIONS", [("", [])])  # (what an earlier test left there)
    given = {"a": 2.675, "b": 7, "keyed": "%(a).2f|%(a)s|%(b)d", "one": "%(a).1f"}  # (not folded when compiled)
    assert template.render("{{ keyed % {'a': a, 'b': b} }}", given) == "2.68|2.675|7"
    assert template.render("{{ one | format(a=a) }}", given) == "2.7"
    assert parsed == ["%(a).2f|%(a)s|%(b)d", "%(a).1f"]


def test_a_template_is_parsed_once_for_both_enum_walks(monkeypatch):
    """The comparisons of an enum's field and the macros given the item are read from one parse."""
    parse, parsed = template.ENV.parse, []
    monkeypatch.setattr(template.ENV, "parse", lambda source, *a, **k: parsed.append(source) or parse(source, *a, **k))
    source = "{{ macros.badge(card) }}{% if card.kind == 'Beest' %}x{% endif %}{# once #}"
    item = frozenset({"card"})
    assert [m for m, _ in template.enum_mistakes(source, False, item, {"kind": ["beast"]})] != []
    assert template.macro_items(source, False, item) == {("badge", 0, None)}
    assert parsed == [source]


@pytest.mark.parametrize("head, end, line", [
    # a template: Jinja writes each line end of its text \n (ten characters a line), the 101st is on line 11
    ("{{ 1 }}", "\n", 11), ("{{ 1 }}", "\r\n", 11), ("{{ 1 }}", "\r", 11),
    # plain text, written as it is: eleven characters a line with \r\n
    ("1", "\n", 11), ("1", "\r\n", 10), ("1", "\r", 11)])
def test_the_line_where_a_text_passes_its_limit_counts_every_kind_of_line_end(head, end, line):
    """Jinja ends a line at \\r\\n and \\r too: the line said was the first one, or none, for a text of those
    line ends."""
    with pytest.raises(ExprError) as e:
        template.render(head + end + ("abcdefghi" + end) * 20, {}, 100, origins=[])
    assert e.value.line == line


def test_an_item_printed_whole_prints_its_floats_as_a_float_alone_prints():
    """An item prints as a dict does: its derived float printed 1.6666666666666667 there, 1.66666666667 alone."""
    from pnp.model.load import MarkedList, Record

    card = Record({"id": "x", "third": 5 / 3, "sums": [0.1 + 0.2]})
    assert template.render("{{ card }}|{{ cards }}|{{ card.third }}", {"card": card, "cards": MarkedList([card])}) == \
        "{'id': 'x', 'third': 1.66666666667, 'sums': [0.3]}|[{'id': 'x', 'third': 1.66666666667, 'sums': [0.3]}]|" \
        "1.66666666667"


@pytest.mark.parametrize("source, usage, given", [
    ("{{ 1 | lookup }}", "x | lookup(mapping)", "0 values"),
    ("{{ 'a b' | wordcount(2) }}", "x | wordcount", "1 value"),
    ("{{ 'ab' | replace('a') }}", "x | replace(old, new, count=None)", "1 value"),
    ("{{ [1] | join(1, 2, 3) }}", "x | join(d='', attribute=None)", "3 values"),
    ("{{ '1' | int(1, 2, 3) }}", "x | int(default=..., base=10)", "3 values"),
    ("{{ 'a' | truncate(x=1) }}", "x | truncate(length=255, killwords=False, end='...', leeway=None)", "0 values and x="),
])
def test_a_filter_given_values_it_does_not_take_says_how_it_is_written(source, usage, given):
    """Python's message named the function behind the filter (`_lookup_ids() missing 1 required positional
    argument`) and counted the filtered value among those given (`wordcount(2)`: 'takes 1 but 2 were given')."""
    with pytest.raises(ExprError) as e:
        template.render(source, {})
    assert e.value.message.endswith(f"`{usage}`, and was given {given}")


@pytest.mark.parametrize("source, printed", [
    ("{{ dict(a=0.1 + 0.2).items() }}", "dict_items([('a', 0.3)])"),
    ("{{ dict(a=1 / 3).values() }}|{{ {1 / 3: 1}.keys() }}", "dict_values([0.333333333333])|dict_keys([0.333333333333])"),
    # keys that would print alike are printed as they are, each with its own value
    ("{{ {0.1 + 0.2: 'a', 0.3: 'b'} }}", "{0.30000000000000004: 'a', 0.3: 'b'}"),
    ("{{ {0.1 + 0.2: 1 / 3, 0.3: 2}.items() }}", "dict_items([(0.30000000000000004, 0.333333333333), (0.3, 2)])"),
])
def test_a_mappings_views_print_their_floats_as_a_template_does_and_no_entry_is_lost(source, printed):
    """A dict's items(), values() and keys() printed 0.30000000000000004 where a list prints 0.3; a dict whose
    keys print alike printed one entry of two ({0.3: 'b'})."""
    assert template.render(source, {}) == printed


def test_an_item_is_written_as_json_as_a_dict_is():
    """tojson refused an item of a table ("Object of type mapping is not JSON serializable")."""
    from pnp.model.load import MarkedList, Record

    card = Record({"id": "x", "third": 5 / 3, "sub": Record({"a": 1})})
    assert template.render("{{ card | tojson }}|{{ cards | tojson }}", {"card": card, "cards": MarkedList([card])}) == \
        '{"id": "x", "sub": {"a": 1}, "third": 1.66666666667}|[{"id": "x", "sub": {"a": 1}, "third": 1.66666666667}]'


@pytest.mark.parametrize("source, usage, given", [
    ("{{ sum() }}", "the function sum is written `sum(items, start=0)`", "0 values"),
    ("{{ round(1, 2, 3) }}", "the function round is written `round(number, ndigits=None)`", "3 values"),
    ("{{ joiner(1, 2) }}", "the function joiner is written `joiner(sep=', ')`", "2 values"),
    ("{{ 1 is divisibleby }}", "the test divisibleby is written `x is divisibleby(num)`", "0 values"),
    ("{{ 1 is odd(2) }}", "the test odd is written `x is odd`", "1 value"),
    ("{{ [1] | select('sameas') | list }}", "the test sameas is written `x is sameas(other)`", "0 values"),
])
def test_a_function_or_test_given_values_it_does_not_take_says_how_it_is_written(source, usage, given):
    """As a filter says it: Python's message named pnp's function behind it (`_sum() missing 1 required
    positional argument`, `_Joiner.__init__() takes from 1 to 2 positional arguments`, `test_odd()`)."""
    with pytest.raises(ExprError) as e:
        template.render(source, {})
    assert e.value.message == f"{usage}, and was given {given}"


@pytest.mark.parametrize("source, message", [
    ("{{ (0.1 + 0.2).x }}", "a number (0.3) has no attribute 'x'"),
    ("{{ [1 / 3] | groupby(0) | list }}", "a number (0.333333333333) has no attribute '0'"),
    ("{{ [1][0.1 + 0.2] }}", "a list is read by whole numbers ([0], [1]...), not a number (0.3)"),
    ("{{ [0.1 + 0.2] | lookup({'a': 1}) }}", "lookup: no id 0.3 among the 1 it looks in"),
    # a key and the name missed that would print alike are written in full
    ("{{ {0.1 + 0.2: 1}[0.3] }}", "no field '0.3'; the fields here are: 0.30000000000000004"),
])
def test_a_number_worked_out_is_quoted_in_a_message_as_it_prints(source, message):
    """A message quoted a float as Python writes it, noise and all ("a number (0.30000000000000004)")."""
    with pytest.raises(ExprError) as e:
        template.render(source, {})
    assert e.value.message == message


def test_a_missing_id_and_a_missing_table_are_said_as_such():
    """`ref.cards.nosuch` said "no field 'nosuch'; the fields here are: fern, lion": those are the ids of the
    items, and `data.nosuch` listed the tables as fields."""
    from pnp.model.load import Record
    from pnp.model.reads import Tables

    cards = {"fern": Record({"id": "fern"}), "lion": Record({"id": "lion"})}
    ref = Tables({"cards": cards})
    with pytest.raises(ExprError) as e:
        template.render("{{ ref.cards.lino }}", {"ref": ref})
    assert e.value.message == "no item with the id 'lino' (did you mean 'lion'?); the ids here are: fern, lion"
    with pytest.raises(ExprError) as e:
        template.render("{{ ref.crads }}", {"ref": ref})
    assert e.value.message == "no table 'crads' (did you mean 'cards'?); the tables here are: cards"
    with pytest.raises(ExprError) as e:
        template.render("{{ ref.cards.lion.nmae }}", {"ref": ref})
    assert e.value.message == "no field 'nmae'; the fields here are: id"


def test_a_list_a_format_field_writes_prints_its_floats_as_a_template_does():
    """'{}'.format([1 / 3]) printed [0.3333333333333333] where `{{ [1 / 3] }}` prints [0.333333333333]."""
    assert template.render("{{ '{}|{}'.format([1 / 3], {'a': (0.1 + 0.2,)}) }}", {}) == "[0.333333333333]|{'a': (0.3,)}"


def test_a_number_test_of_a_field_an_item_lacks_says_the_field():
    """`selectattr('nosuch', 'odd')` said "`is odd` takes numbers, not a value"."""
    with pytest.raises(ExprError) as e:
        template.render("{{ cards | selectattr('powr', 'odd') | list }}", {"cards": [{"power": 1}]})
    assert e.value.message == "no field 'powr' (did you mean 'power'?); the fields here are: power"


@pytest.mark.parametrize("source, named", [
    ("{{ cycler(1) }}", "<cycler object>"), ("{{ joiner() }}", "<joiner>"),
    ("{{ namespace(a=1) | tojson }}", "namespace"), ("{{ {'a': 1}.items() | tojson }}", "items()"),
])
def test_what_namespace_cycler_joiner_and_views_make_is_named_as_a_template_writes_it(source, named):
    """A message named pnp's classes ("<pnp.template._Cycler object>", "Object of type _Namespace") and Python's
    (dict_items)."""
    with pytest.raises(ExprError) as e:
        template.render(source, {})
    assert named in e.value.message
    assert not any(internal in e.value.message for internal in ("pnp.template", "_Cycler", "_Joiner", "_Namespace",
                                                                "dict_"))


def test_a_number_test_takes_its_number_by_name_as_jinja_does():
    """`is divisibleby(num=2)` is Jinja's own way of writing it; it said "_number_test.<locals>.checked() got an
    unexpected keyword argument 'num'"."""
    assert template.render("{{ 4 is divisibleby(num=2) }} {{ [4, 3] | select('divisibleby', num=2) | list }}", {}) == \
        "True [4]"
    with pytest.raises(ExprError) as e:
        template.render("{{ 1 is odd(x='a') }}", {})
    assert e.value.message == "the test odd is written `x is odd`, and was given 0 values and x="


def test_a_macro_macros_j2_lacks_is_said_with_those_it_has():
    """`macros.badg(card)` said "a value has no attribute 'badg'"."""
    macros = template.module("{% macro badge(c) %}{{ c }}{% endmacro %}{% set third = 1 %}", {})
    with pytest.raises(ExprError) as e:
        template.render("{{ macros.badg(1) }}", {"macros": macros})
    assert e.value.message == "macros.j2 has no macro 'badg' (did you mean 'badge'?); it has: badge, third"


@pytest.mark.parametrize("source", ["{% if [1, 2] | select('gt', 5) %}yes{% endif %}",
                                    "{{ 'yes' if [] | map('upper') else 'no' }}",
                                    # a loop's condition (it looped over every item), and the value of `and`/`or`
                                    "{% for x in [1, 2] if [1, 2] | select('gt', 5) %}{{ x }}{% endfor %}",
                                    "{% if [1] and [1, 2] | select('gt', 5) %}yes{% endif %}",
                                    "{{ 'yes' if ([] or [1, 2] | select('gt', 5)) or [] else 'no' }}"])
def test_a_lazy_filter_result_is_not_taken_as_true(source):
    """A filter's lazy result is true however many items it gives: `{% if data.cards | selectattr(...) %}` printed
    what it guarded with no item picked, exit 0."""
    with pytest.raises(ExprError, match="is true even when it gives no item"):
        template.render(source, {})
    assert template.render("{{ 'yes' if [1, 2] | select('gt', 5) | list else 'no' }}", {}) == "no"


def test_a_lazy_filter_result_given_by_and_or_or_is_not_tested_where_it_is_not_taken_as_true():
    """Only the left of `a or b` is taken as true or false: a loop over `ys or xs | select('odd')` was refused."""
    assert template.render("{% for x in [] or [1, 2, 3] | select('odd') %}{{ x }}{% endfor %}", {}) == "13"
    assert template.render("{{ ([1] and [1, 2, 3] | select('odd')) | list }}", {}) == "[1, 3]"


def test_a_namespace_prints_its_floats_as_a_template_does():
    source = "{% set n = namespace(b=1/3) %}{% set n.c = [0.1 + 0.2] %}{% set n.n = n %}{{ n }}"
    assert template.render(source, {}) == "<Namespace {'b': 0.333333333333, 'c': [0.3], 'n': <Namespace {...}>}>"


def test_a_budget_block_ended_out_of_turn_leaves_the_next_games_budget_whole():
    """A block ended after its game (a generator's, finalised late) counted the blocks open below 0: every later
    game joined a budget that never ended, its time long spent (350 tests of one CI run ran out of time)."""
    def joined():
        with template.budget():
            yield

    with template.budget():
        late = joined()
        next(late)  # a block inside the game, left open
    late.close()  # ended after the game
    assert template._budget.games == 0
    with template.budget():
        assert template._budget.seconds_left == template.SECONDS_PER_GAME


def test_names_set_to_the_item_in_a_chain_are_read_in_one_pass(monkeypatch):
    """Each name set to the one before (`{% set a1 = a0 %}`, 300 times) is read once: reading them again until
    nothing changed read each value once per link, 5,000 of them a time bomb of the static walk."""
    calls = []
    is_item = template._is_item
    monkeypatch.setattr(template, "_is_item", lambda *args: calls.append(1) or is_item(*args))
    chain = "{% set a0 = card %}" + "".join(f"{{% set a{i} = a{i - 1} %}}" for i in range(1, 300))
    found = template.enum_mistakes(chain + "{{ a299.kind == 'Beest' }}", False, frozenset({"card"}),
                                   {"kind": ["beast"]})
    assert [line for _, line in found] == [1]
    assert len(calls) < 3 * 300


@pytest.mark.parametrize("source, said", [
    # values of no order, ordered by an operator, a test, a filter or a function
    ("{{ [1, 'a'] | sort }}", "the filter sort cannot order a whole number (1) and text ('a'): numbers are ordered"),
    ("{{ [{'a': 1}, {'a': 'x'}] | sort(attribute='a') }}", "the filter sort cannot order a whole number (1) and text"),
    ("{{ [[1, 2], [1, 'a']] | sort }}", "the filter sort cannot order a whole number (2) and text ('a')"),
    ("{{ [1, 'a'] | select | max }}", "the filter max cannot order a whole number (1) and text ('a')"),
    ("{{ [[1], [1]] | unique | list }}", "the filter unique cannot compare a list whole: give it a field"),
    ("{{ {1: 1, 'a': 2} | dictsort }}", "the filter dictsort cannot order a whole number (1) and text ('a')"),
    ("{{ [{'a': none}, {'a': 1}] | groupby('a') }}", "the filter groupby cannot order nothing (none) and a whole"),
    ("{{ min(1, 'a') }} {{ sorted([none, 1]) }}", "the function min cannot order a whole number (1) and text ('a')"),
    ("{{ 'a' < none }}", "'<' cannot order text ('a') and nothing (none)"),
    ("{{ 1 < 2 < 'a' }}", "'<' cannot order a whole number (2) and text ('a')"),
    ("{{ 1 == 1 >= 'a' }}", "'>=' cannot order a whole number (1) and text ('a')"),
    ("{{ [1, 'a'] < [1, 2] }}", "'<' cannot order text ('a') and a whole number (2)"),
    ("{{ [1, 'a'] | select('gt', 0) | list }}", "'>' cannot order text ('a') and a whole number (0)"),
    ("{{ ['a'] | sum }}", "sum cannot add text ('a') to a whole number (0): it adds numbers"),
    ("{{ sum(['b'], 'a') }}", "sum adds numbers, and was given text to start from"),
    # refused before adding any item: a million texts were joined one at a time (16 s, past the time limit) to
    # find the pair that did not add, here 'ab' + 1
    ("{{ ['b', 1] | sum(start='a') }}", "sum adds numbers, and was given text to start from"),
    ("{{ -'a' }}", "'-' before a value takes a number, not text ('a')"),
    ("{{ abs('a') }}", "abs takes a number, not text ('a')"),
    # functions given nothing
    ("{{ len() }}", "the function len is written `len(items)`, and was given 0 values"),
    ("{{ max() }}", "the function max is written `max(items, ...)`, and was given 0 values"),
    # methods given values they do not take
    ("{{ 'a'.count() }}", "the method count of text is written `count(sub, start=0, end=...)`, and was given 0 values"),
    ("{{ 'a'.replace('a') }}", "the method replace of text is written `replace(old, new, count=-1)`, and was given 1"),
    ("{{ 'a'.upper(1) }}", "the method upper of text is written `upper()`, and was given 1 value"),
    ("{{ 'a'.split(x=1) }}", "the method split of text is written `split(sep=None, maxsplit=-1)`, and was given 0 "
                             "values and x="),
    ("{{ [1].index() }}", "the method index of a list is written `index(value, start=0, end=...)`"),
    ("{{ 'ab'.index('z') }}", "the method index of text does not find text ('z') there (test `value in x` first, or"),
    ("{{ [1, 2].index(5) }}", "the method index of a list does not find a whole number (5) there"),
    ("{{ range(3).index(1, 0, 5) }}", "the method index of a list is written `index(value)`, and was given 3 values"),
    ("{{ {}.get(1, 2, 3) }}", "the method get of a mapping is written `get(key, default=None)`, and was given 3"),
    # what a filter's or a text method's value takes
    ("{{ 'x' | trim(5) }}", "the filter trim takes text (or none) as its chars, not a whole number (5)"),
    ("{{ 'abcdefgh' | truncate(3, end=5) }}", "the filter truncate takes text as its end, not a whole number (5)"),
    ("{{ 'a b' | wordwrap(2, wrapstring=5) }}", "the filter wordwrap takes text (or none) as its wrapstring, not a"),
    ("{{ 'abcdef' | truncate(-1) }}", "the filter truncate takes a length of at least 3 (the length of its end), not"),
    ("{{ 'abcdef' | truncate(4, leeway=-5) }}", "the filter truncate takes a leeway of at least 0, not"),
    ("{{ 'ab cd' | wordwrap(0) }}", "the filter wordwrap takes a width of at least 1, not a whole number (0)"),
    ("{{ '10' | int(base=100) }}", "the filter int takes a base from 2 to 36 (or 0: as the text writes it), not a"),
    ("{{ 'a' | center('x') }}", "the filter center takes a whole number as its width, not text ('x')"),
    ("{{ 'a' | indent(none) }}", "the filter indent takes a whole number or text as its width, not nothing (none)"),
    ("{{ 'abc'.count(5) }}", "count of text takes text there, not a whole number (5)"),
    ("{{ 'a'.count('a', 'b') }}", "count of text takes a whole number (or none) there, not text ('b')"),
    ("{{ 'a'.center(5, 'ab') }}", "center of text takes one character there, not text ('ab')"),
    ("{{ 'a'.endswith(5) }}", "endswith of text takes text (or a list of texts) there, not a whole number (5)"),
    ("{{ ','.join([1, 2] | select) }}", "join of text joins texts, not a whole number (1)"),
    ("{{ [1 / 3] | urlencode }}", "the filter urlencode takes text, a mapping or a list of (key, value) pairs, and "
                                  "was given a list holding a number (0.333333333333)"),
    # formats that do not fit their values
    ("{{ 'a' | format(5) }}", "the format 'a' has 0 fields (%s, %d, %.2f...) and was given 1 value"),
    ("{{ '%s %s' % 1 }}", "the format '%s %s' has 2 fields (%s, %d, %.2f...) and was given 1 value"),
    ("{{ '%d' % 'a' }}", "the format '%d': its field %d cannot write text ('a') (it writes a number)"),
    ("{{ '%(n)d' | format(n='x') }}", "the format '%(n)d': its field %(n)d cannot write text ('x')"),
    ("{{ '%d items' | format(count=2) }}", "takes its values in turn (%s), not by name"),
    ("{{ '%(a)d' % 5 }}", "names its values (%(name)s) and takes a mapping, not a whole number (5)"),
    ("{{ '50%' % 5 }}", "the format '50%' has a % that begins no field"),
    ("{{ '%y' % 5 }}", "its field %y writes no kind pnp knows ('y'"),
    ("{{ '{:q}'.format(1) }}", "its field {:q} writes no kind pnp knows ('q'"),
    ("{{ '{:,d}'.format(1.5) }}", "its field {:,d} cannot write a number (1.5) (it writes a whole number: round it"),
    ("{{ '%x' % 1.5 }}", "its field %x cannot write a number (1.5) (it writes a whole number"),
    ("{{ '{:d}'.format('a') }}", "the format '{:d}': its field {:d} cannot write text ('a') (it writes a number)"),
    ("{{ '{}{}'.format(1) }}", "the format '{}{}': its field {} has no value (it was given 1 value"),
    ("{{ '{0}{}'.format(1, 2) }}", "numbers some of its fields ({0}) and not others ({})"),
    ("{{ 'a}'.format() }}", "has a { or } that begins or ends no field: one printed is written {{ or }}"),
    ("{{ '{!x}'.format(1) }}", "the format '{!x}' converts a value by '!x', which is none of !s, !r and !a"),
    ("{{ '%(a)s %s' % {'a': 1} }}", "names some of its values (%(name)s) and not others (%s): name all or none"),
    ("{{ 'a'.join(none) }}", "the method join takes a list (or text, a mapping), not nothing (none)"),
])
def test_a_value_a_template_cannot_use_there_is_said_in_pnps_words_at_its_line(source, said):
    """Mixed values ordered, text summed, a filter's or a text method's value of another kind, a format that does
    not fit its values: said in Python's or Jinja's words before ("'<' not supported between instances of 'str'
    and 'int'", "strip arg must be None or str", "not all arguments converted during string formatting",
    "cannot unpack non-iterable float object", "len() takes exactly one argument (0 given)")."""
    with pytest.raises(ExprError) as e:
        template.render("a\n" + source, {})
    assert said in e.value.message and e.value.line == 2, e.value.message


def test_a_chain_of_comparisons_reads_each_value_once_and_none_after_a_false_pair():
    """`a < f() < b` (_Compiler's chain through _order): the middle value read once, as Python's chain reads it,
    and the values after a pair that is false not read."""
    read = []

    def value(n):
        read.append(n)
        return n
    assert template.render("{{ 1 < f(2) <= f(3) }} {{ 5 < f(4) < f(9) }} {{ 1 < 2 == f(2) != 3 }} {{ 1 < 2 in [2] }}",
                           {"f": value}) == "True False True True"
    assert read == [2, 3, 4, 2]


def test_values_of_one_kind_are_ordered_formatted_and_given_as_before():
    source = ("{{ [3, 1.5, true] | sort }} {{ ['b', 'A'] | max }} {{ 1 < 2.5 }} {{ [1, 5] | select('>', 2) | list }} "
              "{{ -(2) }} {{ sum([1, 2.5]) }} {{ 'a\nb' | indent('>') }} {{ ' a ' | trim(none) }} {{ 'a'.center(3, '*') }} "
              "{{ '%d%%' % 5 }} {{ '{:>3}|{a:.1f}'.format(1, a=2.25) }} {{ [('a', 1)] | urlencode }} {{ [[1], [1, 2]] | sort }} "
              "{{ 'a b c'.split(maxsplit=1) }} {{ {'a': 1}.get('a') }} {{ [1, 2].index(2, 0, 5) }} {{ 'ab'.find('b', 0, none) }} "
              "{{ 'ff' | int(base=16) }} {{ '0x1f' | int(base=0) }} {{ 'abcdefgh' | truncate(3, leeway=0) }}")
    assert template.render(source, {}) == ("[True, 1.5, 3] b True [5] -2 3.5 a\n>b a *a* 5%   1|2.3 a=1 [[1], [1, 2]] "
                                           "['a', 'b c'] 1 1 1 255 31 ...")


def test_the_static_checks_of_a_template_walk_its_tree_once(monkeypatch):
    """The enum checks and the macro arguments read a template's nodes from one walk of its tree: ten walks of
    Jinja's recursive generators (names, sets, tests, comparisons, filters, calls) took seconds for 3,000
    chained {% set %} lines, within the limit of words."""
    from jinja2 import nodes
    walked = []
    children = nodes.Node.iter_child_nodes
    monkeypatch.setattr(nodes.Node, "iter_child_nodes", lambda self, *a, **k: walked.append(1) or children(self, *a, **k))
    chain = "{% set a0 = card %}" + "".join(f"{{% set a{i} = a{i - 1} %}}" for i in range(1, 300))
    source = chain + "{{ a299.kind == 'Beest' }}{{ macros.m(a299) }}"
    parsed = template.ENV.parse(source)  # (parsing walks the tree too: not counted)
    monkeypatch.setattr(template, "_parsed_or_none", lambda *args: parsed)
    tree_nodes = len(list(parsed.find_all(nodes.Node)))
    walked.clear()
    found = template.enum_mistakes(source, False, frozenset({"card"}), {"kind": ["beast"]})
    assert [line for _, line in found] == [1] and template.macro_items(source, False, frozenset({"card"}))
    assert len(walked) < 2 * tree_nodes, (len(walked), tree_nodes)


def test_a_failure_at_a_template_instruction_of_no_line_keeps_the_line_before():
    # pnp's processor-time alarm raises at whatever instruction the code is at; one of no line (CPython 3.11's
    # cleanup of an except) gave the traceback a line of None, which the template's line lookup compared
    import types

    from pnp.template import _template_line

    source = "def body():\n    for i in range(3):\n        try:\n            yield i\n        except Exception:\n            pass\n"
    scope: dict = {}
    exec(compile(source, "<template>", "exec"), scope)
    frame = scope["body"]().gi_frame
    lineless = next(start for start, _, line in frame.f_code.co_lines() if line is None)
    error = LimitError("out of time")
    error.lineno = 7  # (the line Jinja's error gave, kept where the traceback says none)
    error.__traceback__ = types.TracebackType(None, frame, lineless, -1)
    assert error.__traceback__.tb_lineno is None
    assert _template_line(error) == 7


def test_tojson_and_xmlattr_of_odd_values_in_pnps_words() -> None:
    """`glossary | tojson` (a list the game keeps in a Sequence of its own) said "Object of type Reaching is not
    JSON serializable", a bug in pnp's words."""
    from pnp.model.reads import Reaching
    with pytest.raises(ExprError, match="xmlattr takes a mapping"):  # (it said "'str' object has no attribute 'items'")
        template.render("{{ 'a' | xmlattr }}", {}, markup=True)
    assert template.render("{{ g | tojson }}", {"g": Reaching([{"name": "Roar"}], lambda: ())}) == '[{"name": "Roar"}]'


def test_looking_into_a_template_spends_the_games_budget(monkeypatch):
    """Parsing and walking an expression to look for mistakes (a constant condition, an enum value misspelt) is
    charged to the game's budget as running it is: 20,000 constraints were each parsed twice outside it, a
    validate of 12 s of processor time for a budget of 8. Once each (a look nested in another, or remembered,
    is not charged again)."""
    ticks = iter(range(1_000))
    monkeypatch.setattr(template, "_clock", lambda: float(next(ticks)))
    source = "data.cards | selectattr('kind', 'eq', 'budget-look') | list | length > 31337"
    with template.budget(seconds=100.0):
        template.constant_condition(source)
        assert template._budget.seconds_left == 99.0
        template.enum_mistakes(source, True, frozenset(), {}, lambda table: {"kind": ["beast"]})
        assert template._budget.seconds_left == 98.0
        template.constant_condition(source)  # remembered
        assert template._budget.seconds_left == 98.0
    template.constant_condition(source + " + 0")  # outside a game: nothing to charge
    assert template._budget.seconds_left is None


def test_a_charged_block_spends_its_evaluations_once(monkeypatch):
    """pnp's own work for each item of a rule (its context, its message) is spent from the game's budget with
    the evaluation inside it, counted once: 200 constraints over 5,000 items spent 3.6 s besides the budget."""
    with template.budget(seconds=100.0):
        template.evaluate("1 + 1", {})  # compiled, outside the fake clock
        left = template._budget.seconds_left
        ticks = iter(range(1_000))
        monkeypatch.setattr(template, "_clock", lambda: float(next(ticks)))
        with template.charged():
            assert template.evaluate("1 + 1", {}) == 2
        spent = left - template._budget.seconds_left
        assert spent == next(ticks) - 1  # the block's clock readings, first to last: its evaluation's inside


def test_the_time_running_out_as_a_metered_block_ends_leaves_no_evaluation_open(monkeypatch):
    """A step counted at a call of the block's own ending (contextlib's __exit__) raised the limit before that
    ending ran: the evaluation stayed open, so every later evaluation in the process ran past a deadline long gone
    (a preview stopped checking for good; under load, a run of the suite failed unrelated tests after one). The
    ending's calls are not counted: the block ends whole."""
    from pnp.errors import LimitError

    out_of_time = [False]

    def tick(cost: int = 1) -> None:  # from `out_of_time` on, every step is over the time
        if out_of_time[0]:
            raise LimitError("the library took longer than 2 s of processor time; pnp stops there")

    monkeypatch.setattr(template, "tick", tick)
    monkeypatch.setattr(template, "_CALLS_PER_STEP", 1)
    said = None
    with template.budget():
        try:
            with template.metered("the library"):
                out_of_time[0] = True  # the time runs out as the library's work ends
        except LimitError as e:  # (kept, as a report keeps what it says: its traceback holds the block)
            said = e
        out_of_time[0] = False
        assert template._budget.depth == 0, said
