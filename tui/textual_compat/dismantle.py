"""An ended app's reference cycles broken by hand, so reference counting frees it, frozen or not:
piece ``dismantle``.

A Textual app is a web of cycles (nodes and their parents, styles and their nodes, timers, the
driver and its parser).  ``server/gcpolicy.py`` freezes what survives young collections and runs no
full collection, so a cycle that dies frozen would never be freed: this module frees them instead.
:func:`track_nodes` (before the app runs) records every node the app registers or makes;
:func:`dismantle` (after ``run_async`` has returned) empties every recorded node's ``__dict__``, then
the app's own helpers and the app; :func:`dismantle_removed` clears, while the app runs, the nodes it
has removed and closed.  Two more cycles are Textual's own: ``LRUCache.clear`` left its ring of links
behind, and every style update gives a widget with component classes new virtual nodes, dropping the
old ones as cycles: both are patched here.  The figures are in ``docs/design/collector.md``.
"""

from __future__ import annotations

import logging
import types
import weakref
from typing import Any

from tui.textual_compat.gate import enabled, private, reads_as

log = logging.getLogger(__name__)


class _RecordingSet(weakref.WeakSet):
    """An app's ``_registry`` that also remembers, weakly, every node ever
    registered: the nodes removed since (a replaced screen) are found there."""

    def __init__(self, data: Any = ()) -> None:
        super().__init__(data)
        self.ever: weakref.WeakSet[Any] = weakref.WeakSet(data)
        self.retired: weakref.WeakSet[Any] = weakref.WeakSet()

    def add(self, item: Any) -> None:
        super().add(item)
        self.ever.add(item)


_NODE_INIT: list[Any] = []


_LRU: Any = None


def _patch_node_init() -> None:
    """Every DOM node made while an app runs (in its context) is recorded in that
    app's set: widgets never mounted and the stylesheet's virtual nodes for
    component classes are cyclic too (node <-> styles), and no registry has them."""
    if _NODE_INIT:
        return
    from textual.cache import LRUCache
    from textual.dom import DOMNode

    active_app = private("textual._context", "active_app")
    global _LRU
    _LRU = LRUCache
    if not hasattr(LRUCache.clear, "__wrapped__"):
        original_clear = LRUCache.clear

        def clear(self: Any) -> None:
            # Unlink the ring first: Textual clears a widget's query and line caches
            # on every DOM change, and each cleared ring was a cycle of garbage.
            for link in self._cache.values():
                link.clear()
            original_clear(self)

        clear.__wrapped__ = original_clear  # type: ignore[attr-defined]
        LRUCache.clear = clear  # type: ignore[method-assign]

    original = DOMNode.__init__
    _NODE_INIT.append(original)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if type(self) is DOMNode:
            return  # a virtual node: its widget's _component_styles reaches it (_clear_node)
        app = active_app.get(None)
        if app is not None:
            registry = app.__dict__.get("_registry")
            if type(registry) is _RecordingSet:
                registry.ever.add(self)

    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    if active_app is not None:
        DOMNode.__init__ = __init__  # type: ignore[method-assign]
    _patch_component_classes(DOMNode)


def _patch_component_classes(node_class: Any) -> None:
    """A widget with component classes gets new virtual nodes at every style update
    (``Stylesheet._process_component_classes``: one ``DOMNode`` per class, cyclic with
    its styles), and the old ones are dropped as cyclic garbage.  The collector policy
    freezes what survives young collections, so those that reached the old generation
    stayed frozen for good: counted in a server under load, 31 virtual nodes and 1,300
    objects per session.  Now the replaced virtual nodes are emptied, so their
    reference counts free them.  Left alone, with a warning, on a Textual whose method
    is not the one this was written for."""
    from textual.css.stylesheet import Stylesheet

    original = Stylesheet._process_component_classes
    if hasattr(original, "__wrapped__"):
        return
    if component_classes_as_expected(Stylesheet):
        log.warning("gc: Textual's component classes are not made as expected: their virtual nodes are left alone")
        return

    def _process_component_classes(self: Any, node: Any) -> None:
        before = list(node._component_styles.values())
        original(self, node)
        if not before:
            return
        kept = {id(styles) for styles in node._component_styles.values()}
        for styles in before:
            virtual = getattr(styles, "node", None)
            if id(styles) not in kept and type(virtual) is node_class:
                _clear(virtual)

    _process_component_classes.__wrapped__ = original  # type: ignore[attr-defined]
    Stylesheet._process_component_classes = _process_component_classes  # type: ignore[method-assign]


