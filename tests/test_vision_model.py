"""The shipped ONNX model, run by onnxruntime on small seeded rendered scenes, and the CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib

import numpy as np
import pytest

from controller.cards import Card

REPO = pathlib.Path(__file__).resolve().parents[1]
MODEL = REPO / "models" / "card_index.onnx"
SEEN_FLOOR = 0.85
UNSEEN_FLOOR = 0.65
BIG_CARD_SCENES = (0, 1, 2)
BIG_CARD_FLOOR = 10  # sure reads in BIG_CARD_SCENES (14; none before the smaller frames were read)
FACE_DOWN_FLOOR = 7  # seats of 12 with a back found face down (7; 9 at the twenty-eighth session's
# start, 8 with its other changes and the stock bound at 200: the lower bound on bright felts takes one
# back's light pattern on a bright blue felt for card stock, and that seat is "covered", still not
# identifiable; 2 before backs in hands were looked for)


@pytest.fixture(scope="module")
def recognizer():
    import cv2

    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    return OnnxRecognizer(MODEL, threads=1)


def test_model_file_is_small_and_self_describing(recognizer):
    assert MODEL.stat().st_size < 10_000_000
    assert recognizer.input_hw == (48, 28)
    assert 0.5 < recognizer.threshold <= 1.0
    out = recognizer.session.get_outputs()[0]
    assert out.shape[1] == 53


def test_reads_rendered_cards_without_wrong_reads(recognizer):
    from vision import render

    readable = right = wrong = 0
    for i in range(4):
        rng = np.random.default_rng([2024, i])
        scene = render.render_scene(rng, render.TRAIN_DECKS, width=640, height=480, hard=False,
                                    card_width=90, p_face_down=0.0)
        dets = [d for d in recognizer.recognize(scene.image)
                if d.card is not None and d.confidence >= recognizer.threshold]
        for d in dets:
            near = min(scene.cards, key=lambda t: np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]))
            wrong += near.card != str(d.card)
        for t in scene.cards:
            if t.readable:
                readable += 1
                right += any(str(d.card) == t.card for d in dets)
    assert readable > 10
    assert wrong == 0  # precision first: nothing read above the threshold is wrong
    assert right >= 0.5 * readable


def _sample_reads(recognizer, decks, seed: int, n: int) -> tuple[int, int, int]:
    """(readable, right, wrong) over ``n`` seeded hard scenes: fanned hands, chips, fingers, glare."""
    from vision import render

    readable = right = wrong = 0
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        scene = render.render_scene(rng, decks, width=800, height=600)
        dets = [d for d in recognizer.recognize(scene.image)
                if d.card is not None and d.confidence >= recognizer.threshold]
        hit = set()
        for d in dets:  # right when one of the cards lying there (cards may be stacked) is it
            near = sorted(scene.cards, key=lambda t: np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]))
            ok = [t for t in near[:3] if t.card == str(d.card) and t.face_up
                  and np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]) < 0.45 * scene.card_width]
            if ok:
                hit.add(ok[0].card)
            else:
                wrong += 1
        for t in scene.cards:
            if t.readable:
                readable += 1
                right += t.card in hit
    return readable, right, wrong


def test_recall_floor_on_seeded_scenes(recognizer):
    """Recall, not only precision: most readable cards in a seeded sample are read right, with the
    card width estimated (as ``vision read`` does) on seen decks and on decks never trained on.
    Floors sit a margin under the measured figures (models/README.md) so noise does not trip them;
    they catch a corner finder or model that stops reading."""
    from vision import render

    readable, right, wrong = _sample_reads(recognizer, render.TRAIN_DECKS, 31337, 12)
    assert readable >= 40
    assert wrong == 0
    assert right / readable >= SEEN_FLOOR, (right, readable)
    readable, right, wrong = _sample_reads(recognizer, render.UNSEEN_DECKS, 31337, 8)
    assert wrong <= 1
    assert right / readable >= UNSEEN_FLOOR, (right, readable)


def test_width_search_finds_the_scale_without_a_whole_card(recognizer):
    """With no configured width and no whole card to measure (fanned hands), ``vision read``
    tries widths and keeps the one with the most sure reads: it reads about as many cards as at
    the true width (two cards fewer in a scene at most, and over the six scenes, since the true
    width is not among the widths it tries: 34 and 36 with the fifteenth session's model, 35 and 35
    with the twelfth's; its scene 1 counts 7 or 8 sure corners at every width from 58 to 72 pixels,
    and reads 5 to 8 cards at them. Over 300 benchmark scenes the search reads more than the scene's
    own width: 89.5% against 87.6% at 0.955), its width lands near the cards' (within 20%: a scene
    of three cards can read as well a rung away), and nothing it reads at the threshold is a card
    that is not on the table."""
    from vision import detect, render

    found = found_at_true = 0
    for i in (1, 4, 14, 16, 34, 37):  # bench scenes where no region is a whole card (33: one, since tinted stock)
        rng = np.random.default_rng([424242, i])
        scene = render.render_scene(rng, render.TRAIN_DECKS, width=800, height=600)
        masks = detect.card_masks(scene.image)
        assert detect.estimate_card_width(masks.white) is None
        width, dets = recognizer._search_width(scene.image, None, masks, None)
        assert 0.8 <= width / scene.card_width <= 1.2, (i, width, scene.card_width)
        sure = [d for d in dets if d.card is not None and d.confidence >= recognizer.threshold]
        at_true = recognizer.recognize_masks(scene.image, None, masks, None, scene.card_width)
        sure_at_true = sum(1 for d in at_true if d.card is not None and d.confidence >= recognizer.threshold)
        assert len(sure) >= sure_at_true - 2, (i, len(sure), sure_at_true)
        truth = {t.card for t in scene.cards if t.face_up}
        assert all(str(d.card) in truth for d in sure)
        found += len(sure)
        found_at_true += sure_at_true
    assert found >= found_at_true - 2 and found >= 30, (found, found_at_true)


def test_width_search_also_reads_the_runner_up_width(recognizer, monkeypatch):
    """With no configured width the frame is read at the width whose crops read best and at the
    best other width more than SECOND_WIDTH_APART away: on three seeded bench scenes (each with a
    deck whose index reads best at another scale than the chosen width) that reads more cards sure
    than the chosen width alone, and every sure read is a card lying face up in the scene. (Scene
    48 served until the thirty-second session, whose blanked look reads an 8c there that contests
    the 5c fanned on it at either width. Over the seeded scenes 1 to 199 but every fifth, at 800 x 600,
    the runner-up now reads more cards sure in seven scenes and fewer in five, models/HISTORY.md.)
    Read with the index classifier's own probabilities (``index_power`` 1.0): softened (thirty-fourth
    session) the chosen width alone reads two more of these cards, and the runner-up adds two.
    Measured without the halved look at cards read past the ladder (fifty-eighth session), which
    also reads cards of these scenes the chosen width alone misses: the runner-up's part alone."""
    from vision import recognize, render

    monkeypatch.setattr(recognizer, "index_power", 1.0)
    monkeypatch.setattr(recognize, "LADDER_TOP_HALVES", False)

    def sure_reads(scene) -> list:
        return [d for d in recognizer.recognize(scene.image)
                if d.card is not None and d.confidence >= recognizer.threshold]

    both = alone = 0
    for i in (17, 41, 66):
        rng = np.random.default_rng([424242, i])
        scene = render.render_scene(rng, render.TRAIN_DECKS, width=800, height=600)
        truth = {t.card for t in scene.cards if t.face_up}
        with monkeypatch.context() as m:
            m.setattr(recognize, "SECOND_WIDTH_APART", float("inf"))
            alone += len(sure_reads(scene))
        reads = sure_reads(scene)
        assert all(str(d.card) in truth for d in reads), (i, reads)
        both += len(reads)
    assert both >= alone + 3, (both, alone)


