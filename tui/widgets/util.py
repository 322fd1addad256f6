"""Small helpers the widgets share."""

from __future__ import annotations

from textual.dom import DOMNode


def flag_classes(node: DOMNode, flags: dict[str, bool]) -> None:
    """Set or clear several classes with one restyle (and none when nothing changes)."""
    changed = False
    for name, on in flags.items():
        if on != node.has_class(name):
            node.set_class(on, name, update=False)
            changed = True
    if changed:
        node.update_node_styles()
