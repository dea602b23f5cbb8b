"""The executor's own calls into a page (`executor.calls`) do what Playwright's would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytestmark = pytest.mark.browser

# A pane over the whole page that logs the input events it gets, as a page's script sees
# them (with where the pointer was and what the keys were).
LOG_INPUT = """() => {
  const pane = document.createElement("div");
  pane.style.cssText = "position:fixed;inset:0;z-index:99999";
  pane.tabIndex = 0;
  document.body.appendChild(pane);
  pane.focus();
  window.__inputLog = [];
  for (const type of ["mousemove", "mousedown", "mouseup", "click", "keydown", "keypress",
                      "keyup"]) {
    pane.addEventListener(type, (e) => window.__inputLog.push([
      e.type, e.isTrusted, e.clientX ?? null, e.clientY ?? null, e.button ?? null,
      e.buttons ?? null, e.detail ?? null, e.key ?? null, e.code ?? null,
      e.altKey ?? null, e.shiftKey ?? null]));
  }
}"""


def _input_log(session: Any, act: Callable[[], None]) -> list[Any]:
    session.evaluate("() => { window.__inputLog = []; }")
    act()
    return session.evaluate("() => window.__inputLog")


def test_an_element_click_and_a_key_press_send_what_playwrights_mouse_and_keyboard_do():
    from webfactory_env.executor import ObserveConfig, PageSession, calls
    from webfactory_env.sitegen.registry import generate_site

    session = PageSession()
    try:
        session.load(generate_site("gallery", 0).new_app(), seed=0, observe=ObserveConfig())
        session.evaluate(LOG_INPUT)
        page = session.page

        def ours() -> None:
            calls.click(page, 100.5, 60)
            page.mouse.move(140.5, 60, steps=2)  # from where our click left the mouse
            calls.press(page, "Enter")
            calls.press(page, "Alt+Shift+K")

        def playwrights() -> None:
            page.mouse.click(100.5, 60)
            page.mouse.move(140.5, 60, steps=2)
            page.keyboard.press("Enter")
            page.keyboard.press("Alt+Shift+K")

        page.mouse.move(0, 0)
        got = _input_log(session, ours)
        page.mouse.move(0, 0)
        want = _input_log(session, playwrights)
    finally:
        session.close()
    assert got == want
    kinds = [event[0] for event in got]
    assert kinds[:4] == ["mousemove", "mousedown", "mouseup", "click"]
    assert [e[2] for e in got if e[0] == "mousemove"] == [100, 120, 140]
    assert [k for k in kinds if k.startswith("key")][:3] == ["keydown", "keypress", "keyup"]
    assert all(event[1] for event in got), "every event is the browser's own (trusted)"
