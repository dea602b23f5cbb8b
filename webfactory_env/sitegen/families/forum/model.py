"""The transitions events cause in the forum: the only place its rules live.

`ForumState` (in `state.py`) is what a goal can pin (members, threads and replies by id,
who is signed in) next to what it never pins (drafts, the lists' controls). Every event
the pages send is one transition below, named like the event, with its effect declared
once in its decorator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from webfactory_env.core.predicates import All, Contains, Eq, Exists, Has, Not, Predicate, Ref
from webfactory_env.core.seeding import short_hash
from webfactory_env.sitegen.binding import FormField, SortOrder, transition
from webfactory_env.sitegen.families.forum.content import NOW_STAMP, REPLY_PREFIX, THREAD_PREFIX
from webfactory_env.sitegen.families.forum.queries import ForumQueries, table_of
from webfactory_env.sitegen.families.forum.rules import (
    EDIT_LIMIT,
    FIELD_LIMITS,
    is_date,
    validate_reply,
    validate_signin,
    validate_thread,
)
from webfactory_env.sitegen.families.forum.state import Discussion, Reply, ThreadList
from webfactory_env.sitegen.spec import AppEvent

SORTS = ("newest", "votes", "replies")
STATUSES = ("", "solved", "unsolved")
REPLY_SORTS = ("oldest", "votes")
MemberColumn = Literal["name", "joined", "reputation", "posts"]
Style = Literal["bold", "italic"]
REP_PER_VOTE = 10
REP_PER_ACCEPT = 15


def _upvoted(post: str) -> Predicate:
    """The post (a thread's question or a reply) has the signed-in member's vote."""
    return Contains((table_of(post), post, "upvoters"), Ref("state:auth.user"))


def _accepted(reply: str) -> Predicate:
    """The reply is its thread's accepted answer (an effect knows only the reply, and
    only the thread it answers can accept it)."""
    return Exists(("threads",), Eq(("accepted",), reply))


def _field_effect(form: str, name: str) -> Predicate:
    if (form, name) == ("signin", "password"):  # the right password, not any: the view says which
        return Eq(("forms", "signin", "password_ok"), True)
    return Eq(("forms", form, name), Ref("value"))


def _draft_field(form: str, name: str) -> FormField:
    return FormField(form, name, ("forms", form, name))


_NEW_REPLY = Exists(
    ("replies",),
    All(
        (
            Eq(("thread",), Ref("state:thread.id")),
            Eq(("author",), Ref("state:auth.user")),
            Eq(("body",), Ref("state:forms.reply.body|strip")),
        )
    ),
)
_EDITED_REPLY = Exists(
    ("replies",),
    All(
        (
            Eq(("id",), Ref("state:forms.edit_reply.post")),
            Eq(("body",), Ref("state:forms.edit_reply.body|strip")),
            Eq(("edited",), True),
        )
    ),
)
_NEW_THREAD = Exists(
    ("threads",),
    All(
        (
            Eq(("title",), Ref("state:forms.new_thread.title|strip")),
            Eq(("category",), Ref("state:forms.new_thread.category")),
            Eq(("tag",), Ref("state:forms.new_thread.tag")),
            Eq(("body",), Ref("state:forms.new_thread.body|strip")),
            Eq(("author",), Ref("state:auth.user")),
        )
    ),
)


class ForumModel(ForumQueries):
    """The forum's transitions (no HTML here)."""

    # ----------------------------------------------------- list transitions
    def _list_here(self) -> tuple[str, ThreadList] | None:
        scope = self.list_at(self.route)
        if scope is None:
            return None
        return scope, self.model.browsing.lists.setdefault(scope, ThreadList())

    def _list_changed(self, scope: str, ls: ThreadList) -> None:
        ls.page = 1
        self.ui.more.pop(f"threads:{scope}", None)

    @transition(
        effect=lambda: Eq(("listing", "draft"), Ref("value")),
        field=lambda: FormField("search", "q"),  # the draft of the list the page shows
    )
    def type_query(self, ev: AppEvent) -> str | None:
        here = self._list_here()
        if here is not None:
            here[1].draft = (ev.value or "")[:100]
        return None

    @transition(
        effect=lambda: Eq(("listing", "query"), Ref("state:listing.draft|strip")),
    )
    def search_threads(self, ev: AppEvent) -> str | None:
        here = self._list_here()
        if here is None:
            return None
        scope, ls = here
        if ev.values is not None and "q" in ev.values:
            ls.draft = ev.values["q"][:100]
        ls.query = ls.draft.strip()
        self._list_changed(scope, ls)
        return None

    @transition(effect=lambda name: Eq(("listing", name), Ref("value")))
    def filter_threads(self, ev: AppEvent, *, name: Literal["tag", "status"]) -> str | None:
        here = self._list_here()
        if here is None:
            return None
        scope, ls = here
        value = ev.value or ""
        if name == "tag" and (value == "" or value in self.scope_tags(scope)):
            ls.tag = value
        elif name == "status" and value in STATUSES:
            ls.status = value
        else:
            return None
        self._list_changed(scope, ls)
        return None

    @transition(effect=lambda: Eq(("listing", "sort"), Ref("value")))
    def sort_threads(self, ev: AppEvent) -> str | None:
        here = self._list_here()
        if here is not None and ev.value in SORTS:
            here[1].sort = ev.value
            self._list_changed(*here)
        return None

    @transition(effect=lambda: Eq(("listing", "since"), Ref("value")))
    def set_since(self, ev: AppEvent) -> str | None:
        here = self._list_here()
        value = (ev.value or "").strip()
        if here is None or not is_date(value):
            return None  # a date still being typed, or not a date: ignored
        here[1].since = value
        self._list_changed(*here)
        return None

    @transition(effect=lambda: Eq(("listing", "since"), ""))
    def clear_since(self, ev: AppEvent) -> str | None:
        here = self._list_here()
        if here is not None and here[1].since:
            here[1].since = ""
            self._list_changed(*here)
        return None

    @transition(effect=lambda page: Eq(("listing", "page"), page))
    def turn_page(self, ev: AppEvent, *, page: int) -> str | None:
        here = self._list_here()
        if here is None:
            return None
        scope, ls = here
        if 1 <= page <= self.pages(len(self.listing(scope))):
            ls.page = page
        return None

    @transition(effect=lambda: Eq(("browsing", "reply_sort"), Ref("value")))
    def sort_replies(self, ev: AppEvent) -> str | None:
        if ev.value in REPLY_SORTS:
            self.model.browsing.reply_sort = ev.value
        return None

    @transition(effect=lambda column, order: Eq(("browsing", "members_sort"), f"{column}-{order}"))
    def sort_members(self, ev: AppEvent, *, column: MemberColumn, order: SortOrder) -> str | None:
        self.model.browsing.members_sort = f"{column}-{order}"
        return None

    # ----------------------------------------------------- form transitions
    def _validate(self, form: str) -> dict[str, str]:
        forms = self.model.forms
        if form == "signin":
            return validate_signin(
                {"username": forms.signin.username, "password": forms.signin.password}
            )
        if form == "reply":
            return validate_reply(forms.reply["body"], self.strict)
        if form == "edit_reply":
            return validate_reply(forms.edit_reply.body, self.strict)
        return validate_thread(
            forms.new_thread,
            titles={t.title.lower() for t in self.model.threads.values()},
            categories=set(self.cat_by_slug),
            tags=set(self.tag_slugs),
            strict=self.strict,
        )

    def errors_of(self, form: str) -> dict[str, str]:
        feedback = self.model.feedback
        return {
            "signin": feedback.signin_errors,
            "reply": feedback.reply_errors,
            "edit_reply": feedback.edit_errors,
            "new_thread": feedback.new_thread_errors,
        }[form]

    def _revalidate(self, form: str, name: str) -> None:
        """With sync validation a field's error follows what is typed into it."""
        if self.v.validation != "sync":
            return
        found = self._validate(form).get(name)
        errors = self.errors_of(form)
        if found:
            errors[name] = found
        else:
            errors.pop(name, None)

    def _set_errors(self, form: str, errors: Mapping[str, str]) -> None:
        current = self.errors_of(form)
        current.clear()
        current.update(errors)

    @transition(effect=_field_effect, field=_draft_field)
    def set_field(
        self, ev: AppEvent, *, form: Literal["signin", "reply", "new_thread"], name: str
    ) -> str | None:
        """Typing in a field of the sign-in, reply or new-thread form."""
        limit = FIELD_LIMITS.get(f"{form}.{name}")
        if limit is None:
            return None
        value = (ev.value or "")[:limit]
        forms = self.model.forms
        if form == "signin":
            if name == "password":
                forms.signin.password, forms.signin.password_given = value, bool(value)
            else:
                forms.signin.username = value
            if name == "password" or forms.signin.password:  # one signed in with stays
                self._check_password()
        else:
            getattr(forms, form)[name] = value
        self._revalidate(form, name)
        return None

    def _check_password(self) -> None:
        """Whether the password typed is that of the account the username names."""
        draft = self.model.forms.signin
        account = self.accounts.get(draft.username.strip().lower())
        draft.password_ok = bool(draft.password) and draft.password == getattr(
            account, "password", None
        )

    @transition(
        effect=lambda name: Eq(("forms", "new_thread", name), Ref("value")),
        field=lambda name: _draft_field("new_thread", name),
    )
    def set_choice(self, ev: AppEvent, *, name: Literal["category", "tag"]) -> str | None:
        """Choosing the new thread's category or tag."""
        value = ev.value or ""
        allowed = {"category": set(self.cat_by_slug), "tag": set(self.tag_slugs)}
        if value == "" or value in allowed[name]:
            self.model.forms.new_thread[name] = value
            self._revalidate("new_thread", name)
        return None

    @transition(effect=lambda editor, style, on: Eq(("editors", editor, style), on))
    def toggle_format(
        self, ev: AppEvent, *, editor: Literal["reply", "body"], style: Style, on: bool
    ) -> str | None:
        """Turn bold or italic on or off in the reply's or the new thread's editor."""
        setattr(getattr(self.model.editors, editor), style, on)
        return None

    # ---------------------------------------------------- account transitions
    @transition(
        mutating=True,
        effect=lambda: Eq(("auth", "user"), Ref("state:forms.signin.username|strip")),
    )
    def sign_in(self, ev: AppEvent) -> str | None:
        draft = self.model.forms.signin
        if ev.values is not None:
            if "username" in ev.values:
                draft.username = ev.values["username"][:60]
            # An empty submitted password keeps what was typed: a password input that was
            # re-rendered is empty, since a password is never echoed into the page.
            if ev.values.get("password"):
                draft.password = ev.values["password"][:200]
                draft.password_given = True
                self._check_password()
        errors = self._validate("signin")
        account = self.accounts.get(draft.username.strip().lower())
        if not errors and (account is None or account.password != draft.password):
            errors["_form"] = "credentials"
            draft.password, draft.password_given = "", False  # a wrong password is not kept
            draft.password_ok = False
        self._set_errors("signin", errors)
        if errors or account is None:
            return None
        self.model.auth.user = account.username
        self.flash = self.copy("signin.welcome", name=account.display_name)
        back = self.model.browsing.return_to
        return back if self.known_route(back) and back != "/signin" else "/"

    @transition(mutating=True, effect=lambda: Eq(("auth", "user"), ""))
    def sign_out(self, ev: AppEvent) -> str | None:
        self.model.auth.user = ""
        self.flash = self.copy("signin.bye")
        return "/" if self.route == "/new" else None

    # ----------------------------------------------------- thread transitions
    def _votable(self, pid: str) -> Discussion | Reply | None:
        """The post `pid` if the signed-in member may vote on it (not their own, not in a
        locked thread); a guest is told to sign in."""
        post: Discussion | Reply | None = self.model.threads.get(pid) or self.model.replies.get(pid)
        if post is None:
            return None
        if not self.user:
            self.flash = self.copy("thread.signin_to_vote")
            return None
        thread = post if isinstance(post, Discussion) else self.model.threads[post.thread]
        if thread.locked or post.author == self.user:
            return None
        return post

    @transition(mutating=True, effect=_upvoted)
    def upvote(self, ev: AppEvent, *, post: str) -> str | None:
        found = self._votable(post)
        if found is not None and self.user not in found.upvoters:
            found.upvoters.add(self.user)
            found.votes += 1
            self.member(found.author).reputation += REP_PER_VOTE
        return None

    @transition(mutating=True, effect=lambda post: Not(_upvoted(post)))
    def withdraw_vote(self, ev: AppEvent, *, post: str) -> str | None:
        found = self._votable(post)
        if found is not None and self.user in found.upvoters:
            found.upvoters.discard(self.user)
            found.votes -= 1
            self.member(found.author).reputation -= REP_PER_VOTE
        return None

    def _acceptable(self, pid: str) -> Discussion | None:
        """The thread of reply `pid` if the signed-in member may mark its answer."""
        reply = self.model.replies.get(pid)
        if reply is None:
            return None
        t = self.model.threads[reply.thread]
        if not self.user or t.author != self.user or t.locked:
            return None
        return t

    def _mark_accepted(self, t: Discussion, pid: str) -> None:
        for old, new in ((t.accepted, -REP_PER_ACCEPT), (pid, REP_PER_ACCEPT)):
            if old:
                self.member(self.model.replies[old].author).reputation += new
        t.accepted = pid

    @transition(mutating=True, effect=_accepted)
    def accept_answer(self, ev: AppEvent, *, reply: str) -> str | None:
        t = self._acceptable(reply)
        if t is not None and t.accepted != reply:
            self._mark_accepted(t, reply)
            self.flash = self.copy("thread.accepted_note")
        return None

    @transition(mutating=True, effect=lambda reply: Not(_accepted(reply)))
    def unaccept_answer(self, ev: AppEvent, *, reply: str) -> str | None:
        t = self._acceptable(reply)
        if t is not None and t.accepted == reply:
            self._mark_accepted(t, "")
        return None

    def _new_id(self, prefix: str, text: str) -> str:
        self.made += 1
        return prefix + short_hash(f"{self.spec.seed}|{text}|new|{self.made}", 7)

    def _count_post(self, username: str, delta: int, *, thread: bool = False) -> None:
        m = self.member(username)
        m.posts += delta
        if thread:
            m.threads += delta

    @transition(mutating=True, effect=lambda: _NEW_REPLY)
    def post_reply(self, ev: AppEvent) -> str | None:
        t = self.thread_at(self.route)
        if t is None or not self.user or t.locked or self.my_reply(t.id) is not None:
            return None
        draft = self.model.forms.reply
        if ev.values is not None and "reply" in ev.values:
            draft["body"] = ev.values["reply"][: FIELD_LIMITS["reply.body"]]
        errors = self._validate("reply")
        self._set_errors("reply", errors)
        if errors:
            return None
        style = self.model.editors.reply
        reply = Reply(
            id=self._new_id(REPLY_PREFIX, f"post:{t.id}:{self.user}"),
            thread=t.id,
            author=self.user,
            body=draft["body"].strip(),
            bold=style.bold,
            italic=style.italic,
            created=NOW_STAMP,
        )
        self.model.replies[reply.id] = reply
        self.thread_replies.setdefault(t.id, []).append(reply.id)
        self._count_post(self.user, +1)
        # The draft stays as it was (the composer is gone once one has replied): what was
        # typed is still what was typed, so progress made by typing it is not undone.
        self.flash = self.copy("thread.replied")
        return None

    @transition(
        effect=lambda reply: Eq(("forms", "edit_reply", "body"), Ref("value")),
        field=lambda reply: FormField("edit_reply", "edit_body", ("forms", "edit_reply", "body")),
    )
    def type_edit(self, ev: AppEvent, *, reply: str) -> str | None:
        """Typing in the inline editor of one's own reply."""
        found = self.model.replies.get(reply)
        if found is not None and self.user and found.author == self.user:
            draft = self.model.forms.edit_reply
            draft.post, draft.body = found.id, (ev.value or "")[:EDIT_LIMIT]
            self._revalidate("edit_reply", "body")
        return None

    @transition(mutating=True, effect=lambda: _EDITED_REPLY)
    def edit_reply(self, ev: AppEvent) -> str | None:
        t = self.thread_at(self.route)
        reply = self.my_reply(t.id) if t is not None else None
        if t is None or reply is None or t.locked:
            return None
        draft = self.model.forms.edit_reply
        if draft.post != reply.id:
            draft.post, draft.body = reply.id, reply.body
        if ev.values is not None and "edit_body" in ev.values:
            draft.body = ev.values["edit_body"][:EDIT_LIMIT]
        errors = self._validate("edit_reply")
        self._set_errors("edit_reply", errors)
        if errors:
            return None
        reply.body, reply.edited = draft.body.strip(), True
        self.ui.open.discard(f"edit:{reply.id}")
        self.ui.open.discard(f"actions:{reply.id}")
        self.ui.modal = None
        self.flash = self.copy("thread.edited")
        return None

    @transition(mutating=True, effect=lambda reply: Not(Has(("replies", reply))))
    def delete_reply(self, ev: AppEvent, *, reply: str) -> str | None:
        found = self.model.replies.get(reply)
        if found is None or not self.user or found.author != self.user:
            return None
        t = self.model.threads[found.thread]
        if t.locked or t.accepted == found.id:
            return None
        del self.model.replies[found.id]
        self._count_post(found.author, -1)
        self.ui.open.discard(f"actions:{found.id}")
        self.ui.modal = None
        self.flash = self.copy("thread.deleted")
        return None

    @transition(mutating=True, effect=lambda: _NEW_THREAD)
    def start_thread(self, ev: AppEvent) -> str | None:
        if not self.user:
            return None
        draft = self.model.forms.new_thread
        values = ev.values or {}
        for name in ("title", "body"):
            if name in values:
                draft[name] = values[name][: FIELD_LIMITS[f"new_thread.{name}"]]
        for name, allowed in (("category", set(self.cat_by_slug)), ("tag", set(self.tag_slugs))):
            if values.get(name) in allowed:  # a native select's value; radios send DOM names
                draft[name] = values[name]
        errors = self._validate("new_thread")
        self._set_errors("new_thread", errors)
        if errors:
            return None
        title = draft["title"].strip()
        style = self.model.editors.body
        thread = Discussion(
            id=self._new_id(THREAD_PREFIX, f"thread:{title}"),
            title=title,
            category=draft["category"],
            tag=draft["tag"],
            body=draft["body"].strip(),
            author=self.user,
            bold=style.bold,
            italic=style.italic,
            tags=(draft["tag"],) if draft["tag"] else (),
            created=NOW_STAMP,
        )
        self.model.threads[thread.id] = thread
        self.order[thread.id] = len(self.order)
        self._count_post(self.user, +1, thread=True)
        self.flash = self.copy("new.posted")
        return f"/t/{thread.id}"

    # ------------------------------------------------ distractor transitions
    @transition(mutating=True, effect=lambda post: Contains(("activity", "reported"), post))
    def report_post(self, ev: AppEvent, *, post: str) -> str | None:
        reported = self.model.activity.reported
        if (post in self.model.threads or post in self.model.replies) and post not in reported:
            reported.add(post)
            self.flash = self.copy("thread.reported")
        return None

    @transition(mutating=True, effect=lambda thread: Contains(("activity", "following"), thread))
    def follow_thread(self, ev: AppEvent, *, thread: str) -> str | None:
        if thread in self.model.threads:
            self.model.activity.following.add(thread)
        return None

    @transition(
        mutating=True, effect=lambda thread: Not(Contains(("activity", "following"), thread))
    )
    def unfollow_thread(self, ev: AppEvent, *, thread: str) -> str | None:
        self.model.activity.following.discard(thread)
        return None
