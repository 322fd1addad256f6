"""Small helpers the widgets share."""

from __future__ import annotations

from textual.dom import DOMNode


def flag_classes(node: DOMNode, flags: dict[str, bool], *, descendants: bool = True) -> None:
    """Set or clear several classes with one restyle (and none when nothing changes).

    ``descendants=False``: restyle ``node`` alone, for classes no rule of a
    descendant selects on (e.g. ``#hand.-my-turn { background: ... }``).  The
    descendants still forget their cached colours and are repainted; only their
    CSS is not matched again, which is most of a restyle's cost.
    """
    changed = False
    for name, on in flags.items():
        if on != node.has_class(name):
            node.set_class(on, name, update=False)
            changed = True
    if not changed:
        return
    if descendants:
        node.update_node_styles()
        return
    try:
        stylesheet = node.app.stylesheet
    except Exception:  # no app (not mounted): nothing to restyle yet
        return
    stylesheet.update_nodes([node], animate=True)
    # A descendant caches its colours by its own styles: drop them, and repaint it.
    for child in node.walk_children(with_self=False):
        child.notify_style_update()
        child.refresh()
