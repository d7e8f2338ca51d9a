"""Train the body-suit model (:mod:`vision.pips`) and export ``models/card_suit.onnx``.

    python -m vision.train --suit-only   # this model alone (about 15 minutes on two cores)
    python -m vision.train               # the index classifier, then this model

Data: the same kind of rendered scenes as the index classifier's (:func:`vision.train.training_scene`,
half of them with small cards), seeded apart from them. Every card in a scene is warped from the
quad an index corner of it would imply, taken off as the recogniser's own corners are
(:func:`jittered_quad`), and labelled with its suit (face up) or "no face" (a back). Cards half
covered by others keep their label: the model learns to hedge where the body is out of view, and
the recogniser weighs what it says against the index (:func:`vision.recognize.body_evidence`).

The model also has a rank head (13 ranks, from the pips' count and the court pictures), trained
on the face-up cards: a card read below the threshold stands when index and body together, suit
and rank, reach the threshold (:data:`vision.recognize.BODY_RESCUE_FLOOR`).

The same recipe on crops that keep the index regions (``blank=False``; ``python -m vision.train
--suit-only --suit-whole``, three quarters of the scenes with small cards) makes the whole-card model
(``models/card_whole.onnx``), which sees the card's two index corners and its pips at once
(:meth:`vision.recognize.OnnxRecognizer._whole_look`).
"""

from __future__ import annotations

import json
import math
import pathlib
import time

import numpy as np

from vision import pips

SUIT_SCENES = 8000
"""Training scenes of the body-suit model (``--suit-scenes``). Thirty-sixth session: twice the
seventeenth's 4,000 (and 7 epochs for 10, so a whole ``python -m vision.train`` stays under the
hour): of the validation clubs and spades 58% -> 62% confirmed at 0.95, 0.18% -> 0.16% as the
other black suit (models/HISTORY.md)."""
SUIT_VAL_SCENES = 600
"""Its validation scenes (a run's own: ``vision.train`` validates on 15% of its ``--suit-scenes``)."""
SUIT_SEED = 9_000_000
"""First scene seed of its data (the index classifier's members use seeds from 1,000,000 up)."""
SUIT_EPOCHS = 7
"""Its epochs (``--suit-epochs``): 7, so that a whole ``python -m vision.train`` stays under the
hour. The shipped file has 10 since the thirty-eighth session (``--suit-only --suit-epochs 10``,
about 17 minutes on its own): 64 to 79 s an epoch on two cores, too long for the whole run.
Jittering the next batches on a thread while torch trained was tried that session: the same
batches, but no faster (79 s for an epoch against 72 s plain, one after the other)."""
SUIT_DECKS = "train+mix2"
"""The deck set it trains on (:data:`vision.train.DECK_SETS`)."""
SMALL_SHARE = 0.5
"""Share of its scenes with small cards (:data:`vision.train.SMALL_CARDS`): the cards it checks."""
WHOLE_SMALL_SHARE = 0.75
"""Share of the whole-card model's scenes with small cards (``--suit-whole``): the cards whose index
is read unsure, which it is asked about (:meth:`vision.recognize.OnnxRecognizer._whole_look`)."""
N_RANKS = pips.N_RANKS


def jittered_quad(corners, k: int, rng: np.random.Generator, width_sd: float = 0.10, shift_sd: float = 0.03,
                  turn_sd_deg: float = 4.0) -> np.ndarray:
    """The quad (4 x 2) that a slightly wrong index corner ``k`` (0: top-left, 2: bottom-right) of
    the card ``corners`` (top-left, top-right, bottom-right, bottom-left) implies: its point shifted
    (``shift_sd`` card widths), its sides turned (``turn_sd_deg``) and its width off by a factor
    (``width_sd``): the card :meth:`vision.detect.Corner.card_quad` builds from such a proposal.
    ``width_sd`` is 0.10 since the thirty-ninth session (0.04 before): the recogniser's detections
    were 0.80 to 1.12 times the card's width (5th to 95th percentile of the right reads of 100
    tuning scenes), the width their index reads best at, and both body models trained so read more
    cards (models/HISTORY.md, "Thirty-ninth session"). ``turn_sd_deg`` is 4 since the fortieth
    session (2 before): the sides of the recogniser's detections were 1.8 degrees off the card's at
    the median, 7.8 at the 90th percentile and 10.4 at the 95th (60 unseen-deck tuning scenes), more
    on the cards it missed (models/HISTORY.md, "Fortieth session").

    >>> q = [(0, 0), (63, 0), (63, 88), (0, 88)]
    >>> np.round(jittered_quad(q, 2, np.random.default_rng(0), 0, 0, 0)).tolist()
    [[63.0, 88.0], [0.0, 88.0], [0.0, 0.0], [63.0, 0.0]]
    """
    from vision import detect

    r = np.roll(np.asarray(corners, np.float64), -k, axis=0)
    u, v = r[1] - r[0], r[3] - r[0]
    w = float(np.linalg.norm(u))
    u, v = u / w, v / np.linalg.norm(v)
    a = math.radians(rng.normal(0, turn_sd_deg)) if turn_sd_deg else 0.0
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    u, v = rot @ u, rot @ v
    p = r[0] + (rng.normal(0, shift_sd, 2) * w if shift_sd else 0.0)
    ww = w * (1 + (rng.normal(0, width_sd) if width_sd else 0.0))
    return detect.Corner((float(p[0]), float(p[1])), (float(u[0]), float(u[1])), (float(v[0]), float(v[1])),
                         ww).card_quad()