def test_cards_wider_than_the_width_search_are_read_on_a_smaller_frame(recognizer):
    """A close photograph: cards about 420 pixels wide, fanned, no whole card to give the width.
    The width search reaches cards of about 150 pixels, so it reads none of them in the frame as
    it is; read again halved, then quartered, they come within reach, and what is read sure is
    right, in the frame's own pixels."""
    from vision import detect, render

    sure_total = 0
    for i in BIG_CARD_SCENES:
        scene = render.render_scene(np.random.default_rng([777000, i]), render.TRAIN_DECKS, width=1800,
                                    height=1350, card_width=420.0, p_face_down=0.0)
        masks = detect.card_masks(scene.image)
        assert detect.estimate_card_width(masks.white) is None
        _, direct = recognizer._search_width(scene.image, None, masks, None)
        assert not any(d.card is not None and d.confidence >= recognizer.threshold for d in direct)
        sure = [d for d in recognizer.recognize(scene.image)
                if d.card is not None and d.confidence >= recognizer.threshold]
        for d in sure:  # the card is there (the benchmark's rule: a card of that name within 0.45 widths)
            assert any(t.card == str(d.card) and np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1])
                       < 0.45 * 420 for t in scene.cards), (i, d)
        sure_total += len(sure)
    assert sure_total >= BIG_CARD_FLOOR, sure_total


def close_scene(width: float, i: int, decks=None, frame: tuple[int, int] = (8, 6)):  # type: ignore[no-untyped-def]
    """A close photograph of the benchmark's (``bench/vision_close.py``'s ``close_scene``): cards ``width``
    pixels wide on a frame eight card widths wide (``frame``: its width and height in card widths), of
    the seen decks unless ``decks``."""
    from vision import render

    return _bench_module("vision_close").close_scene(decks or render.TRAIN_DECKS, width, i, frame)


def right_and_wrong(recognizer, scene) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The cards of ``scene`` read sure at their place, and the sure reads that are not."""
    dets = [d for d in recognizer.recognize(scene.image) if d.card is not None and d.confidence >= recognizer.threshold]
    ok = sum(1 for d in dets if any(t.card == str(d.card) and t.face_up and math.dist(t.center, d.center)
                                    < 0.45 * scene.card_width for t in scene.cards))
    return ok, len(dets) - ok


def test_r2_cards_just_past_the_width_ladder_are_read_halved_when_the_frame_reads_only_some(recognizer, monkeypatch):
    """Cards 200 to 250 pixels wide: the width search places what it reads sure past the ladder's top
    (a card of 200 px read at 153, of 250 px at 391), and reads some of them; the others it misses
    (scene 18: 4 of 9). The frame is then read halved too (``LADDER_TOP_HALVES``), where the cards
    lie within reach, and that reading stands: it reads more, and every card the frame read sure
    again at its place. Every read is right."""
    from vision import recognize

    def right(scene) -> tuple[int, int]:
        return right_and_wrong(recognizer, scene)

    scenes = [close_scene(200, 18), close_scene(250, 10)]
    now = [right(s) for s in scenes]
    assert [w for _, w in now] == [0, 0], now
    assert [r for r, _ in now] == [sum(t.readable for t in s.cards) for s in scenes], now
    monkeypatch.setattr(recognize, "LADDER_TOP_HALVES", False)
    before = [right(s) for s in scenes]
    assert before[0][0] <= 4 and before[1][0] <= 1, before


def test_r2_cards_filling_a_photographs_middle_are_told_from_the_felt_round_them(recognizer, monkeypatch):
    """A photograph whose cards fill its middle (250 px cards on a frame four card widths by three):
    the frame's median is their stock, not the felt, and taken for the felt it left the stock no
    brighter than the felt and the felt not felt; scene 15 (green felt) read 1 of its 5 readable
    cards, scene 24 (red felt) none of 9. The felt is taken from the frame's rim where the median is
    grey and the rim mostly is not (``detect.FELT_RIM_SHARE``): every readable card is read, none
    wrong."""
    from vision import detect

    scenes = [close_scene(250, 15, frame=(4, 3)), close_scene(250, 24, frame=(4, 3))]
    readable = [sum(t.readable for t in s.cards) for s in scenes]
    now = [right_and_wrong(recognizer, s) for s in scenes]
    assert [w for _, w in now] == [0, 0], now
    assert all(r >= n for (r, _), n in zip(now, readable)), (now, readable)
    monkeypatch.setattr(detect, "FELT_RIM_SHARE", None)
    before = [right_and_wrong(recognizer, s)[0] for s in scenes]
    assert before[0] <= 1 and before[1] == 0, before


@pytest.mark.parametrize(("deck_set", "width", "scene_no", "frame", "now", "before"), [
    ("letele", 450, 5, (4, 3), 7, 2),
    ("unseen", 320, 12, (8, 6), 9, 8),
], ids=["letele-450px", "unseen-320px"])
def test_r2_a_halved_photograph_read_at_the_ladders_top_is_read_halved_again(recognizer, monkeypatch, deck_set, width,
                                                                              scene_no, frame, now, before):
    """`letele` cards 450 px wide filling a photograph (4 x 3 card widths, scene 5): halved, the search
    reads one card, at the ladder's top rung (136 px), as far as it reaches (two since a club or a spade
    the scale-tolerant model reads there stands on its index, ``TOLERANT_BLACK_BODY_BELOW``); those
    readings stood, and the rest went unread. A halved size whose sure reads lie at the top, not only past it, is read
    halved again (``HALVED_AT_TOP``): quartered, it reads eight of the photograph's cards, all
    right. An unseen deck's 320 px photograph (8 x 6, scene 12) reads one card more so."""
    from vision import recognize, render

    if deck_set == "letele" and not render.available((render.LETELE,)):
        pytest.skip("the letele design is not fetched (python -m vision.fetch_deck)")
    decks = (render.LETELE,) if deck_set == "letele" else render.UNSEEN_DECKS
    scene = close_scene(width, scene_no, decks=decks, frame=frame)
    right, wrong = right_and_wrong(recognizer, scene)
    assert wrong == 0 and right >= now, (right, wrong)
    monkeypatch.setattr(recognize, "HALVED_AT_TOP", False)
    assert right_and_wrong(recognizer, scene)[0] <= before


@pytest.mark.parametrize(("width", "scene_no", "now", "before"), [(200, 6, 5, (3, 2)), (320, 3, 5, (4, 1))],
                         ids=["200px", "320px"])
def test_r2_a_jumbo_card_whose_edges_are_covered_is_placed_as_wide_as_those_measured(recognizer, monkeypatch, width,
                                                                                      scene_no, now, before):
    """A photograph of a deck printing a jumbo index (1.8 times; 4 x 3 card widths): the search reads
    the index best at 1.5 to 1.7 times the cards' width. A card whose own stock or left edge shows where
    it ends is placed at the width that measures (``fit_to_stock``, ``fit_to_edge``); a card whose
    edges lie under others stayed at the search's width, half a card off its place, a wrong read by
    the benchmark's rule. It is now placed as wide as the cards measured (``FITTED_PAST``): every
    sure read right, none wrong (before: 3 right and 2 wrong, 3 and 2). At 320 px the sixty-second
    session's turned look (``SECOND_LOOK_TURN``) reads one card more: 4 right before, and 3 and 1 without
    ``FITTED_PAST``, where that card was placed off; without it since the sixty-fourth session's clubs and
    spades of 80 px or more read on their index (``TOLERANT_BLACK_BODY_BELOW``), 4 and 1."""
    from vision import recognize, render

    scene = close_scene(width, scene_no, decks=render.jumbo_decks(render.TRAIN_DECKS, 1.8), frame=(4, 3))
    assert right_and_wrong(recognizer, scene) == (now, 0)
    monkeypatch.setattr(recognize, "FITTED_PAST", None)
    assert right_and_wrong(recognizer, scene) == before


@pytest.mark.parametrize(("felt", "now"), [((120, 150, 170), 12), ((40, 70, 110), 10)], ids=["tan", "brown"])
def test_r2_one_cards_edge_does_not_place_a_fan_its_cards_read_at_both_corners_measured(recognizer, monkeypatch,
                                                                                        felt, now):
    """Benchmark scene 129 (seeds ``[424242, i]``, seen decks) on a tan or a brown felt
    (``bench/vision_felt.py``'s): a fan of 100 px cards, four read at both index corners, which measure
    99 px (``implied_card_width``). The 5h's left edge seemed to end at felt 49 px down, where the next
    card's shadow lies, so ``fit_to_edge`` placed it at 49 px, and ``place_as_fitted`` placed nine more
    cards of the fan at that width: four sure reads off their cards (five on the brown felt). A width one
    card's edge measures now places cards only where it agrees with the width the cards read at both
    corners measure (``FIT_IMPLIED_AGREE``): twelve right (ten), none wrong, none placed at 49 px."""
    from vision import recognize, render

    monkeypatch.setattr(render, "FELTS", [felt] * len(render.FELTS))
    scene = _bench_scene(424242, 129)
    assert right_and_wrong(recognizer, scene) == (now, 0)
    widths = [math.dist(*d.corners[:2]) for d in recognizer.recognize(scene.image)
              if d.card is not None and d.confidence >= recognizer.threshold]
    assert min(widths) > 0.8 * scene.card_width, widths  # none at 49 px (the search reads at 84 to 111)
    monkeypatch.setattr(recognize, "FIT_IMPLIED_AGREE", None)
    right, wrong = right_and_wrong(recognizer, scene)
    assert wrong >= 4, (right, wrong)


