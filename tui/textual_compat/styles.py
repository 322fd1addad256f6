"""A node's styles worked out once per process, not once per session: piece ``style-cache``.

Textual's ``Stylesheet.apply`` matches every rule of the app's stylesheet against each node it
styles: a new session's screen styles its thirty-odd nodes, each by walking the rules, checking the
selectors against the node's path and picking the most specific value of every property (a quarter
of a session's first frame in ``benchmarks/session_start.py``'s profile).  Every session of a server
styles the same screens with the same rules, so the result is kept for the process.

What a node's rules are depends only on (1) the rules, (2) the node's path from the app (each node's
class, id and classes) and (3) the pseudo-classes the rules that may apply look at (hover, focus,
disabled, dark...), of every node of the path.  The key is those: (1) as a token for the stylesheet's
list of rule sets (the rule sets themselves, shared by every app with the same theme: the
``shared-css`` piece), (2) and (3) read from the node's path.  Rules that look at a node's siblings
or descendants (``:first-child``, ``:focus-within``...) are left to Textual each time, as Textual's own
per-update cache leaves them.  A hit gives the node the kept rules as Textual's ``apply`` would, a
restyle (``animate``: a node whose classes or pseudo-classes changed) included, its transitions
animated by Textual's own ``replace_rules`` as they are from Textual's per-update cache.

A node styled for the first time, before it is mounted (every widget as it registers, every component
class's virtual node), is given its rules at once: what Textual's ``replace_rules`` stored through
each rule's property on the last such node with the same key (:func:`_set_fresh`).  For a node not
mounted, a property's setter only converts and stores its value (its refresh returns at once, an
overflow's scrollbars wait for a container size), but for a display's (its node list marked changed),
a pointer's (the screen's pointer shape) and the two values a setter makes anew for each node (a
layout object, the transitions' dict), which :func:`_set_fresh` does too.  Setting those rules one
by one was a tenth of a session's first frame (56 fresh nodes of 14 rules each, 2.4 ms of ~40).
"""

from __future__ import annotations

import itertools
import logging
import weakref
from typing import Any

from textual.dom import NoScreen
from textual.layouts.factory import get_layout

from tui.textual_compat.gate import enabled, may_patch, reads_as

log = logging.getLogger(__name__)

_ORIGINAL: dict[str, Any] = {}
_COUNTER = itertools.count()
_TOKENS: weakref.WeakKeyDictionary[Any, tuple[Any, int]] = weakref.WeakKeyDictionary()  # stylesheet -> (rules, token)
_BY_RULES: dict[tuple[int, ...], tuple[tuple[Any, ...], int]] = {}  # rule sets' ids -> (the rule sets, token)
_LIMITS: dict[tuple[Any, ...], tuple[tuple[str, ...], bool]] = {}  # (token, names) -> (pseudo-classes, cacheable)
_RULES: dict[tuple[Any, ...], Any] = {}  # (token, path) -> the rules Textual gave the node (None: none)
_SET: dict[tuple[Any, ...], dict[str, Any]] = {}  # (token, path) -> what a fresh node's setters stored for them
LIMIT = 20_000  # entries kept (past it, all are forgotten and made again)

# (Textual's own list: rules with these look beyond the node and its ancestors)
_BEYOND = frozenset({"first-of-type", "last-of-type", "first-child", "last-child", "odd", "even", "focus-within",
                     "empty"})
_NONE = object()


def _token(stylesheet: Any) -> int:
    """A number for the stylesheet's rule sets as they are now, the same for every stylesheet holding
    the same rule sets in the same order."""
    rules = stylesheet.rules
    kept = _TOKENS.get(stylesheet)
    if kept is not None and kept[0] is rules:
        return kept[1]
    ids = tuple(map(id, rules))
    found = _BY_RULES.get(ids)
    if found is None or len(found[0]) != len(rules) or any(a is not b for a, b in zip(found[0], rules, strict=True)):
        if len(_BY_RULES) >= 256:
            forget_styles()
        found = (tuple(rules), next(_COUNTER))
        _BY_RULES[ids] = found
    _TOKENS[stylesheet] = (rules, found[1])
    return found[1]


