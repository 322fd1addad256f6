"""What the Voltage screen shows, from a view and the pending step: pure functions,
testable without running an app.

The prompt's words and the keys offered come from :func:`tui.games.voltage.choices.step_for`
(built from ``view.legal``); these turn a view and that step into what each widget is
given: the board's four terminals (:class:`~tui.games.voltage.board.TerminalState`), the
sides' labels, the draw pile's label, the prompt's buttons and whether the prompt is the
player's own.  The match screen keeps the state of the screen (selection, cursor, the
passing notes) and hands it in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.voltage import rules as V
from tui.games.voltage import choices as C
from tui.games.voltage.board import SideState, TerminalState
from tui.i18n import _, pgettext
from tui.text import Forms, safe


def side_label(name: str) -> Forms:
    """A seat's side named, then its name alone for a narrow terminal (the board cuts that
    with an ellipsis if it must, never to another word)."""
    return Forms(_("%(who)s's side") % {"who": safe(name)}, safe(name))


def side_labels(view: V.VoltageView, names: Sequence[str], me: int) -> tuple[str, str]:
    """The board's (top, bottom) side labels: a seat's player says "your side" (and "their
    side" when the other's name does not fit); a spectator sees both players' names."""
    opp = 1 - me
    if view.seat is None:
        return side_label(names[opp]), side_label(names[me])
    # (the short forms: for a language whose words do not fit a narrow terminal's frame)
    return (Forms(_("%(who)s's side") % {"who": safe(names[opp])}, _("their side"), pgettext("short", "theirs")),
            Forms(_("your side"), pgettext("short", "yours")))


def terminals(view: V.VoltageView, step: C.Step, names: Sequence[str], *, me: int,
              cursor: C.Option | None = None, notes: Mapping[int, str] | None = None) -> tuple[TerminalState, ...]:
    """The four terminals as the board draws them: both sides' cards and totals, the
    keys of the step's options (a destination, a target card, a block to flip, a terminal
    to pick), where the cursor is, and each terminal's passing note."""
    notes = notes or {}
    opp = 1 - me
    labels = side_labels(view, names, me)
    first_here = view.phase == "second" and view.my_turn
    states = []
    for t in range(4):
        top_cards, bottom_cards = view.board[t][opp], view.board[t][me]
        top: dict = dict(cards=top_cards, total=sum(c.value for c in top_cards), label=labels[0])
        bottom: dict = dict(cards=bottom_cards, total=sum(c.value for c in bottom_cards), label=labels[1])
        flip_key = pick_key = ""
        flip_cursor = False
        for o in step.options:
            if o.terminal != t:
                continue
            is_cur = o is cursor
            if o.block:
                flip_key, flip_cursor = o.key, is_cur
            elif o.target is not None:
                keys = top.setdefault("target_keys", {})
                for i, c in enumerate(top_cards):
                    if c == o.target and i not in keys:
                        keys[i] = o.key
                        if is_cur:
                            top["cursor_index"] = i
                        break
            elif o.side is not None:
                side = top if o.side == opp else bottom
                side["dest_key"] = o.key
                side["cursor"] = is_cur
                if step.kind == C.TERMINAL:
                    pick_key = o.key
        states.append(
            TerminalState(
                top=SideState(**top),
                bottom=SideState(**bottom),
                plus=view.plus[t],
                count=view.count(t),
                flip_key=flip_key,
                flip_cursor=flip_cursor,
                pick_key=pick_key,
                note=notes.get(t, ""),
                flash=t in notes,
                first=first_here and t == view.first_terminal,
            )
        )
    return tuple(states)


def draw_label(step: C.Step) -> str:
    """The draw pile's label when drawing is offered ("" when it is not)."""
    label = ""
    for o in step.buttons:
        if isinstance(o.action, V.Draw):
            label = o.label
    return label


def prompt_buttons(step: C.Step, view: V.VoltageView, *, selecting: bool) -> tuple[tuple[str, str], ...]:
    """The prompt bar's buttons, (label, action): pass or draw, cancel while something is
    selected (``selecting``), results at the end."""
    buttons: list[tuple[str, str]] = []
    for o in step.buttons:
        buttons.append((f"{o.label} [space]", "pass" if isinstance(o.action, V.Pass) else "draw"))
    if selecting:
        buttons.append((_("cancel") + " [esc]", "cancel"))
    if view.over:
        buttons.append((_("results") + " [⏎]", "results"))
    return tuple(buttons)


def prompt_is_mine(step: C.Step) -> bool:
    """The prompt asks this player for something (it is drawn as theirs)."""
    return step.kind not in (C.WAIT, C.WATCH, C.OVER)
