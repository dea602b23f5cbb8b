"""Navigation widgets: links, the site menu, breadcrumbs, menus, tabs, accordions, dialogs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from webfactory_env.core.predicates import Eq, Predicate
from webfactory_env.sitegen.html import Renderer, attrs, esc
from webfactory_env.sitegen.spec import AttrValue
from webfactory_env.sitegen.widgets.common import (
    UI_MODAL,
    UI_TAB,
    UI_TOGGLE,
    aria_label,
    sends,
    tip,
)


def link(
    r: Renderer,
    *,
    sid: str,
    href: str,
    text: str,
    kind: str = "Link",
    attrs_: Mapping[str, AttrValue] | None = None,
    class_: str | None = None,
    region: str = "main",
    effect: Predicate | None = None,
    sticky: bool = True,
    accesskey: str | None = None,
) -> str:
    """A same-origin link. Its default effect is being on `href`; reaching a page stays
    achieved when the agent moves on (`sticky`)."""
    inst = r.instrument(
        sid,
        kind,
        "click",
        {"route": href, "text": text, "region": region, **(attrs_ or {})},
        label=text,
        effect=effect or Eq(("route",), href),
        sticky=sticky,
        href=href,
        element="a",
    )
    key = accesskey if r.variation.shortcuts == "on" else None
    return (
        f"<a{attrs(href=href, class_=class_, title=tip(r, text), accesskey=key)}{inst}>"
        f"{esc(text)}</a>"
    )


def site_nav(r: Renderer, entries: Sequence[tuple[str, str]], *, label: str) -> str:
    """The main navigation: links `nav:<href>`; with the `shortcuts` axis on, each gets an
    access key (Alt+Shift+letter in Chromium) and a legend lists them. Drawn once per site
    and variation, then replayed: every page of the site shows it."""
    key = ("site_nav", tuple(entries), label, r.variation)
    return r.fragment(key, lambda: _site_nav(r, entries, label=label))


def _site_nav(r: Renderer, entries: Sequence[tuple[str, str]], *, label: str) -> str:
    used: set[str] = set()
    links, legend = [], []
    for href, text in entries:
        key = next((ch for ch in text.lower() if ch.isalpha() and ch not in used), None)
        if key:
            used.add(key)
            legend.append(f"Alt+Shift+{key.upper()} {text}")
        links.append(link(r, sid=f"nav:{href}", href=href, text=text, region="nav", accesskey=key))
    aria = aria_label(r, label)
    shortcuts = (
        f'<small class="shortcuts muted">{esc(" · ".join(legend))}</small>'
        if r.variation.shortcuts == "on"
        else ""
    )
    return f"<nav{aria}>{''.join(links)}</nav>{shortcuts}"


def breadcrumbs(r: Renderer, trail: Sequence[tuple[str, str | None]], *, label: str) -> str:
    """`trail` is (text, href) from the root; the last entry (href None) is the current page."""
    parts = []
    for text, href in trail:
        if href is None:
            parts.append(f'<span aria-current="page">{esc(text)}</span>')
        else:
            parts.append(
                link(r, sid=f"crumb:{href}", href=href, text=text, attrs_={"role": "breadcrumb"})
            )
    aria = aria_label(r, label)
    return f'<nav class="breadcrumb"{aria}>{" › ".join(parts)}</nav>'


@dataclass(frozen=True)
class MenuItem:
    key: str
    text: str
    href: str | None = None
    children: tuple[MenuItem, ...] = ()


def nested_menu(
    r: Renderer,
    *,
    name: str,
    items: Sequence[MenuItem],
    open_keys: set[str],
    label: str,
    path: tuple[str, ...] = (),
) -> str:
    """A menu bar whose entries open sub-menus (app UI state); leaves are links."""
    lis = []
    for item in items:
        item_path = "/".join((*path, item.key))
        if item.children:
            key = f"menu:{name}:{item_path}"
            is_open = key in open_keys
            inst = r.instrument(
                key,
                "MenuItem",
                "click",
                {"menu": name, "path": item_path, "text": item.text},
                label=item.text,
                **sends(UI_TOGGLE.bind(key=key)),
            )
            sub = (
                nested_menu(
                    r,
                    name=name,
                    items=item.children,
                    open_keys=open_keys,
                    label=item.text,
                    path=(*path, item.key),
                )
                if is_open
                else ""
            )
            lis.append(
                f'<li><button type="button" aria-haspopup="true"'
                f"{attrs(aria_expanded='true' if is_open else 'false')}{inst}>"
                f"{esc(item.text)} ▾</button>{sub}</li>"
            )
        elif item.href:
            lis.append(
                "<li>"
                + link(
                    r,
                    sid=f"menu:{name}:{item_path}",
                    href=item.href,
                    text=item.text,
                    kind="MenuItem",
                    attrs_={"menu": name, "path": item_path},
                )
                + "</li>"
            )
    role = ' role="menubar"' if not path else ' role="menu"'
    aria = aria_label(r, label)
    return f'<ul class="menu{" submenu" if path else ""}"{role}{aria}>{"".join(lis)}</ul>'


def tabs(
    r: Renderer,
    *,
    group: str,
    items: Sequence[tuple[str, str]],
    active: str,
    panel: str,
    label: str,
) -> str:
    """A tab list (`items` are (name, text)) and the active panel's HTML."""
    buttons = []
    for name, text in items:
        selected = name == active
        inst = r.instrument(
            f"tab:{group}:{name}",
            "Tab",
            "click",
            {"group": group, "name": name, "text": text},
            label=text,
            **sends(UI_TAB.bind(group=group, name=name)),
        )
        tab_attrs = attrs(
            aria_selected="true" if selected else "false",
            class_="tab active" if selected else "tab",
        )
        buttons.append(f'<button type="button" role="tab"{tab_attrs}{inst}>{esc(text)}</button>')
    aria = aria_label(r, label)
    return (
        f'<div class="tabs"><div role="tablist"{aria}>{"".join(buttons)}</div>'
        f'<div role="tabpanel" class="tabpanel">{panel}</div></div>'
    )


