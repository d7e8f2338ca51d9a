"""Card recognition in three stages: find and crop (classical), classify (ONNX), decode (pure).

``preprocess`` turns index-corner crops into the model's input tensor; ``decode`` turns the model's
class probabilities into readings, and :func:`combine` merges the corners of one card. Both are pure
numpy and tested on fixed arrays. :class:`OnnxRecognizer` runs the three stages on a frame; anything
with a ``recognize(frame, roi=None)`` method returning :class:`Detection` values satisfies the
:class:`Recognizer` protocol, so tests can use canned detections.

Classes: 0..51 are cards in :attr:`controller.cards.Card.index` order; 52 is "not a readable index"
(a card back, a covered or blurred corner, a chip, a finger, a corner that is not an index corner).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import pathlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol

import numpy as np

from controller.cards import Card, Rank
from vision import detect, focus, light, pips

NOT_INDEX = 52
N_CLASSES = 53
DEFAULT_MODEL = pathlib.Path(__file__).resolve().parents[1] / "models" / "card_index.onnx"
DEFAULT_SUIT_MODEL = DEFAULT_MODEL.with_name("card_suit.onnx")
"""The body-suit model (:mod:`vision.pips`) shipped beside the index classifier."""
DEFAULT_SUIT_LAYOUT_MODEL = DEFAULT_MODEL.with_name("card_suit_layout.onnx")
"""The second body-suit model (optional): the body-suit model's recipe trained with the layout decks
too (``python -m vision.train --suit-only --suit-decks train+mix2+mixl``), whose pips stand beside
the index and whose courts carry pictures. It is asked only about what the first body model left
unconfirmed: a card read unsure at its index (from :data:`BODY_RESCUE_FLOOR` up to the threshold)
or contested between corners, never a contest between a club and a spade of one rank, and only
for the suits in :attr:`OnnxRecognizer.second_body_suits`; and about every queen under the queen
check, which stands on its word if red, on both models' word if black
(:meth:`OnnxRecognizer._ask_body`). Twenty-fourth session: models/HISTORY.md."""
DEFAULT_WHOLE_MODEL = DEFAULT_MODEL.with_name("card_whole.onnx")
"""The whole-card model (optional): the body-suit model's recipe on crops that keep the index regions
(``python -m vision.train --suit-only --suit-whole``), three quarters of its scenes with small
cards. It sees the card's two index corners and its pips at once, and is asked only about the cards
left unsure or contested after every other check (:meth:`OnnxRecognizer._whole_look`).
Forty-seventh session: models/HISTORY.md."""
DEFAULT_LAYOUT_MODEL = DEFAULT_MODEL.with_name("card_index_layout.onnx")
"""The layout index model (optional): one index classifier trained with decks whose pips stand
right beside the index and whose courts carry pictures (``python -m vision.train --decks mixl``),
as real deck designs print them. It reads only the corners the index classifier does not read
sure (:meth:`OnnxRecognizer.layout_reads`), and a card it reads stands only on a second word: the
index classifier's (the same card, unsure) or the body's (:meth:`OnnxRecognizer._layout_cards`).
Twenty-second session: models/HISTORY.md."""
DEFAULT_TOLERANT_MODEL = DEFAULT_MODEL.with_name("card_index_tolerant.onnx")
"""The scale-tolerant index model (optional): the index classifier's recipe trained on crops up to 30%
off the card's width labelled the card (``python -m vision.train --decks mixr,mixr --scale-tolerance
0.3,0.45 --no-suit``). Real deck designs print their index smaller or larger than the training decks
for their card, and the index classifier, which learnt one size, takes such a crop for no index at
all while it knows the rank and the suit. This model reads only the corners the index classifier does
not read sure, and its card stands only where the index classifier, given that the crop is an index,
names the same card (:data:`TOLERANT_GIVEN`), the print's colour does not refuse it, the body
does not give the other colour's suits (:data:`TOLERANT_BODY_OTHER`) and, for a club or a spade on a
card under 80 px, gives its suit (:data:`TOLERANT_BLACK_BODY`, :data:`TOLERANT_BLACK_BODY_BELOW`):
:meth:`OnnxRecognizer.tolerant_reads`. Fifty-fifth session: models/HISTORY.md."""
TOLERANT_GIVEN = 0.9
"""What the index classifier must give a scale-tolerant read's card given that its crop is an index
(its card probabilities over one minus its "not an index" probability)."""
TOLERANT_BODY_OTHER = 0.9
"""A scale-tolerant read is refused where the body-suit model gives the two suits of the other colour
this much or more together (a faint red index read as a spade, its pips red: the fifty-fourth
session's wrong seat, diamonds 0.998). Not lower: on the nine real designs' own index corners the
tolerant reads that are right get up to 0.87 for the other colour from court pictures and large
aces (Dondorf's black jacks and kings; 0.5 refused 10 of them)."""
TOLERANT_BLACK_BODY = 0.5
"""A scale-tolerant read of a club or a spade stands only where the body-suit model gives its suit this
much or more: the two black suits are the pair every index model confuses (the layout model's
never stand at all), and on the real designs' standard scenes a 56 px Dondorf Qs was read Qc at
0.992, its court picture no evidence either way (clubs 0.03, spades 0.04). On the nine designs'
own corners it keeps 137 of the 165 black cards the tolerant model reads right (courts are lost)."""
TOLERANT_BLACK_BODY_BELOW = 80.0
"""The body must give a scale-tolerant club or spade its suit (:data:`TOLERANT_BLACK_BODY`) only on a card
narrower than this (pixels, the card its corner implies). A small index prints the two black suits in a
few pixels, where every index model confuses them; from 80 px the tolerant model tells them apart, and
what the rule refused there were right reads of cards whose body the next card of a fan covers (the body
model then sees that card's pips or picture, or stock; a court's own picture gives no suit either).
Sixty-fourth session (models/HISTORY.md): real designs 522 to 537 right on the standard 150 scenes and
``letele`` 746 to 760, none fewer and no wrong read more; the seen and unseen benchmarks' first 1,000
scenes 1 and 3 cards more, none fewer, the same wrong reads. ``math.inf``: the body asked at every width
(the fifty-fifth session's rule)."""
WIDTH_SEARCH_BLACK_BODY: float | None = math.inf
"""What :data:`TOLERANT_BLACK_BODY_BELOW` is where the width search (a photograph, no card width configured)
counts the scale-tolerant model's sure corners at each width it tries: ``math.inf``, the body asked at
every width, as before that rule. Counted with the rule, clubs and spades on covered bodies moved some
frames' widths: real designs 547 right, but 4 cards fewer in other scenes, and on 300 scenes of seed 616161
a Tango 7d read 7s (a card not in the scene). ``None``: counted as read."""
TOLERANT_NOT_INDEX_UP_TO: float | None = 0.5
"""At a configured card width (a camera's seat zones), a scale-tolerant read stands on the tolerant model's
probability of its card given that the crop is an index (:func:`given_index`) where that model gives "not
an index" this much or less and is :data:`TOLERANT_GIVEN_SURE` of the card so; elsewhere on its plain
probability, as before (sixty-fifth session). The model learnt to call a crop whose card width is over 45%
off "not an index" (``--scale-tolerance 0.3,0.45``), so a real design printing its index smaller or larger
than the training decks, or higher on the card, pays that doubt at its own width: at the nine real designs'
own index corners it names the card right on 101 of ``kde-tigullio``'s 104 and 100 of ``gnome-bellot``'s,
and is sure of 16 and 29, "not an index" 0.83 and 0.19 at the median. The classifier must still name the
same card given an index (:data:`TOLERANT_GIVEN`), the card must lie on card stock
(:data:`TOLERANT_GIVEN_STOCK`), and every check after stays. Seats identifiable on 100 tables of seed
616161: ``letele`` 257 to 273 of 722, real designs 140 to 148 of 714, seen and unseen as before, no wrong
seat. A frame whose width is searched takes none (:data:`WIDTH_SEARCH_GIVEN`). ``None``: the plain
probability everywhere."""
TOLERANT_GIVEN_SURE = 0.999
"""How sure the scale-tolerant model must be of a card given an index for :data:`TOLERANT_NOT_INDEX_UP_TO` to
let it stand so. At the threshold alone (0.965), unseen ``p052`` and ``urw-gothic`` pips and court pictures
near an index were read as cards not in the scene (a 9d's pips as 7d, a Qd's picture as 2d): 7 on the first
1,000 unseen scenes, and 1 to 4 on the real designs' 150; every such candidate was under 0.999."""
TOLERANT_GIVEN_STOCK = 0.5
"""A read :data:`TOLERANT_NOT_INDEX_UP_TO` lets stand must imply a card at least this share of which is card
stock in the frame's stock mask (:func:`stock_fit`; a fanned card under other faces is still stock): on the
seen benchmark a four-colour 3d's upside-down index read at another width as a Qd at 0.9999 given an index
implied a card 41% stock, the rest felt. Without a stock mask no read stands so."""
WIDTH_SEARCH_GIVEN = False
"""Whether a frame read with its card width searched (a photograph, no card width configured) takes the
scale-tolerant reads :data:`TOLERANT_NOT_INDEX_UP_TO` lets stand at every width it tries: no, only at the width
its sure reads measure (:data:`WIDTH_SEARCH_GIVEN_AGREES`); a frame or a seat zone read at a configured card
width takes them at every corner. "Not an index" is that model's word that a crop is at the wrong scale, and a
searched width can be wrong: a 12-megapixel photograph of 900 px cards, read halved, read a 6c and a 2d
sure at 195 and 246 px given an index and placed them off their cards (2 wrong reads where none). On the
benchmark's scenes, read with the width searched, they would read the real designs 594 right where 537
(16 wrong where 12, none a card not in the scene), ``letele`` 785 where 760, seen and unseen within 2
cards, 1 wrong read more. Counted in the search's weighing of widths as well, a ``kde-tigullio`` 9h read 4h
(real designs scene 101)."""
WIDTH_SEARCH_GIVEN_AGREES: float | None = 0.1
"""A frame read with its card width searched takes a scale-tolerant read :data:`TOLERANT_NOT_INDEX_UP_TO` lets
stand where the card width its corner implies is within this share of the width the frame's sure reads
measure between a card's two index corners (:func:`implied_card_width`, read first without such reads):
the index's own scale and the distance across a card agree. ``None``: none (:data:`WIDTH_SEARCH_GIVEN`).
Measured on the real designs' standard 150 scenes: 547 cards right where 537, 13 sure reads counted wrong where
12 (a ``kde-dondorf`` Jh read at its upright top-right index, its top-left covered, placed beside itself);
300 scenes of seed 616161: 1,154 where 1,143, the same 28 wrong. At any width (:data:`WIDTH_SEARCH_GIVEN`) the
12-megapixel photograph, read halved, read a 6c and a 2d at 195 px among its 450 px cards and placed them off;
the width its whole cards measure would not do either: 203 px there."""
WIDTH_SEARCH_GIVEN_NEW = True
""":data:`WIDTH_SEARCH_GIVEN_AGREES` takes a read only of a card read sure at no other corner of the frame: a
deck printing an index at all four corners (``kde-dondorf``) shows an upright one at the top right too, and a
card read there as well was placed beside itself (real designs scene 17, an 8h read right without it)."""
RANK_VETO_BELOW: float | None = 0.9999
"""With both body-suit models, a number card (two to ten) read sure below this at one index corner only,
on a card at least :data:`SMALL_CARD_WIDTH` wide, is made unreadable where both bodies deny its rank and
agree on another (:meth:`OnnxRecognizer.rank_veto`): the second body model gives its rank under
:data:`RANK_VETO_OWN` and another number rank :data:`RANK_VETO_OTHER` or more, and the first gives its
rank under :data:`RANK_VETO_FIRST`, that other rank its most probable. The body never changes the rank
an index read (:data:`ALL_BODIES_RANK`); it may refuse one. Fifty-fifth session: ``letele`` ranks read
wrong at 72 px, sure at their one visible index (a Tc read 2c at 0.9964, the second body model giving
ten 0.997; a 3h read 5h at 0.9997, three 0.984), each a seat identified with a card the player does
not hold; on the first 1,000 benchmark scenes of the seen and of the unseen decks it refuses nothing
(a rule without the width and the agreement refused a right 8d at 52 px and a right 5d at 66 px,
both bodies giving the pips another count). On the seat path the table watcher asks once a reading
(:meth:`vision.watch.TableWatcher._check_ranks`): asked on every frame, the latency benchmark's
frames took about 3.5 ms more (5 to 9 such cards a frame). ``None``: no such veto."""
RANK_VETO_OWN = 0.01
RANK_VETO_OTHER = 0.95
RANK_VETO_FIRST = 0.05
SMALLER_LOOK: float | None = 0.85
"""On a table (seat zones at a configured card width), a zone that shows fewer cards read sure than
its hand has, and some place read unsure or unreadable, has its corners near that place that read a
heart or a diamond cropped again at this share of their crop width, the card they imply as wide as
before (:meth:`OnnxRecognizer._smaller_look`): a deck whose index prints smaller than a standard
one for its card (0.65 to 0.8 of it: four of the seen decks) reads best at 0.8 to 0.85 of its
width, and the width search reads scenes at two widths, where a camera reads one. Fiftieth
session, seat benchmark (400 tables of seen and of unseen decks, seeds 515151, 616161, 717171,
818181): seen 2,738 to 2,742 seats identified, unseen unchanged, no wrong seat more; 20 tables:
``letele`` 60 to 61, real designs 34 to 36. About 0.2 more index crops a table frame. ``None``: no
smaller look."""
SMALLER_TOLERANT_LOOK: tuple[float, ...] | None = (0.7, 0.85)
"""On a frame read with the card width searched (a photograph: ``cardroom vision read``), each index
corner no model read sure is cropped again at each of these shares of its crop width, the card it
implies as wide as before, and the looks are read by the scale-tolerant index model and the index
classifier, each model's probabilities averaged over the looks; the tolerant model's card stands on
:meth:`OnnxRecognizer.tolerant_reads`' terms (:meth:`OnnxRecognizer._smaller_tolerant_look`). Real
designs print their index smaller than the training decks for their card (Bellot's, Tigullio's,
Simplistic's: the tolerant model reads their own corners best at 0.7 to 0.85 of the width), and a
photograph has no configured index scale. Both looks, not one: at 0.7 alone the first 1,000 unseen
benchmark scenes took two wrong reads (a card's edge and a court's picture read 7c over a 9c, a crop
that small reading an index where there is none; measured before the rule on clubs and spades of
:data:`SMALLER_TOLERANT_FROM`, which refuses those two as well). Sixty-third session:
models/HISTORY.md. ``None``: no such look."""
SMALLER_TOLERANT_FROM = 70.0
"""The smaller tolerant look is made only at corners implying a card at least this wide (pixels): on
smaller cards it read a ``letele`` 6h as a 5h at 68 px, where the index's few pixels no longer tell them
apart (:data:`SMALL_CARD_WIDTH`). A club or a spade it reads stands only where the smaller look itself
is that wide (the card at least 100 px wide at 0.7): a smaller look reads a small card's index, and
the two black suits are what a small index confuses (:data:`SMALL_CARD_WIDTH`). Without that, on 1,000
unseen scenes of seed 616161 a ``p052`` Qc 68 px wide, read at the width search's 84 px, was read Qs,
both body models taking its pips for spades."""
SMALLER_TOLERANT_UP_TO = 160.0
"""Nor at corners implying a card wider than this (pixels): past the width search's reach (its top rung,
136 px, and the finer steps round it) a photograph is read halved (:data:`LADDER_TOP_HALVES`), and
the smaller look is made there. Made at the full size, at a width the whole cards measured wrong (391
px for cards of 250), it read four cards sure, which kept the halved frame's six from standing (a
close photograph of the seen decks, ``vision_close.py`` scene 10 at 250 px)."""
SMALLER_LOOK_REACH = 0.6
"""A corner is looked at smaller where the card it implies has its centre within this many card
widths of a place read unsure or unreadable."""
SMALLER_LOOK_KEEPS = True
"""A smaller look's card is not taken where the first look at that corner read another card at
:data:`CONTEST_FLOOR` or more: a crop made smaller can leave out what tells a 6 from a 5 (why a
second look is never smaller, :data:`SECOND_LOOK_SCALES`). Without it the 400 tables read 2 unseen
seats more, none wrong (every corner near a place in doubt looked at): kept on that precedent."""
SMALLER_LOOK_BLACK = False
"""Whether a corner read as a club or a spade is looked at smaller, and a smaller look may name one.
Not: on 400 tables (every corner near a place in doubt looked at) that turned a seen 3c into a 3s
(seed 818181, table 43) and an unseen Jc into a Js (717171, table 5), two seats identified with a
card they did not hold, for 9 seen and 16 unseen seats more."""
LAYOUT_FROM = 0.5
"""A place where the index classifier read a card at this or more (sure or not) is left to it: the
layout index model's card for that place stands only when it is the same card
(:meth:`OnnxRecognizer._layout_cards`)."""
DEFAULT_THRESHOLD = 0.99
INDEX_HEAD_POWER = 0.5
"""The power the index classifier's "this crop is an index" probability is raised to before its
card probabilities are judged (:func:`soften_index`). The classifier's three heads (index or not,
rank, suit) are multiplied into its card probabilities. On deck designs it never saw, the rank and
suit heads mostly know the card while the index head doubts that the crop is an index at all: on
the true index corners of the eight real designs (``real``) the median index probability is 0.01
to 0.7 by deck, the rank's and the suit's about 1.0 (thirty-fourth session). Its square root keeps
the order of the reads and lets more of them reach the threshold and the body's rescue floor:
on the first 1,000 benchmark scenes seen 5,684 -> 5,700 right (wrong reads 3 -> 4), unseen 5,573
-> 5,602 (12 as before); ``letele`` and ``real`` 150 scenes 571 -> 609 and 297 -> 348 right (with
:data:`INDEX_SOFTEN_SURE`; every crop softened, 5,701 and 3 wrong, 5,607 and 14). A power of 0.3 read more
(seen 5,720, ``letele`` 653, ``real`` 385) but doubled the seen decks' wrong reads to 6 (partly
covered kings of clubs and spades read as diamonds), and 0.15 read 16 wrong in 150 seen scenes
(models/HISTORY.md). Only crops whose card is sure given an index are softened
(:data:`INDEX_SOFTEN_SURE`). The layout index model's reads are not softened."""


INDEX_SOFTEN_SURE: float | None = 0.99
"""Soften only the crops whose card, given that the crop is an index, is at least this sure
(``None``: every crop; :func:`soften_index`): where the rank or the suit is in doubt too, the
index head's doubt stands. On the felt bench's twelve felts, softening every crop read 16 more
seen-deck cards with 4 more wrong reads and 57 more unseen with 8 more; softening only these, 14
and 3, 33 and 3 (models/HISTORY.md, thirty-fourth session)."""


def given_index(probs: np.ndarray) -> np.ndarray:
    """``N x 52``: each crop's card probabilities given that it is an index (the card's probability over
    one minus the crop's "not an index" probability), from an index model's ``N x 53`` ``probs``.

    >>> given_index(np.array([[0.45] + [0.0] * 51 + [0.55]], np.float32)).max().round(3)
    np.float32(1.0)
    """
    return probs[:, :NOT_INDEX] / np.clip(1.0 - probs[:, NOT_INDEX], 1e-12, 1.0)[:, None]


def tolerant_probs(probs: np.ndarray, not_index_up_to: float | None, sure: float = 0.0) -> np.ndarray:
    """One crop's ``53`` scale-tolerant probabilities as a read stands on them
    (:data:`TOLERANT_NOT_INDEX_UP_TO`): given that the crop is an index (the card columns over one minus
    "not an index", which becomes 0) where "not an index" is ``not_index_up_to`` or less and the most
    probable card given an index is ``sure`` or more; else as they are.

    >>> p = np.array([0.58, 0.0005] + [0.0] * 50 + [0.4195], np.float32)
    >>> [round(float(tolerant_probs(p, up_to, 0.999)[0]), 3) for up_to in (0.5, 0.4, None)]
    [0.999, 0.58, 0.58]
    >>> round(float(tolerant_probs(p, 0.5, 0.9995)[0]), 3)
    0.58
    """
    if not_index_up_to is None or probs[NOT_INDEX] > not_index_up_to:
        return probs
    given = given_index(probs[None])[0]
    if given.max() < sure:
        return probs
    out = np.zeros_like(probs)
    out[:NOT_INDEX] = given
    return out


def soften_index(probs: np.ndarray, power: float, sure: float | None = None) -> np.ndarray:
    """The index classifier's ``N x 53`` probabilities with the probability that the crop is an
    index (one minus the last column's) raised to ``power``, and the card columns scaled with it,
    so each card keeps its share of it (:data:`INDEX_HEAD_POWER`).

    >>> p = np.array([[0.72, 0.0, 0.08] + [0.0] * 49 + [0.2]], np.float32)
    >>> q = soften_index(p, 0.5)
    >>> round(float(q[0, 0]), 4), round(float(q[0, 2]), 4), round(float(q[0, 52]), 4)
    (0.805, 0.0894, 0.1056)
    >>> soften_index(p, 1.0) is p
    True

    With ``sure``, a crop whose card is less sure than that, given an index, keeps the model's own
    figures (here the card is 0.9 of the index's 0.8):

    >>> [round(float(soften_index(p, 0.5, sure=sure)[0, 0]), 4) for sure in (0.99, 0.9)]
    [0.72, 0.805]
    """
    if power == 1.0 or len(probs) == 0:
        return probs
    index = np.clip(1.0 - probs[:, NOT_INDEX], 1e-12, 1.0)
    soft = index ** power
    if sure is not None:
        soft = np.where(probs[:, :NOT_INDEX].max(axis=1) >= sure * index, soft, index)
    out = probs.copy()
    out[:, :NOT_INDEX] *= (soft / index)[:, None]
    out[:, NOT_INDEX] = 1.0 - soft
    return out


SECOND_LOOK_SCALES: tuple[float, ...] = (0.0, 0.12, 0.25)
"""Scales (crop width over the proposal's, minus 1) of a second look: decks print their indices at
0.65 to 1.35 times a standard size for the card's width, and the classifier reads an index best
when the crop frames it as in training, so a near miss is looked at in place and up to a quarter
larger. Not smaller: on the calibration scenes a crop 10% smaller raised 35 more corners to the
threshold but also read a partly covered 6d as a sure 5d (the part of the index it leaves out is
what tells them apart)."""
SECOND_LOOK_SHIFTS: tuple[tuple[float, float], ...] = ((0.0, 0.0), (0.03, 0.0), (-0.03, 0.0), (0.0, 0.03), (0.0, -0.03))
"""Shifts (card widths along ``u`` and ``v``) of the crops averaged at each scale of a second look:
in place and 3% of the card width each way."""
SECOND_LOOK: tuple[tuple[float, float, float, float], ...] = tuple(
    (dx, dy, s, 0.0) for s in SECOND_LOOK_SCALES for dx, dy in SECOND_LOOK_SHIFTS)
"""Every crop of a second look (:func:`vision.detect.crop_matrix` jitters), scale by scale."""
_IN_PLACE = SECOND_LOOK.index((0.0, 0.0, 0.0, 0.0))
_LOOK_AGAIN = SECOND_LOOK[:_IN_PLACE] + SECOND_LOOK[_IN_PLACE + 1 :]
"""The second look's crops but the one in place at the proposal's own scale (the first look's)."""
SECOND_LOOK_FROM = 0.3
"""A corner whose best card has at least this probability, but less than the threshold, is looked at
again."""
SECOND_LOOK_TURN: float | None = 0.15
"""Radians (8.6 degrees) a corner the second look leaves below the threshold is turned, either way,
for a third look (:meth:`OnnxRecognizer._look_again`): five crops a turn (:data:`SECOND_LOOK_SHIFTS`)
at the proposal's own scale, averaged. A proposer measures a corner's angle from what it sees (the
slant from a rank to its suit, an edge a shadow or a finger shortens), and a crop turned from the
index reads it unsure; but not only then: the 9h of benchmark scene 69, proposed within 2 degrees of
its card's edge, reads unsure straight and sure turned. ``None``: no third look. Sixty-second session,
first 1,000 benchmark scenes: seen 5,802 -> 5,806 right (a wrong read fewer: a Qc placed off its card
now read at its own index), unseen 5,728 -> 5,733, no read lost and no wrong read more; turns of 0.1
and 0.2 radians read 2 and 9 more, one seen wrong read more; at every scale of the second look, 6 and 5
more, three times the crops."""
TABLE_TURNED_LOOK = False
"""Whether a table's seat zones (:meth:`OnnxRecognizer.recognize_zones`, the camera's frames) get the
third look (:data:`SECOND_LOOK_TURN`) as photographs and scenes read whole do. Not: on the latency
benchmark's table views it looked at 1.1 corners a frame, 10 crops each, 2.6 ms of a frame at the
50 ms limit; and a camera gives a seat a new look every frame, a photograph only one."""
TURNED_LOOK_BAR = 0.99
"""What a turn's mean must give a card for the third look (:data:`SECOND_LOOK_TURN`) to stand: above
the threshold, since two turns are two more chances for a twin suit to rise (at the threshold itself,
seen and unseen read 20 and 31 more cards, with 3 and 6 more wrong reads, a club for a spade, a
king of diamonds for one of spades; at 0.98, one unseen wrong read more)."""


def _turned_looks(turn: float) -> tuple[tuple[float, float, float, float], ...]:
    """The third look's crops (:data:`SECOND_LOOK_TURN`): ``turn`` radians one way, then the other,
    five shifts each, at the proposal's own scale."""
    return tuple((dx, dy, 0.0, a) for a in (turn, -turn) for dx, dy in SECOND_LOOK_SHIFTS)


EDGE_SLACK = 0.1
"""How far (card widths) an index crop may reach past the frame's edge and still be read: the crop's
own margin round the card (0.02 widths, :data:`~vision.render.INDEX_X0`) and most of the white
between the card's edge and its index print. A corner whose index the frame's edge cuts deeper is
not an index (:func:`off_frame`): what is left of the glyphs reads as another card. On the first
1,000 benchmark scenes of the seen decks, the two sure wrong reads whose crops reach past the
frame's edge reach 0.116 and 0.141 widths past it (a 6 of diamonds whose index is half off the
frame read as a 5 at 0.9986, a 4 of clubs as a 4 of spades), and 21 sure right reads more than 0.1
(twenty-fifth session, models/HISTORY.md)."""
SAME_CARD_REACH = 0.6
"""Two detections reading the same card with centres this close (card widths) are one card: a deck
has one of each, and proposals of one card from different edges can imply quads a little apart."""
PAIR_OPPOSITE = -0.9
"""Largest cosine between the ``u`` of two corners that are one card's two index corners (about
25 degrees from opposite; perspective turns them a few degrees at most)."""
SECOND_WIDTH_APART = 0.12
"""Where no card width is configured, the frame is read at the width whose crops read best and
also at the best other width tried, more than this fraction away, that read a card sure
(:meth:`OnnxRecognizer._search_width`). On 600 tuning scenes per deck set: 0.6 points more of the
seen decks read right and 0.8 of the unseen, 3 more unseen wrong reads, none seen (models/HISTORY.md,
"Twenty-first session")."""
LADDER_TOP_HALVES = True
"""Where the width search places the cards it reads sure wider than the top rung of
:data:`~vision.detect.WIDTH_LADDER` (a close photograph, cards 160 to 400 pixels wide), the frame is
read halved too (:meth:`OnnxRecognizer._read_smaller`), and the halved reads stand where they read
more (:meth:`OnnxRecognizer._halved_stands`). Close photographs of the seen decks, 200 to 450 px
cards: 95.6 to 99.5% read right before, 98.9 to 100% now (models/HISTORY.md, "Fifty-eighth session")."""
HALVED_APART = 1.15
"""A halved read stands over a larger size's sure reads where it places its cards more than this
times wider or narrower than they, or reads twice as many (:data:`LADDER_TOP_HALVES`): a deck
printing a jumbo index reads best past the ladder's top at either size, and was otherwise read again
at half the resolution, with more wrong reads."""
HALVED_AT_TOP = True
"""A halved frame (:meth:`OnnxRecognizer._read_smaller`) whose sure reads lie at the ladder's top rung
(136 px) at the median, not only past it, is read halved again: the top may be as far as the search
reached, not the cards' width (a `letele` photograph of 450 px cards read one card at 136 px
halved, eight quartered)."""
HALVED_KEEPS = 0.5
"""A halved read stands only where it reads every card the full size read sure, within this many card
widths of its place (:data:`LADDER_TOP_HALVES`)."""
TOLERANT_WIDTH_GAIN = 2.0
"""Where no card width is configured and the scale-tolerant index model reads at some width tried at
least this many times as many corners sure, plus one, as the index classifier reads at its best
width, the frame is read at that width instead (:meth:`OnnxRecognizer._search_width`; the classifier's
best width still joins as the runner-up). Such a frame shows a deck whose index the classifier
refuses for its size alone, the real designs' trouble. Standard 150 real-design scenes: 449 right,
14 wrong -> 487, 13; 300 of seed 616161: 1,017, 35 -> 1,051, 32; the seen and unseen decks' first
1,000 scenes read the same cards (models/HISTORY.md, "Fifty-seventh session")."""
TOLERANT_RUNNER_UP = True
"""Where no width but the chosen one has a corner the index classifier reads sure, the runner-up read
beside it (:data:`SECOND_WIDTH_APART`) is the width tried at which the scale-tolerant model's reads
make the most corners sure, if any (:meth:`OnnxRecognizer._search_width`). Standard 150 real-design
scenes: 487 right, 13 wrong -> 505, 14 (the new one a Nicu large index placed 0.55 widths off);
300 of seed 616161: 1,051, 32 -> 1,091, 29; `letele` 726 -> 736, none wrong; the seen decks' first
1,000 scenes one card fewer, the unseen two more, the same wrong reads (models/HISTORY.md,
"Fifty-seventh session")."""
TOLERANT_WIDTH_BODY = False
"""Whether a club or a spade the body models raised, settled or turned stands in a region read at the
width the scale-tolerant model chose (:data:`TOLERANT_WIDTH_GAIN`). The index classifier reads there
off the scale it knows, and the body models raise its unsure reads: on an unseen deck on a grey
cloth (`bench/vision_felt.py`, scene 82) a Jc so raised to Js at the threshold (the unseen decks'
clubs the body models take for spades). Hearts and diamonds they raise stand. Real designs 505 -> 503
right on the standard 150 scenes, 1,091 -> 1,087 on seed 616161, `letele` 736 -> 734, the same wrong
reads; every body raise refused there instead: 499, 1,081, 727 (models/HISTORY.md, "Fifty-seventh
session")."""
SMALL_CARD_WIDTH = 70.0
"""Cards narrower than this (pixels at the width read) show a suit a few pixels wide at the index:
there the classifier's one confident mistake is a club for a spade or a spade for a club."""
SMALL_BLACK_THRESHOLD = 0.99
"""Confidence a club or a spade read on a card narrower than :data:`SMALL_CARD_WIDTH` must reach
(or the recogniser's threshold, if higher) when there is no body-suit model to ask
(:data:`SMALL_BLACK_BODY_CHECK` when there is). On 600 whole validation scenes of the training decks
(seeds ``[50505, i]``, used by nothing else) the shipped model at 0.97 read 6 cards wrong, 4 of
them clubs and spades on cards 53 to 59 pixels wide; with this rule 1. On 600 more (``[40404, i]``,
looked at only to check the rule): 5 wrong reads -> 2, for 1.5 points of recall. Over both sets a
single threshold lets 6 through at 0.985 for 4.8 points (models/HISTORY.md, "Tenth session")."""
SMALL_BLACK_BODY_CHECK = 0.999
"""With a body-suit model, a club or a spade on a card narrower than :data:`SMALL_CARD_WIDTH` read
at the threshold but below this is shown to the body, and stands only when the index and the body
together (:func:`body_evidence`) reach the threshold: the body can save a read under
:data:`SMALL_BLACK_THRESHOLD` and refuse one over it (a spade's pips under a club's index). On the
first 1,000 benchmark scenes per deck set the body refused 5 and 12 such reads from 0.99 up, 7 of
them wrong reads, all under 0.999 (models/HISTORY.md, "Eighteenth session")."""
QUEEN_BODY_CHECK = 0.999
"""With a body-suit model, a card read as a queen at the threshold but below this is shown to the
body, and stands only when the index and the body together (:func:`body_evidence`) reach the
threshold. A queen's rounded letter is where the classifier's confident rank mistakes on decks it
never saw land: every wrong read of the real `letele` design on the 150 benchmark scenes is a ten
read as Qh (6, at 0.964 to 0.990), and two `urw-gothic` nines read as queens at 0.983 in the tuning
scenes; the pips of a ten or a nine are nothing like a court card's. On those 150 scenes it left 1
of the 6 for 16 of 340 cards read right; on 600 tuning scenes per set, 3 of 13 unseen wrong reads
for 5 cards and 2 seen cards (models/HISTORY.md, "Twenty-first session")."""
BODY_CONFIRM = 0.95
"""Probability the body-suit model (:mod:`vision.pips`) must give a suit to settle a card whose two
index corners read a club and a spade of one rank (with its rank at :data:`BODY_RANK_CONFIRM`).
The model file's ``confirm`` metadata, when it has one, replaces it."""
BODY_RANK_CONFIRM = 0.9
"""Probability of the rank the body must give to settle a club-against-spade contest."""
WHOLE_SUIT = 0.95
"""What the whole-card model (:data:`DEFAULT_WHOLE_MODEL`) must give a card's suit for the card, read
unsure at its index or one of a contest, to stand (with its rank at :data:`WHOLE_RANK`). Forty-seventh
session, 1,200 tuning scenes: at 0.9 four spades of the unseen decks stood wrong, at 0.95 none."""
WHOLE_RANK = 0.9
"""What the whole-card model must give the rank (with the suit at :data:`WHOLE_SUIT`)."""
WHOLE_REFUSED = True
"""Whether the whole look (:meth:`OnnxRecognizer._whole_look`) is also asked about a place a check made
unreadable, for the card it was read as (:attr:`Detection.refused`), where that card is a heart or a
diamond (a queen the queen check refused, mostly), on the same terms (suit :data:`WHOLE_SUIT`, rank
:data:`WHOLE_RANK`). Never a club or a spade: there the checks refuse what the index and the body
cannot settle between the black suits, and on decks never trained on all the models can be wrong
together. Forty-eighth session: asked about refused clubs and spades too, it read 12 more cards
right on 2,400 tuning scenes with none wrong, but on the first 1,000 benchmark scenes of the unseen
decks a ``p052`` Jc 55 px wide, read Js at 0.80 and refused by the small-black check, stood as Js:
both body models gave spades 0.84 and 0.96, the whole card 0.96."""
WHOLE_BLACK_TWIN: float | None = 0.5
"""A club or a spade the whole-card model names stands only where neither body model gives its colour
twin's suit this much (the index regions blanked, :mod:`vision.pips`): clubs and spades of decks
never trained on are the one mistake the models share. Forty-seventh session, the first 1,000
benchmark scenes of the unseen decks: the one wrong read the whole look made, a ``urw-gothic`` 7c
read 7s (index 0.77, whole card 0.98), its second body model gave clubs 0.59; over those, 1,000 more
unseen scenes and the seen decks' 1,000, the rule left 25 of the 34 right clubs and spades it made
(measured before club-spade contests were left out of the whole look too). ``None``: no such check."""
BODY_RESCUE_FLOOR = 0.5
"""A card read at this or more (its index corners combined), but below the threshold, is shown to
the body: it stands when the index and the body together (:func:`body_evidence`) reach the
threshold. On the tuning scenes, 0.5 read 0.4 points more of the seen decks than 0.8, with no more
wrong reads."""
COLOUR_TWIN_SUITS = frozenset("cs")
"""Suits of a card read from :data:`BODY_RESCUE_FLOOR` up to the threshold whose colour twin
(:func:`colour_twin`: a club for a spade, a spade for a club) the body may read instead: the card
becomes its twin, at the threshold and ``confirmed_by_body``, when the index's own probability of
the twin (:attr:`Detection.colour_twin_confidence`) and the body together (:func:`body_evidence`)
reach the threshold. On cards about 72 pixels wide the index often splits a club and a spade of one
rank (a ten read Tc 0.66 and Ts 0.33) where the pips are plain. Twenty-sixth session, 100 ten-seat
tables a set: 3 seen and 10 unseen seats more identified, the same wrong seats; diamonds and hearts
as well changed nothing (models/HISTORY.md)."""
FAINT_SURE_ONLY = True
"""A corner proposed from a rank taken from weak print (:attr:`vision.detect.Corner.faint`) is read only
where the index classifier itself reads it at the threshold: no body model raises it, no layout model
or scale-tolerant model reads it. Forty-ninth session: on the unseen benchmark a ``p052`` jack of clubs so proposed read Js at
0.88, and both body models, taking its pips for spades, raised it (scene 842); on 600 tuning scenes
the rule keeps 4 of the 6 cards the weak ranks add. ``False``: such reads are weighed as any other."""
TWIN_VETO_BELOW = 0.999
"""With a body-suit model, a club or a spade read at the threshold but below this, on a card narrower
than :data:`TWIN_VETO_WIDTH`, is shown to the body, and is made unreadable when the body gives its
colour twin's suit :data:`TWIN_VETO_SUIT` or more (a club's pips under a spade's index). ``None``:
no such check. Every wrong seat of the 100-table benchmark set ``[515151, i]`` was an unseen deck's
club read as a spade at 0.962 to 0.992, and in six of the seven the body said clubs at 0.8 or more
(twenty-sixth session, models/HISTORY.md). Bigger cards' indices are plain enough, and at their
sizes the veto cost more right reads than it saved wrong ones."""
TWIN_VETO_SUIT = 0.85
"""What the body must give a card's colour twin's suit to veto the card (:data:`TWIN_VETO_BELOW`).
Refusing whenever the body merely prefers the twin took 18 seen and 32 unseen seats of 705 for
the same wrong seats: in a tabled hand one card's body lies partly under the other. 0.75 from the
twenty-sixth session to the forty-first; since the forty-second, with the vetoes added since (the
second body model's, both models', the look from the other index corner), 0.85: a ``freesans``
three of clubs 74 px wide read 3c at 0.998, its body read from a quad a sixth too wide giving
spades 0.80 (tuning scene ``[50505, 89]``), is read; 3 more cards a set on the first 1,000
benchmark scenes and 1 or 2 more seats on each seat benchmark, the same wrong reads and seats."""
TWIN_VETO_SECOND: float | None = 0.9
"""A club or a spade the twin veto (:data:`TWIN_VETO_BELOW`) leaves standing, its suit not confirmed by
the first body model (under its ``confirm``, 0.95), is made unreadable too when the second body
model (:data:`DEFAULT_SUIT_LAYOUT_MODEL`) gives its colour twin's suit this or more. That model is
never asked to confirm a club or a spade (:data:`SECOND_BODY_SUITS`: it took an unseen deck's
clubs for spades), but it saw more pip designs, and it can still speak against one. (Asked of every
card the first veto left, it read two to six more bodies on five of the eight latency views.)
Thirtieth session: an unseen deck's ace of clubs with an index that looks like a spade's, read As
at 0.997 on both corners, the first body 0.53 clubs, the second 0.91 (100 tables ``[616161, i]``:
3 wrong seats -> 2, the same seats identified); on the first 1,000 benchmark scenes unseen wrong
reads 13 -> 12 for one card, seen and ``letele`` unchanged (models/HISTORY.md). ``None``: no such
check."""
SMALL_BLACK_SECOND: float | None = 0.9
"""A small club or spade the small-black check lets stand on the first body model's word
(:data:`SMALL_BLACK_BODY_CHECK`, index and body weighed together) without that model confirming its
suit (under its ``confirm``) is made unreadable when the second body model gives its colour twin's
suit this or more: the twin veto's second word (:data:`TWIN_VETO_SECOND`), which a card the check
has had its say on never reached. Fortieth session: a seen deck's ace of clubs 64 px wide read As
at 0.997, the first body model trained on sides turned 4 degrees giving clubs 0.74, spades 0.17
(index and body together 0.987), the second clubs 0.99. ``None``: no such check."""
TWIN_RESCUE_SECOND: float | None = 0.5
"""The twin rescue (a club or a spade read unsure at its index, read as its colour twin when the
index's probability of the twin and the first body model reach the threshold) does not stand where
the second body model, when there is one, gives the suit the index read this much or more: the
first body model took a real design's 2s for a club at 0.97, the second said spades at 0.97
(thirty-first session). ``None``: the second body model is not asked."""
BLACK_PAIR_SECOND: float | None = 0.25
"""A card whose index corners read a club and a spade of one rank, which the first body model
settles (suit :data:`BODY_CONFIRM`, rank :data:`BODY_RANK_CONFIRM`), stays contested where the
second body model, when there is one, gives the other black suit this much or more. Thirty-eighth
session: on a blurred frame (``bench/vision_light.py`` ``blur``, table ``[515151, 6]`` seat 9) a
jack of spades read Jc 0.84 and Js 0.65 at its corners was settled as Jc by the first body model
(clubs 0.977, retrained that session) and the seat identified with a card it does not hold; the
second gave spades 0.32. The seven settlements on 300 tuning scenes a set were all right, the other
black suit at most 0.10 by the second model. ``None``: the second body model is not asked."""
ALL_BODIES_SUIT: float | None = 0.9
"""Where the index leaves a card in doubt, the four looks at its body together may settle it: both body
models, each from both the card's index corners (:meth:`OnnxRecognizer._all_bodies_say`), giving one
card its suit this or more, its rank :attr:`OnnxRecognizer.body_rank_confirm` or more and the other
suit of its colour under :data:`ALL_BODIES_TWIN`. So settled: a contest the general rule weighs (two
readings of one place, ``contest_of_places``, a club against a spade of one rank among them; or a
card's own corners reading more than a club and a spade of one rank) is read as the contender the
bodies speak for; a card read from :attr:`OnnxRecognizer.body_floor` up to the threshold whose
bodies all speak for its rank in another suit is read as that card (a seen deck's 5d 57 px wide
read 5s at 0.935 at its index), never as another rank (:data:`ALL_BODIES_RANK`), nor as its
colour twin: that is the twin rescue's, which reads a club or a spade as its twin where the four
looks speak for the twin and the index gave it :data:`TWIN_BY_BOTH_FLOOR` or more (an unseen deck's
Ac 71 px wide read As at 0.998, which the twin veto refuses). The club-against-spade rule of a
card's own two corners (the first body alone, 0.95 and 0.9) once let an unseen deck's Kc through as
Ks when tried on two readings of one place (twenty-sixth session); four looks of two models are
asked here. Forty-first session, 600 tuning scenes a set: seen 3,647 -> 3,657 read right, unseen
3,550 -> 3,561, wrong reads the same (0 and 6); the first 1,000 benchmark scenes 5,778 -> 5,794 and
5,693 -> 5,710 (2 and 13 wrong as before); 100 tables ``[616161, i]``: seats 674 -> 676 and 646 ->
654 of 714, none wrong (models/HISTORY.md). ``None``: not asked."""
ALL_BODIES_TWIN = 0.1
"""The most any of the four looks may give the other suit of the card's colour (:data:`ALL_BODIES_SUIT`)."""
ALL_BODIES_RANK = False
"""Whether the four looks (:data:`ALL_BODIES_SUIT`) may also read a card the index read unsure as the
card the first body model likes best where that is another rank: the body's rank comes from the
count and the layout of the pips and from the court pictures, which each design draws its own way,
where the index prints the rank. Fifty-first session: on the real designs' 20 standard tables a
``kde-standard`` 8c, its corners read 8c at 0.78 and 0.86 (0.93 together; the layout index model
0.997), was made a 9c by both body models from both corners (a nine at 0.94 to 0.99: that design
lays its eight pips in four rows of two), a wrong seat. Off, that seat is not identifiable and none
is wrong; the first 1,000 benchmark scenes read 6 seen and 5 unseen cards fewer (5,800 and 5,722 of
6,006, wrong reads the same 2 and 12), the `letele` design 1 card (650 of 924) and 2 seats fewer (59
of 137), the real designs 1 card fewer (381) and the same 36 seats; on 400 tables of four seeds 6
unseen seats fewer (2,652), the seen seats and the wrong seats the same (models/HISTORY.md).
``True``: the forty-first session's rule, which on its tuning scenes changed 15 ranks, 14 of them
right."""
TWIN_RESCUE_REFUSED = True
"""The twin rescue (:data:`COLOUR_TWIN_SUITS`: a club or a spade read as its colour twin where the
index's probability of the twin and the body together reach the threshold) is tried too on the
clubs and spades the body refuses when read sure: by the small-black check (:data:`SMALL_BLACK_BODY_CHECK`)
and by the twin veto (:data:`TWIN_VETO_BELOW`). Before the thirty-ninth session such a card was
only made unreadable. ``False``: only cards read unsure are rescued."""
TWIN_BY_BOTH_FLOOR: float | None = 0.01
"""A club or a spade the twin rescue may read as its colour twin (:data:`TWIN_RESCUE_REFUSED`) is
read so too where the index gave the twin at least this, and both body models give the twin's suit
:data:`TWIN_BY_BOTH_SUIT` and its rank :data:`BODY_RANK_CONFIRM` or more. The index weighed against
one body (:func:`body_evidence`) needs the twin at about 0.03 for a body that is sure at 0.999: a
small seen queen of clubs read Qs 0.966 (Qc 0.033), both bodies saying clubs and a queen at 0.99
and more, was left unreadable. Thirty-ninth session, 600 tuning scenes a set: seen 3,642 -> 3,644,
unseen 3,550 -> 3,555, no more wrong reads. ``None``: the two body models are not asked together."""
TWIN_BY_BOTH_SUIT = 0.97
"""What both body models must give the colour twin's suit (:data:`TWIN_BY_BOTH_FLOOR`)."""
TWIN_VETO_BOTH: float | None = 0.5
"""A club or a spade the twin veto (:data:`TWIN_VETO_BELOW`) leaves standing is vetoed too where
both body models give its colour twin's suit this or more: each prefers the twin, neither enough
for its own veto. Thirty-ninth session: the body model trained on wider width jitter gave an
unseen deck's five of clubs, read 5s at 0.985, clubs 0.74 (the first veto needs 0.75), the second
model 0.60, and the seat was identified with the 5s (100 tables ``[616161, i]``, table 16 seat 2).
It cost 3 right reads a set on 600 tuning scenes. Since the fortieth session the first model's word
is the larger of its two looks, from the read corner and from the other (:data:`TWIN_VETO_TURNED`):
its new file gave a blurred unseen king of clubs read Ks clubs 0.25 from the read corner, 0.53
from the other, the second model 0.52 (light bench ``blur``, table ``[515151, 4]`` seat 5); the
tuning scenes and the 100 tables read the same with it. ``None``: no such veto."""
SURE_TWIN_VETO: float | None = 0.85
"""A club or a spade read at :data:`TWIN_VETO_BELOW` or more (which the twin veto passes by) on a card
narrower than :data:`SMALL_CARD_WIDTH`, not confirmed by its body, is made unreadable where all four
looks at its body (both body models, each from both index corners) give its colour twin's suit this
or more; the first model's look from the corner read is asked first, the three others only where
that one reaches it (without a second body model, the first model's two looks). Forty-third session:
an unseen deck's seven of clubs 62 px wide read 7s at 0.9999 at both index corners, the four looks
giving clubs 0.87 to 0.99 (benchmark scene ``[424242, 881]``), and an ace of clubs 58 px wide read
As at 0.9994, clubs 0.985 to 0.996 (tuning scene ``[60606, 265]``). Asked of every card under the
twin veto's 100 px, its first look cost 1 to 2 ms on the latency benchmark's table frames (cards 72
px wide, about six such reads a frame) for no card more on 600 tuning scenes a set; both cards it
refuses are under 70 px. ``None``: a read at :data:`TWIN_VETO_BELOW` or more is never shown to the
body."""
TWIN_VETO_TURNED = True
"""A club or a spade the twin veto (:data:`TWIN_VETO_BELOW`) leaves standing, its suit not confirmed
by the first body model, is shown to it again cropped from the card's other index corner (the same
card turned half round, as the model trained on), and vetoed when that look gives the colour twin's
suit :data:`TWIN_VETO_SUIT` or more (one more body call). Thirty-ninth session: under the light
bench's ``blur`` an unseen deck's king of clubs read Ks at 0.994 at one index corner, its body
spades 0.76 from that corner and clubs 0.985 from the other, identified its seat with the Ks
(table ``[515151, 4]`` seat 5). It cost 4 unseen cards on 600 tuning scenes a set, and 1 seen and
3 unseen seats of 714 on the 100 further tables. ``False``: one look."""
SECOND_LOOK_BLACK_QUEEN = False
"""Whether a queen of clubs or spades gets the second look at its body (:data:`BODY_SCALES`).
Thirty-ninth session: an unseen deck's queen of clubs read Qs 0.909, both bodies saying spades
(the mistake all the models share), the body's rank a nine at the proposal's size, was raised to
Qs by the queen the body saw at 0.85 and 0.92 of the size, and the seat identified with it (100
tables ``[616161, i]``, table 60 seat 2). Without the second look for black queens: 1 seen and 2
unseen cards fewer on 600 tuning scenes a set; for every club and spade: 4 and 5."""
TWIN_VETO_WIDTH = 100.0
"""Cards at least this wide (pixels) are not vetoed (:data:`TWIN_VETO_BELOW`)."""
RAISED_QUEEN_VETO: float | None = 0.9
"""A queen the first body model raises to the threshold (read unsure at its index, or contested
there) is put back, unsure or contested, when the second body model (:data:`DEFAULT_SUIT_LAYOUT_MODEL`),
where there is one, gives another rank this much or more: it saw more pip and court designs, and
the ten a deck's thin "10" makes look like a queen at the index has ten pips. Thirty-sixth session:
with the body-suit model trained on twice the scenes, a CC0 deck's ten of hearts whose index read
Qh at 0.92 stood on the first body's 0.57 for a queen (its pips partly under the next card) and
made a seat identifiable with a wrong hand; the second body model gave the ten 0.999. Requiring
the second model to confirm every raised queen instead cost 6 right reads on 600 tuning scenes
(models/HISTORY.md). ``None``: the second body model is not asked."""


SECOND_BODY_SUITS: frozenset[int] = frozenset({1, 2})
"""Suits (``Card.index % 4``: clubs 0, diamonds 1, hearts 2, spades 3) the second body model
(:data:`DEFAULT_SUIT_LAYOUT_MODEL`) may confirm: hearts and diamonds. Twenty-fourth session, 300
tuning scenes a set and seed: allowed every suit, it confirmed clubs of the unseen decks as spades
(two more sure wrong reads on one set, one more on `letele`); red only, no wrong read more on five
sets, `letele` read 4.1 and 4.7 points more."""
BODY_SCALES: tuple[float, ...] = (0.85, 0.92, 1.08, 1.15)
"""Sizes (over the proposal's) at which the body of a card read from :data:`BODY_RESCUE_FLOOR` up to
the threshold is cropped again when the first crop neither raised it nor spoke against it
(:data:`BODY_SECOND_LOOK_FROM`). The quad comes from one index corner and the width the frame was
read at, often 5 to 25% off the card's own, and a body cropped that far off is read unsure (the body
model trained within 4%). The card stands when the index and the body together reach the threshold
at two sizes side by side (of these and the proposal's own): one size alone is one more chance for a
body read unsure to pass by luck (on the benchmark it raised a `letele` ten of hearts read as a
queen; two sizes keep about half of the recall one size added). Only those cards, a few a frame at
most. (A second look for small clubs and spades, whose body can also refuse them, is not taken: on
the tuning scenes it let a ten of diamonds through as a club.)"""
BODY_SECOND_LOOK_FROM = 0.3
"""A card whose index and body together (:func:`body_evidence`) gave it less than this at the
proposal's size is not looked at again: the body saw another card there, and a larger crop can take
in a neighbour's pips. Without this floor two seats of the 20-table benchmark were declared with a
wrong card (a Js raised as the Jc the index read, its body saying spades 0.97 at the proposal's
size and clubs at 1.08; a 9c raised as a 9s the same way); with it, the same seats as before the
second look, and on the tuning scenes the same cards raised (one size alone then deciding)."""


def body_evidence(confidence: float, card: Card, probs: np.ndarray) -> float:
    """The probability of ``card`` from its index and its body together: ``confidence``, what the
    index corners gave it (:func:`combine`), and ``probs``, the body's row of
    :meth:`OnnxRecognizer.body_probs` (suit and rank heads, each a softmax).

    The two views share no pixel (the body crop blanks the index), so they are taken as independent:
    the body gives a card its suit's probability times its rank's, plus a 52nd of its "no face"
    (a body it could not see says nothing of the card). The index's other cards are not
    kept, so all of its remaining ``1 - confidence`` is put on the card the body likes best after
    ``card`` (the same rank in another suit, or the same suit at another rank): the worst case for
    ``card``. Sure pips raise a card read unsure at the index; pips that say another suit or rank
    bring it down. In the eighteenth session it replaced the sixteenth's fixed bars (the body's suit
    at 0.95, its rank at 0.9): on the first 1,000 benchmark scenes per deck set, 0.4 points more of
    the seen decks and 0.8 more of the unseen, with the same wrong reads (models/HISTORY.md,
    "Eighteenth session").

    >>> p = np.zeros(18); p[[3, 4]] = 0.98, 0.02; p[5 + 5] = 0.97; p[5 + 6] = 0.03   # spades, a 7
    >>> round(body_evidence(0.8, Card.parse("7s"), p), 4), round(body_evidence(0.8, Card.parse("7c"), p), 4)
    (0.9922, 0.0016)
    """
    suits = np.asarray(probs[: pips.N_SUIT_CLASSES - 1], np.float64)
    blind = float(probs[pips.N_SUIT_CLASSES - 1]) / 52  # "no face": the body saw no card, any card alike
    ranks = np.asarray(probs[pips.N_SUIT_CLASSES :], np.float64)
    s, r = card.index % 4, card.index // 4
    mine = suits[s] * ranks[r] + blind
    other = max(np.delete(suits, s).max() * ranks[r], suits[s] * np.delete(ranks, r).max()) + blind
    return _weighed(confidence, mine, other)


def _weighed(confidence: float, mine: float, other: float) -> float:
    """The index's ``confidence`` in a card weighed with what the body gives it (``mine``) and its
    likeliest rival (``other``), the index's remaining ``1 - confidence`` all on that rival."""
    whole = confidence * mine + (1.0 - confidence) * other
    return 0.0 if whole <= 0.0 else float(confidence * mine / whole)


SMALL_BLACK_OTHER_RANK: float | None = 0.5
"""With a body-suit model, a small club or spade the small-black check shows the body (read at the
threshold but under :data:`SMALL_BLACK_BODY_CHECK`; not a queen) whose index and body together
(:func:`body_evidence`) fall short of the threshold still stands when its index and the body's
suit alone (:func:`suit_evidence`) reach it, the body giving no other rank this or more and the
card's suit at least :data:`SUIT_OVER_TWIN` times the other black suit. The check asks the body
about the suit. In a tabled hand a card's body lies partly under the next card, and a body that
sees a few pips of the right suit says little of the rank (a king of spades 66 pixels wide: spades
0.996, the king 0.05); the rank's share of the evidence then refused cards the body spoke for. The
rank was read at the index; a body sure of another rank still refuses it. ``None``: suit and rank
together only. Thirtieth session, first 1,000 benchmark scenes: seen 5,678 -> 5,682 read right,
unseen 5,573 -> 5,575 (with :data:`TWIN_VETO_SECOND`), wrong reads the same (3 and 12); 300
tuning scenes (seeds ``[50505, i]``): seen 1,769 -> 1,770, unseen 1,729 -> 1,731, wrong reads
the same (models/HISTORY.md, "Thirtieth session")."""
SUIT_OVER_TWIN = 2.0
"""How many times the other black suit the body must give a small club or spade's own suit for the
suit alone to speak for it (:data:`SMALL_BLACK_OTHER_RANK`). Tried: the suit merely likelier (16
cards more on the 1,000 scenes, and an unseen ten of clubs read Ts stood on a body of spades 0.47,
clubs 0.34, on the tan felt; a body that says next to nothing then adds nothing, and the card stood
on its index alone)."""


def suit_evidence(confidence: float, card: Card, probs: np.ndarray) -> float:
    """The probability of ``card`` from its index (``confidence``) and the suit its body shows, the
    rank taken from the index: :func:`body_evidence` with the body's rank head left out, its "no
    face" share spread over the four suits. 0.0 when the body gives another rank
    :data:`SMALL_BLACK_OTHER_RANK` or more, or a club or a spade less than :data:`SUIT_OVER_TWIN`
    times its colour twin's suit.

    >>> p = np.zeros(18); p[[0, 3]] = 0.1, 0.9; p[5 + 12] = 0.9        # spades, an ace
    >>> suit_evidence(0.98, Card.parse("Ks"), p)                       # the body sees another rank
    0.0
    >>> p[5 + 12] = 0.05; p[5 + 11] = 0.05                             # the rank unclear
    >>> round(suit_evidence(0.98, Card.parse("Ks"), p), 4), suit_evidence(0.98, Card.parse("Kc"), p)
    (0.9977, 0.0)
    """
    suits = np.asarray(probs[: pips.N_SUIT_CLASSES - 1], np.float64)
    blind = float(probs[pips.N_SUIT_CLASSES - 1]) / 4  # "no face": the body saw no card, any suit alike
    ranks = np.asarray(probs[pips.N_SUIT_CLASSES :], np.float64)
    s, r = card.index % 4, card.index // 4
    if SMALL_BLACK_OTHER_RANK is None or np.delete(ranks, r).max() >= SMALL_BLACK_OTHER_RANK:
        return 0.0
    if card.suit in COLOUR_TWIN_SUITS and suits[s] < SUIT_OVER_TWIN * suits[colour_twin(card).index % 4]:
        return 0.0
    return _weighed(confidence, suits[s] + blind, np.delete(suits, s).max() + blind)


KEEP_FLOAT_POOLING = ["QDQPropagationTransformer"]
"""onnxruntime graph optimisers the recogniser's session leaves out. The classifier's first stage (a
convolution of the one grayscale channel and its max-pool) runs in float: int8 kernels are slow on
one input channel (``vision.modelfile.quantize``). QDQ propagation would move the quantisation that
follows the pool to before it, and a uint8 max-pool in NCHW runs onnxruntime's generic kernel, many
times slower than the float one. Max-pooling commutes with quantisation, so the outputs are the same
either way; only the time differs."""


@dataclasses.dataclass(frozen=True)
class Reading:
    """The classifier's verdict on one index corner."""

    card: Card | None
    """``None`` when the corner is not a readable index."""
    confidence: float
    """Probability of ``card`` (or of "not an index" when ``card`` is ``None``)."""
    layout: bool = False
    """Read by the layout index model (:data:`DEFAULT_LAYOUT_MODEL`)."""
    tolerant: bool = False
    """Read by the scale-tolerant index model (:data:`DEFAULT_TOLERANT_MODEL`) on the index
    classifier's word (:meth:`OnnxRecognizer.tolerant_reads`)."""
    alt: Reading | None = dataclasses.field(default=None, compare=False, repr=False)
    """The layout index model's read of this corner, where the index classifier did not read it
    sure and the layout model read a card at its own threshold (:meth:`OnnxRecognizer.layout_reads`);
    ``None`` elsewhere."""
    colour_twin: float = dataclasses.field(default=0.0, compare=False, repr=False)
    """The probability the classifier gave :func:`colour_twin` of ``card`` (the same rank in the other suit
    of its colour); 0 when ``card`` is ``None``."""


@dataclasses.dataclass(frozen=True)
class Detection:
    """One card found in a frame."""

    card: Card | None
    """The card, or ``None`` when it is there but unreadable (corners disagree, unsure, covered)."""
    confidence: float
    """0..1; for ``card=None`` the best single-corner probability seen."""
    corners: tuple[tuple[float, float], ...]
    """Four corners of the card in frame pixels, starting at the read index corner."""
    indices_read: int = 0
    """How many index corners were read as ``card`` (1 or 2)."""
    face_up: bool = True
    """``False`` for a card back."""
    contested: bool = False
    """Its index corners were read as different cards (``card`` is then ``None``)."""
    read_at: tuple[tuple[float, float, float, float], ...] = dataclasses.field(default=(), compare=False, repr=False)
    """The index corners read as ``card``: ``(x, y, ux, uy)``, the corner point and the direction of
    the card's short side from it (:class:`~vision.detect.Corner`); tells two fanned cards apart
    from one card read two ways (:func:`merge_duplicates`)."""

    confirmed_by_body: bool = False
    """Read below the threshold at the index, or contested there between a club and a spade of one
    rank, and confirmed by the card's body (suit and rank, :mod:`vision.pips`): ``confidence`` is
    then the threshold."""
    contest: tuple[Card, ...] = dataclasses.field(default=(), compare=False, repr=False)
    """For a contested card, the cards its index corners were read as at :data:`CONTEST_FLOOR` or
    more, surest first."""
    contest_confidences: tuple[float, ...] = dataclasses.field(default=(), compare=False, repr=False)
    """The confidence of each card of :attr:`contest` (its surest corner's)."""
    by_layout: bool = dataclasses.field(default=False, compare=False, repr=False)
    """``card`` was read sure only by the layout index model (:data:`DEFAULT_LAYOUT_MODEL`), on the
    index classifier's or the body's word (:meth:`OnnxRecognizer._layout_cards`)."""
    body_checked: bool = dataclasses.field(default=False, compare=False, repr=False)
    """Shown to the body by the small-black or queen check, or read by the layout model on the
    body's word (:meth:`OnnxRecognizer._assemble`): the colour-twin veto passes it by."""
    contest_of_places: bool = dataclasses.field(default=False, compare=False, repr=False)
    """:attr:`contest` is of two readings of one place (:func:`merge_duplicates`), not of the card's own
    index corners."""
    colour_twin_confidence: float = dataclasses.field(default=0.0, compare=False, repr=False)
    """The most an index corner read as ``card`` gave :func:`colour_twin` of ``card`` (:attr:`Reading.colour_twin`):
    what the index says for the card the body may read instead (:meth:`OnnxRecognizer._ask_one_body`)."""
    out_of_focus: bool = dataclasses.field(default=False, compare=False, repr=False)
    """Made unreadable because its region is out of focus and only the body raised it to the
    threshold, settled it or turned it (:meth:`OnnxRecognizer._in_focus`)."""
    refused: Card | None = dataclasses.field(default=None, compare=False, repr=False)
    """For a place a check made unreadable (:func:`_unread`: the body's refusals of a small club or
    spade, the twin veto, the queen check), the card it was read as: the one card the whole look
    may still find there (:data:`WHOLE_REFUSED`)."""

    def to_json(self) -> dict:
        return {
            "card": None if self.card is None else str(self.card),
            "confidence": round(float(self.confidence), 4),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
        }

    @property
    def center(self) -> tuple[float, float]:
        return (sum(p[0] for p in self.corners) / 4, sum(p[1] for p in self.corners) / 4)


class Recognizer(Protocol):
    """Anything that finds cards in a BGR frame."""

    def recognize(self, frame: np.ndarray, roi: tuple[int, int, int, int] | None = None
                  ) -> list[Detection]: ...


# ---------------------------------------------------------------------------------------------
# Pure stages
# ---------------------------------------------------------------------------------------------


BLANK_FROM: int | None = 16
"""Column of an index crop (of :data:`vision.detect.CROP_W`) from which the blanked look paints the
crop over with its card stock (:meth:`OnnxRecognizer._blank_look`): 0.15 card widths from the
card's edge, past the index of every deck here and short of a real design's pips and court frames;
``None``: no blanked look."""
BLANK_LOOK_BELOW = 0.5
"""The blanked look reads a corner anew only where the index classifier read no card at this or
more (or the same card, unsure)."""

BLANK_LOOK_SHIFTS: tuple[tuple[float, float], ...] = SECOND_LOOK_SHIFTS
"""Shifts of the blanked crops whose mean must reach the threshold (those of a second look): one
blanked crop of a place with no index can read a card (thirty-first session)."""
BLANK_LEAN: float | None = 0.05
"""A blanked read stands only where the index read as printed (not blanked) does not lean to another
card: no other card given this much and more than the blanked read's card (thirty-second session).
``None``: no such check."""
BLANK_BLACK: float | None = 0.98
"""The mean over the blanked crops a club or a spade must reach (at least the threshold): clubs and
spades are the index classifier's one sure confusion (thirty-second session). ``None``: the threshold."""


def blank_beside(crops: Sequence[np.ndarray] | np.ndarray, x0: int | Sequence[int] | None = None) -> np.ndarray:
    """The crops (``N x H x W``, or ``N x H x W x 3``) with their columns from ``x0`` (default
    :data:`BLANK_FROM`; one column for all, or one a crop) on painted the brightness of each crop's
    card stock (the 90th percentile of its columns before), one array.

    >>> c = np.full((48, 28), 200, np.uint8); c[10:20, 3:9] = 20; c[5:30, 18:26] = 40
    >>> b = blank_beside([c], 16)[0]
    >>> int(b[:, 16:].min()), int(b[10:20, 3:9].max())
    (200, 20)
    >>> b = blank_beside([c, c], [16, 20])
    >>> int(b[0, :, 16:].min()), int(b[1, 5:30, 18:20].max()), int(b[1, :, 20:].min())
    (200, 40, 200)
    """
    x0 = BLANK_FROM if x0 is None else x0
    assert x0 is not None
    out = np.array(crops, copy=True)
    if len(out) == 0:
        return out
    cols = np.broadcast_to(np.asarray(x0, np.int64), (len(out),))
    for col in np.unique(cols).tolist():
        mine = np.flatnonzero(cols == col)
        left = out[mine, :, :col]
        if out.ndim == 4:  # colour: each channel's own stock
            stock = np.percentile(left.reshape(len(mine), -1, out.shape[-1]), 90, axis=1)[:, None, None, :]
        else:
            stock = np.percentile(left.reshape(len(mine), -1), 90, axis=1)[:, None, None]
        out[mine, :, col:] = stock
    return out


def blank_column(dx: float) -> int:
    """The column from which a crop shifted ``dx`` card widths inward (a second look's shift,
    :func:`vision.detect.crop_matrix`) is blanked: where :data:`BLANK_FROM` lies on the card, so a
    shift toward the card's edge does not paint over the index's right side.

    >>> blank_column(0.0) == BLANK_FROM, blank_column(0.03) - BLANK_FROM, blank_column(-0.03) - BLANK_FROM
    (True, -3, 3)
    """
    assert BLANK_FROM is not None
    return BLANK_FROM - int(round(dx * detect.CROP_W / (detect.INDEX_X1 - detect.INDEX_X0)))


def preprocess(crops: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    """Stack ``CROP_H x CROP_W`` uint8 crops into a float32 ``N x C x H x W`` tensor: grayscale
    crops give ``C = 1``, BGR crops (``CROP_H x CROP_W x 3``) give ``C = 3`` in B, G, R order.

    Each crop is standardised on its own, so light level and camera gain do not matter: grayscale
    to zero mean and unit contrast; in colour every channel loses its own mean (a tint of the light
    or of the white balance cancels out) and all three are divided by the contrast of the crop's
    luminance, so the colour of the print (red, black, the blue and green of four-colour decks)
    survives.

    >>> preprocess([np.full((48, 28), 200, np.uint8)]).shape
    (1, 1, 48, 28)
    >>> preprocess(np.full((2, 48, 28, 3), 200, np.uint8)).shape
    (2, 3, 48, 28)
    """
    arr = np.asarray(crops, dtype=np.float32)
    if arr.size == 0:
        return np.zeros((0, 1, detect.CROP_H, detect.CROP_W), np.float32)
    if arr.ndim == 2 or (arr.ndim == 3 and arr.shape[-1] == 3 and arr.shape[0] == detect.CROP_H):
        arr = arr[None]
    if arr.ndim == 4:  # colour, N x H x W x 3 (BGR)
        lum = arr @ np.array([0.114, 0.587, 0.299], np.float32)
        mean = arr.mean(axis=(1, 2), keepdims=True)
        std = lum.std(axis=(1, 2), keepdims=True)[..., None]
        return ((arr - mean) / (std + 8.0)).transpose(0, 3, 1, 2).astype(np.float32)
    mean = arr.mean(axis=(1, 2), keepdims=True)
    std = arr.std(axis=(1, 2), keepdims=True)
    return ((arr - mean) / (std + 8.0))[:, None].astype(np.float32)


def decode(probs: np.ndarray) -> list[Reading]:
    """Turn ``N x 53`` class probabilities into one :class:`Reading` per corner.

    >>> p = np.zeros((2, 53), np.float32); p[0, 51] = 0.9; p[0, 48] = 0.08; p[1, 52] = 0.9
    >>> [(str(r.card), round(r.confidence, 2), round(r.colour_twin, 2)) for r in decode(p)]
    [('As', 0.9, 0.08), ('None', 0.9, 0.0)]
    """
    probs = np.asarray(probs, dtype=np.float64)
    out = []
    for row in probs:
        k = int(row.argmax())
        if k == NOT_INDEX:
            out.append(Reading(None, float(row[k])))
        else:
            out.append(Reading(Card.from_index(k), float(row[k]), colour_twin=float(row[k ^ 3])))
    return out


def colour_twin(card: Card) -> Card:
    """The same rank in the other suit of ``card``'s colour: clubs and spades, diamonds and hearts
    (``Card.index % 4``: 0 and 3, 1 and 2). The mistake a small or unfamiliar index invites.

    >>> [str(colour_twin(Card.parse(c))) for c in ("7c", "7s", "Qd", "Qh")]
    ['7s', '7c', 'Qh', 'Qd']
    """
    return Card.from_index(card.index ^ 3)


def print_colour(crop: np.ndarray) -> str | None:
    """The colour of the print in a BGR index crop: ``"red"``, ``"black"``, ``"blue"`` or
    ``"green"`` (four-colour decks' diamonds and clubs), or ``None`` when it is not clearly one of
    them (mixed print, too little print, too dark).

    The darkest pixels (the print) are compared with the brightest (the card stock) channel by
    channel, so the colour of the light and the camera's white balance cancel out: black print
    reflects all three channels about equally little, red print reflects red far more than the rest.

    >>> paper = np.full((48, 28, 3), 235, np.uint8)
    >>> black, red = paper.copy(), paper.copy()
    >>> black[8:20, 6:16] = (25, 25, 25); red[8:20, 6:16] = (40, 30, 190)
    >>> blue, green = paper.copy(), paper.copy()
    >>> blue[8:20, 6:16] = (200, 60, 20); green[8:20, 6:16] = (40, 130, 20)
    >>> print_colour(black), print_colour(red), print_colour(blue), print_colour(green), print_colour(paper)
    ('black', 'red', 'blue', 'green', None)

    A small blurred index, felt at the crop's edge, a faint grey rank over a blot of a spade: its
    darkest pixels are black (:data:`PRINT_CORE`); the same index printed red is not:

    >>> small, red_small = paper.copy(), paper.copy()
    >>> small[2:5] = red_small[2:5] = (60, 110, 40)
    >>> small[10:22, 8:16] = 150; small[27:33, 9:14] = 40
    >>> red_small[10:22, 8:16] = (150, 150, 215); red_small[27:33, 9:14] = (40, 35, 170)
    >>> print_colour(small), print_colour(red_small)
    ('black', None)
    >>> offset = paper.copy(); offset[:, :6] = offset[:14] = (60, 110, 40)  # proposed off the card
    >>> offset[16:26, 10:16] = 150; offset[28:32, 10:15] = 40  # more felt in view than print
    >>> red_offset = offset.copy(); red_offset[28:32, 10:15] = (40, 35, 170)
    >>> print_colour(offset), print_colour(red_offset)
    ('black', None)
    """
    return print_colours(np.asarray(crop)[None])[0]


def print_colours(crops: np.ndarray, inside: np.ndarray | None = None) -> list[str | None]:
    """:func:`print_colour` of every crop of an ``N x H x W x 3`` stack, in one pass of array work.
    ``inside`` (``N x H x W`` bool, optional): the pixels on card stock; the rest (felt the crop
    takes in) are judged as if they were the crop's card stock (:func:`_paper_outside`)."""
    crops = np.asarray(crops)
    if len(crops) == 0:
        return []
    h, w = crops.shape[1:3]
    inner = crops[:, int(0.08 * h) :, int(0.12 * w) :]  # the crop's margin lies outside the card (felt)
    if inside is not None:
        inner = _paper_outside(inner, np.asarray(inside)[:, int(0.08 * h) :, int(0.12 * w) :])
    px = inner.reshape(len(crops), -1, 3).astype(np.float32)
    lum = px @ np.array([0.114, 0.587, 0.299], np.float32)
    n = lum.shape[1]
    k_ink, k_paper = max(4, n // 14), n // 4
    k_core, k_wide = max(4, n // PRINT_CORE[0]), max(4, n // PRINT_CORE[1])
    # one partition for every share: the darkest k_core, k_wide and k_ink, the brightest k_paper
    order = np.argpartition(lum, sorted({k_core, k_wide, k_ink, n - k_paper}), axis=1)
    paper_idx, ink_idx = order[:, n - k_paper :], order[:, :k_ink]
    paper = np.take_along_axis(px, paper_idx[..., None], axis=1).mean(axis=1)
    ink = np.take_along_axis(px, ink_idx[..., None], axis=1).mean(axis=1)
    # no card stock, or no print dark enough to judge
    unclear = (paper.min(axis=1) < 60) | (np.take_along_axis(lum, ink_idx, axis=1).mean(axis=1)
                                          > 0.65 * np.take_along_axis(lum, paper_idx, axis=1).mean(axis=1))
    r = ink / np.maximum(paper, 1.0)  # reflectance of the print per channel (B, G, R)
    # one channel reflected far more than the other two: red, blue or green print
    strong = [r[:, c] - np.maximum(r[:, (c + 1) % 3], r[:, (c + 2) % 3]) > PRINT_HUE_MARGIN for c in range(3)]
    black = (r.max(axis=1) - r.min(axis=1) < 0.08) & (r.max(axis=1) < 0.5)
    # where that tells nothing, a small blurred index: the darkest 1 in 100 (the suit's core) black
    # and the darkest 1 in 40 neither red nor blue, while the darkest 1 in 14 take in the felt or
    # the grey strokes' edges (PRINT_CORE)
    core = np.take_along_axis(px, order[:, :k_core, None], axis=1).mean(axis=1)
    wide = np.take_along_axis(px, order[:, :k_wide, None], axis=1).mean(axis=1)
    rc, rw = core / np.maximum(paper, 1.0), wide / np.maximum(paper, 1.0)
    core_black = ((rc.max(axis=1) - rc.min(axis=1) < 0.08) & (rc.max(axis=1) < PRINT_CORE_BLACK)
                  & (rw[:, 2] - np.maximum(rw[:, 0], rw[:, 1]) < 0.08)  # not red
                  & (rw[:, 0] - np.maximum(rw[:, 1], rw[:, 2]) < 0.08)  # nor blue
                  & (paper.min(axis=1) >= 60))
    first = [None if u else "red" if rd else "blue" if bu else "green" if gr else "black" if bl else None
             for u, bu, gr, rd, bl in zip(unclear, *strong, black)]
    return [c if c is not None else "black" if cb else None for c, cb in zip(first, core_black)]


def _paper_outside(crops: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """``crops`` with every pixel outside ``inside`` replaced by the colour of the brightest pixel
    inside: the card stock. A grey or black felt in a crop is darker than red print and as neutral
    as black print, so its pixels would be taken for the print; painted as card stock they are not
    print at all. Crops with nothing inside stay as they are.

    >>> crop = np.full((1, 4, 4, 3), 230, np.uint8); crop[0, :, 0] = 30; crop[0, 2, 2] = (40, 40, 200)
    >>> inside = np.ones((1, 4, 4), bool); inside[0, :, 0] = False
    >>> out = _paper_outside(crop, inside)
    >>> out[0, :, 0].tolist(), out[0, 2, 2].tolist()
    ([[230, 230, 230], [230, 230, 230], [230, 230, 230], [230, 230, 230]], [40, 40, 200])
    """
    ins = inside.reshape(len(crops), -1)
    some = np.flatnonzero(~ins.all(axis=1) & ins.any(axis=1))  # (most crops lie wholly on a card)
    if len(some) == 0:
        return crops
    import cv2

    out = np.array(crops)
    for k in some:
        crop, on = out[k], np.ascontiguousarray(inside[k])
        x, y = cv2.minMaxLoc(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), on.view(np.uint8))[3]
        crop[~on] = crop[y, x]
    return out


PRINT_CORE = (100, 40)
"""The shares of a crop's pixels (1 in 100, 1 in 40: the darkest) that judge a small index's print
black when the darkest 1 in 14 do not: a spade or a club on a card about 55 px wide is a blot of
some twenty dark pixels beside a faint grey rank, and the darkest 1 in 14 then take in the felt at
the crop's edge or the grey, neither neutral nor dark enough. The darkest 1 in 100 must be neutral
(no channel reflected 0.08 more than another) and dark (:data:`PRINT_CORE_BLACK`); the darkest 1 in
40 must be neither red nor blue (no more red, or blue, reflected than the other channels by 0.08,
green felt allowed), so red print with a black speck of another card's print, or a four-colour
deck's blue diamond, stays unclear. It only ever turns "unclear" into black, which refuses a heart
or a diamond read there. Twenty-third session: on the CC0 ``letele`` deck four spades read as
diamonds at 0.97 to 0.99 on 600 tuning scenes were refused; seen and unseen decks read as many
cards within a few, through the width search."""
PRINT_CORE_BLACK = 0.35
"""What the darkest 1 in 100 may reflect of the card stock, at most, to be black print."""
PRINT_HUE_MARGIN = 0.22
"""How much more of one channel than of either other the print must reflect (relative to the card
stock) to judge it red, blue or green."""
_BLACK_SUITS = frozenset("cs")
_SUITS_OF_PRINT = {"red": frozenset("hd"), "black": frozenset("cs"), "blue": frozenset("d"), "green": frozenset("c")}
"""The suits print of each colour can be: two-colour decks print hearts and diamonds red, spades
and clubs black; four-colour decks print diamonds blue and clubs green."""


def suit_colour_check(reading: Reading, frame: np.ndarray, corner: detect.Corner) -> Reading:
    """``reading`` unless its suit contradicts the colour of the print (:func:`print_colour`):
    hearts and diamonds are never black, spades and clubs never red, blue print is a (four-colour)
    diamond and green print a club. A contradiction makes the corner unreadable: a grayscale model
    can take a small spade for a diamond, or a four-colour deck's blue diamond for a spade.

    >>> from controller.cards import Card
    >>> paper = np.full((400, 400, 3), 235, np.uint8); paper[40:52, 36:44] = (25, 25, 25)
    >>> c = detect.Corner((30.0, 30.0), (1.0, 0.0), (0.0, 1.0), 100.0)
    >>> suit_colour_check(Reading(Card.parse("Ad"), 0.99), paper, c).card is None
    True
    >>> str(suit_colour_check(Reading(Card.parse("As"), 0.99), paper, c).card)
    'As'
    """
    return suit_colour_checks([reading], frame, [corner])[0]


def suit_colour_checks(readings: Sequence[Reading], frame: np.ndarray,
                       corners: Sequence[detect.Corner], stock: np.ndarray | None = None) -> list[Reading]:
    """:func:`suit_colour_check` of every reading (the print of all those read as a card at 0.5 or
    more judged at once). ``stock``: the frame's card stock (uint8, 255 on cards, as
    :func:`vision.detect.stock_frame` makes it), so the felt a crop takes in is not judged as print."""
    out = list(readings)
    judge = [i for i, r in enumerate(out) if r.card is not None and r.confidence >= 0.5]
    crops = (np.stack([detect.crop_corner(frame, corners[i], color=True) for i in judge])
             if judge else np.zeros((0, 1, 1, 3), np.uint8))
    inside = (np.stack([detect.crop_corner(stock, corners[i]) >= 128 for i in judge])
              if judge and stock is not None else None)
    colours = print_colours(crops, inside)
    for i, colour in zip(judge, colours):
        card = out[i].card
        if card is not None and colour is not None and card.suit not in _SUITS_OF_PRINT[colour]:
            out[i] = Reading(None, out[i].confidence)
    return out


CONTEST_FLOOR = 0.5
"""A card's index corner that reads another card at this or more makes the card unreadable
(:func:`combine`)."""


def combine(readings: Sequence[Reading], threshold: float) -> tuple[Card | None, float, int]:
    """Merge the readings of one card's index corners: ``(card, confidence, corners_read)``.

    Corners that read as an index must agree: a corner that reads another card than the surest
    one at :data:`CONTEST_FLOOR` or more makes the card unreadable. A card read on one corner only
    keeps that corner's confidence; read on two, the lower of the two
    confidences is raised toward 1 (both had to be wrong in the same way).

    >>> from controller.cards import Card
    >>> As, Ks = Card.parse("As"), Card.parse("Ks")
    >>> combine([Reading(As, 0.99), Reading(As, 0.98)], 0.9)[0]
    Card.parse('As')
    >>> combine([Reading(As, 0.99), Reading(Ks, 0.95)], 0.9)[0] is None
    True
    """
    cards = [r for r in readings if r.card is not None and r.confidence >= 0.5]
    if not cards:
        best = max((r.confidence for r in readings if r.card is not None), default=0.0)
        return None, best, 0
    top = max(cards, key=lambda r: r.confidence)
    if any(r.card != top.card and r.confidence >= CONTEST_FLOOR for r in cards):
        return None, top.confidence, 0
    card = top.card
    confs = sorted((r.confidence for r in cards if r.card == card), reverse=True)
    if len(confs) == 1:
        return card, confs[0], 1
    conf = 1.0 - (1.0 - confs[0]) * (1.0 - confs[1]) ** 0.5
    return card, min(conf, 1.0), len(confs)


def _may_look_smaller(first: Reading) -> bool:
    """Whether a corner whose first look read ``first`` is looked at smaller (:data:`SMALLER_LOOK`):
    where it read a card, a heart or a diamond unless :data:`SMALLER_LOOK_BLACK`.

    >>> from controller.cards import Card
    >>> [_may_look_smaller(Reading(c and Card.parse(c), 0.6)) for c in ("9h", "9c", None)]
    [True, False, False]
    """
    return first.card is not None and (SMALLER_LOOK_BLACK or first.card.suit not in _BLACK_SUITS)


def _smaller_look_stands(first: Reading, again: Reading) -> bool:
    """Whether ``again``, a corner's reading at a smaller look (:data:`SMALLER_LOOK`), may join the
    zone's readings: it names a heart or a diamond, and the first look there (``first``) read no
    other card at :data:`CONTEST_FLOOR` or more.

    >>> from controller.cards import Card
    >>> def stands(a, b): return _smaller_look_stands(Reading(Card.parse(a), 0.7), Reading(Card.parse(b), 0.99))
    >>> stands("6d", "6d"), stands("6d", "5d"), stands("7c", "7s")
    (True, False, False)
    >>> _smaller_look_stands(Reading(Card.parse("6d"), 0.4), Reading(Card.parse("5d"), 0.99))
    True
    """
    if again.card is None or (again.card.suit in _BLACK_SUITS and not SMALLER_LOOK_BLACK):
        return False
    return not (SMALLER_LOOK_KEEPS and first.card is not None and first.card != again.card
                and first.confidence >= CONTEST_FLOOR)


def group_corners(corners: Sequence[detect.Corner], tol: float = 0.3,
                  readings: Sequence[Reading] | None = None, threshold: float = 1.0) -> list[list[int]]:
    """Pair corner candidates that are the two index corners of one card.

    A card has two index corners, top-left and bottom-right; their ``u`` vectors point opposite
    ways (within about 25 degrees: :data:`PAIR_OPPOSITE`) and the card centres they imply coincide
    (within ``tol`` card widths). Two cards of a fan imply nearby centres too, but with parallel
    ``u``, so they are never paired. Pairs are made closest first, so a corner takes the partner
    whose card lies nearest, whatever order the proposers gave them in.

    With ``readings``: two corners that each read a different card at or above ``threshold`` are
    two cards (a card lying over another a fifth of a width along), not one card whose corners
    disagree; each then stands alone, and :func:`merge_duplicates` still makes their place
    unreadable when the two cards they imply lie on each other.

    >>> a = detect.Corner((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), 63.0)
    >>> b = detect.Corner((63.0, 88.0), (-1.0, 0.0), (0.0, -1.0), 63.0)
    >>> group_corners([a, b, detect.Corner((200.0, 0.0), (1.0, 0.0), (0.0, 1.0), 63.0)])
    [[0, 1], [2]]
    >>> near = detect.Corner((70.0, 88.0), (-1.0, 0.0), (0.0, -1.0), 63.0)  # 7 px off: a second card
    >>> group_corners([near, a, b])
    [[0], [1, 2]]
    """
    n = len(corners)
    if n == 0:
        return []
    geo = np.array([(*c.point, *c.u, *c.v, c.card_width) for c in corners], np.float64)
    us = geo[:, 2:4]
    centres = geo[:, 0:2] + 0.5 * geo[:, 6:7] * (us + detect.ASPECT * geo[:, 4:6])
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    reach = tol * np.minimum(geo[:, 6][:, None], geo[:, 6][None])
    ok = np.triu((us @ us.T <= PAIR_OPPOSITE) & (dist < reach), 1)
    if readings is not None:
        sure = np.array([r.card is not None and r.confidence >= threshold for r in readings])
        card = np.array([r.card.index if r.card is not None else -1 for r in readings])
        ok &= ~(sure[:, None] & sure[None] & (card[:, None] != card[None]))
    partner = [-1] * n
    for i, j in sorted(zip(*np.nonzero(ok)), key=lambda ij: dist[ij[0], ij[1]]):
        if partner[i] < 0 and partner[j] < 0:
            partner[i], partner[j] = int(j), int(i)
    return [[i] if partner[i] < 0 else [i, partner[i]] for i in range(n) if partner[i] < 0 or partner[i] > i]


# ---------------------------------------------------------------------------------------------
# The ONNX recogniser
# ---------------------------------------------------------------------------------------------


def _optional_session(path: str | pathlib.Path | None, default: pathlib.Path, what: str, opts,  # type: ignore[no-untyped-def]
                      **kwargs):
    """An onnxruntime session of the optional model file ``path``, or ``None``: ``None`` given, or
    the shipped file ``default`` not there. A file named that does not exist is an error
    (``no such {what}``)."""
    import onnxruntime as ort

    if path is None or (path == default and not default.exists()):
        return None
    return model_session(path, what, opts, **kwargs)


def model_session(path: str | pathlib.Path, what: str, opts, **kwargs):  # type: ignore[no-untyped-def]
    """An onnxruntime session of the model file ``path`` (a ``what``: "index model", ...). No such
    file is a ``FileNotFoundError`` and a file onnxruntime cannot load (not ONNX, cut short, another
    kind of model) a ``ValueError``, each naming the file, for the command line and the table file's
    checks to report (not an onnxruntime traceback)."""
    import onnxruntime as ort
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_errors

    if not pathlib.Path(path).is_file():
        raise FileNotFoundError(f"{path}: no such {what}")
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"], **kwargs)
    except (ort_errors.InvalidProtobuf, ort_errors.InvalidGraph, ort_errors.InvalidArgument, ort_errors.Fail,
            ort_errors.NoSuchFile) as e:
        raise ValueError(f"{path}: onnxruntime cannot load it as the {what} ({str(e).strip()})") from None


class OnnxRecognizer:
    """Find and read cards with classical OpenCV plus the shipped ONNX index classifier."""

    def __init__(self, model_path: str | pathlib.Path = DEFAULT_MODEL, threshold: float | None = None,
                 card_width: float | None = None, threads: int = 1, second_look: bool = True,
                 small_black_threshold: float | None = SMALL_BLACK_THRESHOLD,
                 suit_model_path: str | pathlib.Path | None = DEFAULT_SUIT_MODEL,
                 layout_model_path: str | pathlib.Path | None = DEFAULT_LAYOUT_MODEL,
                 suit_layout_model_path: str | pathlib.Path | None = DEFAULT_SUIT_LAYOUT_MODEL,
                 index_scale: float = 1.0,
                 whole_model_path: str | pathlib.Path | None = DEFAULT_WHOLE_MODEL,
                 tolerant_model_path: str | pathlib.Path | None = DEFAULT_TOLERANT_MODEL) -> None:
        import onnxruntime as ort

        if not INDEX_SCALES[0] <= index_scale <= INDEX_SCALES[1]:
            raise ValueError(f"index_scale {index_scale!r}: must be {INDEX_SCALES[0]} to {INDEX_SCALES[1]}")

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = model_session(model_path, "index model", opts, disabled_optimizers=KEEP_FLOAT_POOLING)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.input_hw = (int(inp.shape[2]), int(inp.shape[3]))
        self.input_channels = int(inp.shape[1])
        """1: grayscale crops; 3: BGR crops (the suit colours tell spades from clubs)."""
        if self.input_channels not in (1, 3):
            raise ValueError(f"{model_path}: model input has {self.input_channels} channels, not 1 or 3")
        if self.input_hw != (detect.CROP_H, detect.CROP_W):
            raise ValueError(f"{model_path}: model input {self.input_hw} does not match crops "
                             f"{(detect.CROP_H, detect.CROP_W)}")
        meta = self.session.get_modelmeta().custom_metadata_map
        self.index_scales = model_index_scales(meta, model_path)
        """The index scales the model was trained to read at (its ``index_scales`` metadata), or ``None``:
        any (the standard model)."""
        if self.index_scales is not None and not self.index_scales[0] <= index_scale <= self.index_scales[1]:
            lo, hi = self.index_scales
            raise ValueError(f"{model_path}: a model for decks that print a jumbo index, read at index_scale "
                             f"{lo:g} to {hi:g}, not {index_scale:g} (set camera.index_scale; "
                             f"`cardroom vision calibrate` measures it)")
        self.body_raises = self.index_scales is None
        """Whether a read the body models raised to the threshold, settled or turned
        (``confirmed_by_body``) stands (:meth:`_trusted`). Not for a jumbo-index model: the body models learnt standard
        indices, whose regions they blank, and a jumbo index reaches past them into the body crop."""
        self.threshold = float(threshold if threshold is not None else meta.get("threshold", DEFAULT_THRESHOLD))
        self.card_width = card_width
        self.index_scale = index_scale
        """How large the deck prints its index against the training decks (``camera.index_scale``): where
        the card width is known (configured or measured), crops and proposals are made at ``index_scale``
        times it and each card is placed at the width itself (:meth:`_scaled`)."""
        self.index_power = INDEX_HEAD_POWER
        self.index_sure = INDEX_SOFTEN_SURE
        """How far the index classifier's doubt that a crop is an index at all is softened
        (:data:`INDEX_HEAD_POWER`, :func:`soften_index`; 1.0: the model's own probabilities)."""
        self.second_look = second_look
        """Look again at near misses (:meth:`_look_again`)."""
        self.white_balance = True
        """Correct a tinted light's cast on the card stock before reading a frame
        (:func:`vision.light.white_balance`: frames under white light are read as they are)."""
        self.focus_limit: float | None = focus.SHARP_EDGE
        """Card edges wider than this (pixels, :func:`vision.focus.edge_width`) mean a region out of
        focus, where a read the body raised, settled or turned is unreadable (:meth:`_in_focus`);
        ``None``: no such check."""
        self.small_black_threshold = small_black_threshold
        """What a club or a spade on a small card must reach at its index alone
        (:data:`SMALL_BLACK_THRESHOLD`); ``None``: the threshold alone, and no body check for them."""
        self.small_black_body_check = SMALL_BLACK_BODY_CHECK
        """With a body-suit model: a club or a spade on a small card read below this is shown to the
        body (:data:`SMALL_BLACK_BODY_CHECK`)."""
        self.suit_session = None
        """The body-suit model (:mod:`vision.pips`), or ``None``: no body check (the default file
        is optional; a path given that does not exist is an error)."""
        self.queen_body_check: float | None = QUEEN_BODY_CHECK
        """With a body-suit model: a card read as a queen below this is shown to the body
        (:data:`QUEEN_BODY_CHECK`); ``None``: no queen check."""
        self.body_confirm = BODY_CONFIRM
        self.body_size = (pips.BODY_W, pips.BODY_H)
        """Width and height of the body crops the body-suit model takes (its input's)."""
        self.body_input_name = "bodies"
        self.suit_session = _optional_session(suit_model_path, DEFAULT_SUIT_MODEL, "body-suit model", opts)
        if self.suit_session is not None:
            body_input = self.suit_session.get_inputs()[0]
            self.body_input_name = body_input.name
            self.body_size = (int(body_input.shape[3]), int(body_input.shape[2]))
            suit_meta = self.suit_session.get_modelmeta().custom_metadata_map
            self.body_confirm = float(suit_meta.get("confirm", BODY_CONFIRM))
        self.suit_layout_session = None
        """The second body-suit model (:data:`DEFAULT_SUIT_LAYOUT_MODEL`), or ``None``; used only with
        a first one, and at that model's confirm and crop size."""
        if self.suit_session is not None:
            self.suit_layout_session = _optional_session(suit_layout_model_path, DEFAULT_SUIT_LAYOUT_MODEL,
                                                         "body-suit model", opts)
        if self.suit_layout_session is not None:
            second = self.suit_layout_session.get_inputs()[0]
            if (int(second.shape[3]), int(second.shape[2])) != self.body_size or second.name != self.body_input_name:
                if suit_layout_model_path == DEFAULT_SUIT_LAYOUT_MODEL:  # made for the shipped first model only
                    self.suit_layout_session = None
                else:
                    raise ValueError(f"{suit_layout_model_path}: second body model input {second.name} "
                                     f"{second.shape[1:]} does not match the body-suit model's")
        self.second_body_suits: frozenset[int] = SECOND_BODY_SUITS
        """Suits (``Card.index % 4``) the second body model may confirm (:data:`SECOND_BODY_SUITS`)."""
        self.layout_session = None
        """The layout index model (:data:`DEFAULT_LAYOUT_MODEL`), or ``None``; used only with a
        body-suit model, which must confirm what it reads."""
        self.layout_threshold = 1.0
        """What the layout index model must give a card (its file's calibrated threshold)."""
        if self.suit_session is not None:
            self.layout_session = _optional_session(layout_model_path, DEFAULT_LAYOUT_MODEL, "layout index model",
                                                    opts, disabled_optimizers=KEEP_FLOAT_POOLING)
        if self.layout_session is not None:
            self.layout_input_name, self.layout_threshold = self._second_index_model(
                self.layout_session, layout_model_path, "layout model")
        self.tolerant_session = None
        """The scale-tolerant index model (:data:`DEFAULT_TOLERANT_MODEL`), or ``None``; used only with
        a body-suit model, which must not deny the colour of what it reads. The shipped file is used
        only beside the shipped index classifier at index scale 1 (a jumbo-index model or scale reads
        without it); a file named otherwise is used as named."""
        self.tolerant_threshold = 1.0
        """What the scale-tolerant index model must give a card (its file's calibrated threshold)."""
        self.tolerant_channels = self.input_channels
        """The channels of the scale-tolerant model's crops: the index classifier's, or 3 for one trained
        on BGR crops (``python -m vision.train --input color``), which then reads crops of its own from
        the colour frame (:meth:`_run_tolerant`)."""
        # the shipped one was measured beside the shipped index classifier at index scale 1 only
        shipped_pair = index_scale == 1.0 and pathlib.Path(model_path).resolve() == DEFAULT_MODEL.resolve()
        if self.suit_session is not None and (shipped_pair or tolerant_model_path != DEFAULT_TOLERANT_MODEL):
            self.tolerant_session = _optional_session(tolerant_model_path, DEFAULT_TOLERANT_MODEL,
                                                      "scale-tolerant index model", opts,
                                                      disabled_optimizers=KEEP_FLOAT_POOLING)
        if self.tolerant_session is not None:
            self.tolerant_input_name, self.tolerant_threshold = self._second_index_model(
                self.tolerant_session, tolerant_model_path, "scale-tolerant model", colour_ok=True)
            self.tolerant_channels = int(self.tolerant_session.get_inputs()[0].shape[1])
        self.body_floor: float | None = BODY_RESCUE_FLOOR
        """Cards read from here to the threshold are shown to the body (:data:`BODY_RESCUE_FLOOR`);
        ``None``: only the small-black check asks it."""
        self.body_scales = BODY_SCALES
        """Sizes of the body's second look (:data:`BODY_SCALES`); empty: none."""
        self.body_contests = True
        """Let the body settle a card whose index corners read a club and a spade of one rank."""
        self.body_rank_confirm = BODY_RANK_CONFIRM
        """What the body must give the rank to settle a club-against-spade contest
        (:data:`BODY_RANK_CONFIRM`)."""
        self._frame_memo = threading.local()
        """The body answers of the look at a frame in progress (:meth:`one_look`)."""
        self.whole_session = (_optional_session(whole_model_path, DEFAULT_WHOLE_MODEL, "whole-card model", opts)
                              if self.body_raises else None)
        """The whole-card model (:data:`DEFAULT_WHOLE_MODEL`), or ``None``: no whole look (nor with a
        jumbo-index model, :attr:`body_raises`: not loaded for it)."""
        self.whole_size = (pips.BODY_W, pips.BODY_H)
        """Width and height of its crops (its input's)."""
        self.whole_input_name = "bodies"
        if self.whole_session is not None:
            whole_input = self.whole_session.get_inputs()[0]
            self.whole_input_name = whole_input.name
            self.whole_size = (int(whole_input.shape[3]), int(whole_input.shape[2]))
            if self.whole_session.get_modelmeta().custom_metadata_map.get("index") != "kept":
                raise ValueError(f"{whole_model_path}: not a whole-card model (its crops blank the index; "
                                 "train one with python -m vision.train --suit-only --suit-whole)")
        self.whole_suit = WHOLE_SUIT
        """What the whole-card model must give a suit (:data:`WHOLE_SUIT`)."""
        self.whole_rank = WHOLE_RANK
        """What the whole-card model must give a rank (:data:`WHOLE_RANK`)."""

    def _second_index_model(self, session, path, what: str,  # type: ignore[no-untyped-def]
                            colour_ok: bool = False) -> tuple[str, float]:
        """The input name and the calibrated threshold (its file's ``threshold``) of a second index
        model (layout, scale-tolerant), whose crops must be the index classifier's (``colour_ok``: or
        BGR crops of the same size): another input is a ``ValueError`` naming the file."""
        inp = session.get_inputs()[0]
        channels = (self.input_channels, 3) if colour_ok else (self.input_channels,)
        if int(inp.shape[1]) not in channels or (int(inp.shape[2]), int(inp.shape[3])) != self.input_hw:
            raise ValueError(f"{path}: {what} input {inp.shape[1:]} does not match the index classifier's")
        return inp.name, float(session.get_modelmeta().custom_metadata_map.get("threshold", 1.0))

    def _assemble(self, corners: Sequence[detect.Corner], readings: Sequence[Reading],
                  frame: np.ndarray, veto: bool = True) -> list[Detection]:
        """:func:`assemble` at this recogniser's thresholds, then the body's word (:meth:`body_probs`,
        when there is a body-suit model): a club or a spade on a small card read at the threshold but
        below :attr:`small_black_body_check` is kept when the index and the body together
        (:func:`body_evidence`) reach the threshold, otherwise made unreadable
        (:func:`_small_black_check`); a card read from :attr:`body_floor` up to the threshold is
        raised to the threshold when they reach it (``confirmed_by_body``); a card read as a queen
        from the threshold up to :attr:`queen_body_check` stands only when they reach it. Without a
        body-suit model a small club or spade must reach :attr:`small_black_threshold` at its index.
        First, the cards only the layout index model read sure join (:meth:`_layout_cards`); those
        checks are theirs, so the small-black and queen checks here pass them by. Last, a club or a
        spade read sure below :data:`TWIN_VETO_BELOW` whose body says its colour twin's suit is made
        unreadable (:meth:`_twin_veto`), and so is a number card whose two bodies deny its rank
        (:meth:`rank_veto`); ``veto=False`` leaves both to the caller, which can judge several
        regions' cards in one model call."""
        dets = assemble(corners, readings, self.threshold)
        dets, by_layout = self._layout_cards(corners, readings, dets, frame)
        sb = self.small_black_threshold
        if sb is not None and self.suit_session is not None:
            sb = max(sb, self.small_black_body_check)
        small = None if sb is None else max(sb, self.threshold)
        doubtful = [i for i, d in enumerate(dets) if small is not None and _small_black_check(d, small) is not d
                    and i not in by_layout]
        queens = []
        if self.suit_session is not None and self.queen_body_check is not None:
            queens = [i for i, d in enumerate(dets) if d.card is not None and d.card.rank == Rank.QUEEN
                      and self.threshold <= d.confidence < self.queen_body_check and i not in doubtful
                      and i not in by_layout]
        before = list(dets)
        confirmed = self._ask_body(dets, [i for i in doubtful if dets[i].confidence >= self.threshold] + queens,
                                   frame)
        self._second_word_on_raised_queens(before, dets, frame)
        self._second_word_on_small_blacks(dets, doubtful, confirmed, frame)
        for i in doubtful:
            if i not in confirmed:
                dets[i] = _small_black_check(dets[i], small)  # type: ignore[arg-type]
        for i in queens:
            if i not in confirmed:
                dets[i] = _unread(dets[i])
        # the checks above have had their say on these: the veto passes them by
        checked = set(doubtful) | set(queens) | by_layout
        dets = [dataclasses.replace(d, body_checked=True) if i in checked else d for i, d in enumerate(dets)]
        if veto:
            self._twin_veto([dets], frame)
            self.rank_veto([dets], frame)
        return dets

    def rank_veto_asks(self, d: Detection) -> bool:
        """Whether :meth:`rank_veto` asks the body about ``d``: a number card read from the threshold
        up to :data:`RANK_VETO_BELOW` at one index corner, on a card :data:`SMALL_CARD_WIDTH` wide or
        more, with both body models there."""
        return (RANK_VETO_BELOW is not None and self.suit_session is not None and self.suit_layout_session is not None
                and d.card is not None and self.threshold <= d.confidence < RANK_VETO_BELOW and d.indices_read <= 1
                and d.card.rank <= Rank.TEN and math.dist(*d.corners[:2]) >= SMALL_CARD_WIDTH)

    @staticmethod
    def rank_refuse(d: Detection) -> Detection:
        """``d`` as :meth:`rank_veto` refuses it: unreadable, and not asked about again as the card it
        was read as (no :attr:`Detection.refused`): its index and its body disagree."""
        return dataclasses.replace(_unread(d), refused=None)

    def rank_veto(self, groups: Sequence[list[Detection]], frame: np.ndarray) -> None:
        """Refuse (in place, :meth:`rank_refuse`) every card of ``groups`` :meth:`rank_veto_asks` about
        whose rank both body models deny while agreeing on another number rank: the first gives its
        rank under :data:`RANK_VETO_FIRST`, its most probable rank another number, and the second
        gives its rank under :data:`RANK_VETO_OWN` and that other :data:`RANK_VETO_OTHER` or more.
        One call of each body model at most; the first is asked first, since the twin veto has
        asked it about many of these cards already (:meth:`body_probs` keeps a frame's looks)."""
        ask = [(g, i) for g, dets in enumerate(groups) for i, d in enumerate(dets) if self.rank_veto_asks(d)]
        if not ask:
            return
        first = self.body_probs(frame, [groups[g][i].corners for g, i in ask])
        denied: list[tuple[int, int, int]] = []  # (group, place, the rank index the first body gives)
        for (g, i), p in zip(ask, first):
            ranks = p[pips.N_SUIT_CLASSES :]
            other = int(ranks.argmax())
            if ranks[groups[g][i].card.index // 4] < RANK_VETO_FIRST and other < Rank.TEN - 1:  # type: ignore
                denied.append((g, i, other))
        if not denied:
            return
        second = self.body_probs(frame, [groups[g][i].corners for g, i, _ in denied], self.suit_layout_session)
        for (g, i, other), p in zip(denied, second):
            d = groups[g][i]
            ranks = p[pips.N_SUIT_CLASSES :]
            if ranks[d.card.index // 4] < RANK_VETO_OWN and ranks[other] >= RANK_VETO_OTHER:  # type: ignore[union-attr]
                groups[g][i] = self.rank_refuse(d)

    def _second_word_on_raised_queens(self, before: Sequence[Detection], dets: list[Detection],
                                      frame: np.ndarray) -> None:
        """Put back (in place) each queen the body raised to the threshold (``before``: the places
        as read at the index) whose body the second body model reads as another rank at
        :data:`RAISED_QUEEN_VETO` or more: the card is then read as it was, unsure or contested. One
        model call for all of them; nothing without a second body model."""
        if RAISED_QUEEN_VETO is None or self.suit_layout_session is None:
            return
        raised = [i for i, (b, d) in enumerate(zip(before, dets)) if d.confirmed_by_body and not b.confirmed_by_body
                  and d.card is not None and d.card.rank == Rank.QUEEN]
        if not raised:
            return
        second = self.body_probs(frame, [dets[i].corners for i in raised], self.suit_layout_session)
        for i, p in zip(raised, second):
            card = dets[i].card
            assert card is not None
            if np.delete(np.asarray(p[pips.N_SUIT_CLASSES :]), card.index // 4).max() >= RAISED_QUEEN_VETO:
                dets[i] = before[i]

    def _second_word_on_small_blacks(self, dets: Sequence[Detection], doubtful: Sequence[int], confirmed: set[int],
                                     frame: np.ndarray) -> None:
        """Take out of ``confirmed`` (in place) each small club or spade of ``doubtful`` read at the
        threshold whose suit the first body model gave under its confirm and whose colour twin's suit
        the second body model gives :data:`SMALL_BLACK_SECOND` or more (one model call for all)."""
        if SMALL_BLACK_SECOND is None or self.suit_layout_session is None:
            return
        stood = [i for i in doubtful if i in confirmed and _small_black(dets[i])
                 and dets[i].confidence >= self.threshold and not dets[i].confirmed_by_body]
        if not stood:
            return
        cards = {i: card for i in stood if (card := dets[i].card) is not None}
        first = self.body_probs(frame, [dets[i].corners for i in stood])
        stood = [i for i, p in zip(stood, first) if p[cards[i].index % 4] < self.body_confirm]
        if not stood:
            return
        for i, p in zip(stood, self.body_probs(frame, [dets[i].corners for i in stood], self.suit_layout_session)):
            if p[colour_twin(cards[i]).index % 4] >= SMALL_BLACK_SECOND:
                confirmed.discard(i)

    def _twin_veto(self, groups: Sequence[list[Detection]], frame: np.ndarray) -> None:
        """Make unreadable (in place) every club or spade of ``groups`` read from the threshold up to
        :data:`TWIN_VETO_BELOW` on a card narrower than :data:`TWIN_VETO_WIDTH`, not confirmed by its
        body nor checked by it already (``body_checked``), whose body gives its colour twin's suit
        :data:`TWIN_VETO_SUIT` or more; one body-model call for all of them. Those left standing
        whose suit that body did not confirm (:attr:`body_confirm`) are shown to the second body
        model, when there is one, and vetoed when it gives the twin's suit :data:`TWIN_VETO_SECOND`
        or more, or both models give it :data:`TWIN_VETO_BOTH` or more (a second call); before that,
        the first model looks at them again from the card's other index corner
        (:data:`TWIN_VETO_TURNED`). A card the first model vetoes at its first look is read as its
        colour twin instead where the twin rescue would read it so (:data:`TWIN_RESCUE_REFUSED`). The
        small clubs and spades read at :data:`TWIN_VETO_BELOW` or more join that first call
        (:meth:`_sure_twin_veto`, :data:`SURE_TWIN_VETO`)."""
        if self.suit_session is None or TWIN_VETO_BELOW is None:
            return
        black = [(g, i) for g, dets in enumerate(groups) for i, d in enumerate(dets)
                 if d.card is not None and d.card.suit in COLOUR_TWIN_SUITS and d.confidence >= self.threshold
                 and not d.confirmed_by_body and not d.body_checked and math.dist(*d.corners[:2]) < TWIN_VETO_WIDTH]
        at = [(g, i) for g, i in black if groups[g][i].confidence < TWIN_VETO_BELOW]
        sure = [(g, i) for g, i in black if groups[g][i].confidence >= TWIN_VETO_BELOW and SURE_TWIN_VETO is not None
                and _small_black(groups[g][i])]
        looks = self.body_probs(frame, [groups[g][i].corners for g, i in at + sure])
        self._sure_twin_veto(groups, sure, looks[len(at):], frame)
        left = []
        for (g, i), p in zip(at, looks[: len(at)]):
            card = groups[g][i].card
            assert card is not None
            if p[colour_twin(card).index % 4] >= TWIN_VETO_SUIT:
                d = groups[g][i]
                twin = TWIN_RESCUE_REFUSED and self._reads_as_twin(frame, d, p, self.suit_session)
                groups[g][i] = self._as_twin(d) if twin else _unread(d)
            elif p[card.index % 4] < self.body_confirm:  # the first body not sure of the suit read
                left.append((g, i, float(p[colour_twin(card).index % 4])))
        if TWIN_VETO_TURNED and left:
            turned = self.body_probs(frame, [_turned(groups[g][i].corners) for g, i, _ in left])
            still = []
            for (g, i, first), p in zip(left, turned):
                card = groups[g][i].card
                assert card is not None
                twin = float(p[colour_twin(card).index % 4])
                if twin >= TWIN_VETO_SUIT:
                    groups[g][i] = _unread(groups[g][i])
                else:  # the first model's word on the twin for TWIN_VETO_BOTH: from either corner
                    still.append((g, i, max(first, twin)))
            left = still
        if TWIN_VETO_SECOND is None or self.suit_layout_session is None or not left:
            return
        second = self.body_probs(frame, [groups[g][i].corners for g, i, _ in left], self.suit_layout_session)
        for (g, i, first), p in zip(left, second):
            card = groups[g][i].card
            assert card is not None
            twin = p[colour_twin(card).index % 4]
            if twin >= TWIN_VETO_SECOND or (TWIN_VETO_BOTH is not None and min(first, twin) >= TWIN_VETO_BOTH):
                groups[g][i] = _unread(groups[g][i])

    def _sure_twin_veto(self, groups: Sequence[list[Detection]], sure: Sequence[tuple[int, int]], first: np.ndarray,
                        frame: np.ndarray) -> None:
        """Make unreadable (in place) each club or spade ``groups[g][i]`` of ``sure`` (read at
        :data:`TWIN_VETO_BELOW` or more) whose colour twin's suit all four looks at its body give
        :data:`SURE_TWIN_VETO` or more (``first``: the first model's looks from the corners read)."""
        if SURE_TWIN_VETO is None or not sure:
            return
        doubted = []
        for (g, i), p in zip(sure, first):
            card = groups[g][i].card
            assert card is not None
            if p[colour_twin(card).index % 4] >= SURE_TWIN_VETO:
                doubted.append((g, i))
        if not doubted:
            return
        quads = [groups[g][i].corners for g, i in doubted]
        turned = [_turned(q) for q in quads]
        other = self.body_probs(frame, turned)
        second = (self.body_probs(frame, quads + turned, self.suit_layout_session)
                  if self.suit_layout_session is not None else np.ones((2 * len(quads), other.shape[1]), np.float32))
        for k, (g, i) in enumerate(doubted):
            card = groups[g][i].card
            assert card is not None
            t = colour_twin(card).index % 4
            if min(other[k][t], second[k][t], second[len(doubted) + k][t]) >= SURE_TWIN_VETO:
                groups[g][i] = _unread(groups[g][i])

    def _layout_cards(self, corners: Sequence[detect.Corner], readings: Sequence[Reading], dets: list[Detection],
                      frame: np.ndarray) -> tuple[list[Detection], set[int]]:
        """``dets`` with the cards only the layout index model read sure (the corners'
        :attr:`Reading.alt`, assembled into cards on their own), and the places of those cards in
        it. Such a card stands only

        * where no other card of ``dets`` read at :data:`LAYOUT_FROM` or more lies (it never
          contests the index classifier's word on a place) and it is no card read sure elsewhere;
        * on a second word: the index classifier read the same card there, unsure, or the body
          confirms both its suit (:attr:`body_confirm`) and its rank (:attr:`body_rank_confirm`);
          a queen needs both (tens of real designs read as queens);
        * and never as a club or a spade: on the unseen decks all three models take a club for a
          spade together (twenty-second session, models/HISTORY.md).

        It takes the place of the card of ``dets`` it lies on (unreadable, or read the same but
        unsure), or is added."""
        alt = [i for i, r in enumerate(readings) if r.alt is not None]
        if not alt or self.suit_session is None:
            return dets, set()
        found = [d for d in assemble([corners[i] for i in alt], [readings[i].alt for i in alt],  # type: ignore[misc]
                                     self.threshold) if d.card is not None and d.confidence >= self.layout_threshold]
        named = {d.card for d in dets if d.card is not None and d.confidence >= self.threshold}
        width = float(np.median([c.card_width for c in corners]))
        places: list[tuple[Detection, int | None, bool]] = []
        for d in found:
            if d.card in named or d.card.suit in _BLACK_SUITS:  # type: ignore[union-attr]
                continue
            q = np.array(d.corners)
            under = [k for k, e in enumerate(dets) if _gap(q, np.array(e.corners)) < 0.25 * width]
            if any(dets[k].card not in (None, d.card) and dets[k].confidence >= LAYOUT_FROM for k in under):
                continue
            places.append((d, under[0] if under else None, any(dets[k].card == d.card for k in under)))
        out = list(dets)
        mine: set[int] = set()
        body = self.body_probs(frame, [d.corners for d, _, _ in places])
        for (d, at, agree), p in zip(places, body):
            card = d.card
            assert card is not None
            confirmed = (p[card.index % 4] >= self.body_confirm
                         and p[pips.N_SUIT_CLASSES + card.index // 4] >= self.body_rank_confirm)
            if not ((agree and confirmed) if card.rank == Rank.QUEEN else (agree or confirmed)):
                continue
            if card in {out[k].card for k in mine}:
                continue
            if at is None or at in mine:
                out.append(d)
                mine.add(len(out) - 1)
            else:
                out[at] = d
                mine.add(at)
        return out, mine

    def _ask_body(self, dets: list[Detection], doubtful: Sequence[int], frame: np.ndarray) -> set[int]:
        """The places in ``dets`` the body confirms (:meth:`_ask_one_body`, the body-suit model); then
        the second body model (:attr:`suit_layout_session`), where there is one, is asked the same
        of the cards left unconfirmed that were read unsure or contested, but not of a contest
        between a club and a spade of one rank, nor of a card or a contender whose suit is not in
        :attr:`second_body_suits`: a club read for a spade is the one mistake all the models share.

        A card of ``doubtful`` read as a queen (the queen check: read at the threshold, under
        :attr:`queen_body_check`) is asked of both: one of :attr:`second_body_suits` stands on the
        second model's word, any other only on both. The second model saw court pictures, and the
        tens of a real design the first takes for queens it does not (twenty-fourth session)."""
        confirmed = self._ask_one_body(self.suit_session, dets, doubtful, frame)
        if self.suit_layout_session is None:
            return confirmed
        suits = self.second_body_suits
        left = [i for i, d in enumerate(dets) if i not in confirmed and not _black_pair(d.contest)
                and all(c.index % 4 in suits for c in ([d.card] if d.card is not None else []) + list(d.contest))]
        sub = [dets[i] for i in left]
        more = self._ask_one_body(self.suit_layout_session, sub, [], frame)
        for j in more:
            dets[left[j]] = sub[j]
        confirmed |= {left[j] for j in more}
        queens = [i for i in doubtful if (card := dets[i].card) is not None and card.rank == Rank.QUEEN
                  and dets[i].confidence >= self.threshold]
        if queens:
            sub = [dets[i] for i in queens]
            second = {queens[j] for j in self._ask_one_body(self.suit_layout_session, sub, range(len(sub)), frame,
                                                            only_doubtful=True)}
            for i in queens:
                card = dets[i].card
                assert card is not None
                if i in second and (card.index % 4 in suits or i in confirmed):
                    confirmed.add(i)
                else:
                    confirmed.discard(i)
        return confirmed

    def _ask_one_body(self, session, dets: list[Detection], doubtful: Sequence[int],  # type: ignore[no-untyped-def]
                      frame: np.ndarray, only_doubtful: bool = False) -> set[int]:
        """The places in ``dets`` the body model ``session`` confirms: of ``doubtful`` (small clubs and spades read at
        the threshold but below :attr:`small_black_body_check`) and of the cards read from
        :attr:`body_floor` up to the threshold, those whose index and body together
        (:func:`body_evidence`) reach the threshold (a small club or spade of ``doubtful``, asked of
        the first body model: or its index and the body's suit, :data:`SMALL_BLACK_OTHER_RANK`);
        those read below the threshold are raised to it in ``dets`` (``confirmed_by_body``), some
        after a second look at their body at other sizes (:data:`BODY_SCALES`, a second model call). Of the cards contested between a club and a
        spade of one rank at its own index corners (:attr:`body_contests`), those where it confirms
        one of the two, suit (:attr:`body_confirm`) and rank (:attr:`body_rank_confirm`), read as
        that card at the threshold; any other contest (more cards, or two readings of one place,
        ``contest_of_places``) is settled for a card whose index evidence against its rivals and
        body together reach the threshold. A club or a spade read from :attr:`body_floor` up to the
        threshold whose body says its colour twin instead is read as the twin when the index's
        probability of the twin and the body together reach the threshold (:data:`COLOUR_TWIN_SUITS`).
        Asked of the first model, a contest of the general rule is first settled for the contender,
        and a card read from :attr:`body_floor` up to the threshold read as its rank in another suit,
        where all four looks of the two models speak for it (:data:`ALL_BODIES_SUIT`).
        Nothing without a body-suit model. ``only_doubtful``: only ``doubtful`` is asked
        about (no rescue, no contest)."""
        if session is None:
            return set()
        floor = None if only_doubtful else self.body_floor
        asks_contests = self.body_contests and not only_doubtful
        rescue = {i for i, d in enumerate(dets)
                  if floor is not None and d.card is not None and floor <= d.confidence < self.threshold}
        black_pairs = {i for i, d in enumerate(dets) if asks_contests and _black_pair(d.contest)
                       and not d.contest_of_places}
        contests = {i for i, d in enumerate(dets)
                    if asks_contests and len(d.contest) >= 2 and i not in black_pairs}
        asked = list(doubtful) + sorted(rescue) + sorted(black_pairs) + sorted(contests)
        small_doubtful = {i for i in doubtful if _small_black(dets[i])}
        confirmed: set[int] = set()
        if not asked:
            return confirmed
        again: dict[int, float] = {}  # cards for the second look: their evidence at the proposal's size
        for i, p in zip(asked, self.body_probs(frame, [dets[i].corners for i in asked], session)):
            if i in black_pairs:
                for card in dets[i].contest:
                    if (p[card.index % 4] >= self.body_confirm
                            and p[pips.N_SUIT_CLASSES + card.index // 4] >= self.body_rank_confirm
                            and not self._second_body_says(frame, dets[i], colour_twin(card), session,
                                                           BLACK_PAIR_SECOND)):
                        dets[i] = dataclasses.replace(dets[i], card=card, confidence=self.threshold, indices_read=1,
                                                      contested=False, confirmed_by_body=True)
                        confirmed.add(i)
                        break  # (the suits' probabilities sum to 1: at most one reaches the confirm)
                continue
            if i in contests:
                d = dets[i]
                if session is self.suit_session:
                    card = next((c for c in d.contest if self._all_bodies_say(frame, d, c, p)), None)
                    if card is not None:
                        dets[i] = dataclasses.replace(d, card=card, confidence=self.threshold, indices_read=1,
                                                      contested=False, confirmed_by_body=True)
                        confirmed.add(i)
                        continue
                for k, card in enumerate(d.contest):
                    rival = max(c for j, c in enumerate(d.contest_confidences) if j != k)
                    if body_evidence(min(d.contest_confidences[k], 1.0 - rival), card, p) >= self.threshold:
                        dets[i] = dataclasses.replace(d, card=card, confidence=self.threshold, indices_read=1,
                                                      contested=False, confirmed_by_body=True)
                        confirmed.add(i)
                        break
                continue
            card = dets[i].card
            assert card is not None
            evidence = body_evidence(dets[i].confidence, card, p)
            if (evidence < self.threshold and i in small_doubtful and session is self.suit_session
                    and card.rank != Rank.QUEEN and dets[i].confidence >= self.threshold):
                evidence = suit_evidence(dets[i].confidence, card, p)
            if (evidence < self.threshold and (i in rescue or (TWIN_RESCUE_REFUSED and i in small_doubtful
                                                                and session is self.suit_session))
                    and card.suit in COLOUR_TWIN_SUITS and self._reads_as_twin(frame, dets[i], p, session)):
                dets[i] = self._as_twin(dets[i])
                confirmed.add(i)
                continue
            if evidence < self.threshold and i in rescue and session is self.suit_session:
                # its rank in another suit (or, ALL_BODIES_RANK, the card the first body model likes
                # best); its colour twin is the twin rescue's (above), which asks the four looks where
                # the index allows
                others = [Card.from_index(card.index // 4 * 4 + k) for k in range(4)]
                if ALL_BODIES_RANK:
                    others.append(Card.from_index(int(np.argmax(p[pips.N_SUIT_CLASSES:])) * 4 + int(np.argmax(p[:4]))))
                other = next((c for c in dict.fromkeys(others) if c not in (card, colour_twin(card))
                              and self._all_bodies_say(frame, dets[i], c, p)), None)
                if other is not None:
                    dets[i] = dataclasses.replace(dets[i], card=other, confidence=self.threshold, indices_read=1,
                                                  confirmed_by_body=True)
                    confirmed.add(i)
                    continue
            if evidence < self.threshold:
                black_queen = card.suit in _BLACK_SUITS and card.rank == Rank.QUEEN
                if (i in rescue and evidence >= BODY_SECOND_LOOK_FROM
                        and (SECOND_LOOK_BLACK_QUEEN or not black_queen)):
                    again[i] = evidence
                continue
            if i in rescue:
                dets[i] = dataclasses.replace(dets[i], confidence=self.threshold, confirmed_by_body=True)
            confirmed.add(i)
        scales = self.body_scales
        if again and scales:  # a second look at the bodies of the cards not raised: the card's width
            quads = [_scaled_quad(dets[i].corners, s) for i in again for s in scales]
            more = self.body_probs(frame, quads, session).reshape(len(again), len(scales), -1)
            sizes = sorted([*scales, 1.0])
            for (i, at_one), ps in zip(again.items(), more):
                d = dets[i]
                assert d.card is not None
                by_size = {1.0: at_one, **{s: body_evidence(d.confidence, d.card, p) for s, p in zip(scales, ps)}}
                evidences = [by_size[s] for s in sizes]
                if max(map(min, zip(evidences, evidences[1:]))) >= self.threshold:  # two sizes side by side
                    dets[i] = dataclasses.replace(d, confidence=self.threshold, confirmed_by_body=True)
                    confirmed.add(i)
        return confirmed

    @staticmethod
    def _twin_floor(det: Detection) -> bool:
        """Whether the index gave ``det``'s colour twin enough for the bodies to read the card as the
        twin (:data:`COLOUR_TWIN_SUITS`, :data:`TWIN_BY_BOTH_FLOOR`)."""
        return (det.card is not None and det.card.suit in COLOUR_TWIN_SUITS and TWIN_BY_BOTH_FLOOR is not None
                and det.colour_twin_confidence >= TWIN_BY_BOTH_FLOOR)

    def _all_bodies_say(self, frame: np.ndarray, det: Detection, card: Card, p: np.ndarray) -> bool:
        """Whether both body models, each from both index corners of ``det``, give ``card`` its suit
        :data:`ALL_BODIES_SUIT` or more, its rank :attr:`body_rank_confirm` or more and its colour
        twin's suit under :data:`ALL_BODIES_TWIN` (``p``: the first model's row from the corner
        read). The first model's look from the other corner is taken only when its first says so, the
        second model's two only when both of the first's do."""
        if ALL_BODIES_SUIT is None or self.suit_layout_session is None:
            return False
        s, r, t = card.index % 4, pips.N_SUIT_CLASSES + card.index // 4, colour_twin(card).index % 4

        def says(q: np.ndarray) -> bool:
            return bool(q[s] >= ALL_BODIES_SUIT and q[r] >= self.body_rank_confirm and q[t] < ALL_BODIES_TWIN)

        turned = [_turned(det.corners)]
        if not says(p) or not says(self.body_probs(frame, turned)[0]):
            return False
        return all(says(q) for q in self.body_probs(frame, [det.corners, *turned], self.suit_layout_session))

    def _reads_as_twin(self, frame: np.ndarray, det: Detection, p: np.ndarray, session: object) -> bool:
        """Whether the club or spade ``det`` is read as its colour twin (the twin rescue,
        :data:`COLOUR_TWIN_SUITS`): the index's probability of the twin and the body model
        ``session`` (its row ``p`` for ``det``) together reach the threshold and the second body
        model does not speak for the suit read (:data:`TWIN_RESCUE_SECOND`), or, ``session`` being
        the first body model, both models are sure of the twin (:meth:`_twin_by_bodies`)."""
        card = det.card
        assert card is not None
        if (body_evidence(det.colour_twin_confidence, colour_twin(card), p) >= self.threshold
                and not self._second_body_says(frame, det, card, session, TWIN_RESCUE_SECOND)):
            return True
        return session is self.suit_session and (self._twin_by_bodies(frame, det, card, p) or (
            self._twin_floor(det) and self._all_bodies_say(frame, det, colour_twin(card), p)))

    def _as_twin(self, det: Detection) -> Detection:
        """``det`` read as its colour twin, at the threshold and ``confirmed_by_body``; what the index
        gave the card it read becomes the twin's :attr:`Detection.colour_twin_confidence`."""
        assert det.card is not None
        return dataclasses.replace(det, card=colour_twin(det.card), confidence=self.threshold, indices_read=1,
                                   confirmed_by_body=True, colour_twin_confidence=det.confidence)

    def _twin_by_bodies(self, frame: np.ndarray, det: Detection, card: Card, p: np.ndarray) -> bool:
        """Whether both body models give ``card``'s colour twin its suit (:data:`TWIN_BY_BOTH_SUIT`) and
        its rank (:attr:`body_rank_confirm`), the index giving the twin :data:`TWIN_BY_BOTH_FLOOR` or
        more; ``p``: the first body model's row for ``det``. The second model is asked only when the
        first says so."""
        if self.suit_layout_session is None or not self._twin_floor(det):
            return False
        twin = colour_twin(card)
        s, r = twin.index % 4, pips.N_SUIT_CLASSES + twin.index // 4
        if p[s] < TWIN_BY_BOTH_SUIT or p[r] < self.body_rank_confirm:
            return False
        q = self.body_probs(frame, [det.corners], self.suit_layout_session)[0]
        return bool(q[s] >= TWIN_BY_BOTH_SUIT and q[r] >= self.body_rank_confirm)

    def _second_body_says(self, frame: np.ndarray, det: Detection, card: Card, session: object,
                          at: float | None) -> bool:
        """Whether the second body model gives ``card``'s suit ``at`` or more on ``det``'s body, when
        ``session`` is the first body model's and there is a second (never with ``at`` None)."""
        if at is None or self.suit_layout_session is None or session is not self.suit_session:
            return False
        p = self.body_probs(frame, [det.corners], self.suit_layout_session)[0]
        return bool(p[card.index % 4] >= at)

    def body_probs(self, frame: np.ndarray, quads: Sequence[Sequence[tuple[float, float]]],
                   session=None) -> np.ndarray:  # type: ignore[no-untyped-def]
        """``N x 18`` probabilities from the bodies of the cards ``quads`` (:mod:`vision.pips`): the
        four suits and "no face", then the 13 ranks; zero rows without a body-suit model.
        ``session``: the body model to ask (default: :attr:`suit_session`)."""
        session = self.suit_session if session is None else session
        if session is None or not quads:
            return np.zeros((len(quads), pips.N_SUIT_CLASSES + pips.N_RANKS), np.float32)
        memo = getattr(self._frame_memo, "bodies", None)
        if memo is None:
            return self._run_bodies(session, frame, quads)
        frames, seen = memo
        if not any(f is frame for f in frames):
            frames.append(frame)  # (kept alive for the look: its id names only it meanwhile)
        keys = [(id(session), id(frame), tuple((float(x), float(y)) for x, y in q)) for q in quads]
        todo = list(dict.fromkeys(k for k in keys if k not in seen))
        if todo:
            for k, p in zip(todo, self._run_bodies(session, frame, [k[2] for k in todo])):
                seen[k] = p
        return np.stack([seen[k] for k in keys])

    def _run_bodies(self, session, frame: np.ndarray,  # type: ignore[no-untyped-def]
                    quads: Sequence[Sequence[tuple[float, float]]], whole: bool = False) -> np.ndarray:
        """``session`` on the cards ``quads`` cropped as a body-suit model takes them (index regions
        blanked), or as the whole-card model does (``whole``: kept, at its own input size)."""
        size, name = (self.whole_size, self.whole_input_name) if whole else (self.body_size, self.body_input_name)
        tensor = pips.preprocess([pips.body_crop(frame, q, size, blank=not whole) for q in quads])
        return session.run(None, {name: tensor})[0]

    @contextlib.contextmanager
    def one_look(self) -> Iterator[None]:
        """Within it, :meth:`body_probs` asks a body model about a card's body in a frame once: the
        checks of one look at a frame (a region read twice, a card asked about again after more
        cards were found) reuse its answer. The answers are forgotten when the outermost block
        ends, so a frame buffer filled anew is looked at anew. Per thread."""
        if getattr(self._frame_memo, "bodies", None) is not None:
            yield
            return
        self._frame_memo.bodies = ([], {})
        try:
            yield
        finally:
            self._frame_memo.bodies = None

    def infer(self, tensor: np.ndarray) -> np.ndarray:
        if len(tensor) == 0:
            return np.zeros((0, N_CLASSES), np.float32)
        return soften_index(self.session.run(None, {self.input_name: tensor})[0], self.index_power, self.index_sure)

    def read_corners(self, frame: np.ndarray, corners: Sequence[detect.Corner],
                     colour_frame: np.ndarray | None = None, second_look: bool | None = None,
                     layout: bool = True, stock: np.ndarray | None = None, turned: bool = True,
                     smaller: bool = False, given_ok: bool = False,
                     given_aside: dict[int, Reading] | None = None) -> list[Reading]:
        """One reading per corner. A card read from a grayscale crop is checked against the colour
        of its print (:func:`suit_colour_check`) in ``colour_frame`` (default: ``frame`` when it is
        BGR): red print read as a black suit, or black print read as a red suit, is unreadable.
        ``second_look``: look again at near misses (:meth:`_look_again`; default :attr:`second_look`),
        and, ``turned``, at those still unsure turned either way (:data:`SECOND_LOOK_TURN`).
        ``layout``: the corners not read sure are read by the scale-tolerant index model
        (:meth:`tolerant_reads`) and then the layout index model (:meth:`layout_reads`) too, where
        there are such models. ``stock``: the frame's card stock, for the print's colour
        (:func:`suit_colour_checks`). A corner proposed from a weak-print rank reads a card only at
        the threshold, by the index classifier (:data:`FAINT_SURE_ONLY`). ``smaller`` (with ``layout``):
        the corners still not read sure are looked at smaller by the scale-tolerant model
        (:meth:`_smaller_tolerant_look`: a frame whose card width was searched, not configured). ``given_ok``:
        a scale-tolerant read may stand on its card given an index (:data:`TOLERANT_NOT_INDEX_UP_TO`: a
        frame whose card width is configured). ``given_aside``: where given, such reads do not stand but are put
        here by corner, for the caller to weigh (a frame whose width is searched: :meth:`_given_at_width`); not
        one at a corner proposed from weak print."""
        if not corners:
            return []
        if colour_frame is None and frame.ndim == 3:
            colour_frame = frame
        if self.input_channels == 1 and frame.ndim == 3:
            frame = _gray_near(frame, corners)
        readings, probs, crops, cut = self._read_plain(frame, corners, colour_frame, second_look, stock, turned)
        if layout:
            readings = self.tolerant_reads(corners, readings, probs, crops, cut, colour_frame, stock,
                                           given_ok=given_ok, given_aside=given_aside)
            readings = self.layout_reads(frame, corners, readings, colour_frame, crops, cut, stock)
        readings = self._faint_sure_only(corners, readings)
        if given_aside and FAINT_SURE_ONLY:
            for i in [i for i in given_aside if corners[i].faint]:
                del given_aside[i]
        if layout and smaller:
            readings = self._smaller_tolerant_look(frame, corners, readings, cut, colour_frame, stock)
        return readings

    def _read_plain(self, frame: np.ndarray, corners: Sequence[detect.Corner], colour_frame: np.ndarray | None,
                    second_look: bool | None, stock: np.ndarray | None, turned: bool = True
                    ) -> tuple[list[Reading], np.ndarray, list[np.ndarray], list[int]]:
        """The index classifier's reading of each of ``corners`` (``frame`` as the model reads it), its
        print's colour checked in ``colour_frame``; with its probabilities, crops and the corners the
        frame's edge cuts (:meth:`read_corners` before the second index models)."""
        crops = [detect.crop_corner(frame, c, color=self.input_channels == 3) for c in corners]
        probs = self.infer(preprocess(crops))
        cut = off_frame(corners, frame.shape)
        if cut:  # an index the frame's edge cuts is not read (nor looked at again)
            probs[cut] = 0.0
            probs[cut, NOT_INDEX] = 1.0
        if self.second_look if second_look is None else second_look:
            self._look_again(frame, corners, probs, turned)
        readings = decode(probs)
        if colour_frame is not None and colour_frame.ndim == 3:
            readings = suit_colour_checks(readings, colour_frame, corners, stock)
        return readings, probs, crops, cut

    def _faint_sure_only(self, corners: Sequence[detect.Corner], readings: Sequence[Reading]) -> list[Reading]:
        """``readings`` with a corner proposed from weak print left unreadable unless the index
        classifier read it sure (:data:`FAINT_SURE_ONLY`)."""
        if not FAINT_SURE_ONLY:
            return list(readings)
        return [Reading(None, r.confidence) if c.faint and r.card is not None and (
            r.layout or r.tolerant or r.confidence < self.threshold) else r for c, r in zip(corners, readings)]

    def tolerant_reads(self, corners: Sequence[detect.Corner], readings: Sequence[Reading], probs: np.ndarray,
                       crops: Sequence[np.ndarray], cut: Sequence[int], colour_frame: np.ndarray | None = None,
                       stock: np.ndarray | None = None, black_body_below: float | None = None,
                       given_ok: bool = False, given_aside: dict[int, Reading] | None = None) -> list[Reading]:
        """``readings`` with each corner the index classifier did not read as a card at the threshold
        read again by the scale-tolerant index model (:data:`DEFAULT_TOLERANT_MODEL`). Its card
        becomes the corner's reading, at the tolerant model's probability, where

        * that reaches both thresholds (the tolerant model's own and :attr:`threshold`);
        * the index classifier's most probable card given an index (``probs``: its ``N x 53``
          probabilities, softened or not) is the same, at :data:`TOLERANT_GIVEN` or more;
        * the print's colour does not refuse it (:func:`suit_colour_checks`; ``colour_frame`` BGR);
        * the body-suit model gives the other colour's suits less than
          :data:`TOLERANT_BODY_OTHER` together;
        * and, for a club or a spade on a card narrower than :data:`TOLERANT_BLACK_BODY_BELOW`, the
          body-suit model gives its suit :data:`TOLERANT_BLACK_BODY` or more.

        The corners the frame's edge cuts (``cut``) are not read. Such a reading then meets every
        check an index read meets. Unchanged without a tolerant model or a colour frame.
        ``black_body_below``: in place of :data:`TOLERANT_BLACK_BODY_BELOW`; ``given_ok``: whether a read may
        stand on its probability given an index (:data:`TOLERANT_NOT_INDEX_UP_TO`); ``given_aside``: as
        :meth:`read_corners` says."""
        out = list(readings)
        if self.tolerant_session is None or colour_frame is None or colour_frame.ndim != 3:
            return out
        gone = set(cut)
        given = given_index(probs)
        named = given.argmax(axis=1)
        # only corners whose card the classifier is sure of given an index are worth the model call
        todo = [i for i, r in enumerate(readings) if (r.card is None or r.confidence < self.threshold)
                and i not in gone and given[i, named[i]] >= TOLERANT_GIVEN]
        if not todo:
            return out
        tol = self._run_tolerant(preprocess([crops[i] for i in todo]), [corners[i] for i in todo], colour_frame)
        bar, raw = max(self.tolerant_threshold, self.threshold), dict(zip(todo, tol))
        for i, r in self._tolerant_stands(corners, list(raw.items()), named, colour_frame, stock,
                                          black_body_below, given_ok or given_aside is not None):
            assert r.card is not None
            k = r.card.index
            if given_aside is None or given_ok:
                out[i] = r
            elif raw[i][k] < bar:
                given_aside[i] = r  # stands only given an index: the caller weighs it
            else:  # stands on its plain probability, as without given_aside
                out[i] = dataclasses.replace(r, confidence=float(raw[i][k]), colour_twin=float(raw[i][k ^ 3]))
        return out

    def _run_tolerant(self, tensor: np.ndarray, corners: Sequence[detect.Corner],
                      colour_frame: np.ndarray) -> np.ndarray:
        """The scale-tolerant model's ``N x 53`` probabilities at ``corners``: read from ``tensor`` (the
        index classifier's crops of them, preprocessed) where both models read one kind of crop, else
        from crops of ``colour_frame`` (BGR) in colour (:attr:`tolerant_channels`)."""
        if self.tolerant_channels != self.input_channels:
            tensor = preprocess([detect.crop_corner(colour_frame, c, color=True) for c in corners])
        return self.tolerant_session.run(None, {self.tolerant_input_name: tensor})[0]

    def _tolerant_stands(self, corners: Sequence[detect.Corner], tolerant: Sequence[tuple[int, np.ndarray]],
                         named: np.ndarray, colour_frame: np.ndarray, stock: np.ndarray | None,
                         black_body_below: float | None = None, given_ok: bool = False
                         ) -> list[tuple[int, Reading]]:
        """The scale-tolerant reads that stand (:meth:`tolerant_reads`' terms), as ``(i, reading)``:
        ``tolerant`` pairs a corner of ``corners`` with the tolerant model's probabilities there, and
        the read stands where their most probable card reaches both thresholds (given an index, where
        ``given_ok`` and :func:`tolerant_probs` say), is ``named[i]`` (the index classifier's card given an
        index), and neither the print's colour in ``colour_frame`` nor the body-suit model refuses it."""
        bar = max(self.tolerant_threshold, self.threshold)
        up_to = TOLERANT_NOT_INDEX_UP_TO if given_ok and stock is not None else None
        found = []
        for i, raw in tolerant:
            t = tolerant_probs(raw, up_to, TOLERANT_GIVEN_SURE)
            k = int(t[:NOT_INDEX].argmax())
            if t[k] < bar or named[i] != k:
                continue
            if raw[k] < bar and (stock is None or stock_fit(corners[i].card_quad(), stock) < TOLERANT_GIVEN_STOCK):
                continue  # stands only given an index, and the card it implies lies on the felt
            found.append((i, Reading(Card.from_index(k), float(t[k]), tolerant=True, colour_twin=float(t[k ^ 3]))))
        if not found:
            return []
        new = suit_colour_checks([r for _, r in found], colour_frame, [corners[i] for i, _ in found], stock)
        kept = [(i, r) for (i, _), r in zip(found, new) if r.card is not None]
        body = self.body_probs(colour_frame, [corners[i].card_quad() for i, _ in kept])
        below = TOLERANT_BLACK_BODY_BELOW if black_body_below is None else black_body_below
        stood = []
        for (i, r), p in zip(kept, body):
            assert r.card is not None
            black = r.card.suit in _BLACK_SUITS
            other = (1, 2) if black else (0, 3)
            if float(p[other[0]] + p[other[1]]) >= TOLERANT_BODY_OTHER:
                continue
            if black and corners[i].card_width < below and float(p[r.card.index % 4]) < TOLERANT_BLACK_BODY:
                continue
            stood.append((i, r))
        return stood

    def _smaller_tolerant_look(self, frame: np.ndarray, corners: Sequence[detect.Corner], readings: list[Reading],
                               cut: Sequence[int], colour_frame: np.ndarray | None, stock: np.ndarray | None
                               ) -> list[Reading]:
        """``readings`` with each corner no model read sure read again at the smaller index scales of
        :data:`SMALLER_TOLERANT_LOOK`: not one the frame's edge cuts (``cut``, as :meth:`_read_plain`
        found them, or at any of the looks), not one proposed from weak print, only one implying a
        card :data:`SMALLER_TOLERANT_FROM` to :data:`SMALLER_TOLERANT_UP_TO` wide. Every look's crop
        is read by the index classifier and the scale-tolerant model, each model's probabilities
        averaged over the looks, and the tolerant model's card taken where it stands on
        :meth:`tolerant_reads`' terms (:meth:`_tolerant_stands`, the classifier's card given an index
        at least :data:`TOLERANT_GIVEN`); a club or a spade only where the smallest look is
        :data:`SMALLER_TOLERANT_FROM` wide or more. ``frame`` as the index classifier reads it;
        ``colour_frame`` BGR."""
        out = list(readings)
        if (SMALLER_TOLERANT_LOOK is None or self.tolerant_session is None or colour_frame is None
                or colour_frame.ndim != 3):
            return out
        edge = set(cut)
        todo = [i for i, r in enumerate(out) if (r.card is None or r.confidence < self.threshold) and i not in edge
                and not corners[i].faint and SMALLER_TOLERANT_FROM <= corners[i].card_width <= SMALLER_TOLERANT_UP_TO]
        looks = [[corners[i].smaller(s) for i in todo] for s in SMALLER_TOLERANT_LOOK]
        gone = {k for look in looks for k in off_frame(look, frame.shape)}
        todo = [i for k, i in enumerate(todo) if k not in gone]
        looks = [[c for k, c in enumerate(look) if k not in gone] for look in looks]
        if not todo:
            return out
        colour = self.input_channels == 3
        every = [c for look in looks for c in look]
        crops = preprocess([detect.crop_corner(frame, c, color=colour) for c in every])
        shape = (len(looks), len(todo), -1)  # each model's probabilities averaged over the looks
        probs = self.infer(crops).reshape(shape).mean(axis=0)
        tol = self._run_tolerant(crops, every, colour_frame).reshape(shape).mean(axis=0)
        given = given_index(probs)
        named = given.argmax(axis=1)
        sure_given = [(j, t) for j, t in enumerate(tol) if given[j, named[j]] >= TOLERANT_GIVEN]
        smallest = min(SMALLER_TOLERANT_LOOK)
        for j, r in self._tolerant_stands(looks[0], sure_given, named, colour_frame, stock,
                                          given_ok=WIDTH_SEARCH_GIVEN):
            assert r.card is not None
            if r.card.suit in _BLACK_SUITS and corners[todo[j]].card_width * smallest < SMALLER_TOLERANT_FROM:
                continue  # a club or a spade read at a small card's index
            out[todo[j]] = r
        return out

    def layout_reads(self, frame: np.ndarray, corners: Sequence[detect.Corner], readings: Sequence[Reading],
                     colour_frame: np.ndarray | None = None,
                     crops: Sequence[np.ndarray] | None = None, cut: Sequence[int] | None = None,
                     stock: np.ndarray | None = None) -> list[Reading]:
        """``readings`` with each corner the index classifier did not read as a card at or above the
        threshold read again by the layout index model (:data:`DEFAULT_LAYOUT_MODEL`): where it gives
        a card at least its own threshold, checked against the colour of its print like any read,
        that read becomes the corner's :attr:`Reading.alt` (:meth:`_assemble` decides). The same
        corners are given the blanked look (:meth:`_blank_look`), which may change the index
        classifier's reading of them. Unchanged without a layout model. ``frame`` as
        :meth:`read_corners` crops it (grayscale for a grayscale model); ``crops``: its crops of
        ``corners`` when the caller has them; ``cut``: the corners the frame's edge cuts
        (:func:`off_frame`), which are not read, when the caller has found them."""
        out = list(readings)
        if self.layout_session is None:
            return out
        cut = set(off_frame(corners, frame.shape) if cut is None else cut)
        todo = [i for i, r in enumerate(readings) if (r.card is None or r.confidence < self.threshold) and i not in cut]
        if not todo:
            return out
        if crops is None:
            if self.input_channels == 1 and frame.ndim == 3:
                frame = _gray_near(frame, [corners[i] for i in todo])
            picked = [detect.crop_corner(frame, corners[i], color=self.input_channels == 3) for i in todo]
        else:
            picked = [crops[i] for i in todo]
        probs = self.layout_session.run(None, {self.layout_input_name: preprocess(picked)})[0]
        found = [(i, Reading(Card.from_index(k), float(p[k]), layout=True))
                 for i, p in zip(todo, probs) for k in [int(p[:NOT_INDEX].argmax())] if p[k] >= self.layout_threshold]
        if BLANK_FROM is not None:
            self._blank_look(frame, corners, list(zip(todo, picked)), out, colour_frame, stock,
                             {i: r.card for i, r in found})
        if not found:
            return out
        new = [r for _, r in found]
        if colour_frame is not None and colour_frame.ndim == 3:
            new = suit_colour_checks(new, colour_frame, [corners[i] for i, _ in found], stock)
        for (i, _), r in zip(found, new):
            if r.card is not None:  # (a read the print's colour refuses leaves the corner as it was)
                out[i] = dataclasses.replace(out[i], alt=r)
        return out

    def _blank_look(self, frame: np.ndarray, corners: Sequence[detect.Corner], todo: Sequence[tuple[int, np.ndarray]],
                    out: list[Reading], colour_frame: np.ndarray | None, stock: np.ndarray | None,
                    layout: Mapping[int, Card]) -> None:
        """A look at the index alone (in place): each corner of ``todo`` (``(i, crop)``: not read
        sure) is read again with the crop's side away from the card's edge
        painted over (:func:`blank_beside`). A real design prints a big pip or the court's picture
        frame right beside its index, and the index classifier, which learnt that an index stands
        on plain stock, takes the crop for no index at all (models/HISTORY.md, thirty-first session).

        A corner read no card at :data:`BLANK_LOOK_BELOW` or more, or read the same card unsure,
        takes the card so read when the mean over its blanked crops (in place and at the four
        other :data:`BLANK_LOOK_SHIFTS`, each blanked from the same place on the card,
        :func:`blank_column`) reaches the threshold (:data:`BLANK_BLACK` for a club or a spade),
        the index as printed does not lean to another card (:data:`BLANK_LEAN`), its print's colour
        agrees and the layout model, where it read the corner (``layout``: corner to card), read
        the same card; the card then meets every check an index read meets."""
        if not todo:
            return
        colour = self.input_channels == 3
        probs = self.infer(preprocess(blank_beside([c for _, c in todo])))
        hits = []
        for (i, _), p in zip(todo, probs):
            k = int(p[:NOT_INDEX].argmax())
            card, was = Card.from_index(k), out[i]
            if (p[k] >= self.threshold and (was.card is None or was.confidence < BLANK_LOOK_BELOW or was.card == card)
                    and layout.get(i, card) == card):
                hits.append((i, card, float(p[k])))
        if not hits:
            return
        if BLANK_LEAN is not None:  # the index read as printed must not lean to another card
            crop_of = dict(todo)
            plain = self.infer(preprocess([crop_of[i] for i, _, _ in hits]))[:, :NOT_INDEX]
            lean = plain.argmax(axis=1)
            hits = [h for h, q, k in zip(hits, plain, lean)
                    if k == h[1].index or q[k] < BLANK_LEAN or q[k] <= q[h[1].index]]
            if not hits:
                return
        shifts = [(dx, dy, 0.0, 0.0) for dx, dy in BLANK_LOOK_SHIFTS if (dx, dy) != (0.0, 0.0)]
        more = self.infer(preprocess(blank_beside([detect.crop_corner(frame, corners[i], j, color=colour)
                                                   for i, _, _ in hits for j in shifts],
                                                  [blank_column(j[0]) for _ in hits for j in shifts])))
        more = more.reshape(len(hits), len(shifts), N_CLASSES)
        black = self.threshold if BLANK_BLACK is None else max(self.threshold, BLANK_BLACK)
        sure = [(i, Reading(card, m)) for (i, card, first), q in zip(hits, more)
                for m in [(float(q[:, card.index].sum()) + first) / (len(shifts) + 1)]
                if m >= (black if card.suit in _BLACK_SUITS else self.threshold)]
        if not sure:
            return
        reads = [r for _, r in sure]
        if colour_frame is not None and colour_frame.ndim == 3:
            reads = suit_colour_checks(reads, colour_frame, [corners[i] for i, _ in sure], stock)
        for (i, _), r in zip(sure, reads):
            if r.card is not None:
                out[i] = r

    def _look_again(self, frame: np.ndarray, corners: Sequence[detect.Corner], probs: np.ndarray,
                    turned: bool = True) -> None:
        """A second look at the corners read as a card below the threshold but at
        :data:`SECOND_LOOK_FROM` or more (in place).

        Each is cropped again at every scale of :data:`SECOND_LOOK_SCALES`, five crops a scale
        (:data:`SECOND_LOOK_SHIFTS`); the probabilities at a scale are the mean over its five crops,
        and the corner takes those of the scale whose most probable card is most probable. A corner
        proposed a little off the index, or the index of a deck that prints it larger or smaller
        than the card's width suggests, reads unsure at the proposal; at its own scale the card that
        is there rises, and a guess that only one crop made falls in the mean. A wrong card must win
        five crops at once, and the threshold is calibrated on scenes read this way
        (:func:`vision.train.calibrate_scenes`). Only near misses are looked at again (a few per
        frame), so the cost is small. With ``turned``, a corner still unsure is looked at a third
        time, turned either way (:data:`SECOND_LOOK_TURN`), and takes a turn's reading where it
        reaches :data:`TURNED_LOOK_BAR`.
        """
        best = probs[:, :NOT_INDEX].max(axis=1)
        again = [i for i in range(len(corners)) if SECOND_LOOK_FROM <= best[i] < self.threshold]
        if not again:
            return
        colour = self.input_channels == 3
        # the crop in place at the proposal's own scale is the first look's: its reading is reused
        crops = [detect.crop_corner(frame, corners[i], j, color=colour) for i in again for j in _LOOK_AGAIN]
        more = self.infer(preprocess(crops)).reshape(len(again), len(_LOOK_AGAIN), -1)
        more = np.concatenate([more[:, :_IN_PLACE], probs[again][:, None], more[:, _IN_PLACE:]], axis=1)
        mean = more.reshape(len(again), len(SECOND_LOOK_SCALES), len(SECOND_LOOK_SHIFTS), -1).mean(axis=2)
        scale = mean[:, :, :NOT_INDEX].max(axis=2).argmax(axis=1)
        probs[again] = mean[np.arange(len(again)), scale]
        if SECOND_LOOK_TURN is None or not turned:
            return
        # a third look, turned either way, at the corners still unsure
        still = [i for i in again if probs[i, :NOT_INDEX].max() < self.threshold]
        if not still:
            return
        looks = _turned_looks(SECOND_LOOK_TURN)
        crops = [detect.crop_corner(frame, corners[i], j, color=colour) for i in still for j in looks]
        third = self.infer(preprocess(crops)).reshape(len(still), 2, len(looks) // 2, -1).mean(axis=2)
        top = third[:, :, :NOT_INDEX].max(axis=2)
        for k, i in enumerate(still):
            way = int(top[k].argmax())
            if top[k, way] >= TURNED_LOOK_BAR:
                probs[i] = third[k, way]

    def _scaled(self, corners: list[detect.Corner]) -> list[detect.Corner]:
        """``corners`` proposed at :attr:`index_scale` times the card width, marked so: crops at that
        width, cards at the width itself (:attr:`vision.detect.Corner.card_width`)."""
        if self.index_scale == 1.0:
            return corners
        return [dataclasses.replace(c, index_scale=self.index_scale) for c in corners]

    def recognize(self, frame: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> list[Detection]:
        """Every card found in ``frame`` (or in ``roi`` = ``(x, y, w, h)`` of it), read with the
        frame's light made white first (:func:`vision.light.white_balance`; :attr:`white_balance`)."""
        if self.white_balance:
            frame = light.white_balance(frame)
        return self.recognize_masks(frame, roi)

    def recognize_zones(self, frame: np.ndarray, jobs: Sequence[tuple[tuple[int, int, int, int], detect.Masks]],
                        felt: tuple[float, float, float] | None = None,
                        card_width: float | None = None,
                        wanted: Sequence[int] | None = None,
                        zone_widths: Sequence[float | None] | None = None) -> list[list[Detection]]:
        """:meth:`recognize_masks` for several regions of one frame (a camera's seat zones); the
        crops of every region whose card width is known are classified in one model call.
        ``zone_widths``: a region's own card width (a seat zone's ``card_width``), over the
        recogniser's and ``card_width``; ``None`` for a region that has none.

        ``wanted``: cards each region should show (the variant's hand). The proposals for cards
        lying on cards (:func:`~vision.detect.lying_corners`: the print scan along cut edges and
        index print, many of them pairs of pips the classifier must refuse) are then made only for
        the regions that do not already show that many cards read at or above the threshold: a
        second look where the first was not enough. ``None`` looks everywhere at once.
        """
        if zone_widths is not None and len(zone_widths) != len(jobs):
            raise ValueError(f"zone_widths: {len(zone_widths)} widths for {len(jobs)} regions")
        with self.one_look():
            return self._recognize_zones(frame, jobs, felt, card_width, wanted, zone_widths)

    def _recognize_zones(self, frame: np.ndarray, jobs: Sequence[tuple[tuple[int, int, int, int], detect.Masks]],
                         felt: tuple[float, float, float] | None, card_width: float | None,
                         wanted: Sequence[int] | None,
                         zone_widths: Sequence[float | None] | None = None) -> list[list[Detection]]:
        out: list[list[Detection] | None] = [None] * len(jobs)
        batch: list[tuple[int, float, list[detect.Corner]]] = []
        for k, (roi, masks) in enumerate(jobs):
            width = ((zone_widths[k] if zone_widths is not None else None) or self.card_width or card_width
                     or masks.card_width())
            if width is None:
                out[k] = self.recognize_masks(frame, roi, masks, felt)
            else:
                width *= self.index_scale  # the width the index is read at
                corners = self._scaled(detect.find_corners(frame, width, roi, masks, felt, glyphs=wanted is None))
                batch.append((k, width, corners))
        gray = self.input_channels == 1 and frame.ndim == 3
        source = frame
        if gray and batch:  # grayscale once, round each zone's corners only
            source = np.zeros(frame.shape[:2], np.uint8)
            for _, _, cs in batch:
                _gray_near(frame, cs, source)
        colour, frame = frame, source
        stock = detect.stock_frame(frame.shape, [jobs[k] for k, _, _ in batch]) if batch else None
        # no third look at a table's zones (TABLE_TURNED_LOOK)
        readings = self.read_corners(frame, [c for _, _, cs in batch for c in cs], colour, layout=wanted is None,
                                     stock=stock, turned=TABLE_TURNED_LOOK, given_ok=True)
        per_job: dict[int, tuple[list[detect.Corner], list[Reading]]] = {}
        assembled: dict[int, list[Detection]] = {}
        at = 0
        for k, _, cs in batch:
            per_job[k] = (cs, readings[at : at + len(cs)])
            at += len(cs)
            assembled[k] = self._assemble(*per_job[k], colour, veto=False)
        # the spacing of a four-index deck's upright indices, as any zone's cards show it
        spacing = four_index_spacing([d for dets in assembled.values() for d in dets], self.threshold)
        grounds: list[np.ndarray] = []

        def ground() -> np.ndarray:
            if not grounds:
                grounds.append(detect.stock_frame(frame.shape, [jobs[k] for k, _, _ in batch], "foreground"))
            return grounds[0]

        def placed(dets: list[Detection]) -> list[Detection]:
            if spacing is not None:  # a seat zone's place mostly felt alone moves no card (a frame's time)
                dets = four_index_places(dets, ground, self.threshold, spacing, alone=False)
            return one_place_per_card(dets, stock, self.threshold)

        for k, dets in assembled.items():
            out[k] = placed(dets)
        # (the rank veto is the table watcher's: once a reading, vision.watch.TableWatcher)
        self._twin_veto([out[k] for k, _, _ in batch], colour)  # type: ignore[misc]
        for k, _, _ in batch:
            out[k] = self._trusted(out[k], jobs[k][1], colour)  # type: ignore[arg-type]
        if wanted is not None:
            more: list[tuple[int, list[detect.Corner], list[int]]] = []  # zone, new corners, smaller looks' own
            for k, width, cs in batch:
                sure = sum(1 for d in out[k] or [] if d.card is not None and d.confidence >= self.threshold)
                if sure < wanted[k]:
                    x, y = jobs[k][0][:2]
                    lying = self._scaled(detect.lying_corners(jobs[k][1], width, (x, y), known=cs))
                    smaller, of = self._smaller_look(cs, out[k] or [], per_job[k][1])
                    more.append((k, lying + smaller, [-1] * len(lying) + of))
            if self.layout_session is not None and more:  # the layout model, only where cards are missing
                cs_all = [c for k, _, _ in more for c in per_job[k][0]]
                rs_all = self.layout_reads(frame, cs_all, [r for k, _, _ in more for r in per_job[k][1]], colour,
                                           stock=stock)
                at = 0
                for k, _, _ in more:
                    cs, rs = per_job[k]
                    per_job[k] = (cs, rs_all[at : at + len(cs)])
                    at += len(cs)
            if gray:  # the new proposals' surroundings too
                for _, cs, _ in more:
                    _gray_near(colour, cs, frame)
            readings = self.read_corners(frame, [c for _, cs, _ in more for c in cs], colour, stock=stock,
                                         turned=TABLE_TURNED_LOOK, given_ok=True)
            at = 0
            for k, extra, of in more:
                cs, rs = per_job[k]
                # a smaller look counts only where it reads a heart or a diamond that no first look there
                # read as another card at CONTEST_FLOOR or more
                kept = [(c, r) for c, i, r in zip(extra, of, readings[at : at + len(extra)])
                        if i < 0 or _smaller_look_stands(rs[i], r)]
                out[k] = placed(self._assemble(cs + [c for c, _ in kept], rs + [r for _, r in kept], colour,
                                               veto=False))
                at += len(extra)
            self._twin_veto([out[k] for k, _, _ in more], colour)  # type: ignore[misc]
            for k, _, _ in more:
                out[k] = self._trusted(out[k], jobs[k][1], colour)  # type: ignore[arg-type]
        return [d if d is not None else [] for d in out]

    def _smaller_look(self, corners: Sequence[detect.Corner], dets: Sequence[Detection],
                      readings: Sequence[Reading]) -> tuple[list[detect.Corner], list[int]]:
        """The corners of ``corners`` (a zone's, read once as ``readings``) that read a heart or a
        diamond (:func:`_may_look_smaller`) and whose card would lie at a place of ``dets`` read unsure
        or unreadable (within :data:`SMALLER_LOOK_REACH` card widths of its centre), each to be cropped
        again at :data:`SMALLER_LOOK` times its crop width, the card it implies as wide as before; with
        the index in ``corners`` of each. None with no such place."""
        doubt = [d.center for d in dets if d.card is None or d.confidence < self.threshold]
        if SMALLER_LOOK is None or not doubt:
            return [], []
        picked = [i for i, c in enumerate(corners) if _may_look_smaller(readings[i]) and any(
            math.dist(c.center(), p) < SMALLER_LOOK_REACH * c.card_width for p in doubt)]
        return [corners[i].smaller(SMALLER_LOOK) for i in picked], picked

    def recognize_masks(self, frame: np.ndarray, roi: tuple[int, int, int, int] | None = None,
                        masks: detect.Masks | None = None,
                        felt: tuple[float, float, float] | None = None,
                        card_width: float | None = None,
                        zone_width: float | None = None) -> list[Detection]:
        """:meth:`recognize`, reusing masks the caller already computed for ``roi``; ``card_width``
        (the camera's, when the recogniser has none of its own) saves measuring it; ``zone_width``
        (the region's own, a seat zone's ``card_width``) goes over both."""
        with self.one_look():
            return self._recognize_masks(frame, roi, masks, felt, card_width, zone_width)

    def _recognize_masks(self, frame: np.ndarray, roi: tuple[int, int, int, int] | None,
                         masks: detect.Masks | None, felt: tuple[float, float, float] | None,
                         card_width: float | None, zone_width: float | None = None) -> list[Detection]:
        width = zone_width or self.card_width or card_width
        sub = frame if roi is None else frame[roi[1] : roi[1] + roi[3], roi[0] : roi[0] + roi[2]]
        if masks is None:
            masks = detect.card_masks(sub, width, felt)
        if width is not None:
            corners = self._scaled(detect.find_corners(frame, width * self.index_scale, roi, masks, felt))
            stock = detect.stock_frame(frame.shape, [(roi, masks)])
            dets = self._assemble(corners, self.read_corners(frame, corners, stock=stock, given_ok=True), frame)
            dets = four_index_places(dets, lambda: detect.stock_frame(frame.shape, [(roi, masks)], "foreground"),
                                     self.threshold, stock=stock)
            return self._trusted(one_place_per_card(dets, stock, self.threshold), masks, frame)
        dets = self._search_width(frame, roi, masks, felt)[1]
        origin = (0, 0) if roi is None else roi[:2]
        if self._any_sure(dets):
            if not self._past_ladder(dets):
                return dets
            # cards wider than the ladder reaches may read only in part at this size: halved, all of them
            return self._read_smaller(sub, origin, felt, against=dets, measured=self._whole(masks)) or dets
        if not masks.light:
            return self._read_smaller(sub, origin, felt, measured=self._whole(masks)) or dets
        # read by the edges of a light table, where a card the frame cuts may be taken for the table:
        # as a grey felt too, each where the edges read nothing sure
        plain = self._search_width(frame, roi, detect.card_masks(sub, width, felt, light_table_rule=False), felt)[1]
        if self._any_sure(plain):
            return plain
        measured = self._whole(masks)
        return (self._read_smaller(sub, origin, felt, measured=measured)
                or self._read_smaller(sub, origin, felt, light_table_rule=False, measured=measured)
                or dets)

    def _read_smaller(self, sub: np.ndarray, origin: tuple[int, int], felt: tuple[float, float, float] | None,
                      light_table_rule: bool = True, against: Sequence[Detection] = (),
                      measured: Sequence[tuple[np.ndarray, float]] = ()) -> list[Detection]:
        """Cards wider than the width search reaches (a close photograph: cards 300 to 1,000
        pixels wide, fanned so that no whole card gives the width): ``sub`` read again halved,
        quartered, and so on while its short side can still hold a card of the smallest rung of
        :data:`~vision.detect.WIDTH_LADDER`; the first size with a read at or above the threshold
        gives the detections, in the frame's pixels (``origin``: the top-left of ``sub`` there).
        Only when the frame as it is gives no sure read, or places its sure reads wider than the
        ladder's top (:data:`LADDER_TOP_HALVES`; those reads are ``against``), so frames the ladder
        covers read as before. A size whose sure reads lie so wide (or, halved, at the ladder's
        top: :data:`HALVED_AT_TOP`) is read halved too, and a smaller size stands over a larger one
        where :meth:`_halved_stands` says so. ``[]`` where none stands. ``light_table_rule``:
        :func:`~vision.detect.card_masks`' own (``False`` where the edges of a light table read
        nothing sure). ``measured``: the whole cards in ``sub`` (:meth:`_whole`), which a smaller size
        may no longer tell apart (:meth:`_search_width`'s ``known``).
        """
        import cv2

        small = sub
        found: list[Detection] = []
        while True:
            h, w = small.shape[:2]
            if min(h, w) // 2 < detect.WIDTH_LADDER[0] * detect.ASPECT:
                return found
            small = cv2.resize(small, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
            sx, sy = sub.shape[1] / small.shape[1], sub.shape[0] / small.shape[0]
            dets = self._search_width(small, None, detect.card_masks(small, None, felt, light_table_rule), felt,
                                      known=[(box / (sx, sy), w / sx) for box, w in measured])[1]
            past = self._past_ladder(dets, HALVED_AT_TOP)  # at this size
            dets = [_scaled(d, sx, sy, origin) for d in dets]
            if self._halved_stands(found or against, dets):
                found = dets
            if found and not past:
                return found

    def _any_sure(self, dets: Sequence[Detection]) -> bool:
        """Whether any of ``dets`` is a card read at or above the threshold."""
        return bool(self._sure(dets))

    def _halved_stands(self, dets: Sequence[Detection], halved: Sequence[Detection]) -> bool:
        """Whether ``halved`` (a smaller size's reads, in the same pixels) stands over ``dets``
        (:data:`LADDER_TOP_HALVES`): it reads more cards at or above the threshold, at a width apart
        from theirs by :data:`HALVED_APART` either way or twice as many, and every card ``dets`` read
        sure within :data:`HALVED_KEEPS` of a card width of its place."""
        mine, theirs = self._sure(dets), self._sure(halved)
        if len(theirs) <= len(mine):
            return False
        if mine and len(theirs) < 2 * len(mine) and (
                1 / HALVED_APART <= _median_width(theirs) / _median_width(mine) <= HALVED_APART):
            return False  # the same width read at half the resolution (a jumbo index, read past the top)
        return all(any(e.card == d.card and math.dist(e.center, d.center) < HALVED_KEEPS * math.dist(*e.corners[:2])
                       for e in theirs) for d in mine)

    def _sure(self, dets: Sequence[Detection]) -> list[Detection]:
        """The cards of ``dets`` read at or above the threshold."""
        return [d for d in dets if d.card is not None and d.confidence >= self.threshold]

    def _past_ladder(self, dets: Sequence[Detection], or_at: bool = False) -> bool:
        """Whether the cards of ``dets`` read at or above the threshold lie wider, at the median, than
        the top rung of :data:`~vision.detect.WIDTH_LADDER` (:data:`LADDER_TOP_HALVES`; ``or_at``: at
        that rung, within 1%, or wider, :data:`HALVED_AT_TOP`). Their places' width, not the width
        searched: a deck printing a jumbo index reads best at a wider width than its cards' own, and
        where the cards measure it they are placed at their own."""
        sure = self._sure(dets)
        if not LADDER_TOP_HALVES or not sure:
            return False
        width, top = _median_width(sure), detect.WIDTH_LADDER[-1]
        return width >= 0.99 * top if or_at else width > top

    @staticmethod
    def _whole(masks: detect.Masks) -> list[tuple[np.ndarray, float]]:
        """The whole cards in view in ``masks`` (:func:`~vision.detect.whole_card_boxes`; where none lies
        whole, those an opening parts from stock touching them: :data:`OPENED_WIDTH`), each its corners
        and width."""
        cards = masks.card_boxes()
        return cards if cards or not OPENED_WIDTH else masks.opened_boxes()

    def _search_width(self, frame: np.ndarray, roi: tuple[int, int, int, int] | None, masks: detect.Masks,
                      felt: tuple[float, float, float] | None, known: Sequence[tuple[np.ndarray, float]] = ()
                      ) -> tuple[float, list[Detection]]:
        """Read ``roi`` at the card width whose crops read best, when no width is configured.

        The classifier refuses index crops more than about 15% off scale, so the width decides what
        can be read. Tried: the width measured from whole cards (it can be far off: two cards lying
        edge to edge look like one), every rung of :data:`~vision.detect.WIDTH_LADDER`, then steps
        of 8% and 4% either side of the best so far. Score: the number of corners read as a card at
        or above the threshold (ties broken by the sum of the confidences of corners read as a card
        at 0.5 or more); the best wins, the first tried on a full tie. Counting sure reads picks the
        true width more often than summing confidences: at the wrong scale many corners still read
        at 0.6 to 0.9, few at the threshold. The widths are scored on the outline and print-scan
        proposals without a second look; the chosen width is then read with every proposer.

        The cards of one frame need not share a width (a deck printing a larger index reads best at
        a larger width, and perspective), so the runner-up is read too: the best-scoring width
        tried at least :data:`SECOND_WIDTH_APART` from the chosen one with a sure read, its corners
        read with every proposer and assembled with the chosen width's, so a card is one detection
        whichever width found it. The width returned is the chosen one.

        ``known``: the whole cards of the frame this one was halved from (:meth:`_whole`, at this one's
        size), for placing cards where neither this frame's reads nor its whole cards measure the
        width, each only where a card is read at one of its corners (:data:`OPENED_WIDTH`).

        A deck whose index the classifier refuses for its size (real designs print it smaller or
        larger than the training decks) can read few corners sure at any width. The scale-tolerant
        model's reads of the classifier's unsure corners (:meth:`tolerant_reads`) are counted too,
        at each width tried; where they reach :data:`TOLERANT_WIDTH_GAIN` times the best width's
        count, plus one, the width they read most is chosen instead (refined in the same steps), and
        the classifier's own best may join as the runner-up. Where no width but the chosen one has a
        corner the classifier reads sure, the runner-up is the width the tolerant model's reads make
        the most corners sure (:data:`TOLERANT_RUNNER_UP`). A region read at the width the tolerant
        model chose takes no club or spade the body models raised (:data:`TOLERANT_WIDTH_BODY`).
        """
        tried: dict[float, tuple[int, float]] = {}
        tolerant: dict[float, int] = {}  # corners read sure with the scale-tolerant model's reads
        stock = detect.stock_frame(frame.shape, [(roi, masks)])
        colour = frame if frame.ndim == 3 else None

        def score(w: float) -> tuple[int, float]:
            w = round(w, 1)
            if w not in tried:
                corners = detect.find_corners(frame, w, roi, masks, felt, glyphs=False)
                if not corners:
                    tried[w], tolerant[w] = (0, 0.0), 0
                    return tried[w]
                gray = _gray_near(frame, corners) if self.input_channels == 1 and frame.ndim == 3 else frame
                readings, probs, crops, cut = self._read_plain(gray, corners, colour, False, stock)
                plain = self._faint_sure_only(corners, readings)
                sure = sum(1 for r in plain if r.card is not None and r.confidence >= self.threshold)
                likely = sum(r.confidence for r in plain if r.card is not None and r.confidence >= 0.5)
                tried[w] = (sure, likely)
                if (TOLERANT_WIDTH_GAIN is not None or TOLERANT_RUNNER_UP) and self.tolerant_session is not None:
                    # counted as WIDTH_SEARCH_BLACK_BODY says: a club or a spade only on its body's suit
                    tol = self._faint_sure_only(corners, self.tolerant_reads(corners, readings, probs, crops, cut,
                                                                             colour, stock, WIDTH_SEARCH_BLACK_BODY,
                                                                             WIDTH_SEARCH_GIVEN))
                    tolerant[w] = sum(1 for r in tol if r.card is not None and r.confidence >= self.threshold)
                else:
                    tolerant[w] = sure
            return tried[w]

        def with_tolerant(w: float) -> tuple[int, float]:
            score(w)
            return tolerant[round(w, 1)], tried[round(w, 1)][1]

        measured = masks.card_width()
        first = ([measured] if measured else []) + list(detect.WIDTH_LADDER)
        best = max(first, key=score)  # max keeps the first of equal scores
        for step in (0.08, 0.04):
            best = max((best, best * (1 - step), best * (1 + step)), key=score)
        switched = False
        if TOLERANT_WIDTH_GAIN is not None and tolerant:
            # a deck whose index the classifier refuses for its size: the width the tolerant model reads
            wide = max(list(tolerant), key=with_tolerant)
            if tolerant[wide] >= TOLERANT_WIDTH_GAIN * score(best)[0] + 1:
                for step in (0.08, 0.04):
                    wide = max((wide, wide * (1 - step), wide * (1 + step)), key=with_tolerant)
                best = wide
                switched = True
        corners = detect.find_corners(frame, best, roi, masks, felt)
        apart = [w for w in tried if abs(w / best - 1) > SECOND_WIDTH_APART and tried[w][0] > 0]
        runner_up: Callable[[float], tuple[int, float]] = tried.__getitem__
        if not apart and TOLERANT_RUNNER_UP:  # no other width the classifier reads: the tolerant model's
            apart = [w for w in tolerant if abs(w / best - 1) > SECOND_WIDTH_APART and tolerant[w] > 0]
            runner_up = with_tolerant
        if apart:  # the runner-up's corners join the chosen width's, read in one model call
            corners += detect.find_corners(frame, max(apart, key=runner_up), roi, masks, felt)
        aside: dict[int, Reading] | None = (
            {} if not WIDTH_SEARCH_GIVEN and WIDTH_SEARCH_GIVEN_AGREES is not None else None)
        readings = self.read_corners(frame, corners, stock=stock, smaller=True, given_ok=WIDTH_SEARCH_GIVEN,
                                     given_aside=aside)
        dets = self._assemble(corners, readings, frame)
        implied = implied_card_width(dets, self.threshold)
        if implied is not None and aside:
            given = self._given_at_width(corners, readings, aside, implied)
            if given is not readings:
                readings, dets = given, self._assemble(corners, given, frame)
        card = (implied or measured
                or read_whole_width([*(masks.opened_boxes() if OPENED_WIDTH else []), *known], dets, self.threshold))
        if card is not None and (1.0 + IMPLIED_WIDTH_OFF) * card < best <= IMPLIED_WIDTH_MOST * card:
            # the index reads best at a larger width than the cards' own (a jumbo index): the same
            # reads, each card placed at the width its two read corners measure (else the whole
            # cards in view, else one an opening parts from stock touching it, else the larger frame's)
            corners = [dataclasses.replace(c, index_scale=c.width / card) for c in corners]
            dets = self._assemble(corners, readings, frame)
        ground = detect.stock_frame(frame.shape, [(roi, masks)], "foreground")
        read = dets
        dets = [d if d.card is None or d.confidence < self.threshold
                else placed if (placed := fit_to_stock(d, stock)) is not d else fit_to_edge(d, stock, ground, implied)
                for d in dets]
        # cards whose own edges are covered, as wide as those whose stock or edge measured them
        dets = place_as_fitted(dets, [d for d, was in zip(dets, read) if d is not was], self.threshold, implied)
        dets = four_index_places(dets, lambda: ground, self.threshold, stock=stock)
        return best, self._trusted(one_place_per_card(dets, stock, self.threshold), masks, frame,
                                   black_raises=TOLERANT_WIDTH_BODY or not switched)

    def _given_at_width(self, corners: Sequence[detect.Corner], readings: list[Reading], aside: dict[int, Reading],
                        width: float) -> list[Reading]:
        """``readings`` of ``corners`` (a frame read with its width searched, :meth:`_search_width`) with the
        scale-tolerant reads that stand only on their card given an index (:data:`TOLERANT_NOT_INDEX_UP_TO`),
        put ``aside`` by :meth:`read_corners`, at the corners still not read sure whose card is within
        :data:`WIDTH_SEARCH_GIVEN_AGREES` of ``width`` (the frame's sure reads' :func:`implied_card_width`),
        each only where its card is read sure at no other corner (a deck printing an index at all four
        corners, ``kde-dondorf``, has one upright beside the top-left one, and a card read there is placed
        beside itself); ``readings`` itself where there are none."""
        read = {r.card for r in readings if r.card is not None and r.confidence >= self.threshold}
        stood = {i: r for i, r in aside.items()
                 if (readings[i].card is None or readings[i].confidence < self.threshold)
                 and abs(corners[i].card_width / width - 1) <= WIDTH_SEARCH_GIVEN_AGREES
                 and not (WIDTH_SEARCH_GIVEN_NEW and r.card in read)}
        return [stood.get(i, r) for i, r in enumerate(readings)] if stood else readings

    def _trusted(self, dets: list[Detection], masks: detect.Masks, frame: np.ndarray, black_raises: bool = True
                 ) -> list[Detection]:
        """``dets`` of the region of ``masks`` in ``frame`` after the whole look (:meth:`_whole_look`),
        with the body models' word kept only where it can be taken: with a jumbo-index model none
        (:attr:`body_raises`: every read the body raised, settled or turned made unreadable, still a
        card there, and no whole look), elsewhere not in a region out of focus (:meth:`_in_focus`),
        and where ``black_raises`` is false (a width the classifier does not read at its scale) not for
        a club or a spade."""
        if self.body_raises:
            dets = self._in_focus(self._whole_look(dets, frame), masks)
            if black_raises:
                return dets
        return [dataclasses.replace(_unread(d), confirmed_by_body=False) if d.confirmed_by_body and d.card is not None
                and (not self.body_raises or d.card.suit in _BLACK_SUITS) else d for d in dets]

    def _whole_look(self, dets: list[Detection], frame: np.ndarray) -> list[Detection]:
        """``dets`` of one region of ``frame`` with the cards the whole-card model (:attr:`whole_session`)
        settles: a face-up place read unsure at its index (a card under the threshold) or contested (its
        corners, or two readings of it, naming two cards) stands as the one card of it whose suit and
        rank the whole card gives :attr:`whole_suit` and :attr:`whole_rank`, at the threshold and
        ``confirmed_by_body`` (so a region out of focus refuses it, :meth:`_in_focus`); a club or a
        spade only where no body model leans to its colour twin (:data:`WHOLE_BLACK_TWIN`). A card read
        sure in the region is no candidate, and a card stands at one place only. A place a check made
        unreadable (the queen check, mostly) is asked about the one card it was read as where that is a
        heart or a diamond (:attr:`Detection.refused`, :data:`WHOLE_REFUSED`), on the same terms; a club
        or a spade the checks refused (the small-black check, the twin veto) stays so. A contest of
        a club against a spade of one rank is left alone: the index itself doubts the black suit there,
        the doubt every model shares on decks it never saw (on an angled camera's tables a
        ``urw-gothic`` Jc contested with Js was settled Js at 0.99, both body models giving clubs under
        0.06: a wrong seat; forty-seventh session)."""
        if self.whole_session is None:
            return dets
        sure = {d.card for d in dets if d.card is not None and d.confidence >= self.threshold}
        todo = []
        for i, d in enumerate(dets):
            if not d.face_up or (d.card is not None and d.confidence >= self.threshold):
                continue
            if d.contested and _black_pair(d.contest):
                continue  # a club against a spade of one rank: the body's own rules settle it or none do
            named: tuple[Card, ...]
            if d.contested:
                named = d.contest
            elif d.card is not None:
                named = (d.card,)
            elif WHOLE_REFUSED and d.refused is not None and d.refused.suit not in _BLACK_SUITS:
                named = (d.refused,)  # a red card a check refused
            else:
                continue
            cards = [c for c in named if c not in sure]
            if cards:
                todo.append((i, cards))
        if not todo:
            return dets
        probs = self._run_bodies(self.whole_session, frame, [dets[i].corners for i, _ in todo], whole=True)
        out = list(dets)
        k = pips.N_SUIT_CLASSES
        for (i, cards), p in zip(todo, probs):
            says = [c for c in cards if c not in sure and p[c.index % 4] >= self.whole_suit
                    and p[k + c.index // 4] >= self.whole_rank]
            if len(says) == 1 and (says[0].suit not in _BLACK_SUITS
                                   or self._bodies_clear_of_twin(frame, dets[i], says[0])):
                out[i] = dataclasses.replace(out[i], card=says[0], confidence=self.threshold, contested=False,
                                             contest=(), contest_confidences=(), contest_of_places=False,
                                             confirmed_by_body=True)
                sure.add(says[0])
        return out

    def _bodies_clear_of_twin(self, frame: np.ndarray, det: Detection, card: Card) -> bool:
        """Whether no body model gives the colour twin of ``card`` (a club or a spade) the suit
        :data:`WHOLE_BLACK_TWIN` or more at ``det``'s place (:meth:`_whole_look`)."""
        if WHOLE_BLACK_TWIN is None:
            return True
        twin = colour_twin(card).index % 4
        return all(self.body_probs(frame, [det.corners], session)[0][twin] < WHOLE_BLACK_TWIN
                   for session in (self.suit_session, self.suit_layout_session) if session is not None)

    def _in_focus(self, dets: list[Detection], masks: detect.Masks) -> list[Detection]:
        """``dets`` of the region of ``masks``, where that region is out of focus (its card edges
        wider than :attr:`focus_limit`, :func:`vision.focus.edge_width`) with every read the body
        raised to the threshold, settled or turned (``confirmed_by_body``) made unreadable
        (``out_of_focus``): the body-suit models learnt sharp scenes only, and in blurred ones took
        clubs for spades; the body's refusals stand. The limit grows for a card wider than the
        training scenes' (:func:`vision.focus.limit_for`). The edges are measured only when there
        is such a read."""
        if self.focus_limit is None or not any(d.confirmed_by_body and d.card is not None for d in dets):
            return dets
        edge = masks.edge_width()
        return [dataclasses.replace(_unread(d), confirmed_by_body=False, out_of_focus=True)
                if d.confirmed_by_body and d.card is not None
                and focus.blurred(edge, math.dist(*d.corners[:2]), self.focus_limit) else d for d in dets]


def _median_width(dets: Sequence[Detection]) -> float:
    """The median width of the places of ``dets`` (their quads' first side), pixels."""
    return float(np.median([math.dist(*d.corners[:2]) for d in dets]))


def _scaled(d: Detection, sx: float, sy: float, origin: tuple[int, int]) -> Detection:
    """``d`` found in a frame scaled by ``1/sx, 1/sy`` and cropped at ``origin``, in the
    original frame's pixels."""
    x0, y0 = origin
    return dataclasses.replace(d, corners=tuple((x * sx + x0, y * sy + y0) for x, y in d.corners),
                               read_at=tuple((x * sx + x0, y * sy + y0, ux, uy) for x, y, ux, uy in d.read_at))


def off_frame(corners: Sequence[detect.Corner], shape: tuple[int, ...], slack: float | None = None) -> list[int]:
    """The corners whose index crop reaches more than ``slack`` card widths (default
    :data:`EDGE_SLACK`) past the edge of a frame of ``shape`` (height, width, ...): the frame cuts
    their index, and what is left of it can read as another card.

    >>> inside = detect.Corner((10.0, 10.0), (1.0, 0.0), (0.0, 1.0), 100.0)
    >>> cut = detect.Corner((-20.0, 10.0), (1.0, 0.0), (0.0, 1.0), 100.0)  # the corner 20 px off the frame
    >>> edge = detect.Corner((1.0, 3.0), (1.0, 0.0), (0.0, 1.0), 100.0)  # the card's corner at the edge
    >>> off_frame([inside, cut, edge], (300, 400))
    [1]
    """
    if not corners:
        return []
    slack = EDGE_SLACK if slack is None else slack
    h, w = shape[:2]
    quads = detect.crop_quads(corners)
    xs, ys = quads[..., 0], quads[..., 1]
    m = slack * np.array([c.width for c in corners], np.float64)
    cut = (xs.min(axis=1) < -m) | (ys.min(axis=1) < -m) | (xs.max(axis=1) > w + m) | (ys.max(axis=1) > h + m)
    return [int(i) for i in np.nonzero(cut)[0]]


def _gray_near(frame: np.ndarray, corners: Sequence[detect.Corner], out: np.ndarray | None = None) -> np.ndarray:
    """The frame in grayscale, converted once for all crops (only the bounding box of the corners'
    index regions is converted; the rest stays black, and no crop reaches it). ``out``: a grayscale
    frame to convert into (what it already holds elsewhere stays)."""
    import cv2

    h, w = frame.shape[:2]
    gray = np.zeros((h, w), np.uint8) if out is None else out
    if not corners:
        return gray
    pts = np.array([c.point for c in corners], np.float64)
    reach = 1.2 * max(c.width for c in corners)
    x0, y0 = (int(max(0, v)) for v in pts.min(axis=0) - reach)
    x1, y1 = (int(min(lim, v)) for v, lim in zip(pts.max(axis=0) + reach, (w, h)))
    if x1 > x0 and y1 > y0:
        gray[y0:y1, x0:x1] = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    return gray


TWIN_REACH = 0.1
"""Two corner proposals whose points lie this close (card widths) and whose ``u`` agree within
:data:`TWIN_TURN` are one index corner proposed twice (:func:`weaker_twins`)."""
TWIN_TURN = 0.9
"""Smallest cosine between the ``u`` of twin proposals (about 25 degrees)."""


def weaker_twins(corners: Sequence[detect.Corner], readings: Sequence[Reading]) -> set[int]:
    """Proposals that repeat a stronger proposal of the same index corner and read the same card.

    The proposers (outline vertices, the print scan, index print) often find one corner two or
    three times a few pixels apart, and :func:`group_corners` pairs each copy on its own. A weaker
    copy could pair with a corner of another card lying on it (the stronger copy having taken its
    own partner): that pair disagrees, and made the place of a card read for sure at both its
    corners unreadable. A copy is dropped only when it reads the card its twin reads (at most as
    surely): copies that read different cards both stay, and still contest the place.

    >>> from controller.cards import Card
    >>> a = detect.Corner((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), 63.0)
    >>> b = detect.Corner((3.0, 2.0), (0.99, 0.14), (-0.14, 0.99), 63.0)
    >>> sorted(weaker_twins([a, b], [Reading(Card.parse("9d"), 0.995), Reading(Card.parse("9d"), 0.89)]))
    [1]
    >>> sorted(weaker_twins([a, b], [Reading(Card.parse("9d"), 0.995), Reading(Card.parse("9h"), 0.89)]))
    []
    """
    # only corners read as a card at 0.5 or more can be twins: the rest (most proposals) are left out
    read = [i for i, r in enumerate(readings) if r.card is not None and r.confidence >= 0.5]
    n = len(read)
    if n < 2:
        return set()
    pts = np.array([corners[i].point for i in read], np.float64)
    us = np.array([corners[i].u for i in read], np.float64)
    reach = TWIN_REACH * np.array([corners[i].width for i in read], np.float64)
    card = np.array([readings[i].card.index for i in read])  # type: ignore[union-attr]
    conf = np.array([readings[i].confidence for i in read])
    near = np.linalg.norm(pts[:, None] - pts[None], axis=2) < np.minimum(reach[:, None], reach[None])
    twin = near & (us @ us.T >= TWIN_TURN) & (card[:, None] == card[None])
    # j is weaker than i: lower confidence, or equal and later
    order = np.arange(n)
    weaker = (conf[None] < conf[:, None]) | ((conf[None] == conf[:, None]) & (order[None] > order[:, None]))
    return {read[int(j)] for j in np.nonzero((twin & weaker).any(axis=0))[0]}


def assemble(corners: Sequence[detect.Corner], readings: Sequence[Reading], threshold: float,
             small_black: float | None = None) -> list[Detection]:
    """Group corner readings into cards. Groups with no corner that looks like an index are dropped
    (they are not index corners at all); a group with index-like but unreadable corners is kept as an
    unreadable card.

    ``small_black``: the confidence a club or a spade must reach on a card narrower than
    :data:`SMALL_CARD_WIDTH` (:data:`SMALL_BLACK_THRESHOLD`); below it the card is kept as an
    unreadable card. ``None``: no such rule."""
    out = []
    widths: list[float] = []
    twins = weaker_twins(corners, readings)
    keep = [i for i in range(len(corners)) if i not in twins]
    for g in group_corners([corners[i] for i in keep], readings=[readings[i] for i in keep], threshold=threshold):
        g = [keep[i] for i in g]
        rs = [readings[i] for i in g]
        if all(r.card is None for r in rs):  # not an index at all (most proposals)
            continue
        card, conf, n = combine(rs, threshold)
        if card is None and conf < 0.5:
            continue
        lead = next((i for i in g if readings[i].card == card), g[0])
        quad = corners[lead].card_quad()
        contested = card is None  # (corners that read no card at 0.5 or more were dropped above)
        read_at = tuple((*corners[i].point, *corners[i].u) for i in g if card is not None and readings[i].card == card)
        rivals: dict[Card, float] = {}
        for r in sorted(rs, key=lambda r: -r.confidence) if contested else ():
            if r.card is not None and r.confidence >= CONTEST_FLOOR:
                rivals.setdefault(r.card, r.confidence)
        by_layout = card is not None and all(readings[i].layout for i in g if readings[i].card == card)
        twin_conf = max((readings[i].colour_twin for i in g if readings[i].card == card), default=0.0)
        out.append(Detection(card, conf, tuple((float(x), float(y)) for x, y in quad), n, contested=contested,
                             read_at=read_at, contest=tuple(rivals), contest_confidences=tuple(rivals.values()),
                             by_layout=by_layout, colour_twin_confidence=twin_conf))
        widths.append(corners[lead].card_width)
    dets = merge_duplicates(out, widths, threshold)
    return dets if small_black is None else [_small_black_check(d, small_black) for d in dets]


def _black_pair(contest: Sequence[Card]) -> bool:
    """Whether a contest is a club against a spade of one rank, and nothing else."""
    return (len(contest) == 2 and contest[0].index // 4 == contest[1].index // 4
            and {c.suit for c in contest} == set(_BLACK_SUITS))


def _turned(quad: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """``quad`` starting at its opposite corner: the same card as read from its other index corner.

    >>> _turned([(0, 0), (1, 0), (1, 2), (0, 2)])
    [(1, 2), (0, 2), (0, 0), (1, 0)]
    """
    return [tuple(p) for p in (*quad[2:], *quad[:2])]  # type: ignore[misc]


def _scaled_quad(quad: Sequence[tuple[float, float]], scale: float) -> list[tuple[float, float]]:
    """``quad`` made ``scale`` times as large about its first corner (the read index corner).

    >>> _scaled_quad([(10, 10), (20, 10), (20, 24), (10, 24)], 1.5)
    [(10.0, 10.0), (25.0, 10.0), (25.0, 31.0), (10.0, 31.0)]
    """
    x0, y0 = quad[0]
    return [(float(x0 + scale * (x - x0)), float(y0 + scale * (y - y0))) for x, y in quad]


IMPLIED_WIDTH_OFF = 0.25
"""Where the width search reads best at more than this share over the card width its reads imply
(:func:`implied_card_width`; with no card read at both corners, the whole cards in view measure it:
:func:`vision.detect.estimate_card_width`), a deck printing a jumbo index, the cards are placed at
that width (:meth:`OnnxRecognizer._search_width`). Not below it: standard decks whose small index reads
best at 0.7 to 0.85 times their width are placed there as before (placed at the implied width
instead, the first 1,000 benchmark scenes read 2 cards fewer of the seen decks and 1 more of the
unseen), and on those scenes none reads best more than 1.25 times over its implied width."""
IMPLIED_WIDTH_MOST = 2.5
"""Nor above this ratio of the search's width to the card width: no deck prints its index much more
than twice a standard one (the jumbo decks trained on and measured: 1.5 to 2.1 times; the real
large-index designs read best at 1.2 to 1.9), so a larger ratio is a mismeasure, and the cards stay
at the search's width. Forty-eighth session: on a tuning scene (``[60606, 398]``) a fan of 102 px
cards whose whole cards measured 36 px (a strip of a card) had its three cards read right and placed
at 36 px, each over its neighbour: three sure reads counted wrong."""
IMPLIED_WIDTH_FIT = 0.15
"""How far (a share) the offset between two corners of one card read sure may turn from the card's
diagonal, as the ratio of its two sides, for them to be taken as its two index corners."""


def implied_card_width(dets: Sequence[Detection], threshold: float) -> float | None:
    """The card width the sure reads of ``dets`` measure: where one card is read at two index corners
    that face opposite ways and lie along its diagonal (a deck has one of each card, so the two are
    its top-left and bottom-right), the distance between them is the card's diagonal, whatever width
    the index was read at. The median over such cards (:func:`implied_cards`), or ``None`` with none.

    >>> from controller.cards import Card
    >>> q = ((0.0, 0.0), (90.0, 0.0), (90.0, 125.7), (0.0, 125.7))  # read at 90 px
    >>> tl = Detection(Card.parse("Kd"), 0.99, q, 1, read_at=((0.0, 0.0, 1.0, 0.0),))
    >>> br = Detection(Card.parse("Kd"), 0.99, q, 1, read_at=((63.0, 88.0, -1.0, 0.0),))  # a 63 px card
    >>> round(implied_card_width([tl, br], 0.96), 1)
    63.0
    >>> implied_card_width([tl], 0.96) is None
    True
    """
    widths = [w for _, w in implied_cards(dets, threshold)]
    return float(np.median(widths)) if widths else None


def implied_cards(dets: Sequence[Detection], threshold: float) -> list[tuple[tuple[float, float], float]]:
    """Each card of ``dets`` read sure at two index corners along its diagonal
    (:func:`implied_card_width`): its centre (midway between the two corners) and its width, as
    :func:`vision.detect.whole_cards` gives those of the whole cards in view."""
    at: dict[Card, list[tuple[float, float, float, float]]] = {}
    for d in dets:
        if d.card is not None and d.confidence >= threshold:
            at.setdefault(d.card, []).extend(r for r in d.read_at if r not in at.get(d.card, []))
    cards = []
    for corners in at.values():
        for k, (x, y, ux, uy) in enumerate(corners):
            for x2, y2, ux2, uy2 in corners[k + 1 :]:
                if ux * ux2 + uy * uy2 > PAIR_OPPOSITE:
                    continue
                a = (x2 - x) * ux + (y2 - y) * uy  # along the top edge, and down the long side
                b = (x2 - x) * -uy + (y2 - y) * ux
                if a > 0 and b > 0 and abs(b / a / detect.ASPECT - 1.0) <= IMPLIED_WIDTH_FIT:
                    cards.append((((x + x2) / 2, (y + y2) / 2), math.hypot(a, b) / math.hypot(1.0, detect.ASPECT)))
    return cards


def model_index_scales(meta: dict[str, str], path: object = "model") -> tuple[float, float] | None:
    """The ``index_scales`` an index model's metadata names (``"1.2 1.55"``: a model trained on decks
    printing a jumbo index, cropped at those index scales), or ``None`` where it names none.

    >>> model_index_scales({"index_scales": "1.2 1.55"}), model_index_scales({})
    ((1.2, 1.55), None)
    """
    text = meta.get("index_scales")
    if text is None:
        return None
    try:
        lo, hi = (float(v) for v in text.split())
    except ValueError:
        raise ValueError(f"{path}: index_scales metadata {text!r} is not two numbers") from None
    if not INDEX_SCALES[0] <= lo <= hi <= INDEX_SCALES[1]:
        raise ValueError(f"{path}: index_scales metadata {text!r} is not a range within {INDEX_SCALES}")
    return lo, hi


INDEX_SCALES = (0.5, 3.0)
"""The least and the most :attr:`OnnxRecognizer.index_scale` may be (``camera.index_scale``'s range)."""


def _small_black(d: Detection) -> bool:
    """Whether ``d`` is read as a club or a spade on a card narrower than :data:`SMALL_CARD_WIDTH`."""
    if d.card is None or d.card.suit not in _BLACK_SUITS:
        return False
    (x0, y0), (x1, y1) = d.corners[:2]
    return math.hypot(x1 - x0, y1 - y0) < SMALL_CARD_WIDTH


def _small_black_check(d: Detection, small_black: float) -> Detection:
    """``d``, or ``d`` unreadable when it is a club or a spade on a card narrower than
    :data:`SMALL_CARD_WIDTH` read below ``small_black``. Judged after the cards are assembled and
    merged, so that such a read still contests the cards read near it (it is a card there)."""
    if d.confidence >= small_black or not _small_black(d):
        return d
    return _unread(d)


def _unread(d: Detection) -> Detection:
    """``d`` made unreadable: still a card there (it keeps contesting the places near it), no card named."""
    return dataclasses.replace(d, card=None, indices_read=0, read_at=(), refused=d.card or d.refused)


def merge_duplicates(dets: Sequence[Detection], widths: Sequence[float], threshold: float,
                     radius: float = 0.25) -> list[Detection]:
    """One detection per card: proposals of one card made from several corners or edges imply
    nearly the same card (its four corners each within ``radius`` card widths of the nearest corner
    of the other, on average; the centres alone would join two cards that cross at an angle, as a
    card tossed on a fanned hand does), or read as the same card with centres within
    :data:`SAME_CARD_REACH` card widths. The strongest reading of a place
    stands for it; weaker or unreadable ones there are dropped; two different cards read at or
    above ``threshold`` at one place make it unreadable (unless they are two cards of a tight fan,
    each read at its own index corner: :func:`_fanned`), and so does a card whose own index corners
    read different cards there (``contested``: one corner of the place says otherwise).

    >>> from controller.cards import Card
    >>> q = ((0.0, 0.0), (63.0, 0.0), (63.0, 88.0), (0.0, 88.0))
    >>> d = [Detection(Card.parse("As"), 0.999, q), Detection(None, 0.8, q), Detection(Card.parse("Ks"), 0.7, q)]
    >>> [(str(x.card), x.confidence) for x in merge_duplicates(d, [63.0] * 3, 0.99)]
    [('As', 0.999)]
    >>> torn = Detection(None, 0.98, q, contested=True)
    >>> [str(x.card) for x in merge_duplicates(d[:1] + [torn], [63.0] * 2, 0.99)]
    ['None']
    >>> crossing = ((53.9, -5.3), (85.4, 49.3), (9.1, 93.3), (-22.4, 38.7))  # same centre, turned 60 degrees
    >>> [str(x.card) for x in merge_duplicates([d[0], Detection(Card.parse("Kd"), 0.999, crossing)], [63.0] * 2, 0.99)]
    ['As', 'Kd']

    A place made unreadable by two cards keeps what they were (:attr:`Detection.contest`, surest
    first, ``contest_of_places``), so the body can weigh them (:meth:`OnnxRecognizer._ask_one_body`):

    >>> [x] = merge_duplicates([Detection(Card.parse("Kc"), 0.999, q), Detection(Card.parse("Ks"), 0.995, q)],
    ...                        [63.0] * 2, 0.99)
    >>> x.card, [str(c) for c in x.contest], x.contest_confidences, x.contest_of_places
    (None, ['Kc', 'Ks'], (0.999, 0.995), True)

    A card read at both its index corners is one place before any other card is weighed against
    it (:func:`_card_places`): in a tight fan the 6h read at its far corner lies nearly on the Kd
    beside it and faces the other way, but its near corner shows the two are fanned.

    >>> fan = ((12.0, 0.0), (75.0, 0.0), (75.0, 88.0), (12.0, 88.0))
    >>> far = Detection(Card.parse("6h"), 1.0, fan[2:] + fan[:2], 1, read_at=((75.0, 88.0, -1.0, 0.0),))
    >>> near = Detection(Card.parse("6h"), 0.998, fan, 1, read_at=((12.0, 0.0, 1.0, 0.0),))
    >>> kd = Detection(Card.parse("Kd"), 0.999, q, 1, read_at=((0.0, 0.0, 1.0, 0.0),))
    >>> [(str(x.card), len(x.read_at)) for x in merge_duplicates([far, kd, near], [63.0] * 3, 0.99)]
    [('6h', 2), ('Kd', 1)]
    """
    dets, widths = _card_places(dets, widths, radius)
    order = sorted(range(len(dets)), key=lambda i: (dets[i].card is not None, dets[i].confidence), reverse=True)
    kept: list[Detection] = []
    kept_w: list[float] = []
    kept_q: list[np.ndarray] = []
    kept_i: list[int] = []
    nearby: dict[int, tuple] = {}  # the corners each card is read at, found only for cards that clash

    def seen_at(i: int) -> tuple:
        if not FAN_BY_ALL_READS:
            return dets[i].read_at
        if i not in nearby:
            nearby[i] = _read_nearby(dets, widths, i)
        return nearby[i]

    for i in order:
        d = dets[i]
        q = np.array(d.corners)
        clash = None
        for k, (e, w, eq) in enumerate(zip(kept, kept_w, kept_q)):
            # how far apart the two cards lie: each corner of one to the nearest corner of the other
            gap = _gap(q, eq)
            reach = max(w, widths[i])
            if (gap < radius * reach and not (d.confidence >= threshold
                                              and _fanned(d, e, reach, seen_at(i), seen_at(kept_i[k])))) or (
                    d.card is not None and d.card == e.card and math.dist(d.center, e.center) < SAME_CARD_REACH * reach):
                clash = k
                break
        if clash is None:
            kept.append(d)
            kept_w.append(widths[i])
            kept_q.append(q)
            kept_i.append(i)
            continue
        e = kept[clash]
        if e.card is not None and ((d.card is not None and d.card != e.card and d.confidence >= threshold)
                                   or d.contested):
            rivals = {e.card: e.confidence}
            for card, conf in ([(d.card, d.confidence)] if d.card is not None else
                               zip(d.contest, d.contest_confidences)):
                rivals[card] = max(conf, rivals.get(card, 0.0))
            rivals = dict(sorted(rivals.items(), key=lambda kv: -kv[1]))
            kept[clash] = dataclasses.replace(e, card=None, indices_read=0, contested=True, contest=tuple(rivals),
                                              contest_confidences=tuple(rivals.values()), contest_of_places=True)
        elif d.card == e.card and d.card is not None:
            kept[clash] = dataclasses.replace(e, indices_read=max(e.indices_read, d.indices_read))
    return kept


FAN_BY_ALL_READS = True
"""Two cards that clash in :func:`merge_duplicates` are judged a fan (:func:`_fanned`) on every
corner at which each is read nearby (:func:`_read_nearby`), not only at its own place's corners.
Thirty-seventh session (models/HISTORY.md). ``False``: each place's own corners only."""


def _read_nearby(dets: Sequence[Detection], widths: Sequence[float], i: int) -> tuple:
    """``dets[i]``'s :attr:`Detection.read_at` with the index corners of every other detection that
    reads the same card with its centre within :data:`SAME_CARD_REACH` card widths: the corners at which
    that card was read, whichever of its places is weighed."""
    d = dets[i]
    at = list(d.read_at)
    if d.card is not None:
        for j, e in enumerate(dets):
            if j != i and e.card == d.card and math.dist(d.center, e.center) < SAME_CARD_REACH * max(
                    widths[i], widths[j]):
                at += [r for r in e.read_at if r not in at]
    return tuple(at)


def _card_places(dets: Sequence[Detection], widths: Sequence[float],
                 radius: float) -> tuple[list[Detection], list[float]]:
    """``dets`` with the detections that read one card at one place (quads within ``radius`` card
    widths, :func:`_gap`) made one, surest first: it keeps every index corner read as that card
    (``read_at``; ``indices_read`` the most any of them had). Otherwise whether another card near it is a fanned neighbour
    (:func:`_fanned`) depended on which of the card's readings was weighed first (twenty-fifth
    session, models/HISTORY.md)."""
    order = sorted(range(len(dets)), key=lambda i: (dets[i].card is not None, dets[i].confidence), reverse=True)
    quads = [np.array(d.corners) for d in dets]
    used: set[int] = set()
    out: list[Detection] = []
    out_w: list[float] = []
    for i in order:
        if i in used:
            continue
        used.add(i)
        d = dets[i]
        if d.card is not None:
            same = [j for j in order if j not in used and dets[j].card == d.card
                    and _gap(quads[i], quads[j]) < radius * max(widths[i], widths[j])]
            if same:
                used.update(same)
                read_at = list(d.read_at)
                read_at += [r for j in same for r in dets[j].read_at if r not in read_at]
                d = dataclasses.replace(d, read_at=tuple(read_at),
                                        indices_read=max([d.indices_read] + [dets[j].indices_read for j in same]),
                                        colour_twin_confidence=max([d.colour_twin_confidence]
                                                                   + [dets[j].colour_twin_confidence for j in same]))
        out.append(d)
        out_w.append(widths[i])
    return out, out_w


SAME_CARD_FAR: float | None = 1.2
"""Two reads of one card at or above the threshold whose centres lie within this many card widths
are one card read at two of its corners, and the place that lies on card stock stands
(:func:`one_place_per_card`); ``None``: both stand (thirty-third session)."""
SAME_CARD_ELSEWHERE: bool = True
"""A deck has one of each card: where one card is read sure at two index corners along the diagonal of
one place (its two corners agree, and measure the card, :func:`implied_cards`) and sure at one index
corner at another place farther than :data:`SAME_CARD_FAR` (and not the two extra indices of
:data:`SAME_CARD_BETWEEN`), the one-corner read is made unreadable (:func:`one_place_per_card`).
Sixty-first session: a 6d whose index lay half under the next card was read as the 5d lying beside
the fan, 0.97 under a cool light, 0.99 on a silver felt."""
SAME_CARD_BETWEEN: float | None = 1.8
"""Two reads of one card at or above the threshold whose centres lie from :data:`SAME_CARD_FAR` to this
many card widths apart, read at index corners that face opposite ways (:data:`PAIR_OPPOSITE`), are
one card read at the two extra indices a four-index deck prints upright at its top-right and
bottom-left corners (Dondorf): each implies a card beside the card, on either side of it, and the
card is placed midway (:func:`one_place_per_card`); ``None``: both stand (fifty-sixth session)."""


FOUR_INDEX_SPACING = (0.6, 1.0)
"""Two reads of one card at or above the threshold at index corners that face the same way, this many
card widths apart along the card's short side (the direction the index reads, :attr:`Detection.read_at`)
and within :data:`FOUR_INDEX_ACROSS` of it across, are the index a deck prints at its top-left
corner and the one it prints upright at its top-right (Dondorf; many casino decks print four): the
frame's deck has one at each corner, and the median of such spacings is how far apart the two lie
(:func:`four_index_pairs`; ``kde-dondorf`` 0.82 to 0.93 of the width a corner implies)."""
FOUR_INDEX_ACROSS = 0.1
"""See :data:`FOUR_INDEX_SPACING`: card widths off the short side the second read may lie."""
FOUR_INDEX_SAME_WAY = 0.9
"""See :data:`FOUR_INDEX_SPACING`: the least dot product of the two reads' directions (facing one way)."""
FOUR_INDEX_FELT: float | None = 0.3
"""In a frame whose deck prints its index at four corners (:func:`four_index_pairs`), a card read at
one index corner whose place shows felt over more than this share of its middle (the card shrunk to
:data:`FOUR_INDEX_MIDDLE` round its centre: felt never lies over a card) was read at the index the deck
prints at its other corner, and is placed from that one, the spacing back, where its middle shows
felt under :data:`FOUR_INDEX_CLEAR` (:func:`four_index_places`). Elsewhere it keeps its place: a card
lying under others shows no felt either way, and a plain back of the felt's own colour is felt to the
masks. A card read at its top-right index beside a read of it at its top-left is placed there too. A
table's seat zones share the spacing any of the frame's zones shows. ``None``: every card keeps its place
(sixty-seventh session: ``kde-dondorf``'s cards were a tenth of them placed beside their own)."""
FOUR_INDEX_ALONE_FELT: float | None = 0.6
"""Where no card of the frame shows its deck prints four indices, a card read at one index corner whose
place's middle shows felt over more than this share is still placed as :data:`FOUR_INDEX_FELT` says,
:data:`FOUR_INDEX_USUAL` back (a card's place that is mostly felt is not its place, and the frame may show
no card whole); ``None``: only in a frame that shows the deck prints four. Not in a table's seat zones
(each card a frame would ask for the felt there, about 1% of a table frame's time, and a card's place in
its zone does not change the seat's verdict)."""
FOUR_INDEX_ALONE_STOCK = 0.3
"""See :data:`FOUR_INDEX_ALONE_FELT`: the most card stock (:func:`vision.detect.stock_frame`, holes filled) the
place's middle may show there. A seen deck's card lying under a plain back of the felt's colour shows felt in
its place, but the back's white border closes it, and the filled stock covers it (sixty-seventh session:
four seen-deck cards at 0.55 to 0.59 felt, their middles 0.39 to 1.0 stock; the Dondorf cards 0.08 to 0.36)."""
FOUR_INDEX_USUAL = 0.88
"""See :data:`FOUR_INDEX_ALONE_FELT`: the spacing of the two upright indices, in card widths, where the
frame measures none (``kde-dondorf``'s median)."""
FOUR_INDEX_CLEAR = 0.1
"""See :data:`FOUR_INDEX_FELT`: the most felt the other place's middle may show."""
FOUR_INDEX_MIDDLE = 0.8
"""See :data:`FOUR_INDEX_FELT`: the share of the card round its centre whose felt counts."""


def four_index_pairs(dets: Sequence[Detection], threshold: float) -> list[tuple[int, int, float]]:
    """The cards ``dets`` read sure both at the top-left index and at the one a four-index deck prints
    upright at its top-right (:data:`FOUR_INDEX_SPACING`): ``(i, j, spacing)``, ``dets[j]`` read at one
    index corner lying ``spacing`` card widths from one of ``dets[i]``'s along the way its index reads
    (its top right). ``[]`` where none shows (a deck that prints two indices).

    >>> from controller.cards import Card
    >>> q = ((0.0, 0.0), (60.0, 0.0), (60.0, 84.0), (0.0, 84.0))
    >>> tl = Detection(Card.parse("Kd"), 0.99, q, 1, read_at=((0.0, 0.0, 1.0, 0.0),))
    >>> tr = Detection(Card.parse("Kd"), 0.99, q, 1, read_at=((52.0, 1.0, 1.0, 0.0),))
    >>> four_index_pairs([tr, tl], 0.96)
    [(1, 0, 0.8667)]
    >>> br = Detection(Card.parse("Kd"), 0.99, q, 1, read_at=((60.0, 84.0, -1.0, 0.0),))
    >>> four_index_pairs([tl, br], 0.96)  # the two index corners of a two-index deck
    []
    """
    lo, hi = FOUR_INDEX_SPACING
    by_card: dict[Card, list[int]] = {}
    for k, d in enumerate(dets):
        if d.card is not None and d.confidence >= threshold:
            by_card.setdefault(d.card, []).append(k)
    pairs = []
    for ks in by_card.values():
        reads = [(k, r, math.dist(dets[k].corners[0], dets[k].corners[1])) for k in ks for r in dets[k].read_at]
        for n, (i, (x, y, ux, uy), w) in enumerate(reads):
            for j, (x2, y2, ux2, uy2), w2 in reads[n + 1:]:
                if j == i or ux * ux2 + uy * uy2 < FOUR_INDEX_SAME_WAY:
                    continue
                dx, dy, width = x2 - x, y2 - y, (w + w2) / 2
                along, across = (dx * ux + dy * uy) / width, abs(-dx * uy + dy * ux) / width
                if lo <= abs(along) <= hi and across <= FOUR_INDEX_ACROSS:
                    pairs.append((i, j, round(along, 4)) if along > 0 else (j, i, round(-along, 4)))
    return pairs


def four_index_spacing(dets: Sequence[Detection], threshold: float) -> float | None:
    """The median spacing of :func:`four_index_pairs` of ``dets``, or ``None`` where they show none.

    >>> four_index_spacing([], 0.96) is None
    True
    """
    return _spacing(four_index_pairs(dets, threshold))


def _spacing(pairs: Sequence[tuple[int, int, float]]) -> float | None:
    """The median spacing of :func:`four_index_pairs`' ``pairs``; ``None`` with none."""
    return float(np.median([s for _, _, s in pairs])) if pairs else None


def felt_share(quad: Sequence[Sequence[float]], ground: np.ndarray, middle: float = 1.0) -> float:
    """The share of the card ``quad`` (shrunk to ``middle`` round its centre) that shows felt
    (``ground``: a frame-sized mask of anything not felt, :func:`vision.detect.stock_frame`), sampled as
    :func:`stock_fit` samples; 0.0 where none of it is on the frame.

    >>> ground = np.full((100, 100), 255, np.uint8); ground[:, 50:] = 0
    >>> felt_share([(10, 10), (90, 10), (90, 50), (10, 50)], ground)
    0.5
    >>> felt_share([(10, 10), (90, 10), (90, 50), (10, 50)], ground, middle=0.5)
    0.5
    >>> felt_share([(10, 10), (40, 10), (40, 50), (10, 50)], ground)
    0.0
    """
    return 1.0 - middle_on(quad, ground, middle)


def middle_on(quad: Sequence[Sequence[float]], mask: np.ndarray, middle: float = 1.0, n: int = 8) -> float:
    """The share of the card ``quad`` (shrunk to ``middle`` round its centre) that lies on ``mask`` (a
    frame-sized mask), at ``n x n`` points spread over it (:func:`_spread`); 1.0 where none of it is on the frame.

    >>> mask = np.zeros((100, 100), np.uint8); mask[:, :20] = 255
    >>> quad = [(10, 10), (50, 10), (50, 50), (10, 50)]
    >>> middle_on(quad, mask), middle_on(quad, mask, 0.5)
    (0.25, 0.0)
    """
    return _on_stock(_spread(middle, n) @ np.asarray(quad, np.float64), mask, 1.0)


@functools.lru_cache(maxsize=8)
def _spread(middle: float, n: int = 8) -> np.ndarray:
    """``n * n x 4``: the weights of a quad's four corners for ``n x n`` points spread evenly over the
    quad's middle (``middle`` of it round its centre; 1.0: the whole quad), found once."""
    a = (np.arange(n) + 0.5) / n
    if middle != 1.0:
        a = 0.5 + middle * (a - 0.5)
    s, t = (g.ravel() for g in np.meshgrid(a, a))
    return np.stack([(1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t], axis=1)


def _read_at_one_corner(d: Detection) -> bool:
    """Whether ``d`` was read at one index corner: by one proposal, or by several within a quarter of
    its width of the first (as :func:`fit_to_edge` takes it)."""
    reach = 0.25 * math.dist(d.corners[0], d.corners[1])
    return bool(d.read_at) and all(math.dist(d.read_at[0][:2], r[:2]) <= reach for r in d.read_at[1:])


def four_index_places(dets: Sequence[Detection], ground: Callable[[], np.ndarray], threshold: float,
                      spacing: float | None = None, alone: bool = True, stock: np.ndarray | None = None
                      ) -> list[Detection]:
    """``dets`` with each card read sure at one index corner that the frame's four-index deck
    (:func:`four_index_pairs`) placed over felt placed from the deck's other upright index instead,
    where that place shows none (:data:`FOUR_INDEX_FELT`), and each card read at its top-right index
    beside a read at its top-left placed there. In a frame whose deck shows no such index, only a place
    mostly felt is moved so (:data:`FOUR_INDEX_ALONE_FELT`), and with ``alone`` false (a table's seat
    zones, read against a frame's time) none. ``spacing``: the frame's (:func:`four_index_spacing` of
    every region's reads), else the one ``dets`` show. ``ground``: gives the frame's not-felt mask
    (:func:`vision.detect.stock_frame` with ``"foreground"``), asked only where a place's felt counts.
    ``stock``: the frame's card stock (holes filled), where given a place mostly felt in a frame that
    shows no four-index card moves only where its middle is not stock (:data:`FOUR_INDEX_ALONE_STOCK`).

    >>> from controller.cards import Card
    >>> ground = np.zeros((200, 300), np.uint8); ground[20:104, 100:160] = 255  # a Kd alone on felt
    >>> ground[20:104, 180:240] = 255  # a 7c, read at both its upright indices: the deck prints four
    >>> def det(card, x):
    ...     q = ((x, 20.0), (x + 60.0, 20.0), (x + 60.0, 104.0), (x, 104.0))
    ...     return Detection(Card.parse(card), 0.99, q, 1, read_at=((x, 20.0, 1.0, 0.0),))
    >>> moved = four_index_places([det("Kd", 148.0), det("7c", 180.0), det("7c", 228.0)], lambda: ground, 0.96)
    >>> [(str(d.card), d.corners[0]) for d in moved]  # the Kd and the second 7c were read at their top right
    [('Kd', (100.0, 20.0)), ('7c', (180.0, 20.0)), ('7c', (180.0, 20.0))]
    >>> four_index_places([det("Kd", 148.0)], lambda: ground, 0.96)[0].corners[0]  # no four-index deck shown
    (148.0, 20.0)
    >>> lone = ground.copy(); lone[:, 170:] = 0  # the Kd alone: its place read 53 px right is mostly felt
    >>> [round(v) for v in four_index_places([det("Kd", 153.0)], lambda: lone, 0.96)[0].corners[0]]
    [100, 20]
    >>> four_index_places([det("Kd", 153.0)], lambda: lone, 0.96, alone=False)[0].corners[0]  # a seat zone's
    (153.0, 20.0)
    """
    if FOUR_INDEX_FELT is None:
        return list(dets)
    pairs = four_index_pairs(dets, threshold)
    at_top_right = {j for _, j, _ in pairs}
    spacing = spacing or _spacing(pairs)
    felt = FOUR_INDEX_FELT
    if spacing is None:  # no card shows the deck prints four: only a place mostly felt
        if FOUR_INDEX_ALONE_FELT is None or not alone:
            return list(dets)
        spacing, felt = FOUR_INDEX_USUAL, FOUR_INDEX_ALONE_FELT
    else:
        stock = None  # the frame shows the deck prints four
    mask: np.ndarray | None = None

    def back(d: Detection) -> list[tuple[float, float]]:
        ux, uy = d.read_at[0][2:]
        by = spacing * math.dist(d.corners[0], d.corners[1])
        return [(x - by * ux, y - by * uy) for x, y in d.corners]

    def over_felt(d: Detection) -> bool:
        nonlocal mask
        mask = ground() if mask is None else mask
        return (felt_share(d.corners, mask, FOUR_INDEX_MIDDLE) > felt
                and felt_share(back(d), mask, FOUR_INDEX_MIDDLE) < FOUR_INDEX_CLEAR
                and (stock is None or middle_on(d.corners, stock, FOUR_INDEX_MIDDLE) <= FOUR_INDEX_ALONE_STOCK))

    out = []
    for k, d in enumerate(dets):
        if (d.card is not None and d.confidence >= threshold and d.indices_read == 1 and _read_at_one_corner(d)
                and (k in at_top_right or over_felt(d))):
            d = dataclasses.replace(d, corners=tuple((float(x), float(y)) for x, y in back(d)))
        out.append(d)
    return out


def stock_fit(quad: Sequence[Sequence[float]], stock: np.ndarray, n: int = 8) -> float:
    """The share of the card ``quad`` (4 x 2, round the card) that lies on card stock (``stock``:
    a frame-sized mask, :func:`vision.detect.stock_frame`): ``n x n`` points spread over the quad,
    those off the frame not counted (1.0 when none is on it).

    >>> stock = np.zeros((100, 100), np.uint8); stock[10:50, 10:40] = 255
    >>> stock_fit([(10, 10), (40, 10), (40, 50), (10, 50)], stock)
    1.0
    >>> stock_fit([(10, 10), (70, 10), (70, 50), (10, 50)], stock)
    0.5
    >>> stock_fit([(-40, 10), (-10, 10), (-10, 50), (-40, 50)], stock)
    1.0
    """
    return middle_on(quad, stock, 1.0, n)


def _on_stock(points: np.ndarray, stock: np.ndarray, none_on_frame: float) -> float:
    """The share of ``points`` (``N x 2``, frame pixels) on the frame that lie on ``stock``;
    ``none_on_frame`` when none is on the frame."""
    h, w = stock.shape[:2]
    on = (points[:, 0] >= 0) & (points[:, 0] < w) & (points[:, 1] >= 0) & (points[:, 1] < h)
    if not on.any():
        return none_on_frame
    p = points[on].astype(np.int64)
    return float(np.count_nonzero(stock[p[:, 1], p[:, 0]]) / len(p))


def one_place_per_card(dets: Sequence[Detection], stock: np.ndarray, threshold: float,
                       reach: float | None = None) -> list[Detection]:
    """``dets`` with each card read at or above ``threshold`` at one place only, where two reads of
    it lie within ``reach`` card widths (default :data:`SAME_CARD_FAR`): a deck has one of each card.

    A deck that prints its index at all four corners (Dondorf) prints the two extra ones upright at
    the top-right and bottom-left corners: the index classifier reads them as the card's own index
    corners, and the card they imply lies beside the card, over its neighbour or off the card. Of
    two places of one card the one more on card stock (:func:`stock_fit`) stands, then the one read
    at more index corners, then the surer. Where the card was read at both extra indices, its two
    places lie on either side of it, farther apart, facing opposite ways (:data:`SAME_CARD_BETWEEN`):
    the surer read stands, placed midway between the two. Farther apart still, a read at one index
    corner gives way to a read of the card at both its corners (:data:`SAME_CARD_ELSEWHERE`).

    >>> from controller.cards import Card
    >>> stock = np.zeros((200, 200), np.uint8); stock[20:108, 20:83] = 255
    >>> card = ((20.0, 20.0), (83.0, 20.0), (83.0, 108.0), (20.0, 108.0))
    >>> turned = ((83.0, 20.0), (83.0, 83.0), (-5.0, 83.0), (-5.0, 20.0))  # read at its top right corner
    >>> dets = [Detection(Card.parse("Th"), 0.99, turned, 1), Detection(Card.parse("Th"), 0.97, card, 1)]
    >>> [(str(d.card), d.corners[0]) for d in one_place_per_card(dets, stock, 0.96)]
    [('Th', (20.0, 20.0))]
    >>> len(one_place_per_card(dets, stock, 0.98))  # the second read is not sure: nothing to settle
    2
    >>> right = ((140.0, 20.0), (203.0, 20.0), (203.0, 108.0), (140.0, 108.0))  # read at the top right
    >>> left = ((103.0, 108.0), (40.0, 108.0), (40.0, 20.0), (103.0, 20.0))  # and at the bottom left
    >>> dets = [Detection(Card.parse("Kd"), 0.99, right, 1, read_at=((140.0, 20.0, 1.0, 0.0),)),
    ...         Detection(Card.parse("Kd"), 0.98, left, 1, read_at=((103.0, 108.0, -1.0, 0.0),))]
    >>> [(str(d.card), d.center, d.indices_read) for d in one_place_per_card(dets, stock, 0.96)]
    [('Kd', (121.5, 64.0), 2)]
    """
    reach = SAME_CARD_FAR if reach is None else reach
    if reach is None:
        return list(dets)
    sure = [i for i, d in enumerate(dets) if d.card is not None and d.confidence >= threshold]
    drop: set[int] = set()
    fits: dict[int, float] = {}

    def rank(i: int) -> tuple[float, int, float]:
        if i not in fits:
            fits[i] = stock_fit(dets[i].corners, stock)
        return fits[i], dets[i].indices_read, dets[i].confidence

    for x, a in enumerate(sure):
        for b in sure[x + 1:]:
            d, e = dets[a], dets[b]
            if a in drop or b in drop or d.card != e.card:
                continue
            width = max(math.dist(d.corners[0], d.corners[1]), math.dist(e.corners[0], e.corners[1]))
            if math.dist(d.center, e.center) < reach * width:
                drop.add(b if rank(a) >= rank(b) else a)
    if SAME_CARD_BETWEEN is not None:
        dets = list(dets)  # (the caller's list is left as it was)
        for x, a in enumerate(sure):
            for b in sure[x + 1:]:
                d, e = dets[a], dets[b]
                if a in drop or b in drop or d.card != e.card or not d.read_at or not e.read_at:
                    continue
                width = max(math.dist(d.corners[0], d.corners[1]), math.dist(e.corners[0], e.corners[1]))
                apart = math.dist(d.center, e.center)
                facing = d.read_at[0][2] * e.read_at[0][2] + d.read_at[0][3] * e.read_at[0][3]
                if not reach * width <= apart <= SAME_CARD_BETWEEN * width or facing > PAIR_OPPOSITE:
                    continue
                keep, other = (a, b) if d.confidence >= e.confidence else (b, a)
                k, o = dets[keep], dets[other]
                dx, dy = (o.center[0] - k.center[0]) / 2, (o.center[1] - k.center[1]) / 2
                dets[keep] = dataclasses.replace(k, corners=tuple((px + dx, py + dy) for px, py in k.corners),
                                                 indices_read=k.indices_read + o.indices_read,
                                                 read_at=k.read_at + o.read_at)
                drop.add(other)
    out = [d for i, d in enumerate(dets) if i not in drop]
    return _read_elsewhere(out, threshold) if SAME_CARD_ELSEWHERE else out


def _read_elsewhere(dets: Sequence[Detection], threshold: float) -> list[Detection]:
    """``dets`` with each card read sure at one index corner made unreadable where the same card is
    read sure at two index corners along the diagonal of another place (:func:`implied_cards`):
    :data:`SAME_CARD_ELSEWHERE`.

    >>> from controller.cards import Card
    >>> q = ((0.0, 0.0), (63.0, 0.0), (63.0, 88.0), (0.0, 88.0))
    >>> both = Detection(Card.parse("5d"), 0.9999, q, 2, read_at=((0.0, 0.0, 1.0, 0.0), (63.0, 88.0, -1.0, 0.0)))
    >>> far = tuple((x + 200.0, y) for x, y in q)
    >>> one = Detection(Card.parse("5d"), 0.97, far, 1, read_at=((200.0, 0.0, 1.0, 0.0),))
    >>> [(str(d.card), str(d.refused)) for d in _read_elsewhere([both, one], 0.96)]
    [('5d', 'None'), ('None', '5d')]
    >>> one_more = dataclasses.replace(both, indices_read=1, read_at=both.read_at[:1])  # one corner each
    >>> [str(d.card) for d in _read_elsewhere([one_more, one], 0.96)]
    ['5d', '5d']
    """
    both = {d.card for d in dets if d.card is not None and d.confidence >= threshold and d.indices_read >= 2
            and implied_cards([d], threshold)}
    if not both:
        return list(dets)
    return [_unread(d) if d.card in both and d.confidence >= threshold and d.indices_read == 1 else d for d in dets]


SHRINK_BELOW: float | None = 0.5
"""A card the width search read sure at one index corner whose place lies less than this much on card
stock (:func:`stock_fit`) is placed at a smaller width where the stock shows the card's edges
(:func:`fit_to_stock`); ``None``: never (thirty-third session)."""
SHRINK_SCALES = (0.9, 0.8, 0.7, 0.6, 0.5)
"""The widths tried for such a card, as shares of the width it was read at, largest first."""


def fit_to_stock(d: Detection, stock: np.ndarray) -> Detection:
    """``d`` placed where the card stock says, when it was read at a width far larger than the card.

    The width search reads a frame at the width whose crops read best; a deck that prints a much
    larger index than the training decks (KDE's Nicu decks: about 1.7 times) reads best at that
    multiple of its width, and the card it implies then lies mostly off the card. When ``d`` was read
    at one index corner and its place is less than :data:`SHRINK_BELOW` on stock, the widths of
    :data:`SHRINK_SCALES` are tried from that corner: the first whose card lies on stock (0.9) and
    ends where the stock ends (beyond its two far edges at most a third is stock: a card fanned under
    others, or covered, is not cut down to the part in view) places it. The read itself is unchanged.

    >>> from controller.cards import Card
    >>> stock = np.zeros((300, 300), np.uint8); stock[20:108, 20:83] = 255  # a card 63 x 88
    >>> quad = detect.Corner((20.0, 20.0), (1.0, 0.0), (0.0, 1.0), 110.0).card_quad()
    >>> big = Detection(Card.parse("6c"), 0.99, tuple(map(tuple, quad.tolist())), 1,
    ...                 read_at=((20.0, 20.0, 1.0, 0.0),))
    >>> [tuple(round(v) for v in p) for p in fit_to_stock(big, stock).corners]
    [(20, 20), (86, 20), (86, 112), (20, 112)]
    >>> stock[20:108, 83:200] = 255  # a card beside it: where the card ends is not known
    >>> fit_to_stock(big, stock) is big
    True
    """
    if SHRINK_BELOW is None or d.indices_read != 1 or len(d.read_at) != 1 or d.card is None:
        return d
    if stock_fit(d.corners, stock) >= SHRINK_BELOW:
        return d
    x, y, ux, uy = d.read_at[0]
    o, u, v = np.array([x, y]), np.array([ux, uy]), np.array([-uy, ux])  # v: u turned as Corner's is
    width = math.dist(d.corners[0], d.corners[1])
    along = np.linspace(0.1, 0.9, 9)[:, None]
    for s in SHRINK_SCALES:
        w = s * width
        h = w * detect.ASPECT
        quad = detect.Corner((x, y), (ux, uy), (-uy, ux), w).card_quad()
        if stock_fit(quad, stock) < 0.9:
            continue
        past_u = o + 1.08 * w * u + along * h * v
        past_v = o + 1.06 * h * v + along * w * u
        if _on_stock(past_u, stock, 0.0) <= 1 / 3 and _on_stock(past_v, stock, 0.0) <= 1 / 3:
            return dataclasses.replace(d, corners=tuple((float(a), float(b)) for a, b in quad.tolist()))
    return d


EDGE_FIT_BELOW: float | None = 0.8
"""A card read sure at one index corner whose left edge (from that corner along the card's long side)
ends at felt short of this share of the height it was placed at, measured alike along three lines
(:data:`EDGE_FIT_INSETS`), is placed at the width that edge measures (:func:`fit_to_edge`); ``None``:
never (fifty-sixth session). Real designs printing a large index (GNOME's Tango, KDE's Nicu) read best
at 1.5 to 1.7 times their width, and their cards were placed that much too large, half a card width
off, where a neighbour's stock kept the place from looking off the card (:func:`fit_to_stock`)."""
EDGE_FIT_INSETS = (0.06, 0.2, 0.35)
"""Where the three lines run, inside the card from its left edge: the first at this share of the width
read, the others of the width the first measures."""
EDGE_FIT_AGREE = 0.06
"""The three edge lengths must agree within this share of the first: the straight bottom edge of a
card, not a chip's round one."""
EDGE_FIT_LEAST = 0.45
"""A width under this share of the width read is not taken (an edge cut short by something else)."""
EDGE_FIT_GAP = 0.08
"""Past the end of the stock, felt must begin within this share of a card width (a card's shadow, not
a chip or a back lying against it) and stay felt, with no stock, for :data:`EDGE_FIT_CLEAR`."""
EDGE_FIT_CLEAR = 0.3
"""How far past the stock's end (a share of a card width) the felt must run with no stock: a short
stretch taken for felt inside a card (a back on a cloth of its colour, a gap in the stock under a
chip) has stock again beyond it."""
EDGE_FIT_START = 3
"""Pixels from the corner at which the edge lines start (the corner itself may lie on the felt)."""


def edge_run(stock: np.ndarray, ground: np.ndarray, origin: np.ndarray, along: np.ndarray,
             side: np.ndarray, inset: float, most: float, gap: float, clear: float) -> float | None:
    """How far card stock runs from ``origin + inset * side`` along ``along`` (unit vectors, frame
    pixels) where it ends at felt: the distance to the boundary between its last stock pixel and the
    first off it, when the stock ends within ``most``, felt (neither ``stock`` nor ``ground``,
    :func:`vision.detect.stock_frame`) begins within ``gap`` after it (what lies between must not be
    stock) and stays felt for ``clear`` more pixels. ``None`` otherwise, or where the line leaves
    the frame first.

    >>> stock = np.zeros((100, 100), np.uint8); stock[10:50, 10:40] = 255
    >>> ground = stock.copy()
    >>> o, down, right = np.array([10.0, 10.0]), np.array([0.0, 1.0]), np.array([1.0, 0.0])
    >>> edge_run(stock, ground, o, down, right, 5, 60, 4, 10)
    39.5
    >>> ground[50:60, 10:40] = 255  # a chip against the bottom edge
    >>> edge_run(stock, ground, o, down, right, 5, 60, 4, 10) is None
    True
    """
    h, w = stock.shape[:2]
    t = np.arange(EDGE_FIT_START, math.ceil(most + gap + clear) + 4, dtype=np.float64)
    pts = np.rint(origin + t[:, None] * along + inset * side).astype(np.int64)
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    seen = len(t) if inside.all() else int(np.argmin(inside))
    on = stock[pts[:seen, 1], pts[:seen, 0]] > 0
    felt = ~on & (ground[pts[:seen, 1], pts[:seen, 0]] == 0)
    if on.all() or not on[0]:
        return None
    stop = int(np.argmin(on))  # first pixel off the stock
    if t[stop] - 0.5 > most:
        return None
    run = felt[stop:]
    starts = np.flatnonzero(run[:-2] & run[1:-1] & run[2:]) if len(run) >= 3 else np.array([], np.int64)
    if not len(starts) or starts[0] > gap or on[stop : stop + starts[0]].any():
        return None
    begin = stop + int(starts[0])
    end = begin + int(math.ceil(clear))
    if end > seen or not felt[begin:end].all():
        return None
    return float(t[stop] - 0.5)


def fit_to_edge(d: Detection, stock: np.ndarray, ground: np.ndarray, implied: float | None = None) -> Detection:
    """``d`` placed at the width its left edge measures, when it was read at one index corner (by one
    proposal, or by several within a quarter of its width: the first is taken) at a width far
    larger than the card (:data:`EDGE_FIT_BELOW`): the stock from that corner along the
    card's long side ends at felt (:func:`edge_run`) at the same length on three lines
    (:data:`EDGE_FIT_INSETS`, :data:`EDGE_FIT_AGREE`), the card's bottom edge, and the card is
    placed from its corner at that length over :data:`vision.detect.ASPECT`. The read is unchanged.
    ``implied``: the width the region's cards read at both index corners measure
    (:func:`implied_card_width`), which a width the edge measures must agree with
    (:data:`FIT_IMPLIED_AGREE`).

    >>> from controller.cards import Card
    >>> stock = np.zeros((300, 300), np.uint8); stock[20:108, 20:83] = 255  # a card 63 x 88
    >>> stock[20:100, 83:200] = 255  # a neighbour beside it keeps the large place on stock
    >>> ground = stock.copy()
    >>> quad = detect.Corner((20.0, 20.0), (1.0, 0.0), (0.0, 1.0), 100.0).card_quad()
    >>> big = Detection(Card.parse("7c"), 0.99, tuple(map(tuple, quad.tolist())), 1,
    ...                 read_at=((20.0, 20.0, 1.0, 0.0),))
    >>> [tuple(round(v) for v in p) for p in fit_to_edge(big, stock, ground).corners]
    [(20, 20), (83, 20), (83, 108), (20, 108)]
    >>> fit_to_edge(big, stock, ground, implied=100.0) is big  # two read corners measured 100 px
    True
    >>> ground[108:118, 20:83] = 255  # a chip against its bottom edge: the edge is not the card's
    >>> fit_to_edge(big, stock, ground) is big
    True
    """
    if EDGE_FIT_BELOW is None or d.card is None or d.indices_read != 1 or not d.read_at:
        return d
    if any(math.dist(d.read_at[0][:2], r[:2]) > 0.25 * math.dist(d.corners[0], d.corners[1]) for r in d.read_at[1:]):
        return d
    x, y, ux, uy = d.read_at[0]
    o, u, v = np.array([x, y]), np.array([ux, uy]), np.array([-uy, ux])  # v: u turned as Corner's is
    read = math.dist(d.corners[0], d.corners[1])
    most = EDGE_FIT_BELOW * read * detect.ASPECT
    first = edge_run(stock, ground, o, v, u, EDGE_FIT_INSETS[0] * read, most,
                     max(4.0, EDGE_FIT_GAP * read), EDGE_FIT_CLEAR * read)
    if first is None:
        return d
    width = first / detect.ASPECT
    runs = [first]
    for k in EDGE_FIT_INSETS[1:]:
        run = edge_run(stock, ground, o, v, u, k * width, most, max(4.0, EDGE_FIT_GAP * width), EDGE_FIT_CLEAR * width)
        if run is None:
            return d
        runs.append(run)
    if max(runs) - min(runs) > EDGE_FIT_AGREE * first:
        return d
    width = float(np.mean(runs)) / detect.ASPECT
    if not EDGE_FIT_LEAST * read <= width < EDGE_FIT_BELOW * read or not _agrees_with_implied(width, implied):
        return d
    quad = detect.Corner((x, y), (ux, uy), (-uy, ux), width).card_quad()
    return dataclasses.replace(d, corners=tuple((float(a), float(b)) for a, b in quad.tolist()))


OPENED_WIDTH = True
"""Where no card lies whole in the card stock of a region the width search reads, and none of its cards
is read at both index corners, a whole card an opening parts from stock touching it
(:func:`vision.detect.opened_cards`: a back's white border, a card lying against it) places the cards
as the whole cards in view would (:data:`IMPLIED_WIDTH_OFF`), where a card is read sure at one of its
corners (:func:`read_whole_width`); a frame read halved takes the whole cards found at the frame's own
size so too (``known``, :meth:`OnnxRecognizer._search_width`). Only to place cards: as one of the widths searched
too, it read 2 seen and 6 unseen cards fewer in close photographs; unconfirmed by a read, a part of a
900 px card an opening left in a card's shape placed four cards of a 12-megapixel photograph at 407 px.
``False``: no opening; the larger frame's whole cards still go with it into its halved reads (sixtieth
session)."""
OPENED_AT = 0.2
"""How near one of a whole card's corners (a share of its width) an index corner read sure must lie for
that card to measure the width (:func:`read_whole_width`)."""


def read_whole_width(cards: Sequence[tuple[np.ndarray, float]], dets: Sequence[Detection],
                     threshold: float) -> float | None:
    """The median width of the whole cards of ``cards`` (each its four corners and width) at one of
    whose corners an index corner of a card of ``dets`` read sure lies (:data:`OPENED_AT`); ``None``
    with none. A region in a card's shape is taken for a card where one is read there.

    >>> from controller.cards import Card
    >>> box = np.array([[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]])
    >>> q = ((2.0, 3.0), (109.0, 3.0), (109.0, 153.0), (2.0, 153.0))
    >>> d = Detection(Card.parse("6h"), 0.99, q, 1, read_at=((2.0, 3.0, 1.0, 0.0),))
    >>> read_whole_width([(box, 63.0)], [d], 0.96), read_whole_width([(box + 40, 63.0)], [d], 0.96)
    (63.0, None)
    """
    widths = [w for box, w in cards
              if any(d.card is not None and d.confidence >= threshold
                     and any(min(math.dist(r[:2], p) for p in box) < OPENED_AT * w for r in d.read_at) for d in dets)]
    return float(np.median(widths)) if widths else None


FIT_IMPLIED_AGREE: float | None = 0.15
"""Where cards of a region are read sure at both index corners, the width those measure
(:func:`implied_card_width`) outranks one card's own edge: a card is placed at the width its left edge
measures (:func:`fit_to_edge`), and the cards placed so or by their stock give their width to the rest
(:func:`place_as_fitted`), only within this share of it. ``None``: no such check. Sixty-first session:
on a tan felt a fan of 100 px cards, four read at both corners (99 px), had one card's left edge end
49 px down where the next card's shadow lay, and every other card of the fan was placed at 49 px: four
sure reads counted wrong."""


def _agrees_with_implied(width: float, implied: float | None) -> bool:
    """Whether ``width`` lies within :data:`FIT_IMPLIED_AGREE` of ``implied`` (true with no ``implied``).

    >>> _agrees_with_implied(49.0, 99.0), _agrees_with_implied(92.0, 99.0), _agrees_with_implied(49.0, None)
    (False, True, True)
    """
    return implied is None or FIT_IMPLIED_AGREE is None or abs(width / implied - 1.0) <= FIT_IMPLIED_AGREE


FITTED_PAST: float | None = 1.25
"""Where cards of one region were placed at the width their own card stock or left edge measures
(:func:`fit_to_stock`, :func:`fit_to_edge`), every other card read sure at one index corner and placed
more than this many times wider than those cards is placed at their width too
(:func:`place_as_fitted`); ``None``: never. A deck printing a large index is read at 1.5 to 1.7 times
its width, and a card whose own edges are covered stayed there."""
FITTED_AGREE = 0.15
"""The fitted cards' widths must lie within this share of their median, or none is taken."""
FITTED_LEAST = 1
"""How many fitted cards it takes."""


def place_as_fitted(dets: Sequence[Detection], fitted: Sequence[Detection], threshold: float,
                    implied: float | None = None) -> list[Detection]:
    """``dets`` with each card read sure at one index corner and placed more than :data:`FITTED_PAST`
    times wider than the cards of ``fitted`` (those :func:`fit_to_stock` or :func:`fit_to_edge` placed,
    agreeing within :data:`FITTED_AGREE`, and with ``implied`` where the region's cards read at both
    index corners measure it: :data:`FIT_IMPLIED_AGREE`) placed from that corner at their median width.
    The reads are unchanged.

    >>> from controller.cards import Card
    >>> def det(card, x, w):
    ...     quad = detect.Corner((x, 0.0), (1.0, 0.0), (0.0, 1.0), w).card_quad()
    ...     return Detection(Card.parse(card), 0.99, tuple(map(tuple, quad.tolist())), 1, read_at=((x, 0.0, 1.0, 0.0),))
    >>> fit, big = det("7c", 0.0, 63.0), det("8d", 200.0, 107.0)
    >>> [round(math.dist(*d.corners[:2])) for d in place_as_fitted([fit, big], [fit], 0.96)]
    [63, 63]
    >>> [round(math.dist(*d.corners[:2])) for d in place_as_fitted([fit, big], [], 0.96)]
    [63, 107]
    >>> [round(math.dist(*d.corners[:2])) for d in place_as_fitted([fit, big], [fit], 0.96, implied=105.0)]
    [63, 107]
    """
    if FITTED_PAST is None or len(fitted) < FITTED_LEAST:
        return list(dets)
    widths = [math.dist(d.corners[0], d.corners[1]) for d in fitted]
    width = float(np.median(widths))
    if any(abs(w / width - 1.0) > FITTED_AGREE for w in widths) or not _agrees_with_implied(width, implied):
        return list(dets)
    out = []
    for d in dets:
        read = math.dist(d.corners[0], d.corners[1])
        if (any(d is f for f in fitted) or d.card is None or d.confidence < threshold or d.indices_read != 1
                or not d.read_at or read <= FITTED_PAST * width
                or any(math.dist(d.read_at[0][:2], r[:2]) > 0.25 * read for r in d.read_at[1:])):
            out.append(d)
            continue
        x, y, ux, uy = d.read_at[0]
        quad = detect.Corner((x, y), (ux, uy), (-uy, ux), width).card_quad()
        out.append(dataclasses.replace(d, corners=tuple((float(a), float(b)) for a, b in quad.tolist())))
    return out


def _gap(q: np.ndarray, other: np.ndarray) -> float:
    """How far apart two card quads lie: each corner of ``q`` to the nearest corner of ``other``,
    on average (pixels)."""
    return float(np.linalg.norm(q[:, None] - other[None], axis=2).min(axis=1).mean())


FANNED_APART = (0.15, 0.7)
"""How far apart (card widths) two index corners that face the same way lie when they are two cards
of a fan, each read (:func:`_fanned`)."""


def _fanned(d: Detection, e: Detection, width: float, d_at: Sequence[tuple[float, float, float, float]] | None = None,
            e_at: Sequence[tuple[float, float, float, float]] | None = None) -> bool:
    """Whether ``d`` and ``e``, two different cards whose outlines lie nearly on each other, are two
    cards of a tight fan rather than one card read two ways: an index corner read as one and an
    index corner read as the other face the same way (``u`` within about 25 degrees) and lie
    :data:`FANNED_APART` apart, as the top-left indices of two cards a fifth of a width along do.
    One card read two ways is read at one index corner, or at its two diagonal corners, which face
    opposite ways. ``d_at``, ``e_at``: the corners to weigh in place of each one's own
    :attr:`Detection.read_at` (:func:`_read_nearby`).

    >>> from controller.cards import Card
    >>> q = ((0.0, 0.0), (63.0, 0.0), (63.0, 88.0), (0.0, 88.0))
    >>> a = Detection(Card.parse("9c"), 0.999, q, 1, read_at=((0.0, 0.0, 1.0, 0.0),))
    >>> b = Detection(Card.parse("8d"), 0.999, q, 1, read_at=((15.0, 0.0, 1.0, 0.0),))
    >>> _fanned(a, b, 63.0)
    True
    >>> diagonal = Detection(Card.parse("8d"), 0.999, q, 1, read_at=((63.0, 88.0, -1.0, 0.0),))
    >>> _fanned(a, diagonal, 63.0)
    False
    """
    if d.card is None or e.card is None or d.card == e.card:
        return False
    lo, hi = FANNED_APART[0] * width, FANNED_APART[1] * width
    for x, y, ux, uy in d.read_at if d_at is None else d_at:
        for x2, y2, ux2, uy2 in e.read_at if e_at is None else e_at:
            if ux * ux2 + uy * uy2 >= -PAIR_OPPOSITE and lo <= math.hypot(x - x2, y - y2) <= hi:
                return True
    return False