def test_r2_an_index_unsure_after_the_second_look_is_read_turned(recognizer, monkeypatch):
    """Benchmark scenes 69 and 731 (seeds ``[424242, i]``, seen decks): a 9h 101 px wide showing only its
    bottom-right index beside a finger, and a Ks 71 px wide under a 3s, each read below the threshold
    at every scale of the second look. Turned 0.15 radians (``SECOND_LOOK_TURN``), five crops a turn
    averaged, each reads its card at 0.99 or more (``TURNED_LOOK_BAR``): both read, nothing wrong. The
    table's zones get no third look (``TABLE_TURNED_LOOK``): a camera's next frame is another look."""
    from vision import recognize

    for i, card in ((69, "9h"), (731, "Ks")):
        scene = _bench_scene(424242, i)
        assert card in _sure(recognizer, scene.image), (i, card)
        assert right_and_wrong(recognizer, scene)[1] == 0
        with monkeypatch.context() as m:
            m.setattr(recognize, "SECOND_LOOK_TURN", None)
            assert card not in _sure(recognizer, scene.image), (i, card)


def test_r2_a_card_read_at_both_corners_is_not_also_read_at_one_corner_elsewhere(recognizer, monkeypatch):
    """Benchmark scene 16 (seeds ``[424242, i]``, seen decks) under a cool light (``bench/vision_light.py``'s
    ``cool``): the 5d lies whole and is read at both index corners, 0.9999; the 6d above it, its
    bottom-right index half under the next card, is read there as a 5d at 0.97 (a wrong read the cool
    light, a dim room, a bright exposure, a noisy sensor, a silver and a burgundy felt all made). A deck
    has one of each card: a card read sure at one corner where the same card is read at both corners
    of another place is unreadable (``SAME_CARD_ELSEWHERE``). The 5d and the 6d are read right, nothing
    wrong."""
    from vision import recognize

    scene = _bench_scene(424242, 16)
    scene = dataclasses.replace(scene, image=_bench_module("vision_light").CONDITIONS["cool"](scene.image))
    now = _sure(recognizer, scene.image)
    assert len(now["5d"]) == 1 and "6d" in now
    assert right_and_wrong(recognizer, scene)[1] == 0
    monkeypatch.setattr(recognize, "SAME_CARD_ELSEWHERE", False)
    # without the rule the 6d's half-covered corner may read 5d sure: 0.97 on the sixty-first session's
    # machine (an AVX-512 core), under the threshold on the sixty-fourth's (an AVX2 core, whose kernels
    # round otherwise); where it does, it is the scene's one wrong read (the rule itself: its doctest)
    extra = len(_sure(recognizer, scene.image)["5d"]) - 1
    assert extra in (0, 1) and right_and_wrong(recognizer, scene)[1] == extra


def test_r2_a_whole_card_touching_a_backs_white_border_still_measures_the_cards(recognizer, monkeypatch):
    """`kde-nicu-white` prints an index about 1.7 times a standard one; a photograph of its 250 px cards
    (4 x 3 card widths, scene 7) is read halved and quartered, at 1.45 and 1.7 times their width. Its
    6h lies whole, but a back's white border touches it, so the stock is one region and no whole card
    measured the width: three cards were placed 0.6 card widths off. An opening parts the 6h from the
    border (``detect.opened_cards``), the 6h read at its corner confirms it a card
    (``recognize.read_whole_width``), it goes with the frame into its halved reads, and every card is
    placed at its width: five right, none wrong."""
    from vision import recognize, render

    if len(render.available(render.REAL_DECKS)) < len(render.REAL_DECKS):
        pytest.skip("the Debian designs are not fetched (python -m vision.fetch_deck --debian)")
    scene = close_scene(250, 7, decks=render.available(render.REAL_DECKS), frame=(4, 3))
    assert scene.cards[0].deck == "kde-nicu-white"
    assert right_and_wrong(recognizer, scene) == (5, 0)
    monkeypatch.setattr(recognize, "OPENED_WIDTH", False)
    assert right_and_wrong(recognizer, scene) == (2, 3)


def test_r2_a_part_of_a_card_an_opening_leaves_in_a_cards_shape_does_not_measure_the_cards(recognizer, monkeypatch):
    """A phone's 12-megapixel photograph of 900 px cards (3960 x 2970): read halved, its five cards are
    read right. Opened, its stock leaves a part of a card in a card's shape, 407 px wide, at whose
    corners no card is read; taken for a whole card, it placed the five at 407 px, four of them off
    their cards. A region an opening leaves measures the cards only where a card is read at one of its
    corners (``OPENED_AT``): five right, none wrong (six since the sixty-second session's turned look,
    ``SECOND_LOOK_TURN``; eight since the sixty-fourth session's clubs and spades of 80 px or more read on
    their index, ``TOLERANT_BLACK_BODY_BELOW``)."""
    from vision import recognize, render

    scene = render.render_scene(np.random.default_rng([777003, 900, 2]), render.TRAIN_DECKS, width=3960, height=2970,
                                card_width=900.0)
    assert right_and_wrong(recognizer, scene) == (8, 0)
    # with the tolerant clubs and spades as the rule was measured (the body asked at every width): six
    # read, and a region the opening leaves, taken for a whole card, places them off (below)
    monkeypatch.setattr(recognize, "TOLERANT_BLACK_BODY_BELOW", math.inf)
    assert right_and_wrong(recognizer, scene) == (6, 0)
    monkeypatch.setattr(recognize, "OPENED_AT", 10.0)  # any region in a card's shape
    assert right_and_wrong(recognizer, scene)[1] >= 4


def test_r2_a_jumbo_index_read_past_the_ladder_is_not_read_again_at_half_the_resolution(recognizer, monkeypatch):
    """A deck printing a jumbo index (1.8 times), cards 125 px, no width configured: its index reads
    best at 153 px, past the ladder's top, at full size and halved alike (77 px there). Read at half
    the resolution, its 8h's neighbour was read a 3h at 0.98. A halved read at the same width as the
    full size's stands only where it reads twice as many cards (``HALVED_APART``); this one read 6
    where the full size read 5, so the frame's own reads stand, with no wrong read."""
    from vision import recognize, render

    # the jumbo benchmark's scene 68 (bench/vision_jumbo.py --modes search)
    scene = render.render_scene(np.random.default_rng([424242, 68]), render.jumbo_decks(render.TRAIN_DECKS, 1.8),
                                width=800, height=600)

    def sure() -> set[str]:
        return {str(d.card) for d in recognizer.recognize(scene.image)
                if d.card is not None and d.confidence >= recognizer.threshold}

    truth = {t.card for t in scene.cards if t.face_up}
    assert sure() <= truth
    monkeypatch.setattr(recognize, "HALVED_APART", 1.0)
    assert "3h" in sure() - truth


def test_an_index_cut_by_the_frame_edge_is_not_read(recognizer, monkeypatch):
    """Benchmark scene 656 (seen decks): a four-colour 6 of diamonds lies over the frame's left edge,
    the left half of its top-left index off the frame; what is left of the 6 read as a 5 of
    diamonds at 0.9986, a sure wrong read. An index crop that reaches more than
    ``EDGE_SLACK`` card widths past the edge is not read (nor by the layout model), and the
    cards whose index is in the frame are read as before. Since the fifty-fifth session the rank
    veto refuses that read too (both body models count six pips); the rule is shown without it."""
    from vision import recognize, render

    scene = render.render_scene(np.random.default_rng([424242, 656]), render.TRAIN_DECKS, width=800, height=600)
    six = next(t for t in scene.cards if t.card == "6d")
    assert min(x for x, _ in six.corners) < 0  # the card runs off the frame

    def sure(dets):
        return {str(d.card) for d in dets if d.card is not None and d.confidence >= recognizer.threshold}

    now = sure(recognizer.recognize(scene.image))
    assert "5d" not in now
    monkeypatch.setattr(recognize, "EDGE_SLACK", 10.0)  # the edge not looked at
    assert "5d" not in sure(recognizer.recognize(scene.image))  # the bodies' count refuses it
    monkeypatch.setattr(recognize, "RANK_VETO_BELOW", None)  # nor that: the wrong read comes back
    before = sure(recognizer.recognize(scene.image))
    assert "5d" in before
    assert now == before - {"5d"}


