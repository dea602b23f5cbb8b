"""The forum family: generation invariants, rendering, and the app's transitions (no browser)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from webfactory_env.core.seeding import stable_digest
from webfactory_env.sitegen import AppEvent, generate_site
from webfactory_env.sitegen.app import retry
from webfactory_env.sitegen.families.forum.app import ForumApp
from webfactory_env.sitegen.families.forum.content import NOW_STAMP, THREAD_COUNT
from webfactory_env.sitegen.families.forum.queries import PAGE_SIZE
from webfactory_env.sitegen.families.forum.rules import (
    validate_reply,
    validate_signin,
    validate_thread,
)
from webfactory_env.sitegen.families.forum.transitions.forms import (
    set_choice,
    set_field,
    sign_in,
    sign_out,
    toggle_format,
)
from webfactory_env.sitegen.families.forum.transitions.lists import (
    filter_threads,
    search_threads,
    set_since,
    sort_replies,
    sort_threads,
    turn_page,
    type_query,
)
from webfactory_env.sitegen.families.forum.transitions.posts import (
    REP_PER_VOTE,
    accept_answer,
    delete_reply,
    edit_reply,
    follow_thread,
    post_reply,
    report_post,
    start_thread,
    type_edit,
    unaccept_answer,
    upvote,
    withdraw_vote,
)
from webfactory_env.sitegen.widgets import UI_MODAL, UI_TOGGLE
from webfactory_env.testing import check_family, check_family_in_browser

SEEDS = range(8)
# Seed 0 in the fast tier, five more in the full suite.
CONFORMANCE_SEEDS = [
    pytest.param((0,), id="seed0"),
    pytest.param((1, 2, 3, 4, 5), id="seeds1-5", marks=pytest.mark.slow),
]


# ----------------------------------------------------------------- conformance
@pytest.mark.parametrize("seeds", CONFORMANCE_SEEDS)
def test_family_conformance(seeds):
    check_family("forum", seeds=seeds)


@pytest.mark.browser
def test_family_conformance_in_browser():
    check_family_in_browser(
        "forum",
        seeds=(0,),
        variations=(
            {},
            {
                "list_mode": "infinite",
                "choice_widget": "menu",
                "form_mode": "modal",
                "date_widget": "inline",
                "distractors": "many",
                "nav": "sidebar",
                "theme": "dark",
            },
        ),
    )


# ------------------------------------------------------------------ generation
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_generated_data_is_consistent(difficulty):
    for seed in SEEDS if difficulty == "easy" else range(4):
        e = generate_site("forum", seed, difficulty).spec.entities
        users = {u.username: u for u in e["users"]}
        threads = {t.id: t for t in e["threads"]}
        assert len(users) == len(e["users"]) and len(threads) == len(e["threads"])
        assert len(threads) == THREAD_COUNT[difficulty]
        assert len({u.display_name for u in e["users"]}) == len(users)
        assert len({u.joined for u in e["users"]}) == len(users), "join dates differ"
        assert len({u.reputation for u in e["users"]}) == len(users), "reputations differ"
        assert len({t.title for t in threads.values()}) == len(threads), "titles are unique"
        assert len({t.votes for t in threads.values()}) == len(threads), "thread votes differ"
        assert len({p.id for p in e["posts"]}) == len(e["posts"])
        tags = {t.slug for t in e["tags"]}
        categories = {c.slug for c in e["categories"]}
        by_thread: dict[str, list] = {}
        for p in e["posts"]:
            t = threads[p.thread_id]  # every reply belongs to a thread ...
            assert p.author in users and p.author != t.author  # ... by someone else
            assert p.thread_title == t.title and t.created < p.created <= NOW_STAMP
            assert users[p.author].joined < p.created[:10]
            by_thread.setdefault(t.id, []).append(p)
        for t in threads.values():
            replies = by_thread.get(t.id, [])
            assert t.author in users and users[t.author].joined < t.created[:10]
            assert t.category in categories and set(t.tags) <= tags and t.primary_tag == t.tags[0]
            assert len({p.author for p in replies}) == len(replies), "one reply per member"
            assert len({p.votes for p in replies}) == len(replies), "reply votes differ"
            assert len({p.body for p in replies}) == len(replies), "no repeated reply text"
            assert t.replies == len(replies)
            accepted = [p.id for p in replies if p.accepted]
            assert t.solved == bool(t.accepted) and accepted == ([t.accepted] if t.solved else [])
            expected = (
                "locked"
                if t.locked
                else "solved"
                if t.solved
                else "open"
                if replies
                else "unanswered"
            )
            assert t.status == expected
        statuses = {t.status for t in threads.values()}
        assert {"locked", "solved", "open", "unanswered"} <= statuses
        assert categories == {t.category for t in threads.values()}
        for u in users.values():
            started = sum(1 for t in threads.values() if t.author == u.username)
            replied = sum(1 for p in e["posts"] if p.author == u.username)
            assert (u.threads, u.replies, u.posts) == (started, replied, started + replied)
        assert any(u.posts == 0 for u in users.values()), "new members who never posted"


def test_same_seed_same_site_and_golden_digests():
    assert generate_site("forum", 3).digest == generate_site("forum", 3).digest
    assert len({generate_site("forum", s).digest for s in range(8)}) == 8
    # The content a seed decides (entities, variation, routes). The full site digest also
    # covers the shared runtime and stylesheets, which other families change. A change here
    # must be a deliberate FAMILY_VERSION bump.
    golden = {
        (0, "easy"): "4456692d282a849722214899bbee9e8620d3770493b6171f045570accc47a0b0",
        (7, "hard"): "4395035219d95b30654314fe2254fd46f1214fbf2688a93fb1985944eec917ce",
    }
    for (seed, difficulty), digest in golden.items():
        spec = generate_site("forum", seed, difficulty).spec.to_json()
        spec.pop("generator_version")
        assert stable_digest(spec) == digest, (seed, difficulty)


# ------------------------------------------------------------------- helpers
def _site(seed: int = 4, **variation: str):
    return generate_site("forum", seed, "easy", variation or None)


def _password(site, username: str) -> str:
    return next(u.password for u in site.spec.entities["users"] if u.username == username)


def _signin(app, site, username: str) -> None:
    app.dispatch(AppEvent(type="nav", path="/signin"))
    app.fire(sign_in, values={"username": username, "password": _password(site, username)})
    assert app.state_view()["auth"]["user"] == username


def _thread(site, status: str):
    return next(t for t in site.spec.entities["threads"] if t.status == status)


def _newcomer(site) -> str:
    return next(u.username for u in site.spec.entities["users"] if u.posts == 0)


def _html(app) -> str:
    return "".join(app.page().regions.values())


def _role(app, role: str):
    return next(a for a in app.page().affordances if a.attr_map().get("role") == role)


# ------------------------------------------------------------------- sign-in
def test_sign_in_checks_credentials_and_returns_to_the_page():
    site = _site(validation="async")
    app = site.new_app()
    thread = _thread(site, "open")
    user = _newcomer(site)
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.dispatch(AppEvent(type="nav", path="/signin"))
    app.fire(sign_in, values={"username": "", "password": ""})
    assert app.state_view()["feedback"]["signin_errors"] == {
        "username": "required",
        "password": "required",
    }
    app.fire(sign_in, values={"username": user, "password": "wrong-password-1"})
    state = app.state_view()
    assert not state["auth"]["signed_in"]
    assert state["feedback"]["signin_errors"] == {"_form": "credentials"}
    patch = app.fire(sign_in, values={"username": user.upper(), "password": _password(site, user)})
    state = app.state_view()
    assert state["auth"] == {"user": user, "signed_in": True}
    assert patch.route == f"/t/{thread.id}", "back where the member was"
    assert _password(site, user) not in json.dumps(state), "no secret in state"
    assert state["forms"]["signin"]["password_given"] is True
    app.fire(sign_out)
    assert app.state_view()["auth"] == {"user": "", "signed_in": False}


# --------------------------------------------------------------- list controls
def test_search_filters_sort_and_pages():
    site = _site(list_mode="pages")
    app = site.new_app()
    threads = site.spec.entities["threads"]
    app.dispatch(AppEvent(type="nav", path="/threads"))
    listing = app.state_view()["listing"]
    assert listing["scope"] == "all" and listing["count"] == len(threads)
    assert listing["pages"] == -(-len(threads) // PAGE_SIZE)
    newest = [
        a.attr_map()["id"] for a in app.page().affordances if a.attr_map().get("type") == "thread"
    ]
    assert newest == [t.id for t in threads[:PAGE_SIZE]], "newest first"
    app.fire(turn_page, page=2)
    ranks = [
        a.attr_map()["rank"] for a in app.page().affordances if a.attr_map().get("type") == "thread"
    ]
    assert ranks == list(range(PAGE_SIZE + 1, 2 * PAGE_SIZE + 1))
    app.fire(turn_page, page=99)  # no such page
    assert app.state_view()["listing"]["page"] == 2

    tag = _thread(site, "solved").primary_tag
    app.fire(filter_threads, name="tag", value=tag)
    app.fire(filter_threads, name="status", value="solved")
    app.fire(sort_threads, value="votes")
    items = app.queries.listing("all")
    assert items and all(tag in t.tags and t.accepted for t in items)
    assert [t.votes for t in items] == sorted((t.votes for t in items), reverse=True)
    assert app.state_view()["listing"]["page"] == 1, "a new filter starts at page one"
    app.fire(filter_threads, name="tag", value="no-such-tag")
    app.fire(filter_threads, name="status", value="maybe")
    app.fire(sort_threads, value="DROP TABLE")
    listing = app.state_view()["listing"]
    assert (listing["tag"], listing["status"], listing["sort"]) == (tag, "solved", "votes")

    title = threads[5].title
    app.fire(filter_threads, name="tag", value="")
    app.fire(filter_threads, name="status", value="")
    app.fire(type_query, value=title.upper(), type="input")
    app.fire(search_threads, values={"q": title.upper()})
    assert threads[5].id in {t.id for t in app.queries.listing("all")}
    assert app.state_view()["listing"]["query"] == title.upper()
    app.fire(set_since, value="2025-1")
    app.fire(set_since, value="2026-01-01")
    assert app.state_view()["listing"]["since"] == "2026-01-01"
    assert all(t.created >= "2026-01-01" for t in app.queries.listing("all"))
    app.dispatch(_role(app, "clear-date").click_event())
    assert app.state_view()["listing"]["since"] == ""
    # the list's state is remembered when a thread is opened
    app.dispatch(AppEvent(type="nav", path=f"/t/{threads[5].id}"))
    assert app.state_view()["listing"]["query"] == title.upper()


def test_infinite_list_loads_more_while_scrolling():
    site = _site(list_mode="infinite")
    app = site.new_app()
    app.dispatch(AppEvent(type="nav", path="/threads"))
    assert app.state_view()["listing"]["shown"] == PAGE_SIZE
    more = next(a for a in app.page().affordances if a.kind == "More")
    app.dispatch(more.click_event())
    assert app.state_view()["listing"]["shown"] == 2 * PAGE_SIZE
    app.fire(sort_threads, value="replies")
    assert app.state_view()["listing"]["shown"] == PAGE_SIZE


# --------------------------------------------------------------- thread actions
def test_votes_one_per_member_and_undoable():
    site = _site()
    app = site.new_app()
    thread = _thread(site, "solved")
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.fire(upvote, post=thread.accepted)
    assert app.state_view()["replies"][thread.accepted]["upvoters"] == []
    assert "vote" in app.ui.flash.lower(), "a guest is asked to sign in"
    user = _newcomer(site)
    _signin(app, site, user)
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    post = next(p for p in site.spec.entities["posts"] if p.id == thread.accepted)
    rep = app.state_view()["members"][post.author]["reputation"]
    button = app.page().affordance(f"upvote:{post.id}")
    assert button.handler == "upvote"
    app.dispatch(button.click_event())
    state = app.state_view()
    assert state["replies"][post.id]["upvoters"] == [user] and state["thread"]["accepted_voted"]
    assert state["replies"][post.id]["votes"] == post.votes + 1
    assert state["members"][post.author]["reputation"] == rep + 10
    app.fire(upvote, post=post.id)  # once per member
    assert app.state_view()["replies"][post.id]["votes"] == post.votes + 1
    undo = app.page().affordance(f"upvote:{post.id}")
    assert undo.handler == "withdraw_vote"
    app.dispatch(undo.click_event())
    state = app.state_view()
    assert state["replies"][post.id]["upvoters"] == []
    assert state["replies"][post.id]["votes"] == post.votes
    assert state["members"][post.author]["reputation"] == rep
    locked = _thread(site, "locked")
    app.fire(upvote, post=locked.id)
    app.fire(upvote, post="P-nope")
    assert app.state_view()["threads"][locked.id]["upvoters"] == [] and not app.errors


def test_a_vote_moves_reputation_by_its_transition_alone():
    site = _site()
    forum = ForumApp.context_of(site.spec)
    thread = _thread(site, "solved")
    post = forum.state.replies[thread.accepted]
    rep = forum.state.members[post.author].reputation
    upvote(forum, post=post.id)  # a guest: asked to sign in, nothing counted
    assert post.votes == next(p.votes for p in site.spec.entities["posts"] if p.id == post.id)
    assert not post.upvoters and "vote" in forum.ui.flash.lower()
    forum.state.auth.user = _newcomer(site)
    upvote(forum, post=post.id)
    upvote(forum, post=post.id)  # once per member
    assert post.upvoters == {forum.state.auth.user}
    assert forum.state.members[post.author].reputation == rep + REP_PER_VOTE
    withdraw_vote(forum, post=post.id)
    assert not post.upvoters and forum.state.members[post.author].reputation == rep


def test_only_the_thread_author_accepts_an_answer():
    site = _site()
    app = site.new_app()
    thread = _thread(site, "open")
    replies = [p for p in site.spec.entities["posts"] if p.thread_id == thread.id]
    _signin(app, site, replies[0].author)  # a replier, not the author
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    assert not any(a.attr_map().get("role") == "accept" for a in app.page().affordances)
    app.fire(accept_answer, reply=replies[0].id)
    state = app.state_view()
    assert state["threads"][thread.id]["accepted"] == "" and not state["thread"]["mine"]
    _signin(app, site, thread.author)
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.fire(sort_replies, value="votes")
    top = max(replies, key=lambda p: p.votes)
    accept = _role(app, "accept")
    assert accept.attr_map()["rank"] == 1 and accept.attr_map()["post"] == top.id
    rep = app.state_view()["members"][top.author]["reputation"]
    app.dispatch(accept.click_event())
    state = app.state_view()
    assert state["threads"][thread.id]["accepted"] == top.id
    assert state["thread"]["solved"] and state["thread"]["accepted_votes_rank"] == 1
    assert state["members"][top.author]["reputation"] == rep + 15
    app.fire(unaccept_answer, reply=top.id)
    state = app.state_view()
    assert state["threads"][thread.id]["accepted"] == ""
    assert state["members"][top.author]["reputation"] == rep
    locked = _thread(site, "locked")
    app.dispatch(AppEvent(type="nav", path=f"/t/{locked.id}"))
    assert app.state_view()["thread"]["locked"] and not app.state_view()["thread"]["can_reply"]


def test_reply_edit_and_delete_own_reply():
    site = _site(validation="async", form_mode="inline")
    app = site.new_app()
    thread = _thread(site, "unanswered")
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.fire(post_reply, values={"reply": "Guest reply here!"})
    assert app.state_view()["thread"]["replies"] == 0, "guests cannot reply"
    assert "Sign in to reply" in _html(app) or "Log in" in _html(app)
    user = _newcomer(site)
    _signin(app, site, user)
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.fire(set_field, form="reply", name="body", value="Too short", type="input")
    app.fire(post_reply, values={})
    assert app.state_view()["feedback"]["reply_errors"] == {"body": "reply_short"}
    text = "<b>Restart</b> the sync service & try again"
    app.fire(set_field, form="reply", name="body", value=text, type="input")
    app.fire(post_reply, values={})
    state = app.state_view()
    pid = app.queries.my_reply(thread.id).id
    assert state["replies"][pid] | {"id": pid} == {
        "id": pid,
        "thread": thread.id,
        "author": user,
        "body": text,
        "edited": False,
        "upvoters": [],
        "bold": False,
        "italic": False,
        "created": NOW_STAMP,
        "votes": 0,
    }
    assert state["thread"]["my_reply"] == text and not state["thread"]["can_reply"]
    assert state["members"][user]["posts"] == 1
    html = _html(app)
    assert "<b>Restart</b>" not in html
    assert "&lt;b&gt;Restart&lt;/b&gt; the sync service &amp;" in html
    app.fire(post_reply, values={"reply": "A second one."})
    assert app.state_view()["thread"]["replies"] == 1, "one reply per member and thread"

    app.fire(UI_TOGGLE, key=f"actions:{pid}")
    app.fire(UI_TOGGLE, key=f"edit:{pid}")
    assert any(a.sid == "field:edit_reply.body" for a in app.page().affordances)
    app.fire(type_edit, reply=pid, value="Edited: restart it.", type="input")
    app.fire(edit_reply, values={"edit_body": "Edited: restart it."})
    reply = app.state_view()["replies"][pid]
    assert reply["body"] == "Edited: restart it." and reply["edited"]
    assert f"edit:{pid}" not in app.ui.open

    app.fire(UI_TOGGLE, key=f"actions:{pid}")
    app.dispatch(_role(app, "delete").click_event())
    app.dispatch(_role(app, "confirm-delete").click_event())
    state = app.state_view()
    assert pid not in state["replies"], "a deleted reply is gone from the table"
    assert not state["thread"]["has_my_reply"] and state["thread"]["replies"] == 0
    assert state["ui"]["modal"] == "" and state["members"][user]["posts"] == 0


def test_others_replies_and_accepted_answers_cannot_be_deleted():
    site = _site()
    app = site.new_app()
    thread = _thread(site, "solved")
    accepted = next(p for p in site.spec.entities["posts"] if p.id == thread.accepted)
    other = next(
        p
        for p in site.spec.entities["posts"]
        if p.thread_id == thread.id and p.author != accepted.author
    )
    _signin(app, site, accepted.author)
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    for pid in (accepted.id, other.id):
        app.fire(delete_reply, reply=pid)
    assert app.state_view()["thread"]["replies"] == thread.replies and not app.errors


def test_sync_validation_updates_only_the_error_region_while_typing():
    site = _site(validation="sync")
    app = site.new_app()
    _signin(app, site, _newcomer(site))
    app.dispatch(AppEvent(type="nav", path="/new"))
    app.mount_payload()
    typing = {"sid": "field:new_thread.title", "type": "input"}
    title = set_field.bind(form="new_thread", name="title")
    patch = app.fire(title, value="Short", **typing)
    assert set(patch.regions) == {"err:field:new_thread.title"}
    assert "15" in patch.regions["err:field:new_thread.title"]
    patch = app.fire(title, value="A long enough title here", **typing)
    assert patch.regions == {"err:field:new_thread.title": ""}


def test_async_validation_waits_for_submit():
    site = _site(validation="async")
    app = site.new_app()
    _signin(app, site, _newcomer(site))
    app.dispatch(AppEvent(type="nav", path="/new"))
    app.fire(set_field, form="new_thread", name="title", value="Short", type="input")
    assert app.state_view()["feedback"]["new_thread_errors"] == {}
    app.fire(start_thread, values={})
    assert set(app.state_view()["feedback"]["new_thread_errors"]) == {"title", "category", "body"}


def test_new_thread_is_a_new_record_listed_first():
    site = _site()
    app = site.new_app()
    user = _newcomer(site)
    _signin(app, site, user)
    app.dispatch(AppEvent(type="nav", path="/new"))
    category = site.spec.entities["categories"][0].slug
    app.fire(set_choice, name="category", value=category)
    app.fire(set_choice, name="tag", value="no-such-tag")
    app.fire(toggle_format, editor="body", style="bold", on=True)
    body = "Exports stopped including attachments after the update to 5.1 yesterday."
    patch = app.fire(start_thread, values={"title": "Exports lose attachments", "body": body})
    state = app.state_view()
    tid = state["thread"]["id"]
    assert patch.route == f"/t/{tid}" and app.known_route(patch.route) and state["thread"]["mine"]
    assert tid not in {t.id for t in site.spec.entities["threads"]}
    made = state["threads"][tid]
    assert (made["title"], made["category"], made["tag"], made["body"]) == (
        "Exports lose attachments",
        category,
        "",
        body,
    )
    assert made["author"] == user and made["bold"] and not made["italic"]
    app.dispatch(AppEvent(type="nav", path=f"/c/{category}"))
    assert app.queries.listing(category)[0].id == tid
    app.dispatch(AppEvent(type="nav", path=f"/u/{user}"))
    assert app.state_view()["profile"]["posts"] == 1
    assert app.state_view()["profile"]["threads"] == 1


def test_validation_rules():
    base = {
        "title": "Sync keeps failing on Linux",
        "category": "sync",
        "tag": "",
        "body": "It stops after five minutes every single time, on every device.",
    }
    kw = {"titles": {"existing title here"}, "categories": {"sync"}, "tags": {"linux"}}
    assert validate_thread(base, **kw) == {}
    assert validate_thread(base, strict=True, **kw) == {"tag": "tag"}
    assert validate_thread({**base, "title": "Existing title HERE"}, **kw) == {
        "title": "title_taken"
    }
    assert validate_thread({**base, "title": "Too short"}, **kw) == {"title": "title_short"}
    assert validate_thread({**base, "category": "billing", "tag": "nope"}, **kw) == {
        "category": "category",
        "tag": "tag",
    }
    assert validate_thread({**base, "body": "Tiny."}, **kw) == {"body": "body_short"}
    assert validate_reply("  fifteen chars!!  ") == {}
    assert validate_reply("fifteen chars!!", strict=True) == {"body": "reply_short"}
    assert validate_signin({"username": "a", "password": " "}) == {"password": "required"}


# ------------------------------------------------------------- the state model
def test_the_state_declares_what_goals_may_pin():
    schema = generate_site("forum", 0).family.schema
    assert schema.pinned(("threads", "T1", "accepted"))
    assert schema.pinned(("replies", "P1", "body")) and schema.pinned(("replies", "P1", "edited"))
    assert schema.pinned(("replies", "P1", "upvoters")) and schema.pinned(("auth", "user"))
    assert not schema.pinned(("replies", "P1", "votes")), "vote counts are bookkeeping"
    assert not schema.pinned(("replies", "P1", "created")), "timestamps are bookkeeping"
    assert not schema.pinned(("members", "u", "reputation")), "reputation follows from votes"
    assert not schema.pinned(("forms", "reply")), "drafts are never pinned"
    assert not schema.pinned(("browsing", "reply_sort")), "how the page looks is never pinned"
    assert not schema.pinned(("thread", "accepted_author")), "page facts are never pinned"
    assert schema.node(("replies", "*", "body")).source == "forms.reply.body"
    assert schema.node(("threads", "*", "tag")).source == "forms.new_thread.tag"
    assert schema.node(("activity", "reported")).history


def test_state_is_built_from_the_model_and_secrets_never_reach_it():
    site = _site()
    app = site.new_app()
    state = app.state_view()
    entities = site.spec.entities
    assert set(state["threads"]) == {t.id for t in entities["threads"]}
    assert set(state["replies"]) == {p.id for p in entities["posts"]}
    assert set(state["members"]) == {u.username for u in entities["users"]}
    app.dispatch(AppEvent(type="nav", path="/signin"))
    app.fire(set_field, form="signin", name="password", value="s3cret-pass-99", type="input")
    assert "s3cret-pass-99" not in json.dumps(app.state_view())
    assert app.state_view()["forms"]["signin"]["password_given"] is True
    assert all(u.password not in json.dumps(app.state_view()) for u in entities["users"])


def test_reports_and_follows_leave_a_trace():
    site = _site(distractors="many")
    app = site.new_app()
    thread = _thread(site, "open")
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.dispatch(app.page().affordance(f"report:{thread.id}").click_event())
    app.dispatch(app.page().affordance(f"follow:{thread.id}").click_event())
    activity = app.state_view()["activity"]
    assert activity == {"reported": [thread.id], "following": [thread.id]}
    unfollow = app.page().affordance(f"follow:{thread.id}")
    assert unfollow.handler == "unfollow_thread"
    app.dispatch(unfollow.click_event())
    assert app.state_view()["activity"]["following"] == []


def test_transitions_report_what_fired():
    site = _site()
    app = site.new_app()
    app.take_fired()
    _signin(app, site, _newcomer(site))
    assert app.take_fired() == ("nav", "sign_in")
    app.fire(sign_out)
    assert app.take_fired() == ("sign_out",)


# ------------------------------------------------------------------- robustness
def test_generated_and_user_text_is_escaped():
    site = _site()
    evil = "<script>alert(1)</script>\"'&"
    threads = site.spec.entities["threads"]
    spec = dataclasses.replace(
        site.spec,
        brand=evil,
        entities={
            **site.spec.entities,
            "threads": (dataclasses.replace(threads[0], title=evil, body=evil), *threads[1:]),
        },
    )
    app = dataclasses.replace(site, spec=spec).new_app()
    for route in ("/", "/threads", f"/t/{threads[0].id}"):
        html = "".join(app.render(route).regions.values())
        assert "<script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#x27;&amp;" in html


def test_bad_events_are_ignored_and_unknown_routes_are_404():
    site = _site()
    app = site.new_app()
    before = app.state_view()
    for transition, args in (  # what the page never offers: ignored
        (accept_answer, {"reply": "P0000000"}),
        (delete_reply, {"reply": ""}),
        (edit_reply, {"values": {"edit_body": "x" * 50}}),
        (start_thread, {"values": {"title": "x" * 40}}),
        (set_field, {"form": "reply", "name": "nope", "value": "x", "type": "input"}),
        (type_edit, {"reply": "P0000000", "value": "x", "type": "input"}),
        (set_choice, {"name": "category", "value": "<b>"}),
        (sort_replies, {"value": "random"}),
        (report_post, {"post": "nothing"}),
        (follow_thread, {"thread": "nothing"}),
        (turn_page, {"page": -1}),
    ):
        app.fire(transition, **args)
    assert not app.errors
    for handler, malformed in (  # arguments the page never sends: refused
        ("set_field", "form=nope&name=nope"),
        ("sort_members", "column=password&order=asc"),
        ("toggle_format", "editor=reply&style=underline&on=true"),
        ("accept_answer", None),
    ):
        app.dispatch(AppEvent(type="click", handler=handler, arg=malformed))
    assert [e["kind"] for e in app.errors] == ["bad_argument"] * 4
    after = app.state_view()
    assert {k: v for k, v in after.items() if k != "ui"} == {
        k: v for k, v in before.items() if k != "ui"
    }
    assert app.render("/t/TNOTHING").status == 404 and app.render("/u/nobody").status == 404
    assert app.render("/c/nope").status == 404 and app.render("/threads?x=1").status == 404


def test_members_directory_sorts_by_every_column():
    site = _site()
    app = site.new_app()
    app.dispatch(AppEvent(type="nav", path="/users"))
    sort = next(
        a for a in app.page().affordances if a.kind == "Sort" and a.attr_map()["key"] == "joined"
    )
    app.dispatch(sort.click_event())
    first = next(a for a in app.page().affordances if a.attr_map().get("rank") == 1)
    oldest = min(site.spec.entities["users"], key=lambda u: u.joined)
    assert app.state_view()["browsing"]["members_sort"] == "joined-asc"
    assert first.attr_map()["username"] == oldest.username


def test_a_failed_dialog_change_closes_the_dialog_and_can_be_retried():
    site = _site(form_mode="modal")
    app = site.new_app()
    thread = _thread(site, "open")
    mine = next(p for p in site.spec.entities["posts"] if p.thread_id == thread.id)
    _signin(app, site, mine.author)
    app.dispatch(AppEvent(type="nav", path=f"/t/{thread.id}"))
    app.fire(UI_MODAL, name=f"edit:{mine.id}")
    app.fire(type_edit, reply=mine.id, value="Better text, with the fix.", type="input")
    app._inject_error = lambda: True  # the server refuses the next change
    values = {"edit_body": "Better text, with the fix."}
    app.fire(edit_reply, values=values)
    del app._inject_error
    state = app.state_view()
    assert state["server"]["error"] and state["ui"]["modal"] == "", "the Retry is not hidden"
    assert state["replies"][mine.id]["body"] == mine.body
    assert any(a.sid == "retry" for a in app.page().affordances)
    app.fire(retry)
    assert app.state_view()["replies"][mine.id]["body"] == "Better text, with the fix."


def test_regions_nested_in_a_re_sent_region_are_sent_with_it():
    site = _site(validation="async")
    app = site.new_app()
    _signin(app, site, _newcomer(site))
    app.dispatch(AppEvent(type="nav", path="/new"))
    app.mount_payload()
    app.fire(start_thread, values={"title": "Short"})
    category = site.spec.entities["categories"][0].slug
    patch = app.fire(set_choice, name="category", value=category)
    # `main` is re-sent, so the unchanged title error must come along (or it would vanish)
    assert "main" in patch.regions and "15" in patch.regions["err:field:new_thread.title"]
    app.dispatch(AppEvent(type="nav", path="/threads"))
    patch = app.fire(filter_threads, name="status", value="solved")
    assert {"main", "threads"} <= set(patch.regions)
