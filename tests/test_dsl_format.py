"""Canonical formatting of task DSL trees, and parse/format round trips (pure, no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webfactory_env.dsl import (
    KEYWORDS,
    Allow,
    Assert,
    AttrPred,
    BoolLit,
    Call,
    Click,
    Fill,
    For,
    FramePath,
    Goto,
    Ident,
    If,
    NumberLit,
    Param,
    PathKey,
    Select,
    StateAnd,
    StateCall,
    StateCond,
    StateNot,
    StateOr,
    StringLit,
    Submit,
    Target,
    TaskDef,
    TaskFile,
    VarRef,
    Wait,
    format_task_file,
    parse_task_file,
    parse_task_source,
)

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_FILES = [
    ROOT / "dsl" / "tasks" / "shop" / "buy_red_mug.task",
    ROOT / "dsl" / "examples" / "book_flight_roundtrip.task",
]
ALL_TASK_FILES = sorted((ROOT / "dsl").rglob("*.task"))


def fmt(*tasks: TaskDef) -> str:
    return format_task_file(TaskFile("<test>", "", tasks))


def task(*steps, name: str = "t", params: tuple = (), doc: str | None = None) -> TaskDef:
    return TaskDef(name, params, steps, doc)


def state(name: str, value: int = 1) -> StateCall:
    return StateCall((StateCond((name,), "=", NumberLit(value)),))


# ---- files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=lambda p: p.name)
def test_reference_files_are_already_canonical(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_task_file(parse_task_source(text)) == text


@pytest.mark.parametrize("path", ALL_TASK_FILES, ids=lambda p: p.name)
def test_every_example_round_trips_and_formatting_is_idempotent(path: Path) -> None:
    parsed = parse_task_file(path)
    text = format_task_file(parsed)
    assert parse_task_source(text) == parsed
    assert format_task_file(parse_task_source(text)) == text
    assert text.endswith("}\n") and not text.endswith("\n\n")


def test_layout_of_a_messy_file() -> None:
    source = """/* dropped */ // dropped too