def _bench_module(name: str):  # type: ignore[no-untyped-def]
    """The script ``bench/<name>.py`` loaded as a module (``bench/`` is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_misses_tool_accounts_for_every_readable_card(recognizer):
    """``bench/vision_misses.py`` puts every readable card of a scene in one class, and its "right"
    is the benchmark's (``bench/bench_vision.py``'s read_accuracy on the same scenes)."""
    from vision import render

    misses, bench = _bench_module("vision_misses"), _bench_module("bench_vision")
    rows = []
    for i in range(4):
        rows += misses.classify_scene(recognizer, bench.bench_scene(render.TRAIN_DECKS, 50505, i))
    table = misses.summary(rows)["all"]
    accuracy = bench.read_accuracy(recognizer, render.TRAIN_DECKS, 4, seed=50505)
    assert table["readable"] == accuracy["readable_cards"] == len(rows)
    assert table["right"]["cards"] == accuracy["right"]
    assert sum(v["cards"] for k, v in table.items() if k != "readable") == table["readable"]
    assert {k for _, k, _ in rows} <= {"right", "no_proposal", "not_read", "contested", "refused", "unsure", "elsewhere"}


def test_designs_tool_reads_a_training_deck_at_its_corners_and_refuses_bad_arguments(capsys) -> None:
    """``bench/vision_designs.py``: a named training deck drawn upright 100 px wide reads every one of
    its 104 index corners sure with the shipped index classifier at the card's width; at 1.6 times
    the width (an index far smaller than the crop expects) it reads far fewer; bad arguments are
    refused by name."""
    import json

    designs = _bench_module("vision_designs")
    assert designs.main(["--sets", "seen,unseen", "--decks", "dejavu-sans,p052", "--scales", "1.0,1.6"]) == 0
    out = json.loads(capsys.readouterr().out)
    first = out["models"]["models/card_index.onnx"]["dejavu-sans"]
    assert first["crops"] == 104 and first["scales"]["1"]["sure"] == 104 and first["wrong"] == 0
    assert first["scales"]["1.6"]["sure"] < 52 and first["scales"]["1"]["index"] > 0.9
    assert out["models"]["models/card_index.onnx"]["all"] == {s: {"crops": 104, "best": 104, "wrong": 0, "same": 0}
                                                             for s in ("seen", "unseen")}
    for bad, word in ((["--sets", "nosuch"], "nosuch"), (["--scales", "x"], "--scales"),
                      (["--models", "nosuch.onnx"], "nosuch.onnx")):
        with pytest.raises(SystemExit):
            designs.main(bad)
        assert word in capsys.readouterr().err


def test_ceiling_tool_reads_every_readable_card_at_its_true_corners(recognizer):
    """``bench/vision_ceiling.py``: every readable card has crops at its true index corners, its
    "read right" is the benchmark's, and on large cards the true corners read what the recogniser
    reads; a card's true corner read at the threshold counts toward ``either`` only."""
    import cv2

    from controller.cards import Card
    from vision import render
    from vision.recognize import preprocess

    ceiling, bench = _bench_module("vision_ceiling"), _bench_module("bench_vision")
    rows = ceiling._work(("seen", 0, 3, 50505))
    accuracy = bench.read_accuracy(recognizer, render.TRAIN_DECKS, 3, seed=50505)
    assert len(rows) == accuracy["readable_cards"] and sum(r for _, _, r in rows) == accuracy["right"]
    scene = bench.bench_scene(render.TRAIN_DECKS, 50505, 0)
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    for t in scene.cards:
        if t.readable:
            crops = ceiling.true_corner_crops(gray, t)
            assert 27 <= len(crops) <= 54
            p = recognizer.infer(preprocess(crops))[:, Card.parse(t.card).index].max()
            assert scene.card_width < 100 or p >= recognizer.threshold, (t.card, scene.card_width, p)
    table = ceiling.summary(rows + [(130.0, 0.99, False), (130.0, 0.2, False)], recognizer.threshold)
    band = table["by_card_width"]["120-151"]
    assert band["readable"] >= 2 and band["either_pct"] > band["read_right_pct"]
    assert table["all"]["readable"] == len(rows) + 2


def test_seat_benchmark_says_why_each_readable_seat_was_missed(recognizer):
    """``bench/bench_vision.py``'s seat figures put every seat that could have been identified (both
    cards face up, an index in view) in one place: identified, identified wrongly, or missed with the
    reason the dealer's screen gives (``missed_by_reason``, :class:`vision.verdict.Reason` values).
    On the first eight benchmark tables of the unseen decks a seat is missed (table 7, a card read
    unsure). (Until the thirty-eighth session's body models, table 3 of the seen decks missed one:
    its seen decks now miss none before table 11. Until the forty-second session's twin veto bar,
    table 5 of the unseen decks missed one.)"""
    from vision import render
    from vision.verdict import Reason

    seats = _bench_module("bench_vision").seat_safety(recognizer, render.UNSEEN_DECKS, 8)
    missed = seats["missed_by_reason"]
    assert missed and set(missed) <= {r.value for r in Reason} - {Reason.OK.value}
    assert seats["identified"] + sum(missed.values()) + seats["wrong_identifiable"] >= seats["seats_readable"]
    assert seats["identified"] + sum(missed.values()) <= seats["seats_readable"]


def test_second_look_reads_near_misses_without_guessing(recognizer):
    """Corners read as a card below the threshold are cropped again at several scales, five crops
    a scale, and take the mean readings of their best scale: on seeded scenes of decks never
    trained on, some of those near misses then read right at the threshold, and none reads a card
    that is not there. (Eighth session: of 144 near misses in these 40 scenes 15 rise to the
    threshold, all right; the single-scale look of the seventh raised 3 of 85. Twelfth session's
    model: 20 of 104 rise, and one more, a 4h of a 61-pixel card, to a 4c at 0.965, below what a
    club on a card that small must reach, so the recogniser keeps it unreadable.)"""
    from vision import detect, render
    from vision.recognize import SMALL_BLACK_THRESHOLD, SMALL_CARD_WIDTH
    from vision.train import label_corners

    def sure(r, width: float) -> bool:  # type: ignore[no-untyped-def]
        """A read the recogniser keeps: at the threshold, and a small club or spade at
        :data:`SMALL_BLACK_THRESHOLD` (applied when cards are assembled)."""
        need = recognizer.threshold
        if r.card.suit in "cs" and width < SMALL_CARD_WIDTH:
            need = max(need, SMALL_BLACK_THRESHOLD)
        return r.confidence >= need

    raised = wrong = near = 0
    for i in range(40):
        rng = np.random.default_rng([4242, i])
        scene = render.render_scene(rng, render.UNSEEN_DECKS, width=800, height=600)
        corners = detect.find_corners(scene.image, scene.card_width)
        labels = label_corners(scene, corners)
        there = {t.card for t in scene.cards if t.face_up}
        # the first look alone (no layout model and no blanked look, which may raise a corner too)
        once = recognizer.read_corners(scene.image, corners, second_look=False, layout=False)
        twice = recognizer.read_corners(scene.image, corners, second_look=True, layout=False)
        for corner, lab, a, b in zip(corners, labels, once, twice):
            if a.card is not None and a.confidence >= recognizer.threshold:
                assert b == a  # sure reads are not looked at again
                continue
            near += a.card is not None and a.confidence >= 0.3
            if b.card is not None and sure(b, corner.width):
                raised += lab == b.card.index
                wrong += str(b.card) not in there
    assert near >= 40
    assert wrong == 0
    assert raised >= 8, (raised, near)


def test_backs_and_felt_are_not_read(recognizer):
    import cv2

    from vision import render

    frame = np.zeros((400, 400, 3), np.uint8)
    frame[:] = (35, 105, 30)
    assert recognizer.recognize(frame) == []
    back = cv2.resize(render.card_back(render.TRAIN_DECKS[0])[..., ::-1], (90, 126))
    frame[100:226, 150:240] = back
    assert all(d.card is None or d.confidence < recognizer.threshold for d in recognizer.recognize(frame))


