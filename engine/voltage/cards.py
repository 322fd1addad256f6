"""Voltage cards as data.

A card in the engine is a small int (its id, 0..55).  Every fact about a card
is a lookup in one of the tuples below, built from ``DECK`` - the single place
that says what the deck holds.  Change ``DECK`` to play with another deck list.

A *face* is what the front shows: a number card of one colour and value, or a
special.  Screens and views speak in faces plus the transformer mark on the
back (:class:`Card`), never in ids, so two copies of the same card can never
tell a seat anything the rules hide.
"""

from __future__ import annotations

from typing import NamedTuple

ORANGE, GREEN, BLUE, PURPLE = range(4)
COLOURS = ("orange", "green", "blue", "purple")
COLOUR_LETTERS = ("O", "G", "B", "P")
TERMINALS = range(4)

# Faces: colour * 3 + (value - 1) for number cards, then the two specials.
BYPASS = 12
FUSE = 13
FACE_COUNT = 14

# The deck list (the rules' "The deck (56 cards)"): (face, copies, of which transformers).
DECK: tuple[tuple[int, int, int], ...] = tuple(
    (colour * 3 + value - 1, 4, {1: 1, 2: 2, 3: 1}[value])
    for colour in range(4)
    for value in (1, 2, 3)
) + (
    (BYPASS, 4, 1),
    (FUSE, 4, 1),
)


def _build() -> tuple[tuple[int, ...], tuple[bool, ...]]:
    faces: list[int] = []
    transformers: list[bool] = []
    for face, copies, n_transformers in DECK:
        for i in range(copies):
            faces.append(face)
            transformers.append(i < n_transformers)
    return tuple(faces), tuple(transformers)


CARD_FACE, CARD_TRANSFORMER = _build()
DECK_SIZE = len(CARD_FACE)

# Per-face facts (index by face).
FACE_COLOUR: tuple[int, ...] = tuple(f // 3 if f < 12 else -1 for f in range(FACE_COUNT))
FACE_VALUE: tuple[int, ...] = tuple(f % 3 + 1 if f < 12 else 0 for f in range(FACE_COUNT))
FACE_IS_SPECIAL: tuple[bool, ...] = tuple(f >= 12 for f in range(FACE_COUNT))

# Per-card facts (index by card id), for the hot paths.
CARD_COLOUR: tuple[int, ...] = tuple(FACE_COLOUR[f] for f in CARD_FACE)
CARD_VALUE: tuple[int, ...] = tuple(FACE_VALUE[f] for f in CARD_FACE)
CARD_SPECIAL: tuple[bool, ...] = tuple(FACE_IS_SPECIAL[f] for f in CARD_FACE)


def face_code(face: int) -> str:
    """Short text of a face: ``O1`` .. ``P3``, ``BY`` (bypass), ``FU`` (blown fuse)."""
    if face == BYPASS:
        return "BY"
    if face == FUSE:
        return "FU"
    return f"{COLOUR_LETTERS[face // 3]}{face % 3 + 1}"


def face_name(face: int) -> str:
    """Words for a face: ``orange 2``, ``bypass``, ``blown fuse``."""
    if face == BYPASS:
        return "bypass"
    if face == FUSE:
        return "blown fuse"
    return f"{COLOURS[face // 3]} {face % 3 + 1}"


_CODE_TO_FACE = {face_code(f): f for f in range(FACE_COUNT)}


def parse_face(code: str) -> int:
    """Inverse of :func:`face_code` (case-insensitive)."""
    try:
        return _CODE_TO_FACE[code.upper()]
    except KeyError:
        raise ValueError(f"unknown card {code!r}: expected O1..P3, BY or FU") from None


def parse_terminal(word: str) -> int:
    """A terminal by colour name or letter: ``orange``/``o`` .. ``purple``/``p``."""
    w = word.lower()
    for i, name in enumerate(COLOURS):
        if w == name or w == name[0]:
            return i
    raise ValueError(f"unknown terminal {word!r}: expected orange, green, blue or purple")


class Card(NamedTuple):
    """What a seat may know of one card: its face, and whether its back is a transformer."""

    face: int
    transformer: bool = False

    @classmethod
    def of(cls, card_id: int) -> Card:
        return _CARDS[card_id]

    @property
    def colour(self) -> int:
        """Colour index, or -1 for a special."""
        return FACE_COLOUR[self.face]

    @property
    def value(self) -> int:
        return FACE_VALUE[self.face]

    @property
    def special(self) -> bool:
        return FACE_IS_SPECIAL[self.face]

    @property
    def code(self) -> str:
        """``O2``, or ``O2v`` for a transformer."""
        return face_code(self.face) + ("v" if self.transformer else "")

    @property
    def name(self) -> str:
        return face_name(self.face)

    @classmethod
    def parse(cls, code: str) -> Card:
        transformer = code.endswith(("v", "V")) and len(code) == 3
        return cls(parse_face(code[:2] if transformer else code), transformer)

    def __str__(self) -> str:
        return self.code


_CARDS: tuple[Card, ...] = tuple(Card(f, t) for f, t in zip(CARD_FACE, CARD_TRANSFORMER, strict=True))
