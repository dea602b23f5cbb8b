"""`BrowserGymAdapter`: WebTask-v0 with BrowserGym's observation keys and action strings.

Agents written for BrowserGym and AgentLab read a dict observation (`goal`,
`chat_messages`, `axtree_object`, `url`, `last_action`, `last_action_error`, ...) and answer
with a call such as `click('12')`, `fill('12', 'Alice')`, `select_option('5', 'Red')` or
`send_msg_to_user('42')`. This wrapper speaks exactly that, without installing BrowserGym
(whose releases pin an older Playwright than ours): element ids (`bid`s) are the indices of
the env's text observation as strings, the accessibility tree is built from the same
snapshot the env observes, and each call is translated into one of the env's own text
actions — read by our tokenizer, never `exec`. `send_msg_to_user(text)` ends the episode
with `done(true, text)`, `report_infeasible(reason)` with `done(false, reason)`. A call
the factory has no counterpart for (`hover`, `mouse_click`, `goto`, tabs, ...) is still a
step: the env refuses it, and `last_action_error` names the calls that work.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from webfactory_env.actions import CallArgs, Token, parse_call, unquote
from webfactory_env.core import dom as f
from webfactory_env.core.dom import DomSnapshot
from webfactory_env.llm.prompt import instruction
from webfactory_env.observation.text import group_chain

ORIGIN = "https://site.webfactory.test"
SUPPORTED = (
    "click('bid')",
    "fill('bid', 'text')",
    "clear('bid')",
    "select_option('bid', 'option')",
    "check('bid')",
    "uncheck('bid')",
    "press('bid', 'Key')",
    "keyboard_press('Key')",
    "scroll(dx, dy)",
    "go_back()",
    "send_msg_to_user('text')",
    "report_infeasible('reason')",
)
# Properties BrowserGym prints bare when set; the others print as name=value.
_BARE = frozenset({"focused", "focusable", "required"})


class AnyValue(spaces.Space[Any]):
    """A value of any shape (BrowserGym's observations hold trees and message lists)."""

    def contains(self, x: Any) -> bool:
        return True

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        raise NotImplementedError("BrowserGym-style observations cannot be sampled")


class BrowserGymAdapter(gym.Wrapper[dict[str, Any], str, Any, str]):
    """BrowserGym's observation dict and action strings over a text-action WebTask-v0."""

    def __init__(self, env: gym.Env[Any, Any], *, screenshot: bool = False) -> None:
        super().__init__(env)
        base: Any = env.unwrapped
        if getattr(getattr(base, "action_config", None), "mode", None) != "text":
            raise TypeError("BrowserGymAdapter wraps a WebTask-v0 made with action_mode='text'")
        if screenshot:  # someone will look: the browser must draw, whatever the obs mode
            base.draw_frames()
        self.screenshot = screenshot
        self._base: Any = base
        self.action_space = spaces.Text(max_length=2000, min_length=0)
        self.observation_space = spaces.Dict({"obs": AnyValue()})  # documented, not shaped
        self._chat: list[dict[str, str]] = []
        self._goal = ""

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        _, info = self.env.reset(**kwargs)
        self._goal = instruction(info)
        self._chat = [{"role": "user", "message": self._goal}]
        return self._observe(info, "", ""), info

    def step(self, action: str) -> tuple[dict[str, Any], Any, bool, bool, dict[str, Any]]:
        translated, problem = to_text_action(action, self._base.dom)
        _, reward, terminated, truncated, info = self.env.step(translated)
        if translated.startswith("done(true"):
            self._chat.append({"role": "assistant", "message": _said(translated)})
        error = problem or info.get("action_error") or ""
        return self._observe(info, action, error), reward, terminated, truncated, info

    # ------------------------------------------------------------------ observation
    def _observe(self, info: Mapping[str, Any], last_action: str, error: str) -> dict[str, Any]:
        base = self._base
        dom: DomSnapshot = base.dom
        tree = axtree_object(dom)
        focused = next((str(i) for i in range(len(dom)) if dom.has(i, f.FOCUSED)), "")
        record = info.get("record")
        obs: dict[str, Any] = {
            "chat_messages": [dict(m) for m in self._chat],
            "goal": self._goal,
            "goal_object": [{"type": "text", "text": self._goal}],
            "url": ORIGIN + dom.route,
            "open_pages_urls": [ORIGIN + dom.route],
            "open_pages_titles": [dom.title],
            "active_page_index": 0,
            "axtree_object": tree,
            "axtree_txt": flatten_axtree(tree),
            "extra_element_properties": element_properties(dom),
            "focused_element_bid": focused,
            "last_action": last_action,
            "last_action_error": error,
            "elapsed_time": (record["logical_ms"] / 1000) if record else 0.0,
        }
        if self.screenshot:
            obs["screenshot"] = base.session.screenshot_array()
        return obs


# ---------------------------------------------------------------------- actions
def _bid(tok: Token, dom: DomSnapshot) -> int | str:
    """A bid argument ('12' or 12) → element index, or why it names no element."""
    raw = unquote(tok[1]) if tok[0] == "str" else tok[1]
    if tok[0] not in ("str", "int") or not raw.isdigit():
        return f"bid {raw!r} names no element; bids are the numbers in brackets, like '12'"
    return int(raw)


def _text(tok: Token) -> str | None:
    return unquote(tok[1]) if tok[0] == "str" else None


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid text-action string


def _on_bid(args: CallArgs, dom: DomSnapshot, make: Callable[[int], str]) -> tuple[str, str | None]:
    if len(args.positional) < 1:
        return "", "this call needs a bid"
    index = _bid(args.positional[0], dom)
    return (make(index), None) if isinstance(index, int) else ("", index)


def to_text_action(action: str, dom: DomSnapshot) -> tuple[str, str | None]:
    """A BrowserGym call → (the env's text action, a problem to report or None). When the
    call cannot be translated, the text action is the call itself, which the env refuses."""
    call = parse_call(action)
    if isinstance(call, str):
        return (
            action,
            f"cannot read {action[:80]!r} as one call; use one of: {', '.join(SUPPORTED)}",
        )
    name, args = call
    pos = args.positional
    kinds = args.kinds
    keywords = dict(args.keywords)
    left = (
        set(keywords) <= {"button"} and _text(keywords.get("button", ("str", "'left'"))) == "left"
    )
    if name == "click" and len(pos) == 1 and left:
        out = _on_bid(args, dom, lambda i: f"click({i})")
    elif name == "fill" and len(pos) in (2, 3) and kinds[1] == "str":
        text = _text(pos[1]) or ""
        out = _on_bid(args, dom, lambda i: f"type({i}, {_q(text)})")
    elif name == "clear" and len(pos) == 1:
        out = _on_bid(args, dom, lambda i: f'type({i}, "")')
    elif name == "select_option" and len(pos) == 2 and kinds[1] == "str":
        option = _text(pos[1]) or ""
        out = _on_bid(args, dom, lambda i: f"select({i}, {_q(option)})")
    elif name in ("check", "uncheck") and len(pos) == 1:
        out = _on_bid(args, dom, lambda i: f"click({i})")
        index = _bid(pos[0], dom)
        if isinstance(index, int) and dom.has(index, f.CHECKED) == (name == "check"):
            return action, f"element {index} is already {name}ed"
    elif name == "press" and len(pos) == 2 and kinds[1] == "str":
        key = _text(pos[1]) or ""
        out = _on_bid(args, dom, lambda i: f"press({i}, {_q(key)})")
    elif name == "keyboard_press" and kinds == ["str"]:
        out = f"press({_q(_text(pos[0]) or '')})", None
    elif name == "scroll" and kinds in (
        ["int", "int"],
        ["float", "float"],
        ["int", "float"],
        ["float", "int"],
    ):
        dy = float(pos[1][1])
        out = (
            (f"scroll({'down' if dy > 0 else 'up'})", None)
            if dy
            else (action, "scroll(0, 0) moves nothing")
        )
    elif name == "go_back" and not pos:
        out = "back()", None
    elif name == "send_msg_to_user" and kinds == ["str"]:
        out = f"done(true, {_q(_text(pos[0]) or '')})", None
    elif name == "report_infeasible" and kinds == ["str"]:
        out = f"done(false, {_q(_text(pos[0]) or '')})", None
    else:
        usable = ", ".join(SUPPORTED)
        return (
            action,
            f"{name}() with these arguments has no counterpart here; use one of: {usable}",
        )
    return out if out[0] else (action, out[1])


def _said(text_action: str) -> str:
    call = parse_call(text_action)
    if isinstance(call, str) or len(call[1].positional) < 2:
        return ""
    return unquote(call[1].positional[1][1])


# ---------------------------------------------------------------------- the tree
def _node(node_id: int, role: str, name: str, children: list[int]) -> dict[str, Any]:
    return {
        "nodeId": str(node_id),
        "ignored": False,
        "role": {"type": "role", "value": role},
        "name": {"type": "computedString", "value": name},
        "childIds": [str(c) for c in children],
        "properties": [],
    }


def axtree_object(dom: DomSnapshot) -> dict[str, Any]:
    """The visible page as a CDP-style accessibility tree (`{"nodes": [...]}`, node 0 the
    root), with `browsergym_id` on interactive nodes, as BrowserGym's `axtree_object`."""
    nodes = [_node(0, "RootWebArea", dom.title, [])]
    nodes[0]["properties"].append(_property("focusable", True))
    containers: dict[int, int] = {}  # container index of the snapshot -> node index
    for i in range(len(dom)):
        parent = 0
        for g in group_chain(dom, i):
            if g not in containers:
                containers[g] = len(nodes)
                role, name, _ = dom.groups[g]
                nodes.append(_node(len(nodes), role, name, []))
                nodes[parent]["childIds"].append(str(containers[g]))
            parent = containers[g]
        text = dom.flags[i] & f.TEXT
        role = (
            ("StaticText" if dom.roles[i] in ("text", "") else dom.roles[i])
            if text
            else dom.roles[i]
        )
        node = _node(len(nodes), role, dom.texts[i], [])
        if not text:
            node["browsergym_id"] = str(i)
            if dom.values[i]:
                node["value"] = {"type": "string", "value": dom.values[i]}
            node["properties"] += [_property(n, v) for n, v in ax_states(dom, i)]
        nodes[parent]["childIds"].append(str(len(nodes)))
        nodes.append(node)
    return {"nodes": nodes}


def _property(name: str, value: Any) -> dict[str, Any]:
    kind = "tristate" if isinstance(value, str) else "booleanOrUndefined"
    return {"name": name, "value": {"type": kind, "value": value}}


def ax_states(dom: DomSnapshot, i: int) -> list[tuple[str, Any]]:
    """Element `i`'s states as Chrome's accessibility tree names them (`checked` and
    `pressed` are the strings "true"/"false")."""
    flags = dom.flags[i]
    out: list[tuple[str, Any]] = []
    if flags & f.DISABLED:
        out.append(("disabled", True))
    if flags & (f.CHECKABLE | f.CHECKED):
        name = "pressed" if dom.roles[i] == "button" and flags & f.CHECKABLE else "checked"
        out.append((name, "true" if flags & f.CHECKED else "false"))
    if flags & f.SELECTED:
        out.append(("selected", True))
    if flags & f.EXPANDABLE:
        out.append(("expanded", bool(flags & f.EXPANDED)))
    if flags & f.FOCUSED:
        out.append(("focused", True))
    return out


def flatten_axtree(tree: Mapping[str, Any]) -> str:
    """The tree as BrowserGym prints it: one node a line, a tab per level, `[bid] role
    'name'`, then ` value='...'` and `, property` items."""
    nodes = {n["nodeId"]: n for n in tree["nodes"]}
    lines: list[str] = []

    def visit(node_id: str, depth: int) -> None:
        node = nodes[node_id]
        role, name = node["role"]["value"], node["name"]["value"]
        text = f"{role} {name.strip()!r}"
        if "browsergym_id" in node:
            text = f"[{node['browsergym_id']}] {text}"
        if "value" in node:
            text += f" value={node['value']['value']!r}"
        for prop in node["properties"]:
            word, value = prop["name"], prop["value"]["value"]
            if word in _BARE:
                text += f", {word}" if value else ""
            else:
                text += f", {word}={value!r}"
        lines.append("\t" * depth + text)
        for child in node["childIds"]:
            visit(child, depth + 1)

    visit(tree["nodes"][0]["nodeId"], 0)
    return "\n".join(lines)


def element_properties(dom: DomSnapshot) -> dict[str, dict[str, Any]]:
    """Per bid: visibility, bbox (x, y, w, h), clickable, set_of_marks — BrowserGym's
    `extra_element_properties`."""
    out = {}
    for i in range(len(dom)):
        if dom.flags[i] & f.TEXT:
            continue
        clickable = bool(dom.flags[i] & (f.CLICKABLE | f.EDITABLE | f.SELECTABLE))
        out[str(i)] = {
            "visibility": 0.0 if dom.flags[i] & f.OCCLUDED else 1.0,
            "bbox": [float(v) for v in dom.boxes[i]],
            "clickable": clickable,
            "set_of_marks": clickable,
        }
    return out