def test_table_view_verdicts(recognizer):
    from vision import render
    from vision.config import load_camera_config
    from vision.verdict import Reason
    from vision.watch import TableWatcher

    cam = load_camera_config(REPO / "config" / "table.toml")
    sizes = [2, 2, 2, 0, 2, 2, 2, 2, 2, 2]
    flags = []
    for s in range(1, 11):
        flags += [True] * sizes[s - 1]
    flags[2] = False  # seat 2, first card face down
    scene = render.render_table(np.random.default_rng(11), render.TRAIN_DECKS[:1], variant_cards=sizes,
                                hard=False, face_up=flags)
    watcher = TableWatcher(cam, recognizer)
    for _ in range(cam.stable_frames):
        views = {v.seat: v for v in watcher.watch(scene.image)}
    truth = {s: sorted(t.card for t in scene.cards if t.seat == s) for s in range(1, 11)}
    assert views[4].reason is Reason.MISSING and not views[4].identifiable
    assert not views[2].identifiable and views[2].reason in (Reason.FACE_DOWN, Reason.MISSING, Reason.COVERED)
    ok = [s for s, v in views.items() if v.identifiable]
    for s in ok:  # precision: anything called identifiable is exactly right
        assert sorted(map(str, views[s].cards)) == truth[s]


def test_backs_lying_in_hands_make_seats_face_down_and_are_not_searched_for_indices(recognizer):
    """A seat whose hand holds a face-down card is "face down" whatever else is read there, so
    its zone gets no second search for index print (the pips of its face-up card would only feed
    the classifier); a seat with no back is never called face down (chips are not backs)."""
    from vision import render
    from vision.config import load_camera_config
    from vision.verdict import Reason
    from vision.watch import TableWatcher

    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})
    flags = [True] * 20
    for seat in (2, 5, 7, 10):
        flags[2 * (seat - 1) + seat % 2] = False  # one card of the hand face down
    asked: list[list[int] | None] = []
    real = recognizer.recognize_zones

    def spy(frame, jobs, felt=None, card_width=None, wanted=None, zone_widths=None):  # type: ignore[no-untyped-def]
        asked.append(None if wanted is None else list(wanted))
        return real(frame, jobs, felt, card_width, wanted, zone_widths)

    recognizer.recognize_zones = spy
    try:
        face_down = 0
        for seed in (5, 6, 7):
            scene = render.render_table(np.random.default_rng(seed), render.TRAIN_DECKS, face_up=flags)
            views = {v.seat: v for v in TableWatcher(cam, recognizer).watch(scene.image)}
            for seat, v in views.items():
                has_back = any(not t.face_up for t in scene.cards if t.seat == seat)
                assert v.reason is not Reason.FACE_DOWN or has_back, (seed, seat)
                face_down += v.reason is Reason.FACE_DOWN
                if v.reason is Reason.FACE_DOWN:  # no search for more index print there
                    assert asked[-1] is not None and asked[-1][seat - 1] == 0
    finally:
        del recognizer.recognize_zones
    assert face_down >= FACE_DOWN_FLOOR, face_down


def _render_table_png(tmp_path) -> pathlib.Path:
    import cv2

    from vision import render

    scene = render.render_table(np.random.default_rng(5), render.TRAIN_DECKS[:2], hard=False)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), scene.image)
    return path