def body_samples(seed: int, decks_name: str = SUIT_DECKS, jitter: int = 2, blank: bool = True,
                 small_share: float = SMALL_SHARE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Body crops of every card of one seeded scene, ``jitter`` each (from either index corner, a
    little off): ``(crops, suit labels, ranks)``; a back's rank is -1."""
    from controller.cards import Card
    from vision import train

    rng = np.random.default_rng(seed)
    scene = train.training_scene(rng, train.DECK_SETS[decks_name], small_share)
    crops, suits, ranks = [], [], []
    for t in scene.cards:
        index = Card.parse(t.card).index
        for _ in range(jitter):
            crops.append(pips.body_crop(scene.image, jittered_quad(t.corners, int(rng.choice([0, 2])), rng),
                                        blank=blank))
            suits.append(index % 4 if t.face_up else pips.NO_FACE)
            ranks.append(index // 4 if t.face_up else -1)
    if not crops:
        return np.zeros((0, pips.BODY_H, pips.BODY_W), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.stack(crops), np.array(suits, np.int64), np.array(ranks, np.int64)


def _worker(args):
    seeds, decks_name, blank, small_share = args
    parts = [body_samples(s, decks_name, blank=blank, small_share=small_share) for s in seeds]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def make_body_dataset(first_seed: int, n: int, decks_name: str = SUIT_DECKS, workers: int = 2, blank: bool = True,
                      small_share: float = SMALL_SHARE):
    """Body crops, suit labels and ranks of ``n`` seeded scenes, rendered by ``workers`` processes."""
    from vision import train

    seeds = list(range(first_seed, first_seed + n))
    chunks = [c for c in (seeds[i :: max(1, workers * 8)] for i in range(max(1, workers * 8))) if c]
    parts = []
    t0 = time.time()
    with train.PROCESSES.Pool(workers) as pool:
        # in the chunks' order, whichever worker finishes first (as vision.train.make_dataset): a run
        # from nothing trains on the crops in the order a run from its cached crops does
        for k, part in enumerate(pool.imap(_worker, [(c, decks_name, blank, small_share) for c in chunks])):
            parts.append(part)
            print(f"  body data: {k + 1}/{len(chunks)} chunks, {sum(len(p[0]) for p in parts)} crops, "
                  f"{time.time() - t0:.0f}s", flush=True)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def build_suit_model(stem: int = 16, c: int = 24, hidden: int = 160):
    """The whole crop (90 x 64: the pips at the camera's own resolution, where a club's lobes and a
    spade's point differ by a pixel or two) folded into four channels of 45 x 32 (each 2 x 2 block
    of pixels side by side, nothing averaged away), then five 3x3 convolutions (``stem``, ``c``,
    ``2c``, ``4c``, ``4c`` channels; a max-pool after the second to the fourth: 45 x 32 -> 5 x 4;
    BN and ReLU after the pool, on the smaller map), a hidden layer of ``hidden`` and two heads:
    the suit or "no face" (5) and the rank (13). About 15 M multiply-adds a crop. The hidden layer
    sees where on the card each feature lies: the pips of the card itself, not those of a card
    lying over it.

    Seventeenth session, on the same crops, 10 epochs, the share of validation clubs and spades
    confirmed at 0.95 (and confirmed as the other black suit): the sixteenth session's 45 x 32
    crops, 33.4% (0.13%); these crops with a full-resolution 3x3 stem, 55.8% (0.13%) at 100 s an
    epoch; that stem with BN after the pools, 59.2% (0.18%); this fold, 58.2% (0.18%) at 80 s an
    epoch, and the most cards read on the tuning scenes of the four; a 4x4 stem of stride 2 pooled
    at once to 22 x 16, 45.7% (0.22%). All in float32; the fold in bfloat16, as ``python -m
    vision.train`` trains it where the CPU has it (the shipped file): 58.0% (0.18%) at 54 s."""
    import torch.nn as nn

    def block(i, o, pool):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), *([nn.MaxPool2d(2)] if pool else []),
                nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    return nn.Sequential(nn.PixelUnshuffle(2), *block(4, stem, False), *block(stem, c, True),
                         *block(c, 2 * c, True), *block(2 * c, 4 * c, True), *block(4 * c, 4 * c, False),
                         nn.Flatten(), nn.Linear(4 * c * 5 * 4, hidden), nn.ReLU(inplace=True), nn.Dropout(0.3),
                         nn.Linear(hidden, pips.N_SUIT_CLASSES + N_RANKS))


def suit_loss(out, suits, ranks):
    """Cross-entropy of the suit head, plus that of the rank head on the face-up cards."""
    import torch.nn.functional as F

    loss = F.cross_entropy(out[:, : pips.N_SUIT_CLASSES], suits, label_smoothing=0.02)
    up = ranks >= 0
    if bool(up.any()):
        loss = loss + F.cross_entropy(out[up, pips.N_SUIT_CLASSES :], ranks[up], label_smoothing=0.02) * up.float().mean()
    return loss


def confirm_stats(probs: np.ndarray, suits: np.ndarray, confirm: float) -> dict:
    """On validation crops of clubs and spades: the share whose suit the model confirms at
    ``confirm`` and the share it would confirm as the other black suit (the mistake it can let
    through)."""
    black = (suits == 0) | (suits == 3)
    p, s = probs[black], suits[black]
    other = np.where(s == 0, 3, 0)
    return {"black_crops": int(black.sum()),
            "confirmed": round(float((p[np.arange(len(s)), s] >= confirm).mean()), 4) if len(s) else 0.0,
            "other_black": round(float((p[np.arange(len(s)), other] >= confirm).mean()), 4) if len(s) else 0.0}


def train_suit(out: pathlib.Path, cache_dir: pathlib.Path, *, scenes: int = SUIT_SCENES,
               val_scenes: int = SUIT_VAL_SCENES, epochs: int = SUIT_EPOCHS, threads: int = 2, workers: int = 2,
               seed: int = 1, bf16: bool = False, confirm: float | None = None, decks: str = SUIT_DECKS,
               device: str = "cpu", blank: bool = True, small_share: float = SMALL_SHARE) -> dict:
    """Render the data of the deck set ``decks`` (:data:`vision.train.DECK_SETS`; cached under
    ``cache_dir``), train on ``device`` (a torch device: ``cpu``, ``cuda``; the rendering and the
    batches' augmentation stay on the CPU), export to ``out``; returns the figures."""
    import torch

    from vision import recognize, train

    t_start = time.time()
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    key = train.data_code_key(extra=(jittered_quad, body_samples, _worker, make_body_dataset),
                              files=("render.py", "detect.py", "pips.py"))
    if decks not in train.DECK_SETS:
        raise ValueError(f"unknown deck set {decks!r}; expected one of {', '.join(train.DECK_SETS)}")
    kind = "" if blank and small_share == SMALL_SHARE else f"{'blank' if blank else 'whole'}{small_share:g}_"
    cache = cache_dir / f"suit_{kind}{scenes}_{val_scenes}_{decks}_{key}.npz"
    if cache.exists():
        d = np.load(cache)
        x_tr, s_tr, r_tr, x_va, s_va, r_va = (d[k] for k in ("x_tr", "s_tr", "r_tr", "x_va", "s_va", "r_va"))
        print(f"body data from {cache}", flush=True)
    else:
        print(f"rendering {scenes} + {val_scenes} scenes for the body-suit model", flush=True)
        x_tr, s_tr, r_tr = make_body_dataset(SUIT_SEED, scenes, decks, workers=workers, blank=blank,
                                             small_share=small_share)
        x_va, s_va, r_va = make_body_dataset(SUIT_SEED + 500_000, val_scenes, decks, workers=workers, blank=blank,
                                             small_share=small_share)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache, x_tr=x_tr, s_tr=s_tr, r_tr=r_tr, x_va=x_va, s_va=s_va, r_va=r_va)
    t_data = time.time() - t_start
    print(f"body-suit model: {len(x_tr)} training crops, {len(x_va)} validation; data {t_data:.0f}s", flush=True)
    if not len(x_tr) or not len(x_va):
        raise SystemExit(f"no cards in {scenes} + {val_scenes} scenes: nothing to train the body-suit model on")
    dev = torch.device(device)
    model = build_suit_model().to(dev, memory_format=torch.channels_last)
    batch = min(256, len(x_tr))
    batches = len(x_tr) // batch
    steps = epochs * batches
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    xv = torch.from_numpy(pips.preprocess(x_va)).to(dev)
    for epoch in range(epochs):
        model.train()
        perm = rng.permutation(len(x_tr))
        t0, total = time.time(), 0.0
        for b in range(batches):
            idx = perm[b * batch : (b + 1) * batch]
            xb = train.augment(x_tr[idx], rng)
            turn = rng.random(len(idx)) < 0.5  # the card seen from its other index corner
            xb[turn] = xb[turn][:, ::-1, ::-1]
            xt = torch.from_numpy(pips.preprocess(xb)).to(dev).contiguous(memory_format=torch.channels_last)
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=bf16):
                loss = suit_loss(model(xt), torch.from_numpy(s_tr[idx]).to(dev), torch.from_numpy(r_tr[idx]).to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        model.eval()
        with torch.no_grad():
            pv = torch.cat([torch.softmax(model(xv[i : i + 2048])[:, : pips.N_SUIT_CLASSES], 1)
                            for i in range(0, len(xv), 2048)]).cpu().numpy()
        print(f"body-suit epoch {epoch + 1}/{epochs} loss {total / batches:.4f} "
              f"val suit acc {(pv.argmax(1) == s_va).mean():.4f} ({time.time() - t0:.0f}s)", flush=True)
    confirm = recognize.BODY_CONFIRM if confirm is None else confirm
    export_suit(model.cpu(), out, confirm, blank)
    stats = {"train_crops": int(len(x_tr)), "val_crops": int(len(x_va)), "scenes": scenes, "val_scenes": val_scenes,
             "epochs": epochs, "decks": decks, "device": device, "index_blanked": blank, "small_share": small_share,
             "val_suit_acc": round(float((pv.argmax(1) == s_va).mean()), 4),
             "confirm": confirm, "val_black": confirm_stats(pv, s_va, confirm), "data_minutes": round(t_data / 60, 1),
             "minutes": round((time.time() - t_start) / 60, 1), "crops_file": str(cache)}
    print(json.dumps(stats), flush=True)
    return stats


def export_suit(model, out: pathlib.Path, confirm: float, blank: bool = True) -> None:
    """One self-contained ONNX file: input ``bodies`` (``N x 1 x BODY_H x BODY_W``), output ``probs``
    (``N x 18``: the suit head's softmax, then the rank head's). ``blank``: its crops had their index
    regions blanked (a body-suit model); ``False``: kept (the whole-card model), said in its
    metadata (``crop``, ``index``) for the recogniser to crop as it learnt."""
    import onnx
    import torch

    class Heads(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            o = self.m(x)
            k = pips.N_SUIT_CLASSES
            return torch.cat([torch.softmax(o[:, :k], 1), torch.softmax(o[:, k:], 1)], 1)

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 1, pips.BODY_H, pips.BODY_W)
    torch.onnx.export(Heads(model.to(memory_format=torch.contiguous_format)), dummy, str(out), input_names=["bodies"],
                      output_names=["probs"], dynamic_axes={"bodies": {0: "n"}, "probs": {0: "n"}}, opset_version=17,
                      dynamo=False)
    m = onnx.load(str(out))
    for key, value in (("confirm", f"{confirm:.3f}"),
                       ("classes", "0..4: clubs, diamonds, hearts, spades, no face; 5..17: ranks 2..A"),
                       ("crop", f"{pips.BODY_W}x{pips.BODY_H} gray, the whole card, index regions "
                                + ("blanked" if blank else "kept")),
                       ("index", "blanked" if blank else "kept")):
        p = m.metadata_props.add()
        p.key, p.value = key, value
    onnx.save_model(m, str(out), save_as_external_data=False)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)", flush=True)