def accordion(
    r: Renderer, *, group: str, sections: Sequence[tuple[str, str, str]], open_keys: set[str]
) -> str:
    """Sections (name, heading, body html) that open and close independently."""
    out = []
    for name, heading, body in sections:
        key = f"acc:{group}:{name}"
        is_open = key in open_keys
        inst = r.instrument(
            key,
            "Accordion",
            "click",
            {"group": group, "name": name, "text": heading},
            label=heading,
            **sends(UI_TOGGLE.bind(key=key)),
        )
        content = f'<div class="accordion-body">{body}</div>' if is_open else ""
        out.append(
            f'<section class="accordion"><h3><button type="button"'
            f"{attrs(aria_expanded='true' if is_open else 'false')}{inst}>{esc(heading)}"
            f"</button></h3>{content}</section>"
        )
    return "".join(out)


def modal(r: Renderer, *, name: str, title: str, body: str, close_text: str) -> str:
    """An open dialog over the page: everything behind it is covered (and so not clickable)."""
    inst = r.instrument(
        f"modal:{name}:close",
        "Button",
        "click",
        {"role": "close", "modal": name},
        label=close_text,
        structural=True,
        **sends(UI_MODAL.bind()),
    )
    return (
        f'<div class="overlay"><div class="dialog" role="dialog" aria-modal="true"'
        f"{attrs(aria_label=title)}><header><h2>{esc(title)}</h2>"
        f'<button type="button" class="secondary"{inst}>{esc(close_text)}</button></header>'
        f"{body}</div></div>"
    )


def modal_opener(r: Renderer, *, name: str, text: str, attrs_: Mapping[str, AttrValue]) -> str:
    inst = r.instrument(
        f"modal:{name}:open",
        "Button",
        "click",
        {"role": "open-dialog", "modal": name, **attrs_},
        label=text,
        structural=True,
        **sends(UI_MODAL.bind(name=name)),
    )
    return f'<button type="button" class="secondary"{inst}>{esc(text)}</button>'


def secondary_form(
    r: Renderer,
    *,
    name: str,
    title: str,
    body: Callable[[], str],
    open_modal: str | None,
    close_text: str,
    opener_attrs: Mapping[str, AttrValue],
    opener_text: str | None = None,
) -> str:
    """A secondary form shown inline, or (the `form_mode` axis set to "modal") in a dialog
    that a button opens. `body` renders the form only when it is shown, so a closed dialog
    records no fields; `open_modal` is the dialog the app has open."""
    if r.variation.form_mode == "modal":
        if open_modal == name:
            return modal(r, name=name, title=title, body=body(), close_text=close_text)
        return modal_opener(r, name=name, text=opener_text or title, attrs_=opener_attrs)
    return f'<section class="secondary-form"><h2>{esc(title)}</h2>{body()}</section>'


def toast(message: str, *, error: bool = False) -> str:
    """A status message; the app shows it until the next navigation."""
    if not message:
        return ""
    role, cls = ("alert", "error-summary") if error else ("status", "notice")
    return f'<p class="{cls}" role="{role}">{esc(message)}</p>'