def forget_styles() -> None:
    """Forget every node's kept styles (made again as nodes are styled): past the bound of rule sets,
    and for a process giving memory back once many sessions have ended (:mod:`server.memory`)."""
    _BY_RULES.clear()
    _TOKENS.clear()
    _LIMITS.clear()
    _RULES.clear()
    _SET.clear()


def _limits(stylesheet: Any, token: int, node: Any) -> tuple[tuple[str, ...], bool]:
    """The pseudo-classes the rules that may apply to ``node`` look at (as Textual's ``apply`` finds
    the rules: by the node's selector names), and whether its styles may be kept."""
    names = frozenset(node._selector_names)
    key = (token, names)
    found = _LIMITS.get(key)
    if found is None:
        rules_map = stylesheet.rules_map
        limit = {rule for name in rules_map.keys() & names for rule in rules_map[name]}
        pseudo: set[str] = set().union(*[rule.pseudo_classes for rule in limit])
        found = (tuple(sorted(pseudo)), pseudo.isdisjoint(_BEYOND))
        _LIMITS[key] = found
    return found


def _apply(self: Any, node: Any, *, animate: bool = False, cache: dict[tuple, Any] | None = None) -> None:
    """Textual's ``Stylesheet.apply``, its result kept for the process (see the module's notes)."""
    original = _ORIGINAL["apply"]
    if not enabled("style-cache"):
        original(self, node, animate=animate, cache=cache)
        return
    token = _token(self)
    pseudo, cacheable = _limits(self, token, node)
    if not cacheable:
        original(self, node, animate=animate, cache=cache)
        return
    path = tuple(
        (type(n), n._id, frozenset(n._classes), tuple(n.has_pseudo_class(p) for p in pseudo) if pseudo else ())
        for n in node.css_path_nodes
    )
    key = (token, path)
    fresh = not animate and _fresh(node)
    rules = _RULES.get(key, _NONE)
    if rules is _NONE:
        given: list[Any] = []
        replace = type(self).replace_rules

        def keep(n: Any, rules_map: Any, animate: bool = False) -> None:
            if n is node:
                given.append(rules_map)
            replace(n, rules_map, animate=animate)

        before = self.__dict__.get("replace_rules", _NONE)  # (an apply within one: a component's node)
        self.replace_rules = keep  # (the rules Textual gives this node, as it gives them)
        try:
            original(self, node, animate=animate, cache=cache)
        finally:
            if before is _NONE:
                self.__dict__.pop("replace_rules", None)
            else:
                self.replace_rules = before
        if len(_RULES) >= LIMIT:
            _RULES.clear()
            _SET.clear()
        _RULES[key] = dict(given[-1]) if given else None
        if given and fresh:
            _SET[key] = dict(node.styles.base._rules)
        return
    # Textual's apply, from what it found for this key before
    all_pseudo = set(pseudo)
    node._has_hover_style = "hover" in all_pseudo
    node._has_focus_within = False  # (a node whose rules look at focus-within is never kept)
    node._has_order_style = False
    node._has_odd_or_even = False
    if rules is not None:
        kept = _SET.get(key) if fresh else None
        if kept is not None:
            _set_fresh(node, kept)
        else:
            # (a restyle, ``animate``: Textual's own replace_rules animates what the rules give a transition,
            # as it does with the rules of its own per-update cache)
            self.replace_rules(node, rules, animate=animate)
            if fresh:
                _SET[key] = dict(node.styles.base._rules)
    self._process_component_classes(node)


def _fresh(node: Any) -> bool:
    """Whether ``node`` has never been styled and is not on the screen yet (registered, not
    mounted; a component class's virtual node): where setting its rules one by one, as Textual's
    ``replace_rules`` does, only stores them (each setter's refresh returns at once for a node not
    mounted, and an overflow's scrollbars wait for a container size)."""
    return not node.styles.base._rules and not node._is_mounted and not getattr(node, "_container_size", None)