// Doc of a.
task   a ( x : number = -2 , y ) {goto route( "/p" ) ;
 if State( a.b=1 , c~="z" ) { click Item( k = 1 ,
  j~="m" ) ; } else { for it in Row(n>1) { click it;  wait; } }
wait 10;   }
task b(){ wait State(x=1) ; }
"""
    assert format_task_file(parse_task_source(source)) == (
        "// Doc of a.\n"
        "task a(x: number = -2, y) {\n"
        '  goto route("/p");\n'
        '  if State(a.b = 1, c ~= "z") {\n'
        '    click Item(k=1, j~="m");\n'
        "  } else {\n"
        "    for it in Row(n>1) {\n"
        "      click it;\n"
        "      wait;\n"
        "    }\n"
        "  }\n"
        "  wait 10;\n"
        "}\n"
        "\n"
        "task b {\n"
        "  wait State(x = 1);\n"
        "}\n"
    )


# ---- pieces --------------------------------------------------------------------------------


def test_every_statement_form() -> None:
    target = Target("Field", (AttrPred("name", "=", StringLit("q")),))
    text = fmt(
        task(
            Goto(StringLit("/x")),
            Click(VarRef("row")),
            Fill(target, Ident("query")),
            Select(target, BoolLit(False)),
            Submit(
                Target("Form", (AttrPred("n", ">", NumberLit(1)), AttrPred("m", "<", NumberLit(2))))
            ),
            Wait(None, None),
            Wait(None, NumberLit(250)),
            Wait(StateNot(state("busy")), None),
            Assert(state("done")),
            params=(Param("query", "string", StringLit("mug")), Param("row", None, None)),
        )
    )
    assert text == (
        'task t(query: string = "mug", row) {\n'
        '  goto "/x";\n'
        "  click row;\n"
        '  fill Field(name="q") with query;\n'
        '  select Field(name="q") option false;\n'
        "  submit Form(n>1, m<2);\n"
        "  wait;\n"
        "  wait 250;\n"
        "  wait not State(busy = 1);\n"
        "  assert State(done = 1);\n"
        "}\n"
    )


def test_allow_prints_its_paths_with_keys_and_stars() -> None:
    paths = (
        FramePath(("orders",)),
        FramePath(("cards", "*", "labels")),
        FramePath(("cards", PathKey(StringLit("C-12")), "column")),
        FramePath(("cards", PathKey(Ident("card")))),
    )
    text = fmt(task(Allow(paths), Goto(StringLit("/x"))))
    assert text == (
        "task t {\n"
        '  allow orders, cards.*.labels, cards["C-12"].column, cards[card];\n'
        '  goto "/x";\n'
        "}\n"
    )
    assert parse_task_source(text).tasks[0].steps[0] == Allow(paths)


def test_strings_are_re_escaped_minimally() -> None:
    value = 'quote" back\\ nl\n tab\t cr\r bell\x07 del\x7f sep\u2028 é 日本 😀 /'
    text = fmt(task(Goto(StringLit(value))))
    assert (
        r'goto "quote\" back\\ nl\n tab\t cr\r bell\u0007 del\u007f sep\u2028 é 日本 😀 /";' in text
    )
    assert parse_task_source(text).tasks[0].steps[0] == Goto(StringLit(value))


def test_numbers_keep_int_versus_float() -> None:
    values = [NumberLit(3), NumberLit(-7), NumberLit(3.0), NumberLit(-0.25), NumberLit(1e-7),
              NumberLit(1.5e300), NumberLit(0)]  # fmt: skip
    text = fmt(task(*(Goto(v) for v in values)))
    assert [line.strip() for line in text.splitlines()[1:-1]] == [
        "goto 3;", "goto -7;", "goto 3.0;", "goto -0.25;", "goto 1e-07;", "goto 1.5e+300;",
        "goto 0;",
    ]  # fmt: skip
    reparsed = [step.route.value for step in parse_task_source(text).tasks[0].steps]
    assert reparsed == [v.value for v in values]
    assert [type(v) for v in reparsed] == [type(v.value) for v in values]


def test_state_expressions_get_only_needed_parentheses() -> None:
    a, b, c = state("a"), state("b"), state("c")
    cases = [
        (StateOr((StateAnd((StateNot(a), b)), c)), "not A and B or C"),
        (StateAnd((StateOr((a, b)), c)), "(A or B) and C"),
        (StateNot(StateAnd((a, b))), "not (A and B)"),
        (StateNot(StateNot(a)), "not not A"),
        (StateOr((StateOr((a, b)), c)), "(A or B) or C"),
        (StateAnd((a, StateAnd((b, c)))), "A and (B and C)"),
    ]
    for expr, shape in cases:
        expected = "".join(f"State({ch.lower()} = 1)" if ch in "ABC" else ch for ch in shape)
        text = fmt(task(Assert(expr)))
        assert f"  assert {expected};\n" in text
        assert parse_task_source(text).tasks[0].steps[0] == Assert(expr)


def test_else_if_chains_print_flat() -> None:
    chain = If(
        state("a"),
        (Wait(None, None),),
        (If(state("b"), (Wait(None, None),), (Wait(None, NumberLit(1)),)),),
    )
    assert fmt(task(chain)) == (
        "task t {\n"
        "  if State(a = 1) {\n"
        "    wait;\n"
        "  } else if State(b = 1) {\n"
        "    wait;\n"
        "  } else {\n"
        "    wait 1;\n"
        "  }\n"
        "}\n"
    )


def test_docs_print_as_line_comments_and_tasks_are_separated() -> None:
    text = fmt(
        task(Wait(None, None), name="a", doc="First.\n\n  indented"),
        task(Wait(None, None), name="b", doc=""),
        task(Wait(None, None), name="c"),
    )
    assert text == (
        "// First.\n//\n//   indented\ntask a {\n  wait;\n}\n\n"
        "//\ntask b {\n  wait;\n}\n\n"
        "task c {\n  wait;\n}\n"
    )
    docs = [t.doc for t in parse_task_source(text).tasks]
    assert docs == ["First.\n\n  indented", "", None]


def test_invalid_trees_are_refused() -> None:
    with pytest.raises(ValueError):
        fmt(task(Wait(state("a"), NumberLit(1))))
    with pytest.raises(ValueError):
        fmt(task(Goto(NumberLit(float("nan")))))


# ---- property: any tree the parser could build survives format -> parse ----------------------

# Names come from a small pool (cheap to draw, and full of near-keywords) or from a tiny alphabet.
_NAME_POOL = ["x", "_", "a1", "asc", "item", "in_", "iff", "notx", "tasks", "Item", "State_", "Or"]


def _names(first: str, pool: list[str]) -> st.SearchStrategy[str]:
    made = st.builds(str.__add__, st.sampled_from(first), st.text("abZ_09", max_size=4))
    return st.one_of(st.sampled_from(pool), made).filter(lambda n: n not in KEYWORDS)


_lower_names = _names("abfinorstw_", [n for n in _NAME_POOL if not n[0].isupper()])
_any_names = _names("abfinorstwABFS_", _NAME_POOL)
_kinds = _names("ABFIS", ["Item", "Button", "Field", "State_", "Or", "S"])
_ops = st.sampled_from(["=", "~=", ">", "<"])

_numbers = st.one_of(
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
).map(NumberLit)


def _tuples(elements: st.SearchStrategy, lo: int, hi: int) -> st.SearchStrategy:
    return st.lists(elements, min_size=lo, max_size=hi).map(tuple)


# Depth-bounded by construction: st.recursive is several times slower to draw from, and these
# tests must stay fast.
def _value_strategy(depth: int) -> st.SearchStrategy:
    leaves = st.one_of(
        st.text(max_size=8).map(StringLit),
        _numbers,
        st.booleans().map(BoolLit),
        _any_names.map(Ident),
    )
    if depth == 0:
        return leaves
    return leaves | st.builds(Call, _any_names, _tuples(_value_strategy(depth - 1), 0, 2))


def _state_strategy(depth: int) -> st.SearchStrategy:
    if depth == 0:
        return _state_calls
    inner = _state_strategy(depth - 1)
    return st.one_of(
        _state_calls,
        inner.map(StateNot),
        _tuples(inner, 2, 3).map(StateAnd),
        _tuples(inner, 2, 3).map(StateOr),
    )


def _step_strategy(depth: int) -> st.SearchStrategy:
    if depth == 0:
        return _simple_steps
    inner = _step_strategy(depth - 1)
    return st.one_of(
        _simple_steps,
        st.builds(If, _states, _tuples(inner, 1, 2), _tuples(inner, 0, 2)),
        st.builds(For, _lower_names, _queries, _tuples(inner, 1, 2)),
    )


_values = _value_strategy(2)
_queries = st.builds(Target, _kinds, _tuples(st.builds(AttrPred, _any_names, _ops, _values), 1, 2))
_targets = st.one_of(_queries, _lower_names.map(VarRef))
_state_calls = st.builds(
    StateCall,
    _tuples(st.builds(StateCond, _tuples(_any_names, 1, 3), _ops, _values), 1, 2),
)
_states = _state_strategy(2)
_simple_steps = st.one_of(
    st.builds(Goto, _values),
    st.builds(Click, _targets),
    st.builds(Fill, _targets, _values),
    st.builds(Select, _targets, _values),
    st.builds(Submit, _targets),
    st.just(Wait(None, None)),
    st.integers(0, 10**6).map(lambda ms: Wait(None, NumberLit(ms))),
    _states.map(lambda s: Wait(s, None)),
    st.builds(Assert, _states),
)
_steps = _step_strategy(2)
_frame_paths = st.builds(
    lambda head, rest: FramePath((head, *rest)),
    _any_names,
    _tuples(st.one_of(_any_names, st.just("*"), _values.map(PathKey)), 0, 3),
)
# `allow` is a clause of the whole task: only in its body, never inside a block.
_task_steps = st.one_of(_steps, st.builds(Allow, _tuples(_frame_paths, 1, 3)))
# Doc lines are stored without trailing whitespace and cannot hold line breaks or controls.
_doc_chars = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))
_doc_lines = st.text(_doc_chars, max_size=10).map(str.rstrip)
_docs = st.none() | st.lists(_doc_lines, min_size=1, max_size=3).map("\n".join)


@st.composite
def _params(draw: st.DrawFn) -> tuple[Param, ...]:
    names = draw(st.lists(_any_names, max_size=2, unique=True))
    return tuple(Param(n, draw(st.none() | _any_names), draw(st.none() | _values)) for n in names)


@st.composite
def task_files(draw: st.DrawFn) -> TaskFile:
    names = draw(st.lists(_any_names, min_size=1, max_size=2, unique=True))
    tasks = tuple(
        TaskDef(n, draw(_params()), draw(_tuples(_task_steps, 1, 3)), draw(_docs)) for n in names
    )
    return TaskFile("<generated>", "", tasks)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_files())
def test_format_then_parse_gives_the_same_tree(tree: TaskFile) -> None:
    text = format_task_file(tree)
    reparsed = parse_task_source(text, "<generated>")
    assert reparsed == tree
    assert format_task_file(reparsed) == text
