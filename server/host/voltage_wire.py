"""Voltage's types on the wire between edge and host (its line in :mod:`server.games`
points here): its cards, actions, events, views and clocks, and the coach's hints and
analysed moves.

A card is its code (``"O2"``, ``"O2v"`` for a transformer back): short, readable in a
captured message, and read back through one dictionary.  Everything else is a record by
tag (``v.*``), its fields as the engine names them.
"""

from __future__ import annotations

from engine import clock as C
from engine.voltage import coach as K
from engine.voltage import rules as V
from engine.voltage.cards import FACE_COLOUR, Card
from server.wire.codec import BOOL, FLOAT, INT, STR, Declared, custom, fixed, one_of, opt, record, ref, tup

_CARDS = [Card(face, back) for face in range(len(FACE_COLOUR)) for back in (False, True)]
_CODE = {card: card.code for card in _CARDS}
_CARD = {code: card for card, code in _CODE.items()}

CARD = ref(Card)
ACTION = one_of(V.Play, V.Draw, V.Flip, V.Pass, V.Resign, V.Timeout, V.Abort, V.AgreeDraw)
SEAT_PAIR = fixed(INT, INT)

TYPES: tuple[Declared, ...] = (
    custom(Card, "v.card", _CODE.__getitem__, _CARD.__getitem__),
    record(V.Play, "v.play", card=CARD, terminal=INT, side=INT, target=opt(CARD)),
    record(V.Draw, "v.draw"),
    record(V.Flip, "v.flip", terminal=INT),
    record(V.Pass, "v.pass"),
    record(V.Resign, "v.resign", seat=INT),
    record(V.Timeout, "v.timeout", seat=INT),
    record(V.Abort, "v.abort", seat=INT),
    record(V.AgreeDraw, "v.agree", seat=INT),
    record(V.Event, "v.event", kind=STR, seat=opt(INT), card=opt(CARD), terminal=INT, side=INT, target=opt(CARD),
           totals=SEAT_PAIR, plus=BOOL, winner=opt(INT), transformer=BOOL, count=INT, reason=STR, scores=SEAT_PAIR),
    record(V.VoltageView, "v.view", seat=opt(INT), hand=opt(tup(CARD)), hand_backs=tup(tup(BOOL)),
           board=tup(tup(tup(CARD))), plus=tup(BOOL), scores=tup(INT), draw_count=INT, draw_top_transformer=BOOL,
           discard_count=INT, discard_top=opt(CARD), to_move=INT, phase=STR, first_terminal=INT, flips_pending=INT,
           first_player=INT, turn=INT, winner=opt(INT), reason=STR, legal=tup(ACTION)),
    record(K.Reason, "v.reason", kind=STR, terminal=INT, card=opt(CARD), target=opt(CARD), mine=INT, theirs=INT,
           plus=BOOL, count=INT, lead=INT, match=BOOL),
    record(K.Hint, "v.hint", action=ACTION, chance=FLOAT, reason=ref(K.Reason)),
    record(K.Move, "v.move", step=INT, seat=INT, chance=FLOAT, best=FLOAT, better=opt(STR)),
    record(C.ClockView, "v.clock", control=STR, remaining_ms=tup(INT), running=opt(INT), as_of=FLOAT),
)