def _set_fresh(node: Any, rules: dict[str, Any]) -> None:
    """Give a fresh node (:func:`_fresh`) the rules Textual's setters stored for the same rules on the
    last fresh node with the node's key, at once; and do what those setters do besides storing them
    for a node not mounted (a display's change of its children list, a pointer's shape)."""
    base = node.styles.base
    base._rules.update(rules)  # (in place: the styles read their rules through the dict's own methods)
    if "transitions" in rules:
        base._rules["transitions"] = rules["transitions"].copy()  # (as its setter does)
    if "layout" in rules:
        base._rules["layout"] = get_layout(rules["layout"].name)  # (each node a layout of its own, as its setter)
    base._updates += max(1, len(rules))
    if "display" in rules and node.parent:
        node._nodes.updated()
    if "pointer" in rules:
        try:
            node.screen.update_pointer_shape()
        except NoScreen:
            pass
    node.notify_style_update()


# What Textual's method must read as for the replacement to be the same.
_EXPECTED = (
    "for name in rules_map.keys() & node._selector_names",
    "node._has_hover_style = ",
    "node._has_focus_within = ",
    "node._has_order_style = ",
    "node._has_odd_or_even = ",
    "self.replace_rules(node, node_rules, animate=animate)",
    "self._process_component_classes(node)",
    "_EXCLUDE_PSEUDO_CLASSES_FROM_CACHE",
    "css_path_nodes = node.css_path_nodes",
)


def unexpected() -> list[str]:
    """What of Textual's ``Stylesheet.apply`` this piece misses (for the probe)."""
    from textual.css.stylesheet import Stylesheet
    from textual.dom import DOMNode

    original = _ORIGINAL.get("apply") or Stylesheet.apply
    missing = [] if reads_as(original, _EXPECTED) else ["Stylesheet.apply (its source)"]
    excluded = getattr(Stylesheet, "_EXCLUDE_PSEUDO_CLASSES_FROM_CACHE", None)
    if excluded is None or set(excluded) != _BEYOND:
        missing.append("Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE")
    missing += [f"DOMNode.{name}" for name in ("_selector_names", "css_path_nodes", "has_pseudo_class", "_classes")
                if not hasattr(DOMNode, name) and name != "_classes"]
    return missing + _fresh_unexpected()


def _fresh_unexpected() -> list[str]:
    """What of Textual's styles :func:`_set_fresh` relies on and misses: that ``replace_rules`` sets
    each rule through its property, and that for a node not mounted those only store it, but for a
    display's and a pointer's, and an overflow's (which waits for a container size)."""
    from textual.css import _style_properties as properties
    from textual.css.styles import Styles
    from textual.css.stylesheet import Stylesheet
    from textual.widget import Widget

    from_textual = [
        (Stylesheet.replace_rules, ("setattr(base_styles, key, get_rule(key))", "node.notify_style_update()")),
        (Styles.refresh, ("if node is None or not node._is_mounted:",)),
        (properties.StringEnumProperty.__set__, ("node._nodes.updated()", "update_pointer_shape()",
                                                 "self._before_refresh(obj, value)")),
        (properties.OverflowProperty._before_refresh, ("obj.node._refresh_scrollbars()",)),
        (Widget._refresh_scrollbars, ("if not self.is_scrollable or not self.container_size:",)),
        (Styles.set_rule, ("self._rules[rule] = value", "self._updates += 1")),
        (Styles.__post_init__, ("self.get_rule", "self._rules.get")),
        (properties.LayoutProperty.__set__, ("layout = layout.name", "layout_object = get_layout(layout)")),
    ]
    return [f"{getattr(what, '__qualname__', what)} (its source)" for what, needles in from_textual
            if not reads_as(what, needles)]


def patch_style_cache() -> bool:
    """Put :func:`_apply` in place of Textual's ``Stylesheet.apply`` (every stylesheet of the process).
    True when applied (now or before); False where the piece is off or Textual's is not the one expected."""
    ready = may_patch("style-cache", _ORIGINAL, unexpected,
                      "textual's Stylesheet.apply is not the one expected; every node is styled as Textual does")
    if ready is not None:
        return ready
    from textual.css.stylesheet import Stylesheet

    _ORIGINAL["apply"] = Stylesheet.apply
    setattr(Stylesheet, "apply", _apply)  # noqa: B010 - a class's method, replaced
    return True
