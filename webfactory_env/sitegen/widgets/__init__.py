"""The widget library: every interactive building block a family composes, with typed affordances.

Each widget writes escaped HTML and records its affordances through the `Renderer`, so
its semantic description (kind, attributes, how it is operated, what it does to app
state) can never drift from its markup. Widgets hold no state: the app passes in what to
show (the value of a field, whether a menu is open, which month a calendar shows), and UI
state such as open menus lives in the app (`SiteApp.ui`), so rewards and the compiler see
exactly what the page shows. What an element does comes from the transition it is bound to
(`bind=`, a `sitegen.binding.Binding`): its handler, argument and effect, and for a form
field its semantic id, name, form and current value.

Choices come in four interchangeable styles (the `choice_widget` variation axis): a
native `<select>`, a radio group, a custom menu (a button that opens a list), or a
typeahead combobox (type to filter, or open the list). All of them report the same
`change` event to the app, so a family's transitions do not care which one
the page shows; the compiler plans the right clicks for each.

One module per kind of widget: `navigation`, `buttons`, `choices`, `fields`, `dates`,
`forms`, `listings`, `dragging`; families use them through this package (`widgets as w`).
"""

from webfactory_env.sitegen.widgets.buttons import button
from webfactory_env.sitegen.widgets.choices import checkbox_group, choice, toggle
from webfactory_env.sitegen.widgets.common import (
    UI_MODAL,
    UI_MONTH,
    UI_MORE,
    UI_QUERY,
    UI_TAB,
    UI_TOGGLE,
    sends,
)
from webfactory_env.sitegen.widgets.dates import date_picker, month_calendar
from webfactory_env.sitegen.widgets.dragging import draggable, drop_zone, file_drop
from webfactory_env.sitegen.widgets.fields import (
    SyntheticFile,
    file_upload,
    otp_field,
    password_field,
    rich_text,
    text_field,
    typeahead,
)
from webfactory_env.sitegen.widgets.forms import form, newsletter_promo, wizard_steps
from webfactory_env.sitegen.widgets.listings import (
    data_table,
    detail_view,
    load_more,
    pager,
    retry_banner,
)
from webfactory_env.sitegen.widgets.navigation import (
    MenuItem,
    accordion,
    breadcrumbs,
    link,
    modal,
    modal_opener,
    nested_menu,
    secondary_form,
    site_nav,
    tabs,
    toast,
)

__all__ = [
    "UI_MODAL",
    "UI_MONTH",
    "UI_MORE",
    "UI_QUERY",
    "UI_TAB",
    "UI_TOGGLE",
    "MenuItem",
    "SyntheticFile",
    "accordion",
    "breadcrumbs",
    "button",
    "checkbox_group",
    "choice",
    "data_table",
    "date_picker",
    "detail_view",
    "draggable",
    "drop_zone",
    "file_drop",
    "file_upload",
    "form",
    "link",
    "load_more",
    "modal",
    "modal_opener",
    "month_calendar",
    "nested_menu",
    "newsletter_promo",
    "otp_field",
    "pager",
    "password_field",
    "retry_banner",
    "rich_text",
    "secondary_form",
    "sends",
    "site_nav",
    "tabs",
    "text_field",
    "toast",
    "toggle",
    "typeahead",
    "wizard_steps",
]
