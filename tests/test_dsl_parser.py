"""Parser and syntax-error behaviour of the task DSL (pure Python, no browser)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webfactory_env.core.errors import WebfactoryError
from webfactory_env.dsl import (
    DSL_VERSION,
    NO_SPAN,
    Allow,
    Answer,
    Assert,
    AttrPred,
    BoolLit,
    Call,
    Click,
    DslError,
    DslSyntaxError,
    Fill,
    For,
    Goto,
    Ident,
    If,
    Infeasible,
    NumberLit,
    Param,
    PathKey,
    Select,
    Span,
    StateAnd,
    StateCall,
    StateCond,
    StateNot,
    StateOr,
    StringLit,
    Submit,
    Target,
    TaskFile,
    VarRef,
    Wait,
    parse_task_file,
    parse_task_source,
)

ROOT = Path(__file__).resolve().parent.parent
BUY_RED_MUG = ROOT / "dsl" / "tasks" / "shop" / "buy_red_mug.task"
BOOK_FLIGHT = ROOT / "dsl" / "examples" / "book_flight_roundtrip.task"
ALL_TASK_FILES = sorted((ROOT / "dsl").rglob("*.task"))


def field_(name: str, value: str) -> Target:
    return Target("Field", (AttrPred("name", "=", StringLit(value)),))


def parse_error(source: str, filename: str = "t.task") -> DslSyntaxError:
    with pytest.raises(DslSyntaxError) as info:
        parse_task_source(source, filename)
    return info.value


def one_task(body: str, header: str = "task t") -> tuple:
    """Steps of a single task whose body is `body`."""
    return parse_task_source(f"{header} {{\n{body}\n}}\n").tasks[0].steps


# ---- the reference tasks -------------------------------------------------------------------


def test_buy_red_mug_parses_to_the_expected_tree() -> None:
    parsed = parse_task_file(BUY_RED_MUG)
    assert parsed.filename == str(BUY_RED_MUG)
    (task,) = parsed.tasks
    assert task.name == "buy_red_mug"
    assert task.params == ()
    assert task.doc is not None
    assert task.doc.splitlines()[0] == (
        "Goal: Buy the cheapest red mug and ship it to"
        " {full_name}, {address_line1}, {city} {postal_code}."
    )
    assert [line.split(":")[0] for line in task.doc.splitlines()] == ["Goal", "Or", "Or"]
    assert task.steps == (
        Goto(Call("route", (StringLit("/shop"),))),
        Select(Target("Filter", (AttrPred("name", "=", StringLit("color")),)), StringLit("Red")),
        Select(Target("Sort", (AttrPred("key", "=", StringLit("price")),)), StringLit("asc")),
        Click(
            Target(
                "Item",
                (
                    AttrPred("type", "=", StringLit("product")),
                    AttrPred("title", "~=", StringLit("Mug")),
                ),
            )
        ),
        Click(Target("Button", (AttrPred("role", "=", StringLit("add-to-cart")),))),
        Goto(Call("route", (StringLit("/checkout"),))),
        Fill(field_("name", "full_name"), StringLit("Alice Nguyen")),
        Fill(field_("name", "address_line1"), StringLit("123 Market St")),
        Fill(field_("name", "city"), StringLit("San Francisco")),
        Fill(field_("name", "postal_code"), StringLit("94105")),
        Submit(Target("Form", (AttrPred("name", "=", StringLit("shipping")),))),
        Assert(StateCall((StateCond(("order", "status"), "=", StringLit("placed")),))),
    )


def test_book_flight_roundtrip_parses_to_the_expected_tree() -> None:
    (task,) = parse_task_file(BOOK_FLIGHT).tasks
    assert task.name == "book_flight_roundtrip"
    assert task.doc is not None and task.doc.startswith("Goal: Book the cheapest round-trip")
    assert len(task.steps) == 16
    assert task.steps[1] == Select(
        Target("Toggle", (AttrPred("name", "=", StringLit("roundtrip")),)), BoolLit(True)
    )
    assert task.steps[4] == Fill(
        Target("DatePicker", (AttrPred("name", "=", StringLit("depart_date")),)),
        Call("next", (StringLit("monday"),)),
    )
    rank = task.steps[8]
    flight, first = AttrPred("type", "=", StringLit("flight")), AttrPred("rank", "=", NumberLit(1))
    assert rank == Click(Target("Result", (flight, first)))
    assert type(rank.target.preds[1].value.value) is int
    assert task.steps[-1] == Assert(
        StateCall((StateCond(("booking", "status"), "=", StringLit("upcoming")),))
    )


def test_spans_point_at_the_text_of_each_node() -> None:
    lines = BUY_RED_MUG.read_text(encoding="utf-8").split("\n")

    def span_of(line: int, text: str) -> Span:
        column = lines[line - 1].index(text) + 1
        return Span(line, column, line, column + len(text))

    (task,) = parse_task_file(BUY_RED_MUG).tasks
    assert task.span == Span(4, 1, 17, 2)
    click = task.steps[3]
    assert click.span == span_of(8, 'click Item(type="product", title~="Mug");')
    assert click.target.span == span_of(8, 'Item(type="product", title~="Mug")')
    assert click.target.preds[1].span == span_of(8, 'title~="Mug"')
    assert click.target.preds[1].value.span == span_of(8, '"Mug"')
    route = task.steps[0].route
    assert route.span == span_of(5, 'route("/shop")')
    assert route.args[0].span == span_of(5, '"/shop"')
    check = task.steps[-1].condition
    assert check.span == span_of(16, 'State(order.status = "placed")')
    assert check.conds[0].span == span_of(16, 'order.status = "placed"')
    (flight,) = parse_task_file(BOOK_FLIGHT).tasks
    toggle = flight.steps[1]
    assert toggle.value.span == Span(4, 42, 4, 46)  # `true`
    assert flight.steps[8].target.preds[1].value.span == Span(11, 36, 11, 37)  # `1`


def test_every_example_file_parses() -> None:
    assert len(ALL_TASK_FILES) >= 5
    for path in ALL_TASK_FILES:
        parsed = parse_task_file(path)
        assert parsed.tasks, path
        assert all(task.doc for task in parsed.tasks), path


def test_the_grammar_is_built_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the parser is most of a first parse (~0.1 s): every later parse reuses it.
    How fast a parse is belongs to the benchmarks, not to a timed assertion here."""
    from webfactory_env.dsl import syntax

    built: list[object] = []
    real = syntax.Lark

    def counting(*args: object, **kwargs: object) -> object:
        built.append(real(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(syntax, "Lark", counting)
    syntax.lark_parser.cache_clear()
    try:
        source = BOOK_FLIGHT.read_text(encoding="utf-8")
        for _ in range(3):
            assert parse_task_source(source).tasks
        assert len(built) == 1
    finally:
        syntax.lark_parser.cache_clear()  # the next test builds a parser of the real class


def test_version_is_exported() -> None:
    assert DSL_VERSION == "0.4.0"
    assert (ROOT / "dsl" / "README.md").read_text(encoding="utf-8").count("dsl_version: 0.4.0") >= 1


# ---- language features ---------------------------------------------------------------------


def test_params_with_types_and_defaults() -> None:
    source = 'task t(color = "Red", qty: number = 2, item: string, flag: bool) { wait; }'
    (task,) = parse_task_source(source).tasks
    assert task.params == (
        Param("color", None, StringLit("Red")),
        Param("qty", "number", NumberLit(2)),
        Param("item", "string", None),
        Param("flag", "bool", None),
    )
    assert parse_task_source("task t() { wait; }").tasks[0].params == ()


def test_values_of_every_kind() -> None:
    steps = one_task(
        "fill F(a=1) with -3;\n fill F(a=1) with 2.50;\n fill F(a=1) with -0.5e2;\n"
        " fill F(a=1) with true;\n fill F(a=1) with false;\n fill F(a=1) with asc;\n"
        ' fill F(a=1) with f(g("x", 1), h(), y);'
    )
    values = [step.value for step in steps]
    assert values == [
        NumberLit(-3),
        NumberLit(2.5),
        NumberLit(-50.0),
        BoolLit(True),
        BoolLit(False),
        Ident("asc"),
        Call("f", (Call("g", (StringLit("x"), NumberLit(1))), Call("h", ()), Ident("y"))),
    ]
    assert [type(v.value) for v in values[:3]] == [int, float, float]


def test_string_escapes_are_json_style() -> None:
    (goto,) = one_task(r'goto "q\" b\\ s\/ n\n t\t u\u00e9 pair\ud83d\ude00 raw é\tx";')
    assert goto.route == StringLit('q" b\\ s/ n\n t\t u\u00e9 pair\U0001f600 raw é\tx')


def test_all_operators_in_targets_and_states() -> None:
    (click, check) = one_task(
        'click Item(a="x", b~="y", c>1, d<2.5);\n assert State(a.b = 1, c ~= "z", d > -1, e < 0);'
    )
    assert [p.op for p in click.target.preds] == ["=", "~=", ">", "<"]
    assert [c.op for c in check.condition.conds] == ["=", "~=", ">", "<"]
    assert check.condition.conds[0].path == ("a", "b")


def test_state_precedence_is_not_then_and_then_or() -> None:
    a, b, c = (StateCall((StateCond((n,), "=", NumberLit(1)),)) for n in "abc")
    (step,) = one_task("assert not State(a = 1) and State(b = 1) or State(c = 1);")
    assert step.condition == StateOr((StateAnd((StateNot(a), b)), c))
    (step,) = one_task("assert not (State(a = 1) or State(b = 1)) and State(c = 1);")
    assert step.condition == StateAnd((StateNot(StateOr((a, b))), c))
    (step,) = one_task("assert State(a = 1) or State(b = 1) or State(c = 1);")
    assert step.condition == StateOr((a, b, c))
    (step,) = one_task("assert (State(a = 1) or State(b = 1)) or State(c = 1);")
    assert step.condition == StateOr((StateOr((a, b)), c))


def test_wait_forms() -> None:
    steps = one_task("wait;\n wait 500;\n wait State(page.ready = true);\n wait not State(x = 1);")
    assert steps[0] == Wait(None, None)
    assert steps[1] == Wait(None, NumberLit(500))
    assert steps[2] == Wait(StateCall((StateCond(("page", "ready"), "=", BoolLit(True)),)), None)
    assert isinstance(steps[3].condition, StateNot)


def test_if_else_and_else_if() -> None:
    (step,) = one_task(
        "if State(a = 1) { wait; } else if State(b = 1) { wait 1; } else { wait 2; }"
    )
    assert isinstance(step, If)
    assert step.then == (Wait(None, None),)
    (nested,) = step.otherwise
    assert isinstance(nested, If)
    assert nested.then == (Wait(None, NumberLit(1)),)
    assert nested.otherwise == (Wait(None, NumberLit(2)),)
    (plain,) = one_task("if State(a = 1) { wait; }")
    assert plain.otherwise == ()


def test_for_loop_binds_a_variable_used_as_target() -> None:
    (step,) = one_task('for p in Item(type="product") { click p; fill p with "x"; }')
    assert step == For(
        "p",
        Target("Item", (AttrPred("type", "=", StringLit("product")),)),
        (Click(VarRef("p")), Fill(VarRef("p"), StringLit("x"))),
    )


def test_comments_and_docs() -> None:
    source = """/* header block
comment */
// not a doc: a blank line follows

// First line of doc.
//Second, no space.
//   indented
task a { wait; } // trailing comment
// doc of b
/* breaks the doc run */
task b {
  // inside: dropped
  wait; /* inline */ wait;
}
// doc of c
task c { wait; }
"""
    a, b, c = parse_task_source(source).tasks
    assert a.doc == "First line of doc.\nSecond, no space.\n  indented"
    assert b.doc is None
    assert b.steps == (Wait(None, None), Wait(None, None))
    assert c.doc == "doc of c"


def test_trailing_comment_is_not_a_doc() -> None:
    _, b = parse_task_source("task a { wait; } // end of a\ntask b { wait; }").tasks
    assert b.doc is None


def test_crlf_sources_parse_like_lf() -> None:
    text = BUY_RED_MUG.read_text(encoding="utf-8")
    assert parse_task_source(text.replace("\n", "\r\n")) == parse_task_source(text)
    assert (
        parse_task_source(text.replace("\n", "\r\n")).tasks[0].doc
        == parse_task_source(text).tasks[0].doc
    )


def test_equality_ignores_spans_and_file_identity() -> None:
    assert StringLit("x", Span(1, 2, 1, 5)) == StringLit("x")
    assert Span(0, 0, 0, 0) == NO_SPAN
    one = parse_task_source("task t { wait; }", "a.task")
    two = parse_task_source("\n\ntask   t {\n  wait ;\n}\n", "b.task")
    assert one == two
    assert isinstance(one, TaskFile)


# ---- syntax errors -------------------------------------------------------------------------


def test_missing_semicolon_points_after_the_statement() -> None:
    source = BUY_RED_MUG.read_text(encoding="utf-8").replace(
        'goto route("/shop");', 'goto route("/shop")'
    )
    err = parse_error(source, "dsl/tasks/shop/buy_red_mug.task")
    assert (err.line, err.column) == (5, 22)
    assert err.message == "expected ';' to end the 'goto' statement, found 'select' on line 6"
    assert str(err) == (
        "dsl/tasks/shop/buy_red_mug.task:5:22: expected ';' to end the 'goto' statement,"
        " found 'select' on line 6\n"
        '      goto route("/shop")\n'
        "                         ^"
    )


def test_unclosed_target_names_the_open_parenthesis() -> None:
    source = BUY_RED_MUG.read_text(encoding="utf-8").replace(
        'Filter(name="color")', 'Filter(name="color"'
    )
    err = parse_error(source)
    assert (err.line, err.column) == (6, 30)
    assert err.message == "expected ',' or ')', found 'option'"
    assert err.hint == "'Filter(' opened at 6:16 is not closed with ')'"
    lines = str(err).splitlines()
    assert lines[1] == '      select Filter(name="color" option "Red";'
    assert lines[2] == "    " + " " * 29 + "^~~~~~"
    assert lines[3].startswith("hint: ")


def test_unterminated_string() -> None:
    err = parse_error('task t {\n  fill Field(name="x") with "Alice;\n}\n')
    assert err.message == "unterminated string"
    assert (err.line, err.column) == (2, 29)
    assert str(err).splitlines()[2] == "    " + " " * 28 + "^~~~~~~"


def test_unknown_statement_suggests_the_closest() -> None:
    err = parse_error('task t {\n  clik Button(role="x");\n}')
    assert err.message == "unknown statement 'clik'. Did you mean 'click'?"
    assert (err.line, err.column) == (2, 3)
    assert str(err).splitlines()[2] == "      ^~~~"


def test_missing_closing_brace_names_the_task() -> None:
    source = BUY_RED_MUG.read_text(encoding="utf-8").rstrip().removesuffix("}")
    err = parse_error(source)
    assert err.message == "missing '}' to close task 'buy_red_mug' opened at 4:1"
    assert (err.line, err.column) == (16, 41)
    source += "\ntask other { wait; }\n"
    err = parse_error(source)
    assert err.message.startswith("missing '}' to close task 'buy_red_mug' opened at 4:1")


@pytest.mark.parametrize(
    ("source", "message", "line", "column"),
    [
        ('task t { select F(a=1) "x"; }', "'select' needs 'option <value>'", 1, 24),
        ('task t { fill F(a=1) "x"; }', "'fill' needs 'with <value>'", 1, 22),
        ("task t { for x Item(a=1) { wait; } }", "'for' needs 'in <query>'", 1, 16),
        ("task for { wait; }", "'for' is a reserved word and cannot be used as a name", 1, 6),
        ("task t(in = 1) { wait; }", "'in' is a reserved word", 1, 8),
        ("task t { click State(a=1); }", "'State' is a reserved word", 1, 16),
        ("task t { click Item(a=1", "missing ')' to close 'Item(' opened at 1:20", 1, 24),
        ("task t { if State(a=1) { wait;", "missing '}' to close 'if' block opened at 1:10", 1, 31),
        ("", "empty task file: expected 'task'", 1, 1),
        ("// only a comment\n", "empty task file: expected 'task'", 1, 1),
        ("task t { }", "task 't' has no steps", 1, 6),
        ("task t { if State(a=1) { } }", "the 'if' block is empty", 1, 24),
        ("task t { click item(a=1); }", "target kind 'item' must start with an uppercase", 1, 16),
        ("task t { click Button(); }", "target 'Button()' needs at least one predicate", 1, 16),
        ("task t { click Button; }", "target 'Button' needs predicates", 1, 16),
        ("task t { assert State(); }", "State() needs at least one condition", 1, 17),
        ("task t { for x in y { wait; } }", "'for ... in' needs a query", 1, 19),
        ("task t { assert State(a >= 1); }", "'>=' is not an operator", 1, 25),
        ("task t { assert State(a != 1); }", "'!=' is not an operator", 1, 25),
        ("task t { assert State(a == 1); }", "'==' is not an operator", 1, 25),
        ('task t { goto "a\\qb"; }', "invalid escape '\\q' in string", 1, 17),
        ('task t { goto "\\u12"; }', "'\\u' needs exactly four hex digits", 1, 16),
        ('task t { goto "a\x01"; }', "control character U+0001 inside a string", 1, 17),
        ("task t { goto 1e999; }", "number 1e999 is out of range", 1, 15),
        ("task t { goto " + "9" * 5000 + "; }", "is out of range", 1, 15),
        ("task t { wait -5; }", "wait duration must be a whole number", 1, 15),
        ("task t { wait; } /* open", "unterminated block comment", 1, 18),
        ("task t { goto 'x'; }", "strings use double quotes", 1, 15),
        ("task t { wait; } }", "expected 'task' or end of file, found '}'", 1, 18),
        ("tsk t { wait; }", "expected 'task', found 'tsk'. Did you mean 'task'?", 1, 1),
        ("task t { wait; else { wait; } }", "'else' must directly follow", 1, 16),
        ("task t { wait; }\ntask t { wait; }", "duplicate task 't' (first defined at 1:1)", 2, 6),
        ("task t(a, a) { wait; }", "duplicate parameter 'a'", 1, 11),
        ("task t { assert state(a=1); }", "Did you mean 'State'?", 1, 17),
        ("task t { fill F(a=1) with ; }", "expected a value, found ';'", 1, 27),
        ("task t { click F(a 1); }", "expected an operator (=, ~=, >, <), found '1'", 1, 20),
        ("task t {\u00a0wait; }", "unexpected character U+00A0 (NO-BREAK SPACE)", 1, 9),
        ("task t { allow ; }", "expected a state path such as orders", 1, 16),
        ("task t { allow State(orders); }", "'allow' takes state paths, found 'State'", 1, 16),
        ("task t { allow orders.; }", "expected '*' or a name, found ';'", 1, 23),
        ("task t { allow orders }", "expected ';' to end the 'allow' statement", 1, 22),
        ("task t { if State(a=1) { allow orders; } }", "'allow' cannot be inside the 'if'", 1, 26),
        ("task t { alow orders; }", "unknown statement 'alow'. Did you mean 'allow'?", 1, 10),
        ("task allow { wait; }", "'allow' is a reserved word", 1, 6),
    ],
)
def test_syntax_error_messages(source: str, message: str, line: int, column: int) -> None:
    err = parse_error(source)
    assert message in err.message
    assert (err.line, err.column) == (line, column)


def test_error_excerpt_expands_tabs_under_the_caret() -> None:
    err = parse_error("task t {\n\tclick\tItem(a=1)\n\twait;\n}")
    assert (err.line, err.column) == (2, 17)
    _, shown, caret = str(err).splitlines()
    assert shown == "        click   Item(a=1)"
    assert caret.index("^") == len(shown)


def test_error_at_end_of_file_and_in_empty_source() -> None:
    err = parse_error("")
    assert str(err).splitlines() == [
        "t.task:1:1: empty task file: expected 'task'",
        "    ",
        "    ^",
        'hint: a task file holds definitions like: task name { goto route("/"); }',
    ]
    err = parse_error("task t { wait")
    assert str(err).splitlines()[2] == "    " + " " * 13 + "^"


def test_error_is_a_webfactory_error_without_lark_in_its_chain() -> None:
    err = parse_error("task t { clik X(a=1); }")
    assert isinstance(err, DslError)
    assert isinstance(err, WebfactoryError)
    assert err.__cause__ is None and err.__suppress_context__
    assert err.filename == "t.task" and err.source.startswith("task t")


def test_error_survives_pickling() -> None:
    err = parse_error("task t { clik X(a=1); }")
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is DslSyntaxError
    assert str(copy) == str(err)
    assert copy.span == err.span and copy.hint == err.hint


def test_dsl_error_without_a_position() -> None:
    err = DslError("bad task", filename="x.task", source="task t { wait; }", span=NO_SPAN)
    assert str(err) == "x.task: bad task"


def test_deep_nesting_is_a_syntax_error_not_a_crash() -> None:
    deep_calls = "task t { goto " + "f(" * 5000 + ")" * 5000 + "; }"
    assert "nesting is too deep" in parse_error(deep_calls).message
    deep_not = "task t { assert " + "not " * 5000 + "State(a = 1); }"
    assert "nesting is too deep" in parse_error(deep_not).message
    deep_if = "task t { " + "if State(a = 1) { " * 500 + "wait;" + " }" * 500 + " }"
    assert "nesting is too deep" in parse_error(deep_if).message
    # Moderate nesting is fine.
    ok = "task t { goto " + "f(" * 50 + ")" * 50 + "; }"
    assert parse_task_source(ok).tasks[0].steps[0].route.name == "f"


def test_parse_task_file_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nope.task"
    with pytest.raises(FileNotFoundError, match=r"nope\.task"):
        parse_task_file(missing)
    bad = tmp_path / "bad.task"
    bad.write_bytes(b'task t {\n  goto "\xff";\n}\n')
    with pytest.raises(DslSyntaxError, match="not valid UTF-8") as info:
        parse_task_file(bad)
    assert (info.value.line, info.value.column) == (2, 9)
    bom = tmp_path / "bom.task"
    bom.write_bytes(b"\xef\xbb\xbftask t { wait; }\n")
    assert parse_task_file(bom).tasks[0].name == "t"


def test_non_string_source_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_task_source(b"task t { wait; }")  # type: ignore[arg-type]


# ---- properties ----------------------------------------------------------------------------


def _check_only_syntax_errors(source: str) -> None:
    try:
        parse_task_source(source, "fuzz.task")
    except DslSyntaxError as err:
        assert err.line >= 1 and err.column >= 1
        text = str(err)
        assert text.startswith(f"fuzz.task:{err.line}:{err.column}: ")
        assert "^" in text


_TOKENS = [
    "task", "t", "{", "}", "(", ")", ";", ",", ".", ":", "=", "~=", ">", "<", "!=", ">=",
    "goto", "click", "fill", "with", "select", "option", "submit", "wait", "assert", "if",
    "else", "for", "in", "true", "false", "and", "or", "not", "State", "Item", "x",
    '"s"', '"', "1", "-2.5", "1e999", "//", "/*", "*/", "\n", "\t", " ", "\\", "\x00", "é",
]  # fmt: skip


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text_only_raises_syntax_errors(source: str) -> None:
    _check_only_syntax_errors(source)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), max_size=60).map(" ".join))
