"""The pages the task compiler reads. It draws sketches (affordances, regions and text,
without the attributes no one reads): what it reads of each is what the whole page gives,
it compiles the same tasks, and no sketch reaches a page that is sent. A page it looked
behind (a menu opened, then closed again) is not drawn again."""

from __future__ import annotations

import threading

import pytest

from webfactory_env.sitegen import generate_site
from webfactory_env.sitegen import widgets as w
from webfactory_env.sitegen.app import SiteApp
from webfactory_env.sitegen.html import Renderer, attrs
from webfactory_env.sitegen.registry import BUILTIN_FAMILIES
from webfactory_env.sitegen.spec import PageView
from webfactory_env.tasks import compile_task, library_tasks, load_task_file
from webfactory_env.tasks.compile import context

SEEDS = (0, 3, 11)


def _compiled(task: str, family: str, seed: int, *, sketches: bool = True) -> str:
    """The task compiled afresh (no compiled task remembered), drawing sketches or not."""
    parsed, name = load_task_file(task, family)
    context.SKETCH_PAGES, before = sketches, context.SKETCH_PAGES
    try:
        return compile_task(parsed, generate_site(family, seed), name).digest
    finally:
        context.SKETCH_PAGES = before


def _read_alike(sketch: PageView, whole: PageView) -> None:
    """What the compiler reads of a page is the same in its sketch as in the whole page."""
    assert sketch.affordances == whole.affordances
    assert list(sketch.regions) == list(whole.regions)
    assert (sketch.route, sketch.title, sketch.status) == (whole.route, whole.title, whole.status)
    assert sketch.texts() == whole.texts()
    for a in whole.affordances:
        if a.verb == "submit":
            assert sketch.form_values(a.sid) == whole.form_values(a.sid), a.sid


@pytest.mark.parametrize("family", sorted(BUILTIN_FAMILIES))
def test_every_page_the_compiler_sketches_reads_as_the_whole_page(family, monkeypatch):
    compared: dict[int, tuple[PageView, PageView]] = {}
    drawn = SiteApp.page

    def page(app: SiteApp) -> PageView:
        shown = drawn(app)
        if app.renderer().sketch and id(shown) not in compared:
            app.sketches = False
            try:
                whole = app.render(app.route)
            finally:
                app.sketches = True
            compared[id(shown)] = (shown, whole)
        return shown

    monkeypatch.setattr(SiteApp, "page", page)
    tasks = [t.name for t in library_tasks(family)]
    for task in tasks:
        for seed in SEEDS:
            _compiled(task, family, seed)
    assert len(compared) >= len(tasks) * len(SEEDS)  # pages after the start page: most
    for shown, whole in compared.values():
        # A sketch indeed: none of the attributes a sent page has.
        sketch_html = "".join(shown.regions.values())
        assert "data-testid" not in sketch_html and "data-wf-h=" not in sketch_html
        assert "data-testid" in "".join(whole.regions.values())
        _read_alike(shown, whole)


@pytest.mark.parametrize("family", sorted(BUILTIN_FAMILIES))
def test_sketching_compiles_every_task_as_drawing_whole_pages_does(family):
    for t in library_tasks(family):
        for seed in SEEDS:
            sketched = _compiled(t.name, family, seed)
            assert sketched == _compiled(t.name, family, seed, sketches=False), (t.name, seed)


def test_the_start_page_an_episode_mounts_after_a_compile_is_whole():
    _compiled("book_flight_roundtrip", "travel", 4242)  # shares the start page
    episode = generate_site("travel", 4242).new_app(shared_start=True).mount_payload("queue")
    alone = generate_site("travel", 4242).new_app().mount_payload("queue")
    assert episode["regions"] == alone["regions"]
    assert "data-testid" in episode["regions"]["main"]


def test_a_sketch_on_one_thread_leaves_the_pages_drawn_on_another_whole():
    r = Renderer(salt="sketch-thread", sketch=True)
    elsewhere: list[str] = []
    with r.drawing():
        assert attrs(class_="card") == ""
        other = threading.Thread(target=lambda: elsewhere.append(attrs(class_="card")))
        other.start()
        other.join()
    assert elsewhere == [' class="card"']
    assert attrs(class_="card") == ' class="card"'  # and whole again once drawn


def test_a_part_drawn_once_as_a_sketch_is_replayed_whole_into_a_whole_page():
    entries = [("/", "Home"), ("/shop", "Shop")]
    sketch = Renderer(salt="sketch-nav", sketch=True)
    with sketch.drawing():
        sketched = w.site_nav(sketch, entries, label="Main")
    whole = Renderer(salt="sketch-nav")
    nav = w.site_nav(whole, entries, label="Main")
    assert "data-testid" in nav and "data-testid" not in sketched
    assert whole.affordances == sketch.affordances
    fresh = Renderer(salt="sketch-nav-fresh")
    assert nav.count("data-testid") == w.site_nav(fresh, entries, label="Main").count("data-testid")


def _on_the_shop_page() -> tuple[SiteApp, PageView, tuple[object, ...]]:
    """An app on a page with menus (sort, filters), its page, and a checkpoint there."""
    app = generate_site("shop", 1, variation={"choice_widget": "menu"}).new_app()
    app.visit("/shop")
    return app, app.page(), app.checkpoint()


def test_a_menu_opened_and_closed_again_leaves_the_page_drawn_before_it():
    app, before, saved = _on_the_shop_page()
    app.dispatch(before.affordance("sort").click_event())  # opens the sort menu
    assert app.page().affordance("sort=price-asc") is not None
    app.restore(saved)
    assert app.page() is before  # not drawn again
    assert app.render("/shop") == before  # and what drawing it afresh gives
    assert app.state_view()["ui"]["open"] == []


def test_a_page_is_drawn_again_when_more_than_the_ui_changed_since_the_checkpoint():
    app, before, saved = _on_the_shop_page()
    app.dispatch(before.affordance("nav:/shop").click_event())  # a navigation, not UI only
    app.restore(saved)
    assert app.page() is not before
    assert app.page() == before
