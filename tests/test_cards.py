import pytest
from hypothesis import given, strategies as st

from controller.cards import FULL_DECK, Card, CardError, Rank, Suit, check_distinct, parse_cards


def test_parse_and_str_round_trip():
    for card in FULL_DECK:
        assert Card.parse(str(card)) == card
        assert eval(repr(card)) == card
        assert Card.from_index(card.index) == card


def test_equality_hash_and_text_are_those_of_rank_and_suit():
    """Card reads its equality, hash and text from tables by index: they must be what the
    dataclass would give (over rank and suit), for the table's cards and for new ones alike."""
    for card in FULL_DECK:
        twin = Card(card.rank, card.suit)  # a separate object
        assert twin is not card and twin == card and not twin != card
        assert hash(twin) == hash(card) == hash((card.rank, card.suit))
        assert str(twin) == str(card) == card.rank.char + card.suit.value
        for other in FULL_DECK:
            assert (card == other) == ((card.rank, card.suit) == (other.rank, other.suit))
        assert card != (card.rank, card.suit) and card != str(card) and card != card.index
    assert len({Card(c.rank, c.suit) for c in FULL_DECK} | set(FULL_DECK)) == 52


def test_index_orders_rank_then_suit_for_odd_chips():
    assert Card.parse("As").index == 51
    assert Card.parse("2c").index == 0
    assert Card.parse("Ah").index < Card.parse("As").index
    assert Suit.SPADES.order > Suit.HEARTS.order > Suit.DIAMONDS.order > Suit.CLUBS.order


@pytest.mark.parametrize("text", ["AsKd", "As Kd", "As,Kd", " As  Kd "])
def test_parse_runs(text):
    assert parse_cards(text) == (Card.parse("As"), Card.parse("Kd"))


@pytest.mark.parametrize(
    "text, fragment",
    [("1s", "bad rank '1'"), ("Ax", "bad suit 'x'"), ("10s", "bad card"), ("A", "bad card")],
)
def test_bad_card_names_token(text, fragment):
    with pytest.raises(CardError, match=fragment):
        Card.parse(text)


def test_bad_run_names_token_and_position():
    with pytest.raises(CardError, match=r"'Kx' at position 2"):
        parse_cards("AsKx7c")
    with pytest.raises(CardError, match="odd number"):
        parse_cards("AsK")


def test_duplicate_named():
    with pytest.raises(CardError, match="duplicate card As in board"):
        check_distinct(parse_cards("As Kd As"), "board")


def test_rank_words():
    assert Rank.SIX.plural == "sixes" and Rank.KING.singular == "king"


@given(st.lists(st.sampled_from(FULL_DECK), max_size=10))
def test_run_round_trip(cards):
    assert parse_cards("".join(map(str, cards))) == tuple(cards)