def test_random_token_soup_only_raises_syntax_errors(source: str) -> None:
    _check_only_syntax_errors(source)


_EXAMPLE_SOURCES = [path.read_text(encoding="utf-8") for path in ALL_TASK_FILES]


@st.composite
def mutated_example(draw: st.DrawFn) -> str:
    source = draw(st.sampled_from(_EXAMPLE_SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(source)))
        action = draw(st.sampled_from(["delete", "insert", "token", "duplicate"]))
        if action == "delete":
            source = source[:at] + source[at + draw(st.integers(1, 12)) :]
        elif action == "insert":
            source = source[:at] + draw(st.text(max_size=4)) + source[at:]
        elif action == "token":
            source = source[:at] + draw(st.sampled_from(_TOKENS)) + source[at:]
        else:
            end = draw(st.integers(at, min(len(source), at + 40)))
            source = source[:end] + source[at:end] + source[end:]
    return source


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_example())
def test_mutated_examples_only_raise_syntax_errors(source: str) -> None:
    _check_only_syntax_errors(source)


def test_allow_names_paths_with_keys_and_stars_and_keeps_their_spans() -> None:
    src = 'task t {\n  goto route("/");\n  allow orders, cards.*.labels, cards[card].column;\n}\n'
    allow = parse_task_source(src, "t.task").tasks[0].steps[1]
    assert isinstance(allow, Allow)
    assert [p.parts for p in allow.paths] == [
        ("orders",),
        ("cards", "*", "labels"),
        ("cards", PathKey(Ident("card")), "column"),
    ]
    assert (allow.span.line, allow.span.column) == (3, 3)
    assert [(p.span.line, p.span.column) for p in allow.paths] == [(3, 9), (3, 17), (3, 33)]


def test_answer_and_infeasible_statements() -> None:
    src = (
        "task t {\n"
        '  answer Item(type="order", rank=1).status;\n'
        "  answer State(tracking.result);\n"
        '  infeasible "sold out" when State(product.sku = "x");\n'
        "}\n"
    )
    steps = parse_task_source(src, "t.task").tasks[0].steps
    assert steps[0] == Answer(
        Target(
            "Item", (AttrPred("type", "=", StringLit("order")), AttrPred("rank", "=", NumberLit(1)))
        ),
        "status",
        None,
    )
    assert steps[1] == Answer(None, None, ("tracking", "result"))
    assert isinstance(steps[2], Infeasible) and steps[2].reason == StringLit("sold out")
    assert (steps[2].span.line, steps[2].span.column) == (4, 3)
    with pytest.raises(DslSyntaxError) as err:
        parse_task_source('task t {\n  infeasible "x";\n}\n', "t.task")
    assert err.value.line == 2 and "when" in str(err.value)
