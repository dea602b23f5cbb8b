"""Transitions with typed arguments, and the bindings that tie a widget to one.

A transition is a function over a family's context (`sitegen.context.Context`: its typed
state, its queries, the copy and the UI state), `(ctx, *, name: T, ...) -> route | None`,
declared with `@transition(effect=...)`: its keyword parameters are the schema of its
argument (`str`, `int`, `bool`, a `Literal[...]`, or one of those `| None`), except the
event's payload, which it takes by the names `value` (what was typed or chosen), `values`
(a submitted form) and `path` (a followed link). A family's transition table is every
transition its modules declare (`transitions_in`). A page binds a widget to one with
`<transition>.bind(**arguments)`, a `Binding`, from which the widget derives the handler
and argument its element sends, the effect it has (the transition's declared effect for
those arguments) and, for a transition that edits a form field, the field's semantic id,
name, form and current value (read from the state the page is drawn from).

Arguments travel through the page as one canonical string, `name=value` pairs in the
order of the signature joined by `&` (`%`, `&` and `=` escaped), arguments at their
default left out: `encode_args` makes it and `decode_args` reads it back, nowhere else.
The app's dispatcher decodes an event's argument before the transition runs and refuses
one that is malformed, so no transition parses its own argument.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, get_args, get_origin

from webfactory_env.core.predicates import Predicate
from webfactory_env.sitegen.spec import AppEvent

Path = tuple[str, ...]
EventType = Literal["click", "input", "change", "submit"]
SortOrder = Literal["asc", "desc"]  # what a sortable table's header sends with its `column`
# What a widget or a test sends next to a transition's arguments: never an argument's name.
RESERVED = frozenset({"ev", "type", "value", "values", "sid", "path", "back"})
# The event's payload a transition may take as a keyword parameter of that name.
PAYLOAD = ("value", "values", "path")


class Unavailable(Exception):
    """Raised by a transition whose service fails this time (a booking that times out
    once): the page offers Retry, which runs it again."""


class BadArgument(ValueError):
    """An event's argument that does not fit the transition's signature."""


_REQUIRED: Any = inspect.Parameter.empty


@dataclass(frozen=True)
class Param:
    """One keyword parameter of a transition: its name, its type, its default."""

    name: str
    kind: type  # str, int or bool
    choices: tuple[Any, ...] | None = None  # the values of a `Literal[...]`
    optional: bool = False  # `T | None`
    default: Any = _REQUIRED

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.optional
        if self.kind is int and isinstance(value, bool):
            return False
        if not isinstance(value, self.kind):
            return False
        return self.choices is None or value in self.choices

    def text(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def parse(self, text: str) -> Any:
        if self.kind is bool:
            if text not in ("true", "false"):
                raise BadArgument(f"{self.name} must be true or false, not {text!r}")
            value: Any = text == "true"
        elif self.kind is int:
            if not text.lstrip("-").isdigit() or text.startswith("+"):
                raise BadArgument(f"{self.name} must be a whole number, not {text!r}")
            value = int(text)
        else:
            value = text
        if self.choices is not None and value not in self.choices:
            raise BadArgument(f"{self.name} must be one of {list(self.choices)}, not {text!r}")
        return value


def _param(p: inspect.Parameter, hint: Any) -> Param:
    optional = False
    if get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [a for a in get_args(hint) if a is not type(None)]
        optional = len(kinds) < len(get_args(hint))
        if len(kinds) != 1:
            raise TypeError(f"parameter {p.name!r}: one type (or that type | None), not {hint}")
        hint = kinds[0]
    choices = None
    if get_origin(hint) is Literal:
        choices = get_args(hint)
        types_ = {type(c) for c in choices}
        if len(types_) != 1:
            raise TypeError(f"parameter {p.name!r}: a Literal of one type, not {hint}")
        hint = types_.pop()
    if hint not in (str, int, bool):
        raise TypeError(f"parameter {p.name!r}: str, int, bool or a Literal, not {hint}")
    return Param(p.name, hint, choices, optional, p.default)


_SAFE = str.maketrans({"%": "%25", "&": "%26", "=": "%3D"})


def _unescape(text: str) -> str:
    return text.replace("%3D", "=").replace("%26", "&").replace("%25", "%")


def encode_args(params: tuple[Param, ...], args: Mapping[str, Any]) -> str | None:
    """The canonical argument string of `args` (checked against `params`): None when
    every argument is at its default."""
    parts = []
    for p in params:
        value = args[p.name]
        if not p.required and value == p.default and type(value) is type(p.default):
            continue
        parts.append(f"{p.name}={p.text(value).translate(_SAFE)}")
    return "&".join(parts) or None


def decode_args(params: tuple[Param, ...], arg: str | None) -> dict[str, Any]:
    """The arguments a canonical string stands for. Anything else (an unknown, missing,
    repeated or ill-typed argument, or a spelling other than the canonical one) raises
    `BadArgument`."""
    given: dict[str, str] = {}
    for part in arg.split("&") if arg else ():
        name, sep, text = part.partition("=")
        if not sep or name in given:
            raise BadArgument(f"{part!r} is not one name=value pair")
        given[name] = _unescape(text)
    known = {p.name for p in params}
    unknown = sorted(set(given) - known)
    if unknown:
        raise BadArgument(f"unknown argument {unknown[0]!r} (takes {sorted(known)})")
    out: dict[str, Any] = {}
    for p in params:
        if p.name in given:
            out[p.name] = p.parse(given[p.name])
        elif p.required:
            raise BadArgument(f"missing argument {p.name!r}")
        else:
            out[p.name] = p.default
    if encode_args(params, out) != (arg or None):
        raise BadArgument(f"{arg!r} is not canonical: {encode_args(params, out)!r}")
    return out


@dataclass(frozen=True)
class FormField:
    """The form field a transition edits: the form it is in, its name there, and where the
    app's state keeps its current value (None when the page gives the value itself: a
    secret is never shown, and some drafts belong to whatever the page shows)."""

    form: str
    name: str
    path: Path | None = None


Handler = Callable[..., str | None]  # (ctx, *, arguments..., payload...) -> route | None
_KEY_OF_GIVEN: Any = object()  # `Transition._remembered` keys the arguments given itself
EffectOf = Callable[..., Predicate | None]
FieldOf = Callable[..., FormField]


class Transition:
    """What one kind of page event does: the function that runs it, with what it declares
    (its effect for given arguments, the field it edits, whether it mutates server data or
    is neutral). Call it with a context and keyword arguments to run it directly (a test,
    or one transition doing another's work): `add_to_cart(shop, sku="SKU-1")`,
    `set_filter(shop, name="color", value="Red")`."""

    def __init__(
        self,
        fn: Handler,
        *,
        name: str,
        mutating: bool,
        neutral: bool,
        effect: EffectOf | None,
        field: FieldOf | None,
        back_door: bool = False,
    ) -> None:
        self.fn = fn
        self.name = name
        self.mutating = mutating
        self.neutral = neutral
        self.back_door = back_door
        self.effect = effect
        self.field = field
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        # What `arguments`, `encode`, `effect_for` and `field_for` gave for each set of
        # arguments: pure functions of them, asked again for every widget of every page.
        self._memo: dict[tuple[str, tuple[Any, ...]], tuple[object, Any]] = {}

    def __repr__(self) -> str:
        return f"<transition {self.name}>"

    @cached_property
    def params(self) -> tuple[Param, ...]:
        """The transition's keyword parameters but its payload: the schema of its argument."""
        hints = typing.get_type_hints(self.fn)
        out = []
        for p in _keywords(self.fn):
            if p.name in PAYLOAD:
                continue
            if p.name in RESERVED:
                raise TypeError(f"{self.name}: {p.name!r} cannot name an argument")
            out.append(_param(p, hints.get(p.name, str)))
        return tuple(out)

    @cached_property
    def payload(self) -> tuple[str, ...]:
        """The parts of the event it takes (`value`, `values`, `path`)."""
        return tuple(p.name for p in _keywords(self.fn) if p.name in PAYLOAD)

    def _remembered(
        self,
        what: str,
        given: Mapping[str, Any],
        make: Callable[[], Any],
        source: object = None,
        key: Any = _KEY_OF_GIVEN,
    ) -> Any:
        """`make()`, computed once per `what` and arguments `given` (when they are leaves)
        while `source` (the declaration it calls) stays the same. `key`: `_args_key(given)`
        when the caller has it already (a binding is asked for the same things many times)."""
        if key is _KEY_OF_GIVEN:
            key = _args_key(given)
        if key is None:
            return make()
        memo = self._memo
        found = memo.get((what, key))
        if found is not None and found[0] is source:
            return found[1]
        value = make()
        if len(memo) >= _MEMO_MAX:  # bounded: entity ids come and go with sites
            memo.clear()
        memo[(what, key)] = (source, value)
        return value

    def arguments(self, given: Mapping[str, Any], key: Any = _KEY_OF_GIVEN) -> dict[str, Any]:
        """`given` checked against the signature, with defaults filled in (a page that
        binds wrong arguments is a bug in the page: `TypeError`)."""
        return dict(self._remembered("arguments", given, lambda: self._arguments(given), key=key))

    def _arguments(self, given: Mapping[str, Any]) -> dict[str, Any]:
        known = {p.name: p for p in self.params}
        for name in given:
            if name not in known:
                raise TypeError(f"{self.name} takes no argument {name!r} (takes {list(known)})")
        out = {}
        for p in self.params:
            value = given.get(p.name, p.default)
            if value is _REQUIRED:
                raise TypeError(f"{self.name} needs the argument {p.name!r}")
            if not p.accepts(value):
                raise TypeError(f"{self.name}: {p.name}={value!r} does not fit its type")
            out[p.name] = value
        return out

    def encode(self, args: Mapping[str, Any], key: Any = _KEY_OF_GIVEN) -> str | None:
        return self._remembered(
            "encode", args, lambda: encode_args(self.params, self.arguments(args, key)), key=key
        )

    def decode(self, arg: str | None) -> dict[str, Any]:
        return decode_args(self.params, arg)

    def effect_for(self, args: Mapping[str, Any], key: Any = _KEY_OF_GIVEN) -> Predicate | None:
        effect = self.effect
        if effect is None:
            return None
        return self._remembered(
            "effect", args, lambda: effect(**self.arguments(args, key)), effect, key
        )

    def field_for(self, args: Mapping[str, Any], key: Any = _KEY_OF_GIVEN) -> FormField:
        """The form field the transition edits for these arguments."""
        field = self.field
        if field is None:
            raise TypeError(f"{self.name} declares no field: give the widget its sid and name")
        return self._remembered(
            "field", args, lambda: field(**self.arguments(args, key)), field, key
        )

    def bind(self, **args: Any) -> Binding:
        """This transition with these arguments: what a widget bound to it sends."""
        return Binding(self, args)

    def run(self, ctx: Any, ev: AppEvent, args: Mapping[str, Any]) -> str | None:
        """Run it for `ev`, whose argument the dispatcher decoded into `args`."""
        return self.fn(ctx, **args, **{name: getattr(ev, name) for name in self.payload})

    def __call__(self, ctx: Any, /, **given: Any) -> str | None:
        payload = {name: given.pop(name) for name in PAYLOAD if name in given}
        unknown = sorted(set(payload) - set(self.payload))
        if unknown:
            raise TypeError(f"{self.name} takes no {unknown[0]}")
        return self.fn(ctx, **self.arguments(given), **payload)


_MEMO_MAX = 4096
_KEY_LEAVES = frozenset({str, int, bool, type(None)})


def _args_key(given: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """`given` as a hashable key that tells `1` from `True`; None unless every value is a
    leaf (no key could stand for a list that changes)."""
    types = tuple(map(type, given.values()))
    return (tuple(given.items()), types) if _KEY_LEAVES.issuperset(types) else None


def _keywords(fn: Handler) -> list[inspect.Parameter]:
    return [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]


@dataclass(frozen=True)
class Binding:
    """A transition with its arguments (some may be left for the widget to fill in: a
    pager's `page`, a sortable table's `column` and `order`). What a widget needs of the
    transition derives from it."""

    transition: Transition
    args: Mapping[str, Any]

    @property
    def handler(self) -> str:
        return self.transition.name

    @property
    def arg(self) -> str | None:
        return self.transition.encode(self.args, self._key)

    @property
    def effect(self) -> Predicate | None:
        return self.transition.effect_for(self.args, self._key)

    @cached_property
    def _key(self) -> tuple[Any, ...] | None:
        """The arguments as the transition's memo keys them: made once per binding."""
        return _args_key(self.args)

    def with_args(self, **more: Any) -> Binding:
        return Binding(self.transition, {**self.args, **more})

    def event(self, type: EventType, **fields: Any) -> AppEvent:
        """The event an element bound here sends (`value`, `values`, `sid` as given)."""
        return AppEvent(type=type, handler=self.handler, arg=self.arg, **fields)

    # ------------------------------------------------------------- form fields
    @property
    def field(self) -> FormField:
        """The form field the transition edits for these arguments."""
        return self.transition.field_for(self.args, self._key)

    def sid(self, prefix: str) -> str:
        """A form field's semantic id: `<prefix>:<form>.<name>` (`field:shipping.city`)."""
        f = self.field
        return f"{prefix}:{f.form}.{f.name}"

    def current_in(self, state: Any) -> Any:
        """The field's value in `state` (None when unknown or secret)."""
        path = self.field.path
        if path is None or state is None:
            return None
        return read_path(state, path)

    def value_in(self, state: Any) -> str:
        """The field's value in `state` as the page shows it."""
        current = self.current_in(state)
        if current is None:
            return ""
        if isinstance(current, bool):
            return "true" if current else "false"
        return str(current)


def read_path(state: Any, path: Path) -> Any:
    """What a state dataclass holds at `path` (attributes, then keys), or None."""
    node = state
    for part in path:
        node = node.get(part) if isinstance(node, Mapping) else getattr(node, part, None)
        if node is None:
            return None
    return node


def transition(
    name: str | None = None,
    *,
    effect: EffectOf | None = None,
    field: FieldOf | None = None,
    mutating: bool = False,
    neutral: bool = False,
    back_door: bool = False,
) -> Callable[[Handler], Transition]:
    """Declare a function as the transition page events named `name` (by default the
    function's name) cause.

    `effect(**arguments)` declares, once, what it does for those arguments, as a predicate
    template (`Ref("value")` is the event's value): widgets bound to it carry that effect
    and the task compiler binds it into the step's subgoal. `field(**arguments)` names the
    `FormField` it edits. `mutating` transitions change server-side data: the `errors` axis
    may fail them and they pay the `latency` axis; only after one does the app convert
    its entity tables' views again (`state.TableViews`), so a transition that changes a
    table must be one (the test suite's WEBFACTORY_CHECK_VIEWS=1 fails it otherwise).
    `neutral` ones only move around or change how the page looks (navigation, menus, tabs,
    dialogs, retry): rewards never count them as a back door, and a task's own transitions
    leave them out. A `back_door` (a staff shortcut no task may use) is judged by
    provenance alone: what it changes never counts towards a goal, nor against the frame of
    a correct path taken after it (`tasks.frame`).
    """

    def declare(fn: Handler) -> Transition:
        t = Transition(
            fn,
            name=name or fn.__name__,
            mutating=mutating,
            neutral=neutral,
            effect=effect,
            field=field,
            back_door=back_door,
        )
        _check_effect(t)
        return t

    return declare


def _check_effect(t: Transition) -> None:
    """An effect or field template takes exactly the transition's arguments (checked by
    name when declared; their types are read later, at first use, since an annotation may
    name something defined further down)."""
    for declared in (t.effect, t.field):
        if declared is None:
            continue
        sig = inspect.signature(declared)
        mine = [p.name for p in _keywords(t.fn) if p.name not in PAYLOAD]
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
            theirs = list(sig.parameters)
            if sorted(theirs) != sorted(mine):
                raise TypeError(f"{t.name}: its effect and field take {mine}, not {theirs}")


def transitions_in(*modules: types.ModuleType) -> dict[str, Transition]:
    """A transition table: every transition the modules declare at their top level, by
    event name (one imported from elsewhere counts where it is declared, not here)."""
    found: dict[str, Transition] = {}
    for module in modules:
        for attr in vars(module).values():
            if isinstance(attr, Transition) and attr.fn.__module__ == module.__name__:
                if attr.name in found and found[attr.name] is not attr:
                    raise TypeError(f"two transitions are named {attr.name!r}")
                found[attr.name] = attr
    return found


def sample_arguments(t: Transition) -> Iterator[dict[str, Any]]:
    """Arguments that stand for every call of `t` in a conformance check: each value of a
    `Literal`, a placeholder id for a string (tables take any key), 1, true."""
    combos: list[dict[str, Any]] = [{}]
    placeholder = {str: "*", int: 1, bool: True}
    for p in t.params:
        values = p.choices if p.choices is not None else (placeholder[p.kind],)
        combos = [{**c, p.name: v} for c in combos for v in values][:64]
    yield from combos
