"""The demo camera feed: a rendered 1920x1080 video of showdowns at a ten-seat table.

Each hand: seats with cards show them face down, then turn them face up one seat at a time in show
order; folded seats have no cards. Beside the video a JSON file gives, per frame, the cards face up
at each seat (the truth a demo or a test can compare with).

    cardroom vision demo-feed var/demo_feed.mp4
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from vision import render


def demo_frames(hands: int = 3, seed: int = 7, hold: int = 2):
    """Yield ``(image, truth)`` per frame; ``truth`` maps seat -> list of face-up cards."""
    rng0 = np.random.default_rng(seed)
    for h in range(hands):
        layout_seed = int(rng0.integers(1 << 30))
        live = [s for s in range(1, 11) if rng0.random() < 0.6] or [1, 2]
        sizes = [2 if s in live else 0 for s in range(1, 11)]
        order = list(live)
        rng0.shuffle(order)
        deck = [render.TRAIN_DECKS[0]]
        shown: set[int] = set()
        steps = [set()] + [set(order[: i + 1]) for i in range(len(order))]
        for shown in steps:
            flags = []
            for s in range(1, 11):
                flags += [s in shown] * sizes[s - 1]
            scene = render.render_table(np.random.default_rng(layout_seed), deck, variant_cards=sizes,
                                        hard=False, face_up=flags, p_face_down=0.0)
            truth = {str(s): [] for s in range(1, 11)}
            for c in scene.cards:
                if c.face_up and c.seat is not None:
                    truth[str(c.seat)].append(c.card)
            for _ in range(hold):
                yield scene.image, {"hand": h + 1, "seats": truth}


def write_demo_feed(out: pathlib.Path, hands: int = 3, fps: float = 2.0, seed: int = 7) -> pathlib.Path:
    """Write the feed video (MJPG in .avi, or mp4v in .mp4) and ``<out>.json`` with the truth."""
    import cv2

    out.parent.mkdir(parents=True, exist_ok=True)
    fourcc = cv2.VideoWriter_fourcc(*("MJPG" if out.suffix.lower() == ".avi" else "mp4v"))
    writer = cv2.VideoWriter(str(out), fourcc, fps, (1920, 1080))
    if not writer.isOpened():
        raise OSError(f"{out}: cannot open a video writer")
    truths = []
    try:
        for image, truth in demo_frames(hands, seed):
            writer.write(image)
            truths.append(truth)
    finally:
        writer.release()
    out.with_suffix(".json").write_text(json.dumps({"fps": fps, "frames": truths}))
    return out