def component_classes_as_expected(stylesheet_class: Any) -> list[str]:
    """What is not as expected in how Textual's stylesheet makes component classes' virtual nodes
    (an empty list: all is)."""
    method: Any = getattr(stylesheet_class, "_process_component_classes", None)
    needles = ("virtual_node = DOMNode(classes=component)", "_component_styles.clear()")
    if not reads_as(getattr(method, "__wrapped__", method), needles):
        return ["Stylesheet._process_component_classes (its source)"]
    return []


def track_nodes(app: Any) -> bool:
    """Record every node ``app`` registers or makes from now on (call before it runs).
    False when the piece is off or the app keeps no registry of its nodes."""
    if not enabled("dismantle"):
        return False
    _patch_node_init()
    d: dict[str, Any] = getattr(app, "__dict__", {})
    registry = d.get("_registry")
    if isinstance(registry, _RecordingSet):
        return True
    if not isinstance(registry, weakref.WeakSet):
        return False
    d["_registry"] = _RecordingSet(registry)
    return True


def _clear_lru(cache: Any) -> None:
    # Textual's LRUCache keeps its entries in a ring of [prev, next, key, value] lists:
    # a cycle of its own, which its clear() leaves behind (the patched one does not).
    for link in list(cache._cache.values()):
        link.clear()
    cache.clear()


def _clear(obj: Any, helpers: tuple[str, ...] = (), depth: int = 0) -> None:
    """Empty ``obj``'s ``__dict__``; first its LRU caches' rings, its generators (a
    parser's frame refers to the parser), and, ``depth`` levels down, the values
    whose classes come from a ``helpers`` module (the app's own driver and parser)."""
    d = getattr(obj, "__dict__", None)
    if d is None:
        return
    for value in list(d.values()):
        kind = type(value)
        if kind is _LRU:
            _clear_lru(value)
        elif isinstance(value, types.GeneratorType):
            value.close()
        elif depth > 0 and kind.__module__.startswith(helpers) and value is not obj:
            _clear(value, helpers, depth - 1)
    d.clear()


def _clear_node(node: Any) -> None:
    d = getattr(node, "__dict__", None)
    if d is None:
        return
    for styles in list(d.get("_component_styles", {}).values()):  # the virtual nodes (see above)
        virtual = getattr(styles, "node", None)
        if virtual is not None:
            _clear(virtual)
    _clear(node)


def dismantle_removed(app: Any) -> int:
    """Clear the nodes ``app`` has removed and closed (a replaced screen, a results
    panel): they are no longer its, and their cycles would outlive them."""
    registry = getattr(app, "__dict__", {}).get("_registry")
    if not isinstance(registry, _RecordingSet) or not enabled("dismantle"):
        return 0
    n = 0
    for node in list(registry.ever):
        task = getattr(node, "_task", None)
        if node not in registry and getattr(node, "_closed", False) and (task is None or task.done()):
            # Cleared on the sweep after the one that first saw it closed: by then no
            # compositor map or pending refresh of the app can still reach it.
            if node in registry.retired:
                registry.ever.discard(node)
                _clear_node(node)
                n += 1
            else:
                registry.retired.add(node)
    return n


# The modules whose objects an app owns alone (its animator and timers, its stylesheet, the
# driver's parser and key sequencer): cleared with it, as are those of its driver's own module.
_OWN_HELPERS = ("textual._animator", "textual.css.stylesheet", "textual.timer", "textual._xterm_parser",
                "tui.textual_compat", "tui.keys")


def dismantle(app: Any) -> int:
    """Break the reference cycles of an ended app so reference counting frees it (and
    its screens, widgets, styles, caches) at once, frozen or not.  Returns the count
    of nodes cleared (0 when the piece is off)."""
    d = getattr(app, "__dict__", None)
    if d is None or not enabled("dismantle"):
        return 0
    registry = d.get("_registry")
    nodes = list(registry.ever) if isinstance(registry, _RecordingSet) else list(registry or ())
    running = [n for n in nodes if (task := getattr(n, "_task", None)) is not None and not task.done()]
    if running:
        # The app's run was cancelled (the server is stopping) while its screens still run: clearing
        # them would fail their tasks as they end.  Left to the collector.
        log.debug("not dismantling an app whose %d nodes still run", len(running))
        return 0
    for node in nodes:
        _clear_node(node)
    # The app's own helpers with cycles of their own (the animator and its timer, the
    # stylesheet and its parse cache, the driver, its parser), then the app.
    driver = d.get("_driver")
    own = _OWN_HELPERS + ((type(driver).__module__,) if driver is not None else ())
    _clear(app, own, 2)
    return len(nodes) + 1
