"""The redaction functions on fixed snapshots (no server)."""

from __future__ import annotations

from controller.server.views import (WITHHELD, broadcast_view, card_locations, dealer_view,
                                     equities_for, redact_event_for_dealer, strength_for)


def snap(**seats):  # type: ignore[no-untyped-def]
    return {"table_id": "t", "variant": "NT", "last_seq": 40, "players": {}, "hand": {
        "hand_no": 4, "street": "river", "pot": 300, "board": ["Qs", "9h", "4c", "Jd", "2s"],
        "warnings": [], "seats": seats,
        "showdown": {"uncontested": False, "all_in": False, "order": [], "refunds": {},
                     "readings": [{"seat": 1, "high": {"text": "Pair of aces", "best_five": ["As", "Ah", "Qs", "Jd", "9h"]},
                                   "low": None, "can_win": True, "why_not": ""},
                                  {"seat": 2, "high": {"text": "Pair of kings", "best_five": ["Kd", "Kc", "Qs", "Jd", "9h"]},
                                   "low": None, "can_win": True, "why_not": ""}],
                     "pots": [{"name": "Main pot", "amount": 200, "eligible": [1, 2],
                               "awards": [{"seat": 1, "amount": 200, "half": "whole", "odd_chips": 0}], "notes": []},
                              {"name": "Side pot 1", "amount": 100, "eligible": [2, 3],
                               "awards": [{"seat": 2, "amount": 100, "half": "whole", "odd_chips": 0}], "notes": []}],
                     "push": ["Main pot: 200 to seat 1", "Side pot 1: 100 to seat 2"]}}}


def seat(cards, status, up=None):  # type: ignore[no-untyped-def]
    return {"name": "x", "cards": cards, "up": up or [False] * len(cards), "status": status, "stack": 0}


def test_dealer_sees_tabled_cards_and_their_pots_only() -> None:
    v = dealer_view(snap(**{"1": seat(["As", "Ah"], "tabled"), "2": seat(["Kd", "Kc"], "waiting"),
                            "3": seat(["7c", "2d"], "folded")}))
    h = v["hand"]
    assert h["seats"]["1"]["cards"] == ["As", "Ah"]
    assert h["seats"]["2"]["cards"] == [None, None] and h["seats"]["3"]["cards"] == [None, None]
    assert h["showdown"]["readings"][1] == {"seat": 2, "high": None, "low": None, "hidden": True,
                                            "can_win": True, "why_not": ""}
    assert h["showdown"]["push"] == ["Main pot: 200 to seat 1"]
    assert [p["decided"] for p in h["showdown"]["pots"]] == [True, False]
    assert h["showdown"]["pots"][1]["awards"] is None and h["showdown"]["push_ready"] is False
    assert h["board"] == ["Qs", "9h", "4c", "Jd", "2s"]


def test_tabled_then_mucked_stays_visible_only_when_told() -> None:
    s = snap(**{"1": seat(["As", "Ah"], "tabled"), "2": seat(["Kd", "Kc"], "mucked")})
    assert dealer_view(s)["hand"]["seats"]["2"]["cards"] == [None, None]
    assert dealer_view(s, tabled={2})["hand"]["seats"]["2"]["cards"] == ["Kd", "Kc"]


def test_stud_up_cards_are_public() -> None:
    s = snap(**{"1": seat(["As", "Ah", "Kd"], "waiting", up=[False, False, True])})
    assert dealer_view(s)["hand"]["seats"]["1"]["cards"] == [None, None, "Kd"]


def test_uncontested_winner_stays_hidden() -> None:
    s = snap(**{"1": seat(["As", "Ah"], "waiting"), "2": seat(["Kd", "Kc"], "folded")})
    s["hand"]["showdown"].update(uncontested=True, readings=[], pots=[{"name": "Main pot", "amount": 3,
                                 "eligible": [1], "awards": [{"seat": 1, "amount": 3}], "notes": []}],
                                 push=["Main pot: 3 to seat 1"])
    h = dealer_view(s)["hand"]
    assert h["seats"]["1"]["cards"] == [None, None]
    assert h["showdown"]["push"] == ["Main pot: 3 to seat 1"]


