"""Calls into a page over Playwright's connection, at as little cost per call as the wire
allows: a step makes two to four of them, and their bookkeeping was most of our Python's
CPU per step.

`Runtime.evaluate` in the page's main world costs about half what `page.evaluate` does (no
argument serializer, no utility world), and JSON text back is much cheaper than a structured
clone of many small arrays. An element click or key press is Playwright's own `mouseClick`
or `keyboardPress`, so the driver sends Chromium the same input events and keeps its mouse
and keyboard state as `page.mouse.click` and `page.keyboard.press` do. Every message goes
straight to Playwright's connection, without the sync API's per-call work (a task, the
caller's stack captured for logs, a check of the arguments): about half the Python a call
cost. Its reply, and any error, are Playwright's own, so `PageSession.call` bounds and maps
them as any Playwright call's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webfactory_env.core.resources import read_text

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession, Page

# Before any page script: the determinism shims, and the calls a step makes (`step.js`).
INIT_SCRIPT = (
    read_text("sites", "runtime", "shims.js")
    + "\n"
    + Path(__file__).with_name("step.js").read_text(encoding="utf-8")
)


# The executor's page inspection (`inspect.js`: the candidates a selector is looked for
# among, a snapshot's excerpt), read once the document has arrived: a navigation commits
# before its document has a body, so a read then waits for its DOMContentLoaded. (The wait
# is here, not in inspect.js: that file is hashed into every site's generator version.)
INSPECT_SCRIPT = (
    "async (arg) => {\n"
    "  if (document.readyState === 'loading') {\n"
    "    await new Promise((done) =>\n"
    "      document.addEventListener('DOMContentLoaded', done, {once: true}));\n"
    "  }\n"
    "  return (" + read_text("sites", "runtime", "inspect.js").strip() + ")(arg);\n"
    "}"
)


def send(owner: Page | CDPSession, method: str, params: dict[str, Any]) -> Any:
    """The result of Playwright's protocol call `method` on `owner` (a sync API object),
    sent as the sync API would send it, minus its bookkeeping (see the module docstring);
    waits in Playwright's dispatcher like any sync call."""
    from playwright._impl._greenlets import wait_for_future

    impl = owner._impl_obj
    options = {"internal": True, "timeout": 0}
    future = impl._connection.send_message_to_server(impl, method, params, options)
    wait_for_future(impl._loop, impl._dispatcher_fiber, future)
    return future.result()


def cdp_send(cdp: CDPSession, method: str, params: dict[str, Any]) -> Any:
    """`cdp.send(method, params)` (see `send`)."""
    return send(cdp, "send", {"method": method, "params": params})["result"]


def click(page: Page, x: float, y: float) -> None:
    """`page.mouse.click(x, y)` (see `send`)."""
    send(page, "mouseClick", {"x": x, "y": y})


def press(page: Page, key: str) -> None:
    """`page.keyboard.press(key)` (see `send`)."""
    send(page, "keyboardPress", {"key": key})


def evaluate(cdp: CDPSession, expression: str, *, wait: bool = False) -> Any:
    """`expression`'s value, evaluated in the page's main world over its CDP session; with
    `wait`, the value of the promise it may give, once settled."""
    params = {"expression": expression, "returnByValue": True, "awaitPromise": wait}
    return evaluated(cdp_send(cdp, "Runtime.evaluate", params))


def runtime_call(fn: str, args: list[Any]) -> str:
    """The expression that calls the runtime's entry point `fn` (`window.__wf.j`) with JSON
    text and gives JSON text back."""
    return f"window.__wf.j.{fn}({json.dumps(json.dumps(args))})"


def step_call(fn: str, *args: Any) -> str:
    """The expression of a step's call `fn` (`step.js`): the arguments as a JSON literal,
    escaped once on the way, where `runtime_call` passes JSON text inside a string (every
    quote of a patch's HTML escaped twice, then once more by Playwright)."""
    return f"__wfStep.{fn}({', '.join(json.dumps(a, ensure_ascii=False) for a in args)})"


def evaluated(reply: dict[str, Any]) -> Any:
    """The value of a `Runtime.evaluate` reply, or the script's error raised as a Playwright
    error (the first line of its description: the stack below names our runtime only)."""
    from playwright.sync_api import Error as PlaywrightError

    failure = reply.get("exceptionDetails")
    if failure is not None:
        described = (failure.get("exception") or {}).get("description") or failure.get("text")
        raise PlaywrightError(str(described or "a script error").splitlines()[0][:300])
    return reply["result"].get("value")
