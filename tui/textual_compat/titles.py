"""A border's title changed without the widget drawn again: piece ``title-rows``.

Textual's ``border_title`` (and ``border_subtitle``) setter refreshes the whole widget, whatever
changed, even when the title is the one it had: every line of a list is rendered again for a count
in its title.  The lobby's Online title counts the players, so each arrival made every lobby screen
render its lists whole (``benchmarks/session_start.py``).  :func:`set_border_title` stores the title
as Textual's setter does and leaves the drawing to the caller, who repaints the border's row alone
(:meth:`tui.widgets.menu.Menu.set_title`); where the piece is off it is Textual's setter.
"""

from __future__ import annotations

import inspect
from typing import Any

from textual.widget import Widget

from tui.textual_compat.gate import enabled, private

_BorderTitle: Any = private("textual.widget", "_BorderTitle")


def set_border_title(widget: Widget, title: str, *, subtitle: bool = False) -> bool:
    """Give ``widget`` the border title (``subtitle``: the subtitle) ``title``, as Textual's setter
    would store it; True when it differs from the one it had (the caller repaints the border's row).
    Where the piece is off, Textual's own setter, which refreshes the whole widget (then True too)."""
    attribute = "border_subtitle" if subtitle else "border_title"
    stored = f"_{attribute}"
    if (not enabled("title-rows") or _BorderTitle is None or not hasattr(widget, stored)
            or not isinstance(inspect.getattr_static(type(widget), attribute, None), _BorderTitle)):
        setattr(widget, attribute, title)
        return True
    # (Textual's _BorderTitle.__set__, but for its refresh)
    new = widget.render_str(title).expand_tabs(4).split()[0]
    old = getattr(widget, stored)
    if old is not None and old.plain == new.plain and old.spans == new.spans:
        return False
    setattr(widget, stored, new)
    return True
