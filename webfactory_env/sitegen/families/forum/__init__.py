"""`forum`: a product support community.

Description
    Categories; thread lists with search, tag and status filters, a date filter, sort
    and pagination (or an infinite list); threads whose replies members upvote and whose
    author accepts one as the answer; one's own reply to edit or delete; member profiles
    and a sortable member directory; sign-in. Distractors: a sponsored row leading to an
    advert, "report" and "follow" buttons. The forum has no back door.

Entities (`content.py`)
    Category, Tag, User (an account, with its password), Thread (its question post has
    the thread's id, `T…`), Post (a reply, `P…`).

Pages (`views/`)
    home, list (/threads, /c/<category>), thread (/t/<id>), profile (/u/<username>),
    members (/users), signin, new_thread (/new), pro.

State paths (`state.py`, `webfactory schema --family forum` lists them all)
    members.<username>.{name, role, joined}                              entities
    threads.<id>.{title, category, tag, body, author, locked, accepted, upvoters, ...}
    replies.<id>.{thread, author, body, edited, upvoters, bold, italic}
    auth.user, activity.{reported, following}                            session
    forms.{signin, reply, edit_reply, new_thread}, editors.{reply, body} drafts
    browsing.{lists, scope, reply_sort, members_sort}, feedback.*        view
    listing, thread, profile, auth.signed_in                             page facts
    (`thread` is the open thread, `profile` the open member: `OPEN` aliases)

Queries (`queries.py`: `ForumQueries`, and `facts` of the visitor's page)
    lists, threads, replies and members as the pages show them; the page facts.

Transitions (`transitions/`: `lists`, `forms`, `posts`; functions over the context)
    type_query, search_threads, filter_threads, sort_threads, set_since, clear_since,
    turn_page, sort_replies, sort_members, set_field, set_choice, toggle_format, sign_in,
    sign_out, upvote, withdraw_vote, accept_answer, unaccept_answer, post_reply,
    type_edit, edit_reply, delete_reply, start_thread, report_post, follow_thread,
    unfollow_thread.

Tasks
    `dsl/tasks/forum/*.task`.

Who may import this package: the site registry (through `FAMILY`) and the tests.
"""

from __future__ import annotations

from webfactory_env.sitegen.families.forum.app import ForumApp
from webfactory_env.sitegen.families.forum.content import FAMILY_VERSION, generate
from webfactory_env.sitegen.registry import Family, register_family

FAMILY = Family(
    name="forum",
    version=FAMILY_VERSION,
    description="A product support forum: categories, thread lists with search, filters, "
    "sort and pagination, threads with votes and accepted answers, replies you can edit and "
    "delete, member profiles and directory, sign-in.",
    generate=generate,
    app_class=ForumApp,
    kinds=(
        "Button",
        "Choice",
        "DatePicker",
        "Day",
        "Editor",
        "Field",
        "Filter",
        "Form",
        "Item",
        "Link",
        "More",
        "Option",
        "Sort",
        "Tab",
    ),
)
register_family(FAMILY)

__all__ = ["FAMILY", "ForumApp", "generate"]
