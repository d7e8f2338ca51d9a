"""Deck registry and card positions."""

from __future__ import annotations

import pathlib

import pytest

from controller.cards import Card
from firmware_bridge.deck import DeckError, DeckRegistry, format_deck, load_deck, make_deck, parse_deck
from firmware_bridge.positions import PositionTracker
from firmware_bridge.records import AlertKind, CardSighting

CONFIG = pathlib.Path(__file__).resolve().parents[1] / "config"
A = make_deck("A")
B = make_deck("B")


def _lines(deck=A) -> list[str]:
    return format_deck(deck).splitlines()


def test_example_decks_are_the_generated_ones() -> None:
    assert load_deck(CONFIG / "deck-A.csv") == A
    assert load_deck(CONFIG / "deck-B.csv") == B


@pytest.mark.parametrize(
    "edit, line, words",
    [
        (lambda ls: ls[:10] + ls[11:], 53, "missing card(s) 4d"),
        (lambda ls: ls[:5] + [ls[5].split(",")[0] + ",Zz"] + ls[6:], 6, "malformed card"),
        (lambda ls: ls[:5] + [ls[5].lower()] + ls[6:], 6, "malformed uid"),
        (lambda ls: ls[:5] + [ls[5] + ",x"] + ls[6:], 6, "malformed line"),
        (lambda ls: ls[:5] + [ls[2].split(",")[0] + "," + ls[5].split(",")[1]] + ls[6:], 6, "duplicate uid"),
        (lambda ls: ls[:5] + [ls[5].split(",")[0] + "," + ls[2].split(",")[1]] + ls[6:], 6, "duplicate card"),
        (lambda ls: ["card,uid"] + ls[1:], 1, "header"),
        (lambda ls: ls[:5] + [""] + ls[5:], 6, "malformed line"),
    ],
)
def test_bad_deck_is_refused_with_line_number(edit, line: int, words: str) -> None:
    with pytest.raises(DeckError) as info:
        parse_deck("\n".join(edit(_lines())) + "\n", "t")
    assert info.value.line == line and words in str(info.value)


def test_registry_refuses_shared_uid() -> None:
    with pytest.raises(DeckError):
        DeckRegistry([A, A])


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _uid(card: str, deck=A) -> bytes:
    return deck.uid_of(Card.parse(card))


def _view(records) -> list[str]:
    return [f"{r.event} {r.card} {r.place}" if isinstance(r, CardSighting) else f"alert {r.kind}" for r in records]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tracker(clock: Clock) -> PositionTracker:
    return PositionTracker(DeckRegistry([A]), leave_after=0.5, clock=clock)


def test_repeat_reads_and_dropped_reads_are_not_new_cards(tracker: PositionTracker, clock: Clock) -> None:
    u = _uid("As")
    assert _view(tracker.enter(3, u, 1)) == ["enter As seat3"]
    assert tracker.enter(3, u, 2) == []
    assert tracker.leave(3, u, 3) == []
    clock.t += 0.3
    assert tracker.tick() == []
    assert tracker.enter(3, u, 4) == []  # back within leave_after: the read just dropped
    clock.t += 1
    assert tracker.tick() == []
    assert tracker.leave(3, u, 5) == []
    clock.t += 0.5
    assert _view(tracker.tick()) == ["leave As seat3"]
    assert tracker.repeat_reads == 2


def test_two_antennas_stay_ambiguous_until_one_leaves(tracker: PositionTracker, clock: Clock) -> None:
    u = _uid("Kd")
    tracker.enter(2, u, 1)
    assert tracker.enter(3, u, 2) == []
    assert tracker.where(u) == "seat2" and tracker.ambiguous() == {u: ("seat2", "seat3")}
    clock.t += 0.6
    assert _view(tracker.tick()) == ["alert ambiguous"]
    assert _view(tracker.leave(2, u, 3)) == ["leave Kd seat2", "enter Kd seat3"]
    assert tracker.ambiguous() == {}


def test_card_moves_at_once_when_read_elsewhere_while_leaving(tracker: PositionTracker) -> None:
    u = _uid("2c")
    tracker.enter(4, u, 1)
    assert tracker.leave(4, u, 2) == []
    assert _view(tracker.enter(5, u, 3)) == ["leave 2c seat4", "enter 2c seat5"]
    assert tracker.where(u) == "seat5"


def test_first_read_on_two_antennas_waits_for_resolution(tracker: PositionTracker) -> None:
    u = _uid("3h")
    tracker.enter(6, u, 1)
    tracker.leave(6, u, 2)
    tracker.enter(7, u, 3)
    assert tracker.enter(8, u, 4) == []  # seat7 and seat8: ambiguous, stays at seat7
    assert tracker.where(u) == "seat7"


def test_foreign_tag_is_an_alert_never_a_card(tracker: PositionTracker) -> None:
    out = tracker.enter(11, _uid("As", B), 7)
    assert len(out) == 1 and out[0].kind == AlertKind.FOREIGN_TAG
    assert out[0].to_json() == {"alert": "foreign_tag", "seq": 7, "uid": _uid("As", B).hex().upper(), "place": "board", "antenna": 11}
    assert tracker.enter(11, _uid("As", B), 8) == []


def test_same_card_twice_on_the_table(clock: Clock) -> None:
    t = PositionTracker(DeckRegistry([A, B]), leave_after=0.5, clock=clock)
    assert _view(t.enter(1, _uid("As", A), 1)) == ["enter As seat1"]
    assert _view(t.enter(2, _uid("As", B), 2)) == ["enter As seat2", "alert duplicate_card"]


def test_inventory_reconciles_tags_that_left_while_away(tracker: PositionTracker, clock: Clock) -> None:
    tracker.seed({_uid("As"): 1, _uid("Kd"): 2})
    clock.t += 1
    sent = clock.t
    assert tracker.enter(1, _uid("As"), 10) == []  # re-read by the inventory: a repeat
    tracker.inventory_done(sent)
    clock.t += 0.6
    assert _view(tracker.tick()) == ["leave Kd seat2"]
