"""High Voltage's types on the wire between edge and host (its line in :mod:`server.games`
points here): its card faces, actions, events, views and its "too slow" refusal.

A face is its code (``"7/3"``), read back through one dictionary; everything else is a
record by tag (``hv.*``).
"""

from __future__ import annotations

from engine.highvoltage import rules as H
from engine.highvoltage.rules import MODIFIERS, VALUES, Face
from server.wire.codec import BOOL, INT, STR, Declared, custom, error_record, opt, record, ref, tup

_FACES = [Face(value, mod) for value in VALUES for mod in MODIFIERS]
_CODE = {face: face.code for face in _FACES}
_FACE = {code: face for face, code in _CODE.items()}

FACE = ref(Face)

TYPES: tuple[Declared, ...] = (
    custom(Face, "hv.face", _CODE.__getitem__, _FACE.__getitem__),
    record(H.Play, "hv.play", seat=INT, card=FACE, aimed_at=FACE, top_no=INT),
    record(H.Draw, "hv.draw", seat=INT),
    record(H.Stuck, "hv.stuck", seat=INT),
    record(H.Go, "hv.go"),
    record(H.Resign, "hv.resign", seat=INT),
    record(H.Event, "hv.event", kind=STR, seat=opt(INT), card=opt(FACE), aimed=opt(FACE), covered=opt(FACE),
           count=INT, winner=opt(INT), reason=STR, places=tup(INT), cards_left=tup(INT)),
    record(H.HighVoltageView, "hv.view", seat=opt(INT), players=INT, phase=STR, hand=opt(tup(FACE)),
           hand_sizes=tup(INT), pile_counts=tup(INT), top=FACE, top_no=INT, discard_count=INT, stuck=tup(BOOL),
           out=tup(BOOL), plays=INT, flips=INT, winner=opt(INT), places=opt(tup(INT)), reason=STR),
    error_record(H.TooSlowError, "hv.too_slow"),
)