def test_cli_read_json(tmp_path, capsys):
    from controller.cli import main

    img = _render_table_png(tmp_path)
    assert main(["vision", "read", str(img), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, list) and len(out) >= 10
    for d in out:
        assert set(d) == {"card", "confidence", "corners"}
        assert d["card"] is None or Card.parse(d["card"])
        assert 0.0 <= d["confidence"] <= 1.0
        assert len(d["corners"]) == 4 and all(len(p) == 2 for p in d["corners"])


def test_cli_check_json(tmp_path, capsys):
    from controller.cli import main

    img = _render_table_png(tmp_path)
    assert main(["vision", "check", str(img), "--config", str(REPO / "config" / "table.toml"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["seat"] for s in out["seats"]] == list(range(1, 11))
    for s in out["seats"]:
        assert isinstance(s["identifiable"], bool)
        assert s["reason"] in {"ok", "missing", "face_down", "covered", "unsure", "duplicate", "mismatch"}
        assert (s["reason"] == "ok") == s["identifiable"]


def test_cli_check_bad_config(tmp_path, capsys):
    from controller.cli import main

    bad = tmp_path / "t.toml"
    bad.write_text("[camera]\nsource = 3\n")
    assert main(["vision", "check", "x.png", "--config", str(bad)]) == 2
    assert "camera.source" in capsys.readouterr().err


def test_cli_calibrate(tmp_path, capsys):
    import cv2

    from controller.cli import main

    img = _render_table_png(tmp_path)
    out = tmp_path / "zones.png"
    assert main(["vision", "calibrate", str(img), "--config", str(REPO / "config" / "table.toml"),
                 "--out", str(out)]) == 0
    assert cv2.imread(str(out)).shape == (1080, 1920, 3)
    said = capsys.readouterr().out
    assert "light: white" in said and "felt: coloured" in said
    # the table's cards are 72 px wide, as configured; whole ones in view measure within 15% of it
    width_line = next(line for line in said.splitlines() if line.startswith("card width:"))
    assert width_line.startswith("card width: 72 px configured;") and "measure" in width_line
    assert "check camera.card_width" not in width_line
    for line, said_of_it in (("card_width = 120\n", "check camera.card_width"), ("", "set card_width = ")):
        cfg = tmp_path / "table.toml"
        text = (REPO / "config" / "table.toml").read_text()
        assert "card_width = 72\n" in text
        cfg.write_text(text.replace("card_width = 72\n", line))
        assert main(["vision", "calibrate", str(img), "--config", str(cfg), "--out", str(out)]) == 0
        assert said_of_it in capsys.readouterr().out
    warm = cv2.imread(str(img)).astype(np.float32) * np.array([0.8, 0.93, 1.0], np.float32)
    cv2.imwrite(str(img), np.clip(warm, 0, 255).astype(np.uint8))
    assert main(["vision", "calibrate", str(img), "--config", str(REPO / "config" / "table.toml"),
                 "--out", str(out)]) == 0
    assert "light: warm" in capsys.readouterr().out
    grey = cv2.cvtColor(cv2.cvtColor(cv2.imread(str(img)), cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    cv2.imwrite(str(img), grey)
    assert main(["vision", "calibrate", str(img), "--config", str(REPO / "config" / "table.toml"),
                 "--out", str(out)]) == 0
    assert "felt: grey or black" in capsys.readouterr().out


def test_print_colour_of_rendered_indices_under_tinted_light() -> None:
    """The suit colour check judges the print against the card stock: red indices are red and black
    ones black in two-colour decks, under warm or cold light; four-colour decks' diamonds are blue
    and clubs green; a black index read as a red suit, and a blue diamond read as a spade (two of
    the seven wrong reads left on 1,000 seen-deck benchmark scenes), are made unreadable."""
    from vision import detect, render
    from vision.recognize import Reading, print_colour, suit_colour_check

    def index_crop(deck, card: str, tint) -> tuple[np.ndarray, detect.Corner]:  # type: ignore[no-untyped-def]
        face = render.card_face(deck, card)[..., ::-1].astype(np.float32)  # BGR
        frame = np.full((400, 320, 3), (40, 110, 30), np.float32)
        frame[20:20 + face.shape[0], 20:20 + face.shape[1]] = face
        frame = np.clip(frame * np.array(tint, np.float32), 0, 255).astype(np.uint8)
        corner = detect.Corner((20.0, 20.0), (1.0, 0.0), (0.0, 1.0), float(face.shape[1]))
        return frame, corner

    two_colour = [d for d in render.TRAIN_DECKS if not d.four_colour][:6]
    for tint in ((1.0, 1.0, 1.0), (0.75, 0.9, 1.1), (1.1, 1.0, 0.8)):  # BGR gains: warm, cold light
        for deck in two_colour:
            for card, want in (("Kh", "red"), ("7d", "red"), ("Qs", "black"), ("4c", "black")):
                frame, corner = index_crop(deck, card, tint)
                assert print_colour(detect.crop_corner(frame, corner, color=True)) == want, (deck.name, card, tint)
    fours = [d for d in render.TRAIN_DECKS if d.four_colour]
    assert len(fours) >= 3
    judged = 0
    for tint in ((1.0, 1.0, 1.0), (0.75, 0.9, 1.1), (1.1, 1.0, 0.8)):
        for deck in fours:
            for card, want in (("7d", "blue"), ("4c", "green"), ("Kh", "red"), ("Qs", "black")):
                frame, corner = index_crop(deck, card, tint)
                got = print_colour(detect.crop_corner(frame, corner, color=True))
                # thin print mixes with the stock: unclear (never refused) is allowed, another colour not
                assert got in (want, None), (deck.name, card, tint, got)
                judged += got == want
    assert judged >= 0.9 * 4 * 3 * len(fours)
    frame, corner = index_crop(fours[0], "Ad", (1.0, 1.0, 1.0))
    assert suit_colour_check(Reading(Card.parse("As"), 0.99), frame, corner).card is None
    assert suit_colour_check(Reading(Card.parse("Ac"), 0.99), frame, corner).card is None
    assert suit_colour_check(Reading(Card.parse("Ad"), 0.99), frame, corner).card == Card.parse("Ad")
    frame, corner = index_crop(two_colour[0], "As", (1.0, 1.0, 1.0))
    assert suit_colour_check(Reading(Card.parse("Ad"), 0.99), frame, corner).card is None
    assert suit_colour_check(Reading(Card.parse("As"), 0.99), frame, corner).card == Card.parse("As")


def test_print_colour_of_small_blurred_indices_judged_by_their_darkest_core(monkeypatch) -> None:
    """On a card about 54 px wide and blurred, a spade or a club is a blot beside a faint grey rank:
    its darkest core judges the print black where the darkest 1 in 14 pixels told nothing
    (``PRINT_CORE``; on the CC0 deck design two spades were read as diamonds at 0.98 and 0.99
    through that gap), and no red index is ever judged black that way."""
    import cv2

    import vision.recognize as rec
    from vision import detect, render

    def crop(deck, card: str, shift: float) -> np.ndarray:  # type: ignore[no-untyped-def]
        face = render.card_face(deck, card)[..., ::-1]
        width = 54
        h = int(round(face.shape[0] * width / face.shape[1]))
        frame = np.full((160, 120, 3), (40, 110, 30), np.float32)
        frame[20:20 + h, 20:20 + width] = cv2.resize(face, (width, h), interpolation=cv2.INTER_AREA)
        frame = cv2.GaussianBlur(frame, (0, 0), 1.3).astype(np.uint8)
        corner = detect.Corner((20.0 + shift, 20.0 + shift), (1.0, 0.0), (0.0, 1.0), float(width))
        return detect.crop_corner(frame, corner, color=True)

    decks = [d for d in render.TRAIN_DECKS if not d.four_colour]
    crops = {(card, k, shift): crop(d, card, shift) for card in ("2s", "As", "5c", "Qs", "2d", "Ah", "5h", "Qd")
             for k, d in enumerate(decks) for shift in (-1.0, 0.0, 1.0)}

    def judged() -> dict:
        return {key: rec.print_colour(c) for key, c in crops.items()}

    now = judged()
    monkeypatch.setattr(rec, "PRINT_CORE_BLACK", 0.0)  # the core never black: the verdicts before it
    before = judged()
    black_cards = [key for key in crops if key[0][1] in "cs"]
    red_cards = [key for key in crops if key[0][1] in "hd"]
    assert not [key for key in red_cards if now[key] == "black"]
    assert all(now[key] == before[key] for key in red_cards)
    assert all(now[key] == before[key] for key in black_cards if before[key] is not None)
    gained = [key for key in black_cards if before[key] is None and now[key] == "black"]
    assert len(gained) >= 5, gained


def test_r2_a_softened_index_head_reads_more_of_unfamiliar_index_layouts_and_nothing_wrong(recognizer, monkeypatch):
    """The index classifier's doubt that a crop is an index at all is softened
    (``INDEX_HEAD_POWER``, its square root, thirty-fourth session): on seeded scenes of decks whose
    indices and stock vary as printed decks' do (``render.INDEX_DECKS``, which the shipped model
    never trained on) more cards are read sure where they lie than with the model's own
    probabilities (32 against 27 with the seventeenth session's body model; 31 against 29 with the
    thirty-sixth's, which raises more of the unsoftened unsure reads; 34 against 33 with the
    thirty-ninth's), and every sure read is a card lying there. Measured without the whole-card
    model (forty-seventh session), which raises one of the unsoftened unsure reads too (34 and 34), and
    without the scale-tolerant model (fifty-fifth session), which reads the same card on the
    classifier's word given an index, softened or not (34 and 34)."""
    import math

    from vision import recognize, render

    monkeypatch.setattr(recognizer, "whole_session", None)
    monkeypatch.setattr(recognizer, "tolerant_session", None)

    def right_and_wrong(power: float) -> tuple[int, int]:
        monkeypatch.setattr(recognizer, "index_power", power)
        right = wrong = 0
        for i in (7, 9, 22, 24):
            scene = render.render_scene(np.random.default_rng([3434, i]), render.INDEX_DECKS, width=800, height=600)
            truth = {t.card: t for t in scene.cards if t.face_up}
            for d in recognizer.recognize(scene.image):
                if d.card is None or d.confidence < recognizer.threshold:
                    continue
                lies = truth.get(str(d.card))
                there = lies is not None and math.dist(d.center, lies.center) < 0.45 * scene.card_width
                right += there
                wrong += not there
        return right, wrong

    assert recognize.INDEX_HEAD_POWER == 0.5 and recognizer.index_power == 0.5
    own, softened = right_and_wrong(1.0), right_and_wrong(0.5)
    assert softened[1] == 0 and own[1] == 0
    assert softened[0] >= own[0] + 1, (softened, own)


def _bench_scene(seed: int, i: int, decks=None):  # type: ignore[no-untyped-def]
    """Scene ``i`` of a benchmark seed, as ``bench/bench_vision.py`` renders it."""
    from vision import render

    w, h = (800, 600) if i % 5 else (1200, 800)
    return render.render_scene(np.random.default_rng([seed, i]), decks or render.TRAIN_DECKS, width=w, height=h)


def _sure(recognizer, image) -> dict[str, list[tuple[float, float]]]:  # type: ignore[no-untyped-def]
    """The cards ``recognizer`` reads at or above its threshold in ``image``, each with the centres it is read at."""
    out: dict[str, list[tuple[float, float]]] = {}
    for d in recognizer.recognize(image):
        if d.card is not None and d.confidence >= recognizer.threshold:
            out.setdefault(str(d.card), []).append(d.center)
    return out


def _refused_without(recognizer, monkeypatch, scene, right: str, wrong: str,  # type: ignore[no-untyped-def]
                     module, name: str, off):
    """A rule's refusal of a wrong read: ``scene`` holds ``right`` and not ``wrong``; ``recognizer``
    reads no ``wrong`` there and nothing untrue, and with ``module.name`` set to ``off`` it reads
    ``wrong``. Returns the sure reads with the rule and without it (:func:`_sure`)."""
    truth = {t.card for t in scene.cards if t.face_up}
    assert right in truth and wrong not in truth
    now = _sure(recognizer, scene.image)
    assert wrong not in now and set(now) <= truth
    monkeypatch.setattr(module, name, off)
    before = _sure(recognizer, scene.image)
    assert wrong in before
    return now, before


def test_r2_a_faint_rank_on_a_card_lying_on_a_card_is_proposed_from_its_print(recognizer, monkeypatch):
    """Tuning scene 277 (seeds ``[50505, i]``, seen decks): a fan of five cards of a deck with a small,
    thin index, each lying on the one before, so no outline marks their index corners. Their ranks
    are too light and too little saturated to leave the card stock, so the glyph proposer (a rank
    above a suit) found only suits. With the faint print of the gray image added
    (``detect.GLYPH_FAINT``), the 4 of hearts is proposed and read; without it, it is not, and no
    other card is read differently. Measured with no weak print taken for ranks
    (``detect.GLYPH_WEAK_RANK``, which reads two more of the fan, and needs ``GLYPH_FAINT``)."""
    from vision import detect

    scene = _bench_scene(50505, 277)
    truth = {t.card for t in scene.cards if t.face_up}
    monkeypatch.setattr(detect, "GLYPH_WEAK_RANK", None)
    now = _sure(recognizer, scene.image)
    monkeypatch.setattr(detect, "GLYPH_FAINT", None)
    before = _sure(recognizer, scene.image)
    assert "4h" in now and "4h" not in before
    assert set(now) - {"4h"} == set(before)
    assert set(now) <= truth


@pytest.mark.parametrize(("scene_index", "card"), [(422, "Th"), (726, "Jh")])
def test_r2_a_pale_red_rank_is_proposed_from_its_print_on_the_darkest_channel(recognizer, monkeypatch,
                                                                              scene_index, card):
    """Tuning scenes (seeds ``[50505, i]``, seen decks, cards 143 and 96 px wide): a red card lying
    on another, its index corner under the next card of a stack, its thin red rank blurred to pale
    pink, barely darker than the stock in gray. On the frame's darkest channel red print is as dark
    as black (``detect.GLYPH_FAINT_COLOUR``): the card is proposed from its rank and suit and read;
    without it, it is not, and no other card is read differently."""
    from vision import detect

    scene = _bench_scene(50505, scene_index)
    truth = {t.card for t in scene.cards if t.face_up}
    now = _sure(recognizer, scene.image)
    monkeypatch.setattr(detect, "GLYPH_FAINT_COLOUR", 0)
    before = _sure(recognizer, scene.image)
    assert card in now and card not in before
    assert set(now) - {card} == set(before)
    assert set(now) <= truth


@pytest.mark.parametrize("scene_index, cards", [(598, ("Kh",)), (277, ("6h", "9d"))])
def test_r2_a_rank_too_faint_for_a_glyph_is_paired_with_its_plain_suit(recognizer, monkeypatch, scene_index, cards):
    """Tuning scenes (seeds ``[50505, i]``, seen decks): a ``dejavu-condensed`` king of hearts 56 px
    wide, its index corner in view under a dealer button, and two ``liberation-serif-small`` red
    cards of a stack, read at a width of 71 px. Each index's rank is blurred into specks too faint and
    too small for a glyph, while its suit prints plainly. Taken as a rank where it is weak print
    (``detect.GLYPH_WEAK_RANK``, forty-ninth session), the pair is proposed and the card read;
    without it, it is not, and no other card is read differently."""
    from vision import detect

    scene = _bench_scene(50505, scene_index)
    truth = {t.card for t in scene.cards if t.face_up}
    now = _sure(recognizer, scene.image)
    monkeypatch.setattr(detect, "GLYPH_WEAK_RANK", None)
    before = _sure(recognizer, scene.image)
    assert all(c in now and c not in before for c in cards)
    assert set(now) - set(cards) == set(before)
    assert set(now) <= truth


def test_r3_a_card_proposed_from_a_weak_rank_stands_only_where_its_index_reads_it_sure(recognizer, monkeypatch):
    """Benchmark scene 842 (seeds ``[424242, i]``, unseen decks): a ``p052`` jack of clubs 55 px
    wide. A weak-print rank (``detect.GLYPH_WEAK_RANK``) proposes its far index corner, which the
    index classifier reads Js at 0.88; both body models take its pips for spades too, and would
    raise it to the threshold. A card proposed so stands only on the index classifier's own sure
    read (``FAINT_SURE_ONLY``): the place stays unread."""
    import vision.recognize as R
    from vision import render

    _refused_without(recognizer, monkeypatch, _bench_scene(424242, 842, render.UNSEEN_DECKS), "Jc", "Js",
                     R, "FAINT_SURE_ONLY", False)


def test_r2_a_card_read_at_two_corners_does_not_contest_its_fanned_neighbour(recognizer, monkeypatch):
    """Tuning scene 126 (seen decks): a 7 of hearts lies fanned under a queen of diamonds, each read
    at its own top-right index. The 7 is also read at its bottom-left index, and the card that
    corner implies lies nearly on the queen: weighed alone, that read faced the queen's index the
    opposite way and made the queen's place contested. The fan is judged on every corner the 7 is
    read at nearby (``FAN_BY_ALL_READS``): both cards stand. Measured without the whole-card model
    (forty-seventh session), which settles that contested place as the queen too, and without the
    scale-tolerant model (fifty-fifth session), which reads one more corner there."""
    from vision import recognize

    monkeypatch.setattr(recognizer, "whole_session", None)
    monkeypatch.setattr(recognizer, "tolerant_session", None)
    scene = _bench_scene(50505, 126)
    now = _sure(recognizer, scene.image)
    monkeypatch.setattr(recognize, "FAN_BY_ALL_READS", False)
    before = _sure(recognizer, scene.image)
    assert "Qd" in now and "7h" in now
    assert "Qd" not in before
    assert set(now) <= {t.card for t in scene.cards if t.face_up}



def test_r3_a_small_club_the_first_body_lets_stand_as_a_spade_is_refused_on_the_second_bodys_word(
        recognizer, monkeypatch):
    """Benchmark scene 39 (seeds ``[424242, i]``, seen decks): a ``dejavu-sans-book`` ace of clubs
    64 px wide is read As at 0.997 at its index. The first body model gives clubs 0.74 and spades
    0.17, and index and body weighed together (0.987) let the small-black check stand it; the second
    body model gives clubs 0.99. Its word (``SMALL_BLACK_SECOND``, fortieth session) refuses it;
    without it the ace is read as a spade."""
    import vision.recognize as R

    _refused_without(recognizer, monkeypatch, _bench_scene(424242, 39), "Ac", "As", R, "SMALL_BLACK_SECOND", None)


def test_r3_two_readings_of_one_place_are_settled_where_four_looks_at_the_body_agree(recognizer, monkeypatch):
    """Benchmark scene 48 (seeds ``[424242, i]``, seen decks): a ``liberation-sans`` five of clubs
    102 px wide lies over the eight of clubs, and its place is read 5c at one corner and 8c at
    another, both sure, so the place was contested. Both body models, from both its index corners,
    give clubs 0.99 and a five 0.97 or more (``ALL_BODIES_SUIT``, forty-first session): the place is
    read 5c. Without the four looks it stays unreadable, and nothing else is read differently. Measured
    without the whole-card model (forty-seventh session), which reads that place 5c too."""
    import vision.recognize as R

    monkeypatch.setattr(recognizer, "whole_session", None)
    scene = _bench_scene(424242, 48)
    truth = {t.card for t in scene.cards if t.face_up}
    assert {"5c", "8c"} <= truth
    now = _sure(recognizer, scene.image)
    assert "5c" in now and set(now) <= truth
    monkeypatch.setattr(R, "ALL_BODIES_SUIT", None)
    before = _sure(recognizer, scene.image)
    assert "5c" not in before
    assert set(now) - set(before) == {"5c"} and set(before) <= set(now)


def test_r3_a_card_the_index_gives_another_suit_is_read_where_four_looks_at_the_body_agree(recognizer, monkeypatch):
    """Tuning scene 170 (seeds ``[50505, i]``, seen decks): a ``liberation-sans-regular`` five of
    diamonds 57 px wide is read 5s at 0.935 at its index, under the threshold. Both body models,
    from both its index corners, give diamonds and a five (``ALL_BODIES_SUIT``, forty-first
    session): it is read 5d. Without the four looks it is not read at all, as neither 5d nor 5s."""
    import vision.recognize as R

    scene = _bench_scene(50505, 170)
    truth = {t.card for t in scene.cards if t.face_up}
    assert "5d" in truth and "5s" not in truth
    now = _sure(recognizer, scene.image)
    assert "5d" in now and set(now) <= truth
    monkeypatch.setattr(R, "ALL_BODIES_SUIT", None)
    before = _sure(recognizer, scene.image)
    assert "5d" not in before and "5s" not in before and set(before) <= set(now)


def test_r3_a_club_read_as_a_sure_spade_is_refused_where_all_four_body_looks_say_clubs(recognizer, monkeypatch):
    """Tuning scene 265 (seeds ``[60606, i]``, unseen decks): an ace of clubs 58 px wide is read As at
    0.9994 at both index corners, over the twin veto's reach (``TWIN_VETO_BELOW``, 0.999). Both body
    models, each from both index corners, give clubs 0.985 to 0.996: the read is refused
    (``SURE_TWIN_VETO``, forty-third session). Without that veto it was a wrong sure read, and
    nothing else is read differently."""
    import vision.recognize as R
    from vision import render

    now, before = _refused_without(recognizer, monkeypatch, _bench_scene(60606, 265, render.UNSEEN_DECKS), "Ac", "As",
                                   R, "SURE_TWIN_VETO", None)
    assert set(before) - {"As"} == set(now)


def test_r3_a_sure_club_stands_where_its_body_leans_to_spades_under_the_veto_bar(recognizer, monkeypatch):
    """Tuning scene 89 (seeds ``[50505, i]``, seen decks): a ``freesans`` three of clubs 74 px wide
    is read 3c at 0.998 at one index corner. Its body, cropped from a quad a sixth wider than the
    card (the width the frame's search chose), gives spades 0.80: under the twin veto's bar of 0.85
    (``TWIN_VETO_SUIT``, forty-second session), so the card stands; at the bar of 0.75 it had until
    then it was refused, and nothing else is read differently."""
    import vision.recognize as R

    scene = _bench_scene(50505, 89)
    truth = {t.card for t in scene.cards if t.face_up}
    assert "3c" in truth and "3s" not in truth
    now = _sure(recognizer, scene.image)
    assert "3c" in now and set(now) <= truth
    monkeypatch.setattr(R, "TWIN_VETO_SUIT", 0.75)
    before = _sure(recognizer, scene.image)
    assert "3c" not in before and "3s" not in before and set(before) <= set(now)


def test_an_image_that_is_missing_a_folder_or_not_an_image_is_a_clear_error_naming_it(tmp_path, capsys):
    """``vision read`` and ``vision calibrate`` say which: no such file, a folder, or a file OpenCV cannot
    decode (a phone's HEIC photograph), each exit 2 with one line and no OpenCV warning."""
    from controller.cli import main

    heic = tmp_path / "IMG_0001.HEIC"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic" + bytes(64))
    cases = {tmp_path / "gone.jpg": "no such file", tmp_path: "a folder, not an image file",
             heic: "not a readable image (PNG, JPEG, BMP, TIFF or WebP)"}
    for path, says in cases.items():
        for argv in (["vision", "read", str(path), "--json"],
                     ["vision", "calibrate", str(path), "--config", str(REPO / "config" / "table.toml"),
                      "--out", str(tmp_path / "out.png")]):
            capsys.readouterr()
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert err == f"cardroom vision: {path}: {says}\n", argv


def test_a_model_file_missing_or_not_a_model_is_a_clear_error_naming_it(tmp_path, capsys):
    """A table file or a command line naming a model file that is not there, is not ONNX, is cut
    short, or is another kind of model: the recogniser raises an error naming the file (no
    onnxruntime traceback), ``vision read`` and ``vision check`` exit 2 with it, and ``cardroom serve``
    exits 2 before anything starts (``cardroom serve: camera: ...``)."""
    import os
    import subprocess
    import sys

    import cv2

    from controller.cli import main
    from vision.recognize import OnnxRecognizer

    junk = tmp_path / "junk.onnx"
    junk.write_text("not a model")
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(MODEL.read_bytes()[:1000])
    with pytest.raises(FileNotFoundError, match=r"nosuch\.onnx: no such index model"):
        OnnxRecognizer(tmp_path / "nosuch.onnx")
    for bad in (junk, cut):
        with pytest.raises(ValueError, match=rf"{bad.name}: onnxruntime cannot load it as the index model \("):
            OnnxRecognizer(bad)
    with pytest.raises(ValueError, match=r"junk\.onnx: onnxruntime cannot load it as the body-suit model"):
        OnnxRecognizer(MODEL, suit_model_path=junk)
    with pytest.raises(ValueError, match=r"card_suit\.onnx: model input \(90, 64\) does not match crops"):
        OnnxRecognizer(REPO / "models" / "card_suit.onnx")
    img = tmp_path / "frame.png"
    cv2.imwrite(str(img), np.full((120, 160, 3), 40, np.uint8))
    capsys.readouterr()
    assert main(["vision", "read", str(img), "--model", str(junk)]) == 2
    assert f"{junk}: onnxruntime cannot load it as the index model" in capsys.readouterr().err
    text = (REPO / "config" / "table.toml").read_text()
    cfg = tmp_path / "table.toml"
    gone = f'model = "{(tmp_path / "gone.onnx").as_posix()}"'
    cfg.write_text(text.replace('model = "models/card_index.onnx"', gone, 1))
    assert main(["vision", "check", str(img), "--config", str(cfg)]) == 2
    assert "gone.onnx: no such index model" in capsys.readouterr().err
    cfg.write_text(text.replace('model = "models/card_index.onnx"', gone + f'\nmodel_sha256 = "{"0" * 64}"', 1))
    assert main(["vision", "check", str(img), "--config", str(cfg)]) == 2  # its digest cannot be taken either
    assert f"camera.model in {cfg}: " in capsys.readouterr().err
    cfg.write_text(text.replace('model = "models/card_index.onnx"', f'model = "{junk.as_posix()}"', 1)
                   .replace("demo = true", "demo = false")
                   .replace('database = "var/table.db"', f'database = "{(tmp_path / "t.db").as_posix()}"'))
    env = {**os.environ, **{f"CARDROOM_{r}_TOKEN": f"{r.lower()}-token-0123456789"
                            for r in ("DEALER", "SURVEILLANCE", "BROADCAST")}}
    proc = subprocess.run([sys.executable, "-m", "controller", "serve", "--config", str(cfg)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "cardroom serve: camera: " in proc.stderr and "onnxruntime cannot load it as the index model" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("table", "seat", "cards"), [(40, 1, ("5d", "8d")), (70, 1, ("8d", "Jh"))])
def test_r2_a_small_index_in_a_zone_short_of_cards_is_read_at_a_smaller_look(recognizer, monkeypatch,
                                                                             table, seat, cards):
    """Seat benchmark tables ``[717171, table]`` (seen decks, the configured 72 px camera): seat 1
    holds a deck printing a small index (``nimbus-roman-regular`` at 0.8 of a standard one,
    ``freeserif-small`` at 0.65), and one red card of it is read unsure at the camera's width. The
    zone is short of cards, so its corners near that place are cropped again at 0.85 of the width
    (``SMALLER_LOOK``) and the card is read there: the seat is identifiable, with the right cards.
    Without the smaller look it is not; and a smaller look that reads a club or a spade is not
    taken (``SMALLER_LOOK_BLACK``: it turned seen clubs into spades at two seats of 400 tables)."""
    import vision.recognize as R
    from vision import render
    from vision.config import load_camera_config
    from vision.watch import TableWatcher

    scene = render.render_table(np.random.default_rng([717171, table]), render.TRAIN_DECKS)
    assert sorted(t.card for t in scene.cards if t.seat == seat) == sorted(cards)
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})

    def view():  # type: ignore[no-untyped-def]
        return next(v for v in TableWatcher(cam, recognizer).watch(scene.image) if v.seat == seat)

    seen = view()
    assert seen.identifiable and sorted(map(str, seen.cards)) == sorted(cards)
    monkeypatch.setattr(R, "SMALLER_LOOK", None)
    assert not view().identifiable


def test_r3_a_smaller_look_never_names_a_club_or_a_spade(recognizer, monkeypatch):
    """Seat benchmark table ``[818181, 43]`` (seen decks): seat 4 holds 3c and 6c, the three read
    unsure at the camera's width. At 0.85 of the width its index reads as a sure 3s, which would
    make the seat identifiable with a card it does not hold; a club or a spade is never looked at
    smaller, nor taken from a smaller look (``SMALLER_LOOK_BLACK``), so the seat is not
    identifiable, and never wrong."""
    import vision.recognize as R
    from vision import render
    from vision.config import load_camera_config
    from vision.watch import TableWatcher

    scene = render.render_table(np.random.default_rng([818181, 43]), render.TRAIN_DECKS)
    assert sorted(t.card for t in scene.cards if t.seat == 4) == ["3c", "6c"]
    cam = load_camera_config(REPO / "config" / "table.toml").model_copy(update={"stable_frames": 1})

    def view():  # type: ignore[no-untyped-def]
        return next(v for v in TableWatcher(cam, recognizer).watch(scene.image) if v.seat == 4)

    assert not view().identifiable
    monkeypatch.setattr(R, "SMALLER_LOOK_BLACK", True)
    wrong = view()
    assert wrong.identifiable and sorted(map(str, wrong.cards)) == ["3s", "6c"]