def test_warnings_naming_hidden_cards_are_withheld() -> None:
    s = snap(**{"1": seat(["As", "Ah"], "tabled"), "2": seat(["Kd", "Kc"], "waiting")})
    s["hand"]["warnings"] = ["seat 2 holds Kd", "seat 1 holds As", "seat 2 declared 'flush' but the cards read pair",
                             "seat 1 declared 'flush' but the cards read pair of aces"]
    assert dealer_view(s)["hand"]["warnings"] == [WITHHELD, "seat 1 holds As", WITHHELD, s["hand"]["warnings"][3]]


def test_event_redaction() -> None:
    for kind, key in (("cards_dealt", "cards"), ("card_burned", "card"), ("cards_shown", "cards"),
                      ("cards_corrected", "cards")):
        e = redact_event_for_dealer({"seq": 1, "kind": kind, "payload": {key: ["As"], "seat": 1}})
        assert key not in e["payload"]
    assert redact_event_for_dealer({"seq": 1, "kind": "board_dealt", "payload": {"cards": ["Qs"]}})["payload"] == {"cards": ["Qs"]}


def test_surveillance_card_locations() -> None:
    locs = card_locations(snap(**{"1": seat(["As", "Ah"], "tabled"), "2": seat(["Kd", None], "killed")}))
    assert {"card": "As", "place": "seat 1", "seat": 1, "face": "up"} in locs
    assert {"card": "Kd", "place": "muck (killed)", "seat": 2, "face": "down"} in locs
    assert len(locs) == 8


def test_broadcast_view_and_equities() -> None:
    s = snap(**{"1": seat(["As", "Ah"], "waiting"), "2": seat(["Kd", "Kc"], "waiting"), "3": seat(["7c", "2d"], "folded")})
    s["hand"]["board"] = ["Qs", "9h", "4c"]
    b = broadcast_view(s)
    assert b["hand"]["seats"]["3"]["cards"] == [] and b["hand"]["seats"]["1"]["cards"] == ["As", "Ah"]
    assert b["hand"]["equity"]["method"] == "exact"
    eq = b["hand"]["equity"]["seats"]
    assert abs(eq["1"]["equity"] + eq["2"]["equity"] - 1) < 1e-9
    assert "last_seq" not in b
    pre = equities_for("NT", {1: ["As", "Ah"], 2: ["Kd", "Kc"], 3: ["7c", "2d"]}, [])
    assert pre is not None and pre["method"].startswith("monte carlo")
    assert pre == equities_for("NT", {1: ["As", "Ah"], 2: ["Kd", "Kc"], 3: ["7c", "2d"]}, [])  # seeded
    stud = equities_for("F7S", {1: ["As", "Ah", "2c"], 2: ["Kd", "Kc", "3c"]}, [])
    assert stud["method"].startswith("monte carlo") and stud["seats"]["1"]["equity"] > 0.6
    hilo = equities_for("FO/8", {1: ["As", "2s", "Kd", "Kc"], 2: ["Qh", "Qd", "Jh", "Jd"]},
                        ["3c", "4h", "8d", "Qs", "Tc"])
    assert hilo["method"] == "exact"  # nothing left to deal: one runout
    assert hilo["seats"]["1"]["equity"] == 0.5 and hilo["seats"]["2"]["equity"] == 0.5
    assert equities_for("NT", {1: ["As", None], 2: ["Kd", "Kc"]}, []) is None
    omaha = equities_for("PO", {1: ["As", "Ah", "2c", "3c"], 2: ["Kd", "Kc", "Qd", "Jd"]}, ["Qs", "9h", "4c"])
    assert omaha is not None and omaha["method"] == "exact"
    assert strength_for("PO", ["Ah", "Kh", "7d", "2s"], ["Qh", "Jh", "9h", "4h", "3c"]) == "Flush, ace high"
