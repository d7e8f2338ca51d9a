"""Train the index-corner classifier and export ``models/card_index.onnx``.

    python -m vision.train               # the shipped model -> models/card_index.onnx: two members
                                         # (--decks mix,mix2) of five convolutions (--convs 5
                                         # --channels 16), 8 epochs of 300,000 crops each
                                         # (--epoch-crops), trained side by side (in bfloat16 where
                                         # the CPU has it, --bf16), and a front gate
    python -m vision.train --front-gate-only models/card_index.onnx --decks mix --scenes 3000 \
        --val-scenes 400                 # only the front gate, before an exported model (the shipped
                                         # file's, eleventh session; the threshold is kept)
    python -m vision.train --decks mix   # one model (5000 scenes, 9 epochs)
    python -m vision.train --convs 3 --channels 20   # the three-convolution members of the models
                                         # up to the eleventh session
    python -m vision.train --suit-only   # only the body-suit model -> models/card_suit.onnx
                                         # (vision.train_suit; a full run makes it last)
    python -m vision.train --calibrate-only models/card_index.onnx --calib-scenes 600
                                         # threshold only (the shipped file's: 600 scenes)
    python -m vision.train --device cuda --threads 16 --workers 16   # the same recipe, trained on a GPU
                                         # (rendering, quantising and calibration on the CPU's cores)
    python -m vision.train --decks jumbo,jumbo --no-suit --seed 4 --out var/jumbo/card_index_jumbo.onnx \
        --cache-dir var/jumbo --stats var/jumbo/stats.json   # the jumbo-index model: two members
                                         # on decks printing their index 1.5 to 2.1 times as large,
                                         # cropped at index scales 1.2 to 1.55, and a front gate;
                                         # copied to models/card_index_jumbo.onnx and calibrated
                                         # with --calibrate-only ... --decks jumbo --calib-scenes 600
    python -m vision.train --input color ...   # BGR crops, 3-channel model (tried, not shipped)
    python -m vision.train --small-cards 0.5 ...   # half the scenes with small cards (tried, not shipped)
    python -m vision.train --decks mixr,mixr --scale-tolerance 0.3,0.45 --no-suit ...   # crops 30% off scale
                                         # labelled the card: models/card_index_tolerant.onnx, a second reader

Needs the training extra (PyTorch, onnx) and Pillow plus the fonts named by the decks in
:mod:`vision.render` (Debian: fonts-dejavu fonts-liberation fonts-freefont-ttf fonts-urw-base35
fonts-noto-core). Nothing is downloaded: every card is drawn here from fonts and shapes.

Data: rendered scenes (seeded) of the training decks; every corner candidate the classical finder
(:func:`vision.detect.find_corners`: outline corners and the print scan) proposes is cropped and
labelled against the scene's truth: the card when it is a fully visible index corner, "not an index"
when it is anything else (back, other corner, crossing edges, chip, finger, an index whose rank or
suit is partly covered, a pair of pips); indices a little covered in their margin only are left out.
So the classifier learns exactly the crops it will see at run time, negatives included.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import multiprocessing as mp
import pathlib
import sys
import time

import numpy as np

from vision import detect, render
from vision.recognize import KEEP_FLOAT_POOLING, N_CLASSES, NOT_INDEX, preprocess
from vision.train_suit import SMALL_SHARE as SUIT_SMALL_SHARE, SUIT_DECKS, SUIT_EPOCHS, SUIT_SCENES, WHOLE_SMALL_SHARE

REPO = pathlib.Path(__file__).resolve().parents[1]

PROCESSES = mp.get_context("spawn")
"""How training starts its processes (members, rendering pools, calibration pools): each a fresh
interpreter. A forked child inherits the parent's thread pools in whatever state fork caught them
(OpenCV's, PyTorch's, onnxruntime's), and OpenCV's deadlocks the child's first
``cv2.setNumThreads`` when the parent used it from several threads before forking, as a test
process or a training run that already rendered, trained or calibrated has done. Starting a
process costs about a second."""


SCALE_KEEP, SCALE_REFUSE = 0.15, 0.3
"""A crop whose implied card width is off the card's by up to ``SCALE_KEEP`` (a share) is labelled
the card, by more than ``SCALE_REFUSE`` "not an index"; between, it is left out
(``--scale-tolerance``)."""


def label_corners(scene: render.Scene, corners: list[detect.Corner],
                  tolerance: tuple[float, float] = (SCALE_KEEP, SCALE_REFUSE)) -> list[int | None]:
    """Label each corner candidate: card index, ``NOT_INDEX``, or ``None`` (ambiguous, skip).

    A candidate belongs to a card's index corner when it lies within 0.13 card widths of it and
    its short side points along the card's (cosine over 0.93); where several cards' corners claim
    it, the card drawn last (the one on top) decides."""
    from controller.cards import Card

    if not scene.cards:
        return [NOT_INDEX] * len(corners)
    q = np.array([t.corners for t in scene.cards], np.float64)  # cards x 4 x 2
    gp = q[:, [0, 2]]  # each card's two index corners (its top-left and bottom-right)
    gu = np.stack((q[:, 1] - q[:, 0], q[:, 3] - q[:, 2]), axis=1)  # cards x 2 x 2: short sides
    w = np.sqrt(gu[..., 0] * gu[..., 0] + gu[..., 1] * gu[..., 1])
    gu = gu / np.maximum(w, 1e-6)[..., None]
    labels: list[int | None] = []
    for c in corners:
        d = np.array(c.point) - gp
        near = np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1]) < 0.13 * w
        along = gu[..., 0] * c.u[0] + gu[..., 1] * c.u[1] > 0.93
        hits = np.flatnonzero(near & along)
        if not len(hits):
            labels.append(NOT_INDEX)
            continue
        i, k = divmod(int(hits[-1]), 2)  # the last card drawn that claims it
        t = scene.cards[i]
        scale_err = abs(c.card_width / w[i, k] - 1)  # the card the crop implies (index_scale)
        lab: int | None
        if not t.face_up or scale_err > tolerance[1]:
            lab = NOT_INDEX  # a back, or a crop at the wrong scale: refuse it
        elif scale_err > tolerance[0]:
            lab = None
        elif t.index_visible[k] >= 0.98:
            lab = Card.parse(t.card).index
        elif min(t.index_parts_visible[k]) < 0.9:
            lab = NOT_INDEX  # the rank or the suit partly hidden: refuse, never guess
        elif t.index_visible[k] >= 0.6:
            lab = None
        else:
            lab = NOT_INDEX
        labels.append(lab)
    return labels


def training_scene(rng: np.random.Generator, decks, small: float = 0.0) -> render.Scene:
    """One training scene: 800x600 (four in five) or 1200x800; a share ``small`` of the scenes
    has cards :data:`SMALL_CARDS` wide, the rest 52..150 pixels as in the benchmark (with no share,
    nothing more is drawn from ``rng``: the scenes are those of earlier runs)."""
    w, h = (800, 600) if rng.random() < 0.8 else (1200, 800)
    width = rng.uniform(*SMALL_CARDS) if small and rng.random() < small else None
    return render.render_scene(rng, decks, width=w, height=h, card_width=width)


def scene_samples(seed: int, decks=render.TRAIN_DECKS, jitter: int = 1, keep_negatives: float = 0.4,
                  color: bool = False, small: float = 0.0,
                  index_scales: tuple[float, float] | None = None,
                  tolerance: tuple[float, float] = (SCALE_KEEP, SCALE_REFUSE)) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels from one seeded scene (a random share ``keep_negatives`` of the
    "not an index" crops is kept: the proposers make about four of them per index crop).

    ``small``: the share of scenes whose cards are drawn :data:`SMALL_CARDS` wide
    (:func:`training_scene`). ``index_scales``: decks printing a jumbo index (``--decks jumbo``):
    each scene's corners are proposed and cropped at an index scale drawn from this range times
    the width, as a camera with that ``camera.index_scale`` proposes them
    (:attr:`vision.detect.Corner.index_scale`), and labelled by the card each implies. ``tolerance``:
    :func:`label_corners`' (``--scale-tolerance``)."""
    rng = np.random.default_rng(seed)
    scene = training_scene(rng, decks, small)
    scale = 1.0 if index_scales is None else float(rng.uniform(*index_scales))

    def scaled(corners: list[detect.Corner]) -> list[detect.Corner]:
        return corners if scale == 1.0 else [dataclasses.replace(c, index_scale=scale) for c in corners]

    if rng.random() < 0.5:  # the width as a table file gives it
        corners = scaled(detect.find_corners(scene.image, scene.card_width * scale))
    else:  # the width ladder the recogniser tries when it has no width: right and wrong rungs
        masks = detect.card_masks(scene.image)
        rungs = rng.choice(len(detect.WIDTH_LADDER), 2, replace=False)
        corners = [c for k in rungs
                   for c in scaled(detect.find_corners(scene.image, detect.WIDTH_LADDER[k] * scale, masks=masks))]
    labels = label_corners(scene, corners, tolerance)
    crops, ys = [], []
    for c, lab in zip(corners, labels):
        if lab is None or (lab == NOT_INDEX and rng.random() > keep_negatives):
            continue
        crops.append(detect.crop_corner(scene.image, c, color=color))
        ys.append(lab)
        for _ in range(jitter if lab != NOT_INDEX else 0):
            j = (rng.normal(0, 0.02), rng.normal(0, 0.015), rng.normal(0, 0.06), rng.normal(0, 0.04))
            crops.append(detect.crop_corner(scene.image, c, j, color=color))
            ys.append(lab)
    if not crops:
        shape = (0, detect.CROP_H, detect.CROP_W) + ((3,) if color else ())
        return np.zeros(shape, np.uint8), np.zeros((0,), np.int64)
    return np.stack(crops), np.array(ys, np.int64)


JUMBO_FACTORS = (1.5, 2.1)
"""How many times as large as its standard index each deck of ``--decks jumbo`` prints its index
(each deck its own factor: :func:`vision.render.jumbo_decks`)."""
JUMBO_INDEX_SCALES = (1.2, 1.55)
"""The ``camera.index_scale`` each scene of ``--decks jumbo`` is proposed and cropped at (drawn per
scene): the scales ``cardroom vision calibrate`` advises for such decks read with the standard model."""
JUMBO_CALIBRATION_SCALE = 1.35
"""The index scale the jumbo model's threshold is calibrated at (the validation scenes read at their
card width, as a configured camera reads)."""
DECK_SETS = {"train": render.TRAIN_DECKS, "train+mix": render.TRAIN_DECKS + render.MIX_DECKS,
             "train+mix2": render.TRAIN_DECKS + render.MIX_DECKS + render.MIX2_DECKS,
             "train+mixl": render.TRAIN_DECKS + render.MIX_DECKS + render.LAYOUT_DECKS,
             "train+mix2+mixl": render.TRAIN_DECKS + render.MIX_DECKS + render.MIX2_DECKS + render.LAYOUT_DECKS,
             "train+mixr": render.TRAIN_DECKS + render.MIX_DECKS + render.LAYOUT_DECKS + render.INDEX_DECKS,
             "jumbo": render.jumbo_decks(render.TRAIN_DECKS + render.MIX_DECKS + render.MIX2_DECKS, JUMBO_FACTORS),
             "unseen": render.UNSEEN_DECKS}
"""Deck sets by name: ``train`` (the named training decks, the benchmark's "seen" set),
``train+mix`` (with :data:`vision.render.MIX_DECKS`, what ``--decks mix`` trains on), ``train+mix2``
(also :data:`vision.render.MIX2_DECKS`, ``--decks mix2``), ``train+mixl`` (the named, the mixed and
:data:`vision.render.LAYOUT_DECKS`, ``--decks mixl``), ``train+mix2+mixl`` (all of those: for the body-suit
model, ``--suit-decks``), ``train+mixr`` (``train+mixl`` and :data:`vision.render.INDEX_DECKS`, whose indices
and stock vary as printed decks' do: ``--decks mixr``), ``jumbo`` (the decks of ``train+mix2`` printing a
"jumbo index", each :data:`JUMBO_FACTORS` times as large: ``--decks jumbo``, a model for rooms that deal
such decks, read with ``camera.index_scale`` :data:`JUMBO_INDEX_SCALES`), ``unseen``."""
DECKS_FLAG = {"base": "train", "mix": "train+mix", "mix2": "train+mix2", "mixl": "train+mixl", "mixr": "train+mixr",
              "jumbo": "jumbo"}
"""``--decks`` values and the deck sets they train on."""
SMALL_CARDS = (52.0, 80.0)
"""Card widths (pixels) of the small-card scenes ``--small-cards`` adds: a whole table seen by one
1920x1080 camera shows cards about 50 to 75 pixels wide, and these are the cards read least."""
MAX_WRONG = 5e-4
"""Wrong reads per readable card the threshold may let through on the calibration scenes: half
the target of 1 in 1,000 (:func:`calibrate_scenes`)."""


def _worker(args):
    seeds, decks_name, color, jitter, small, tolerance = args
    decks = DECK_SETS[decks_name]
    xs, ys = [], []
    scales = JUMBO_INDEX_SCALES if decks_name == "jumbo" else None
    for s in seeds:
        x, y = scene_samples(s, decks, jitter=jitter, color=color, small=small, index_scales=scales,
                             tolerance=tolerance)
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def make_dataset(first_seed: int, n: int, decks_name: str = "train", workers: int = 2, color: bool = False,
                 jitter: int = 1, small: float = 0.0,
                 tolerance: tuple[float, float] = (SCALE_KEEP, SCALE_REFUSE)) -> tuple[np.ndarray, np.ndarray]:
    seeds = list(range(first_seed, first_seed + n))
    chunks = [c for c in (seeds[i::max(1, workers * 8)] for i in range(max(1, workers * 8))) if c]
    xs, ys = [], []
    t0 = time.time()
    with PROCESSES.Pool(workers) as pool:
        # in the chunks' order, whichever worker finishes first: the same seeds make the same crops in
        # the same order, so a run from nothing trains as a run from its cached crops does
        for k, (x, y) in enumerate(pool.imap(_worker, [(c, decks_name, color, jitter, small, tolerance)
                                                          for c in chunks])):
            xs.append(x)
            ys.append(y)
            print(f"  data {decks_name}: {k + 1}/{len(chunks)} chunks, {sum(len(v) for v in ys)} crops, "
                  f"{time.time() - t0:.0f}s", flush=True)
    return np.concatenate(xs), np.concatenate(ys)


def build_model(c: int = 16, in_channels: int = 1, heads: str = "factor", convs: int = 3):
    """The classifier: :func:`_trunk` (``convs`` convolutions) and its heads.

    ``heads="flat"``: one 53-way softmax. ``heads="factor"`` (shipped): one trunk
    and three heads, index or not (2), rank (13) and suit (4); the 53 probabilities are
    ``P(index) * P(rank) * P(suit)`` for the cards and ``P(not an index)`` for class 52. Every index
    crop teaches the rank head with four times the examples per class, and the suit head with
    thirteen times, of a flat head, and a rank or suit seen in one font carries over to the others."""
    import torch
    import torch.nn as nn

    if heads == "factor":
        class FactorNet(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.trunk = nn.Sequential(*_trunk(c, in_channels, convs), nn.Linear(4 * c * 6 * 3, 160),
                                           nn.ReLU(inplace=True), nn.Dropout(0.3))
                self.head = nn.Linear(160, 2 + 13 + 4)

            def forward(self, x):  # logits: [index, not] + 13 ranks + 4 suits
                return self.head(self.trunk(x))

            @staticmethod
            def probs(logits):
                p_idx = torch.softmax(logits[:, :2], 1)
                p_rank = torch.softmax(logits[:, 2:15], 1)
                p_suit = torch.softmax(logits[:, 15:19], 1)
                cards = (p_rank[:, :, None] * p_suit[:, None, :]).reshape(-1, 52) * p_idx[:, :1]
                return torch.cat([cards, p_idx[:, 1:2]], 1)

        return FactorNet()

    return nn.Sequential(*_trunk(c, in_channels, convs), nn.Linear(4 * c * 6 * 3, 128), nn.ReLU(inplace=True),
                         nn.Dropout(0.3), nn.Linear(128, N_CLASSES))


def model_probs(model, x):
    """``N x 53`` class probabilities of either kind of model."""
    import torch

    out = model(x)
    return model.probs(out) if hasattr(model, "probs") else torch.softmax(out, 1)


def model_loss(model, x, y, weights, smoothing: float = 0.0):
    import torch
    import torch.nn.functional as F

    out = model(x)
    if not hasattr(model, "probs"):
        return F.cross_entropy(out, y, weight=weights, label_smoothing=smoothing)
    pos = y != NOT_INDEX
    loss = F.cross_entropy(out[:, :2], (~pos).long(), weight=weights, label_smoothing=smoothing)
    if bool(pos.any()):
        yp = y[pos]
        loss = loss + F.cross_entropy(out[pos, 2:15], yp // 4, label_smoothing=smoothing) * pos.float().mean()
        loss = loss + F.cross_entropy(out[pos, 15:19], yp % 4, label_smoothing=smoothing) * pos.float().mean()
    return loss


CONVS = (3, 5)
"""Trunks :func:`_trunk` builds, by their number of convolutions (``--convs``)."""


def _trunk(c: int, in_channels: int, convs: int = 3) -> list:
    """Three stages of 3x3 convolutions (``c``, ``2c`` and ``4c`` channels, BN, ReLU), each ending in a
    2x2 max-pool: 48 x 28 -> 6 x 3. ``convs=3``: one convolution a stage (the models up to the
    eleventh session, 20 channels: 5.3 M multiply-adds a crop); ``convs=5``: a second one in the
    second and third stages (the twelfth session's, 16 channels: 9.7 M)."""
    import torch.nn as nn

    if convs not in CONVS:
        raise ValueError(f"convs must be one of {CONVS}, not {convs}")

    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    again = convs == 5
    return [
        *block(in_channels, c), nn.MaxPool2d(2),                                   # 24 x 14
        *block(c, 2 * c), *(block(2 * c, 2 * c) if again else []), nn.MaxPool2d(2),  # 12 x 7
        *block(2 * c, 4 * c), *(block(4 * c, 4 * c) if again else []), nn.MaxPool2d(2),  # 6 x 3
        nn.Flatten(),
    ]


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Photometric jitter on uint8 crops (contrast, gamma, noise, occasional blur); colour crops
    (``N x H x W x 3``) also get a white-balance tint per channel and a random saturation."""
    import cv2

    x = x.astype(np.float32)
    n = len(x)
    shape = (n,) + (1,) * (x.ndim - 1)
    if x.ndim == 4:
        gray = x @ np.array([0.114, 0.587, 0.299], np.float32)
        sat = rng.uniform(0.4, 1.3, (n, 1, 1, 1))
        x = gray[..., None] + (x - gray[..., None]) * sat
        x = x * rng.uniform(0.85, 1.15, (n, 1, 1, 3))
        x = np.clip(x, 0, 255)
    gamma = rng.uniform(0.7, 1.4, shape)
    x = 255.0 * (x / 255.0) ** gamma
    x = x * rng.uniform(0.6, 1.2, shape) + rng.uniform(-30, 30, shape)
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 8, shape)
    blur = rng.random(n) < 0.2
    for i in np.nonzero(blur)[0]:
        x[i] = cv2.GaussianBlur(x[i], (0, 0), rng.uniform(0.5, 1.0))
    return np.clip(x, 0, 255)


EPOCH_CROPS = 300_000
"""Crops an epoch trains on (``--epoch-crops``): a fresh random draw from all the training crops
every epoch, index and not-index alike, so the classes keep their shares and every crop is likely
seen over the epochs. It bounds the training time: the proposers made about 318,000 to 380,000
training crops a member in the fifth session and, with the eighth session's split index print,
416,000 to 440,000, whose epochs (270 to 425 s) took the two-member run past the hour."""


def epoch_size(n: int, cap: int | None) -> int:
    """Crops an epoch trains on: all ``n``, or ``cap`` when there are more (0 or None: no cap).

    >>> epoch_size(416_004, 300_000), epoch_size(1_000, 300_000), epoch_size(1_000, 0)
    (300000, 1000, 1000)
    """
    return min(n, cap) if cap else n


def data_code_key(extra: tuple = (), files: tuple[str, ...] = ("render.py", "detect.py")) -> str:
    """A key of the code the training crops depend on: the renderer, the proposers and the labelling
    functions here (a change to the network or the training loop keeps the cached crops). ``extra``:
    more functions whose crops are keyed (the body-suit model's, :mod:`vision.train_suit`), and
    ``files`` the modules of ``vision/`` read whole."""
    import hashlib
    import inspect

    parts = [(REPO / "vision" / f).read_bytes() for f in files]
    parts += [inspect.getsource(f).encode() for f in (label_corners, training_scene, scene_samples, _worker,
                                                      make_dataset, *extra)]
    return hashlib.sha256(b"".join(parts)).hexdigest()[:10]


BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""CPU flags (``/proc/cpuinfo``) under which ``--bf16 auto`` trains in bfloat16: with AMX the
training step took 0.4 to 0.6 times as long as in float32 (twelfth session)."""


def bf16_fast(cpuinfo: str | None = None) -> bool:
    """Whether this CPU multiplies bfloat16 natively (one of :data:`BF16_FLAGS`).

    >>> bf16_fast("flags : fpu sse avx512f amx_bf16 amx_tile"), bf16_fast("flags : fpu sse avx2")
    (True, False)
    """
    if cpuinfo is None:
        try:
            cpuinfo = pathlib.Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    flags = {f for line in cpuinfo.splitlines() if line.startswith("flags") for f in line.split(":", 1)[-1].split()}
    return any(f in flags for f in BF16_FLAGS)


def use_bf16(args) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``--bf16`` (``on``, ``off`` or ``auto``: on a GPU, or where :func:`bf16_fast`) trains in
    bfloat16."""
    on_gpu = getattr(args, "device", "cpu") != "cpu"
    return args.bf16 == "on" or (args.bf16 == "auto" and (on_gpu or bf16_fast()))


def _batch(x: np.ndarray, y: np.ndarray, idx: np.ndarray, rng: np.random.Generator,
           dev):  # type: ignore[no-untyped-def]
    """One training batch on ``dev``: the crops ``x[idx]`` augmented (:func:`augment`, drawing from
    ``rng``) and standardised, channels-last, and their labels ``y[idx]``."""
    import torch

    xb = torch.from_numpy(preprocess(augment(x[idx], rng))).to(dev).contiguous(memory_format=torch.channels_last)
    return xb, torch.from_numpy(y[idx]).to(dev)


def train(args) -> int:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.time()

    code = data_code_key()
    color = args.input == "color"
    decks = DECKS_FLAG[args.decks]
    tag = ("" if args.decks == "base" else f"_{args.decks}") + (f"_small{args.small_cards:g}" if args.small_cards else "")
    if args.scale_tolerance != (SCALE_KEEP, SCALE_REFUSE):
        tag += "_scale{:g}-{:g}".format(*args.scale_tolerance)
    cache = pathlib.Path(args.cache_dir) / (f"train_{args.seed}_{args.scenes}_{args.val_scenes}_{args.input}_j{args.jitter}{tag}_"
                            f"{code}.npz")
    if cache.exists():
        d = np.load(cache)
        x_tr, y_tr, x_va, y_va = d["x_tr"], d["y_tr"], d["x_va"], d["y_va"]
        print(f"data from {cache}")
    else:
        print(f"rendering {args.scenes} training scenes + {args.val_scenes} validation scenes", flush=True)
        x_tr, y_tr = make_dataset(args.seed * 1_000_000, args.scenes, decks, args.workers, color, args.jitter,
                                  args.small_cards, args.scale_tolerance)
        x_va, y_va = make_dataset(args.seed * 1_000_000 + 500_000, args.val_scenes, decks, args.workers, color,
                                  args.jitter, args.small_cards, args.scale_tolerance)
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache, x_tr=x_tr, y_tr=y_tr, x_va=x_va, y_va=y_va)
    t_data = time.time() - t_start
    print(f"train {len(x_tr)} crops ({(y_tr != NOT_INDEX).mean():.0%} index; "
          f"{epoch_size(len(x_tr), args.epoch_crops)} an epoch), val {len(x_va)}; data {t_data:.0f}s", flush=True)
    model = build_model(args.channels, 3 if color else 1, args.heads, args.convs)
    bf16 = use_bf16(args)
    print(f"model: {args.convs} convolutions from {args.channels} channels, trained in "
          f"{'bfloat16' if bf16 else 'float32'}", flush=True)
    # channels-last convolutions: about 1.2x faster on two threads and 1.6x on one (oneDNN)
    dev = torch.device(args.device)
    model = model.to(dev, memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    per_epoch = epoch_size(len(x_tr), args.epoch_crops)
    steps = args.epochs * math.ceil(per_epoch / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    xv = torch.from_numpy(preprocess(x_va)).to(dev)
    # weight the "not an index" class up: a false read costs more than a missed one
    if args.heads == "factor":
        weights = torch.tensor([1.0, 2.0])  # [index, not an index]
    else:
        weights = torch.ones(N_CLASSES)
        weights[NOT_INDEX] = 2.0
    weights = weights.to(dev)
    for epoch in range(args.epochs):
        model.train()
        perm = rng.permutation(len(x_tr))[:per_epoch]
        t0 = time.time()
        total = 0.0
        for b in range(0, len(perm), args.batch):
            idx = perm[b : b + args.batch]
            xb, yb = _batch(x_tr, y_tr, idx, rng, dev)
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=bf16):
                loss = model_loss(model, xb, yb, weights, args.smoothing)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        model.eval()
        with torch.no_grad():
            pv = torch.cat([model_probs(model, xv[i : i + 2048]) for i in range(0, len(xv), 2048)]).cpu().numpy()
        acc = (pv.argmax(1) == y_va).mean()
        print(f"epoch {epoch + 1}/{args.epochs} loss {total / len(perm):.4f} val acc {acc:.4f} "
              f"({time.time() - t0:.0f}s)", flush=True)
    threshold = calibrate(pv, y_va)
    print(f"crop threshold {threshold:.3f}")
    export(model.cpu(), pathlib.Path(args.out), threshold, 3 if color else 1)
    if args.quantize:
        from vision import modelfile

        pick = np.random.default_rng(args.seed).choice(len(x_va), min(3000, len(x_va)), replace=False)
        modelfile.quantize(pathlib.Path(args.out), pathlib.Path(args.out), x_va[pick])
        print(f"quantized to int8: {pathlib.Path(args.out).stat().st_size / 1e6:.2f} MB", flush=True)
    if args.decks == "jumbo":  # read only at the index scales it was cropped at (the recogniser refuses others)
        set_metadata(pathlib.Path(args.out), "index_scales", f"{JUMBO_INDEX_SCALES[0]:g} {JUMBO_INDEX_SCALES[1]:g}")
    stats = {"train_crops": int(len(x_tr)), "epoch_crops": per_epoch, "val_crops": int(len(x_va)), "val_acc": float(acc),
             "crops_file": str(cache),
             "data_minutes": round(t_data / 60, 1), "scenes": args.scenes, "epochs": args.epochs, "decks": args.decks,
             "small_cards": args.small_cards, "seed": args.seed, "channels": args.channels, "convs": args.convs,
             "bf16": bf16, "device": args.device}
    if args.calib_scenes:  # a member of an ensemble is calibrated as part of the ensemble instead
        threshold, scene_stats = calibrate_scenes(pathlib.Path(args.out), args.calib_scenes, workers=args.workers,
                                                  floor=args.floor, max_wrong=args.max_wrong,
                                                  jumbo=args.decks == "jumbo")
        set_threshold(pathlib.Path(args.out), threshold)
        print(f"scene threshold {threshold:.4f} {json.dumps(scene_stats)}", flush=True)
        stats.update(threshold=threshold, calibration=scene_stats)
    stats["minutes"] = round((time.time() - t_start) / 60, 1)
    pathlib.Path(args.stats).write_text(json.dumps(stats, indent=1))
    print(json.dumps(stats), flush=True)
    return 0


class _Tagged:
    """A text stream that starts every line with a tag (members training side by side)."""

    def __init__(self, stream, tag: str) -> None:  # type: ignore[no-untyped-def]
        self.stream, self.tag, self.fresh = stream, tag, True

    def write(self, text: str) -> int:
        for part in text.splitlines(keepends=True):
            if self.fresh:
                self.stream.write(self.tag)
            self.stream.write(part)
            self.fresh = part.endswith("\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


def _member(args, tag: str) -> None:  # type: ignore[no-untyped-def]
    sys.stdout = _Tagged(sys.stdout, tag)  # type: ignore[assignment]
    sys.exit(train(args))


def member_gate(members: int, floor: float) -> float:
    """The gate of an ensemble of ``members`` whose threshold is at least ``floor``: the first
    member's probability below which the mean cannot reach the floor (the others give at most 1),
    so gating there changes no read that can pass. Two members, floor 0.95: 0.9.

    >>> member_gate(2, 0.95), member_gate(3, 0.95)
    (0.9, 0.85)
    """
    return round(members * floor - (members - 1), 6)


def train_ensemble(args) -> int:  # type: ignore[no-untyped-def]
    """One member per deck set in ``args.decks``, trained side by side (one process and
    ``threads // members`` threads each: two one-thread processes train about 1.6 times faster than
    one two-thread process trains them one after the other), each on its own scenes (member ``k``:
    seed ``args.seed + k``); each quantised, then the gated ensemble (:func:`vision.modelfile.ensemble`)
    is written to ``args.out`` and its threshold calibrated on whole scenes."""
    from vision import modelfile

    t_start = time.time()
    sets = args.decks.split(",")
    n = len(sets)
    floor = args.floor
    gate = member_gate(n, floor)
    if not 0.0 < gate < 1.0:
        raise SystemExit(f"--floor {floor} leaves no gate for {n} members (the first member would need {gate})")
    out = pathlib.Path(args.out)
    work = pathlib.Path(args.cache_dir) / "members"
    work.mkdir(parents=True, exist_ok=True)
    procs, paths = [], []
    for k, decks in enumerate(sets):
        member = argparse.Namespace(**vars(args))
        member.decks, member.seed = decks, args.seed + k
        member.threads, member.workers = max(1, args.threads // n), max(1, args.workers // n)
        member.out = str(work / f"member{k}_{decks}_s{member.seed}.onnx")
        member.stats = str(work / f"member{k}_{decks}_s{member.seed}.json")
        member.calib_scenes = 0
        paths.append(pathlib.Path(member.out))
        # not a daemon, so it may render with a pool of its own
        proc = PROCESSES.Process(target=_member, args=(member, f"[member {k} {decks}] "))
        proc.start()
        procs.append(proc)
    for proc in procs:
        proc.join()
    failed = [k for k, proc in enumerate(procs) if proc.exitcode != 0]
    if failed:
        print(f"member(s) {failed} failed: no ensemble written", file=sys.stderr)
        return 1
    t_members = time.time() - t_start
    modelfile.ensemble(paths, out, gate=gate)
    print(f"ensemble of {n} (gate {gate}) -> {out} ({out.stat().st_size / 1e6:.2f} MB); "
          f"members took {t_members / 60:.1f} min", flush=True)
    first = json.loads(paths[0].with_suffix(".json").read_text())
    crops = np.load(first["crops_file"])
    try:
        front: dict = add_front_gate(out, out, crops["x_tr"], crops["x_va"], threads=args.threads, seed=args.seed,
                                           device=args.device)
    except NothingRead as e:  # a toy run's model: the ensemble ships without a front gate, and says so
        print(f"no front gate: {e}", flush=True)
        front = {"skipped": str(e)}
    threshold, scene_stats = calibrate_scenes(out, args.calib_scenes, floor=floor, max_wrong=args.max_wrong,
                                              workers=args.workers, jumbo=set(sets) == {"jumbo"})
    set_threshold(out, threshold)
    print(f"scene threshold {threshold:.4f} {json.dumps(scene_stats)}", flush=True)
    stats = {"members": [json.loads(p.with_suffix(".json").read_text()) for p in paths],
             "gate": gate, "front_gate": front, "threshold": threshold, "calibration": scene_stats,
             "member_minutes": round(t_members / 60, 1), "minutes": round((time.time() - t_start) / 60, 1)}
    pathlib.Path(args.stats).write_text(json.dumps(stats, indent=1))
    print(json.dumps(stats), flush=True)
    return 0


FRONT_GATE_CHANNELS = (8, 16, 32)
"""Widths of the front gate's three convolutions (:func:`build_front_gate`)."""
FRONT_GATE_SURE = 0.9
"""No validation crop the classifier reads as a card at this or more may be refused by the front
gate (the ensemble's own gate: below it no read can reach the threshold's floor of 0.95)."""
FRONT_GATE_MISS = 1e-3
"""At most this share of the validation crops the classifier reads at
:data:`vision.modelfile.GATE_KEEP` or more may be refused by the front gate."""
FRONT_GATE_CROPS = 150_000
"""Crops each epoch of the front gate trains on (drawn afresh from all of them)."""


class NothingRead(ValueError):
    """The classifier reads none of the validation crops as a card (a toy run): nothing to keep."""


def build_front_gate(channels: tuple[int, int, int] = FRONT_GATE_CHANNELS, in_channels: int = 1):
    """The front gate: three stride-2 convolutions (8, 16, 32 channels, BN, ReLU) and one logit,
    whether the crop is worth the classifier's look; about 0.2 M multiply-adds a crop against the
    classifier's 5.3 M a member, and about a tenth of its time in onnxruntime. ``in_channels``: the
    classifier's (3 for one trained on BGR crops, ``--input color``)."""
    import torch.nn as nn

    def block(i, o):
        return [nn.Conv2d(i, o, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    a, b, c = channels
    return nn.Sequential(*block(in_channels, a), *block(a, b), *block(b, c), nn.Flatten(),  # 24x14, 12x7, 6x4
                         nn.Linear(c * 6 * 4, 1))


def add_front_gate(model_path: pathlib.Path, out: pathlib.Path, x_tr: np.ndarray, x_va: np.ndarray,
                   epochs: int = 5, batch: int = 256, threads: int = 2, seed: int = 0, device: str = "cpu") -> dict:
    """Distil a front gate from the classifier ``model_path`` and write both as one file ``out``
    (:func:`vision.modelfile.front_gate`).

    The classifier reads the crops ``x_tr`` and ``x_va`` (uint8, as cropped at run time, from
    rendered scenes); the gate learns to keep those it reads as a card with
    :data:`vision.modelfile.GATE_KEEP` or more, with such crops weighted five times. Its threshold
    is the lowest of: every validation crop read at :data:`FRONT_GATE_SURE` or more kept, and all
    but :data:`FRONT_GATE_MISS` of those read at ``GATE_KEEP`` or more kept. Returns the figures."""
    import tempfile

    import onnxruntime as ort
    import torch
    import torch.nn.functional as F

    from vision import modelfile

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    teacher = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"],
                                   disabled_optimizers=KEEP_FLOAT_POOLING)  # (the same outputs, sooner)

    def best_card(x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros(0, np.float32)
        return np.concatenate([teacher.run(None, {"crops": preprocess(x[i : i + 1024])})[0][:, :NOT_INDEX].max(1)
                               for i in range(0, len(x), 1024)])

    t_tr, t_va = best_card(x_tr), best_card(x_va)
    y_tr = (t_tr >= modelfile.GATE_KEEP).astype(np.float32)
    keep_va, sure_va = t_va >= modelfile.GATE_KEEP, t_va >= FRONT_GATE_SURE
    if not keep_va.any():
        raise NothingRead(f"{model_path} reads no validation crop as a card: no front gate can be fitted to it")
    dev = torch.device(device)
    colour = x_tr.ndim == 4  # BGR crops (--input color): the gate reads what the classifier reads
    net = build_front_gate(in_channels=3 if colour else 1).to(dev, memory_format=torch.channels_last)
    per_epoch = min(len(x_tr), FRONT_GATE_CROPS)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * math.ceil(per_epoch / batch),
                                                pct_start=0.15)
    for epoch in range(epochs):
        net.train()
        perm = rng.permutation(len(x_tr))[:per_epoch]
        for b in range(0, len(perm), batch):
            idx = perm[b : b + batch]
            xb, yb = _batch(x_tr, y_tr, idx, rng, dev)
            loss = F.binary_cross_entropy_with_logits(net(xb)[:, 0], yb, weight=1.0 + 4.0 * yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"front gate epoch {epoch + 1}/{epochs} ({time.time() - t0:.0f}s)", flush=True)
    net = net.cpu().eval()

    class Score(torch.nn.Module):
        def __init__(self, m):  # type: ignore[no-untyped-def]
            super().__init__()
            self.m = m

        def forward(self, x):  # type: ignore[no-untyped-def]
            return torch.sigmoid(self.m(x))

    with tempfile.TemporaryDirectory() as tmp:
        gate_file = pathlib.Path(tmp) / "front_gate.onnx"
        torch.onnx.export(Score(net), torch.zeros(1, 3 if colour else 1, detect.CROP_H, detect.CROP_W), str(gate_file),
                          input_names=["crops"], output_names=["keep"],
                          dynamic_axes={"crops": {0: "n"}, "keep": {0: "n"}}, opset_version=17, dynamo=False)
        # the threshold from the scores onnxruntime gives (as at run time), in float32 as compared there
        gate = ort.InferenceSession(str(gate_file), opts, providers=["CPUExecutionProvider"])
        score = np.concatenate([gate.run(None, {"crops": preprocess(x_va[i : i + 2048])})[0][:, 0]
                                for i in range(0, len(x_va), 2048)]).astype(np.float32)
        cut = np.float32(np.quantile(score[keep_va], FRONT_GATE_MISS, method="lower"))
        if sure_va.any():
            cut = min(cut, score[sure_va].min())
        cut = float(max(cut, np.float32(1e-4)))
        modelfile.front_gate(gate_file, model_path, out, cut)
    refused = score < cut
    stats = {"gate": round(cut, 6), "train_crops": int(len(x_tr)), "val_crops": int(len(x_va)),
             "val_kept_pct": round(100.0 * float((~refused).mean()), 1),
             "val_refused_pct_of_not_read": round(100.0 * float(refused[~keep_va].mean()), 1) if (~keep_va).any() else None,
             "val_refused_read": int((refused & keep_va).sum()), "val_refused_sure": int((refused & sure_va).sum()),
             "minutes": round((time.time() - t0) / 60, 1)}
    print(f"front gate -> {out}: {json.dumps(stats)}", flush=True)
    return stats


def calibrate(probs: np.ndarray, y: np.ndarray, max_wrong: float = 2e-4, floor: float = 0.9) -> float:
    """Smallest threshold (at least ``floor``) at which wrong card reads, per true index crop, are at
    most ``max_wrong`` on validation crops."""
    k = probs.argmax(1)
    conf = probs.max(1)
    is_card = k != NOT_INDEX
    wrong = is_card & (k != y)
    n_index = max(1, int((y != NOT_INDEX).sum()))
    for t in np.arange(floor, 0.9999, 0.002):
        if (wrong & (conf >= t)).sum() / n_index <= max_wrong:
            return float(round(t, 3))
    return 0.999


def scene_reads(model_path: pathlib.Path, decks, seeds, threshold: float | None = None, workers: int = 1,
                index_scale: float | None = None) -> tuple[list[tuple[float, bool]], int]:
    """Run the whole recogniser on rendered scenes: ``([(confidence, right)], readable cards)`` for
    every card read (any confidence), ``right`` when a face-up card of that name lies there.
    ``threshold``: the recogniser's own (default: the model file's); the width search and the second
    look depend on it, so the reads do too. ``workers``: processes sharing the scenes (the reads
    come back in the order of ``seeds`` whatever the number). ``index_scale``: each scene read at
    its own card width with this ``camera.index_scale``, as a configured camera reads (default: the
    width searched, index scale 1)."""
    seeds = list(seeds)
    workers = max(1, min(workers, len(seeds)))
    if workers == 1:
        per_seed, readable = _scene_reads_one(model_path, decks, seeds, threshold, index_scale)
    else:  # worker i reads seeds i, i + workers, ...: put them back in place
        with PROCESSES.Pool(workers) as pool:
            parts = pool.starmap(_scene_reads_one, [(model_path, decks, seeds[i::workers], threshold, index_scale)
                                                    for i in range(workers)])
        per_seed = [[] for _ in seeds]
        for i, (mine, _) in enumerate(parts):
            per_seed[i::workers] = mine
        readable = sum(n for _, n in parts)
    return [x for r in per_seed for x in r], readable


def _scene_reads_one(model_path, decks, seeds, threshold, index_scale=None):  # type: ignore[no-untyped-def]
    import cv2

    from vision.recognize import OnnxRecognizer

    cv2.setNumThreads(1)
    # the model calibrated alone, with the body-suit model but no layout index model, no scale-tolerant
    # index model and no whole-card model: those are themselves calibrated this way, and the threshold of
    # the index classifier is its own reads'
    rec = OnnxRecognizer(model_path, threads=1, threshold=threshold, layout_model_path=None,
                         index_scale=index_scale or 1.0, whole_model_path=None, tolerant_model_path=None)
    per_seed: list[list[tuple[float, bool]]] = []
    readable = 0
    for seed in seeds:
        scene = training_scene(np.random.default_rng(seed), decks)
        if index_scale is not None:
            rec.card_width = scene.card_width
        readable += sum(t.readable for t in scene.cards)
        centres = np.array([t.center for t in scene.cards])
        mine: list[tuple[float, bool]] = []
        for d in rec.recognize(scene.image):
            if d.card is None:
                continue
            dist = np.linalg.norm(centres - np.array(d.center), axis=1)
            ok = any(dist[j] < 0.45 * scene.card_width and scene.cards[j].face_up
                     and scene.cards[j].card == str(d.card) for j in np.argsort(dist)[:3])
            mine.append((float(d.confidence), bool(ok)))
        per_seed.append(mine)
    return per_seed, readable


CALIBRATION_STEP = 0.005
"""Steps of the thresholds :func:`calibrate_scenes` tries, from the floor up."""


def calibrate_scenes(model_path: pathlib.Path, n: int = 300, max_wrong: float = MAX_WRONG, floor: float = 0.995,
                     workers: int = 2, jumbo: bool = False) -> tuple[float, dict]:
    """Threshold from whole held-out validation scenes of the training decks (seeds
    ``[60606, i]``, used by nothing else): the smallest threshold, at least ``floor``, at which wrong
    reads per readable card are at most ``max_wrong``: half the target of 1 in 1,000, since a
    threshold set where the calibration scenes just meet the target meets it on new scenes only
    about half the time (300 scenes hold about 1,800 readable cards: one wrong read is 0.55 per
    1,000). The floor keeps a margin for decks and cameras the validation scenes do not show.

    The scenes are read by a recogniser working at the threshold being judged: its width search
    (the width whose corners read sure), its second look (corners below it) and its corner pairing
    depend on it, so every threshold reads the scenes its own way, and wrong reads do not fall
    steadily as it rises. The thresholds are therefore tried in their own passes, from the floor
    up in steps of :data:`CALIBRATION_STEP`, and the first whose own pass allows it is kept.
    (Until the seventh session the next threshold tried was the smallest the last pass's reads
    allowed: a jump that can pass over a threshold that allows itself, and in the eighth went from
    0.95 to 0.9935 while 0.97 allowed itself.) The recogniser is the one the product runs, with
    the body-suit model in ``models/`` when there is one (cards it confirms below the threshold
    count as reads at the threshold, and their mistakes count too). The shipped threshold, 0.96, was
    calibrated before that model existed; calibrated again with it (sixteenth session) it is the
    same: 94.3% right and 1 wrong on the 600 scenes (93.1% and 1 without it).

    ``jumbo``: a model of ``--decks jumbo``, calibrated on the named decks printing their jumbo index
    (:data:`JUMBO_FACTORS`), read at each scene's card width with index scale
    :data:`JUMBO_CALIBRATION_SCALE`, as a room's configured camera reads them."""
    seeds = [[60606, i] for i in range(n)]
    decks = render.jumbo_decks(render.TRAIN_DECKS, JUMBO_FACTORS) if jumbo else render.TRAIN_DECKS
    scale = JUMBO_CALIBRATION_SCALE if jumbo else None
    steps = int(math.floor((0.9999 - floor) / CALIBRATION_STEP + 1e-9))
    candidates = [round(floor + k * CALIBRATION_STEP, 4) for k in range(steps + 1)] + [0.9999]
    for t in candidates:
        reads, readable = scene_reads(model_path, decks, seeds, threshold=t, workers=workers, index_scale=scale)
        conf = np.array([c for c, _ in reads], float)
        ok = np.array([r for _, r in reads], bool)
        right, wrong = int(((conf >= t) & ok).sum()), int(((conf >= t) & ~ok).sum())
        allowed = wrong <= max_wrong * readable
        print(f"  calibration pass at {t:.4f}: {100 * right / max(readable, 1):.1f}% right, {wrong} wrong "
              f"of {readable}{'' if allowed else ': too many'}", flush=True)
        if allowed:
            break
    return t, {"val_scenes": n, "readable": readable, "right_pct": round(100 * right / max(readable, 1), 1),
               "wrong": wrong}


def set_metadata(path: pathlib.Path, key: str, value: str) -> None:
    """Write ``key`` = ``value`` into the model file's metadata (replacing it where it is there)."""
    import onnx

    m = onnx.load(str(path))
    for p in m.metadata_props:
        if p.key == key:
            p.value = value
            break
    else:
        m.metadata_props.add(key=key, value=value)
    onnx.save_model(m, str(path), save_as_external_data=False)


def set_threshold(path: pathlib.Path, threshold: float) -> None:
    """Write ``threshold`` into the model's metadata."""
    import onnx

    m = onnx.load(str(path))
    for p in m.metadata_props:
        if p.key == "threshold":
            p.value = f"{threshold:.4f}"
    onnx.save_model(m, str(path), save_as_external_data=False)


def export(model, out: pathlib.Path, threshold: float, in_channels: int = 1) -> None:
    import onnx
    import torch

    class WithSoftmax(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return model_probs(self.m, x)

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, in_channels, detect.CROP_H, detect.CROP_W)
    torch.onnx.export(WithSoftmax(model), dummy, str(out), input_names=["crops"], output_names=["probs"],
                      dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}}, opset_version=17, dynamo=False)
    m = onnx.load(str(out))
    # one self-contained file: fold any external data back in
    for key, value in (("threshold", f"{threshold:.3f}"), ("classes", "0..51 Card.index, 52 not-an-index"),
                       ("crop", f"{detect.CROP_W}x{detect.CROP_H} {'BGR' if in_channels == 3 else 'gray'}, per-crop standardised")):
        p = m.metadata_props.add()
        p.key, p.value = key, value
    onnx.save_model(m, str(out), save_as_external_data=False)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=5000)
    ap.add_argument("--val-scenes", type=int, default=400)
    ap.add_argument("--epochs", type=int, default=None,
                    help="default 9 for one model, 8 for each member of an ensemble (two members fit in the hour)")
    ap.add_argument("--epoch-crops", type=int, default=EPOCH_CROPS,
                    help="crops each epoch trains on, drawn afresh every epoch from all the training crops "
                         "(0: all of them); bounds the training time")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu",
                    help="where torch trains the index models and the body-suit model: cpu (the recipe), or a GPU "
                         "such as cuda; rendering, quantising and calibration stay on the CPU")
    ap.add_argument("--channels", type=int, default=16, help="width of the first conv layer")
    ap.add_argument("--convs", type=int, choices=CONVS, default=5,
                    help="convolutions in the trunk: 5 (two in the last two stages, the shipped model) or 3 (one a stage)")
    ap.add_argument("--bf16", choices=("auto", "on", "off"), default="auto",
                    help="train in bfloat16 (autocast; the weights and the exported model stay float32): "
                         "auto = on a GPU (--device), or where the CPU has AMX or AVX-512 bfloat16 (BF16_FLAGS)")
    ap.add_argument("--input", choices=("gray", "color"), default="gray",
                    help="crops the classifier sees: grayscale (1 channel, the shipped model) or BGR (3)")
    ap.add_argument("--heads", choices=("factor", "flat"), default="factor",
                    help="factor: index/rank/suit heads (shipped); flat: one 53-way softmax")
    ap.add_argument("--decks", type=_deck_list, default="mix,mix2",
                    help="base: the 23 named training decks; mix: those and 24 mixed decks (render.MIX_DECKS); "
                         "mix2: also 24 more (render.MIX2_DECKS); mixl: base, mix and 24 decks with pips beside "
                         "the index and court pictures (render.LAYOUT_DECKS); mixr: mixl and 36 decks whose indices and stock "
                         "vary as printed decks' do (render.INDEX_DECKS). Several, comma-separated: one member each, "
                         "trained side by side, and their gated ensemble (default: mix,mix2, the shipped model)")
    ap.add_argument("--jitter", type=int, default=2, help="extra jittered crops per index crop")
    ap.add_argument("--scale-tolerance", type=_tolerance, default=(SCALE_KEEP, SCALE_REFUSE), metavar="KEEP,REFUSE",
                    help="a crop whose card width is off by up to KEEP (a share) is labelled the card, by more "
                         f"than REFUSE not an index (default {SCALE_KEEP:g},{SCALE_REFUSE:g})")
    ap.add_argument("--small-cards", type=_share, default=0.0,
                    help="share of training and validation scenes with small cards (SMALL_CARDS pixels wide; "
                         "the rest 52..150 as in the benchmark), where most reads are missed")
    ap.add_argument("--smoothing", type=float, default=0.0, help="label smoothing (caps confidence)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(REPO / "models" / "card_index.onnx"))
    ap.add_argument("--no-quantize", dest="quantize", action="store_false",
                    help="keep the float model (default: int8, vision.modelfile.quantize)")
    ap.add_argument("--calib-scenes", type=int, default=300, help="validation scenes for the threshold")
    ap.add_argument("--floor", type=float, default=None,
                    help="lowest threshold calibration may choose (default 0.995 for one model; 0.95 for an "
                         "ensemble, trained or given to --calibrate-only, whose mean of two is at least 0.95 only "
                         "where both members are at least 0.90)")
    ap.add_argument("--cache-dir", default=str(REPO / "var"),
                    help="where rendered crops are cached (keyed by the code that made them) and members are kept")
    ap.add_argument("--stats", default=str(REPO / "var" / "train_stats.json"), help="where to write the run's figures")
    ap.add_argument("--max-wrong", type=float, default=MAX_WRONG,
                    help="wrong reads per readable card the threshold may let through on the calibration "
                         "scenes (default: half the target of 1 in 1,000)")
    ap.add_argument("--calibrate-only", metavar="MODEL",
                    help="only recalibrate the threshold of an exported MODEL on validation scenes")
    ap.add_argument("--front-gate-only", metavar="MODEL",
                    help="only put a front gate before an exported MODEL (written to --out), distilled on crops "
                         "of --scenes and --val-scenes rendered scenes; the threshold is kept")
    ap.add_argument("--suit-only", action="store_true",
                    help="only train the body-suit model (vision.pips) and write it to --suit-out")
    ap.add_argument("--no-suit", dest="suit", action="store_false",
                    help="train the index classifier only (by default the body-suit model follows it)")
    ap.add_argument("--suit-out", default=None,
                    help="where the body-suit model goes (default: card_suit.onnx beside --out)")
    ap.add_argument("--suit-scenes", type=_positive, default=SUIT_SCENES,
                    help="training scenes of the body-suit model (and 15%% as many for validation)")
    ap.add_argument("--suit-epochs", type=_positive, default=SUIT_EPOCHS)
    ap.add_argument("--suit-decks", default=SUIT_DECKS, choices=sorted(k for k in DECK_SETS if k != "unseen"),
                    help=f"the deck set the body-suit model trains on (default {SUIT_DECKS})")
    ap.add_argument("--suit-whole", action="store_true",
                    help="with --suit-only: the whole-card model (models/card_whole.onnx: its crops keep the "
                         "index regions the body-suit model's blank), written to --suit-out (default: "
                         "card_whole.onnx beside --out)")
    ap.add_argument("--suit-small", type=_share, default=None,
                    help="share of the body model's scenes with small cards, 0 to 1 (default: "
                         f"{SUIT_SMALL_SHARE}, with --suit-whole {WHOLE_SMALL_SHARE})")
    args = ap.parse_args(argv)
    _check_device(args.device)
    if args.suit_whole and not args.suit_only:
        ap.error("--suit-whole trains the whole-card model alone: give --suit-only too")
    if args.suit_small is None:
        args.suit_small = WHOLE_SMALL_SHARE if args.suit_whole else SUIT_SMALL_SHARE
    if args.suit_out is None:
        args.suit_out = str(pathlib.Path(args.out).with_name("card_whole.onnx" if args.suit_whole
                                                             else "card_suit.onnx"))
    if args.suit_only:
        _require_fonts()
        return suit_stage(args)
    ensemble = "," in args.decks and not args.calibrate_only
    if args.floor is None:
        many = ensemble or (args.calibrate_only is not None and _is_ensemble(pathlib.Path(args.calibrate_only)))
        args.floor = 0.95 if many else 0.995
    if args.epochs is None:
        args.epochs = 8 if ensemble else 9
    if args.front_gate_only:
        return front_gate_only(args)
    _require_fonts()
    if args.calibrate_only:
        threshold, scene_stats = calibrate_scenes(pathlib.Path(args.calibrate_only), args.calib_scenes,
                                                  floor=args.floor, max_wrong=args.max_wrong, workers=args.workers,
                                                  jumbo=args.decks == "jumbo")
        set_threshold(pathlib.Path(args.calibrate_only), threshold)
        print(f"scene threshold {threshold:.4f} {json.dumps(scene_stats)}")
        return 0
    rc = train_ensemble(args) if ensemble else train(args)
    return suit_stage(args) if rc == 0 and args.suit else rc


def suit_stage(args) -> int:  # type: ignore[no-untyped-def]
    """The body-suit model (:func:`vision.train_suit.train_suit`) to ``--suit-out``; its figures
    are added to ``--stats`` under ``suit``."""
    from vision import train_suit

    stats = train_suit.train_suit(pathlib.Path(args.suit_out), pathlib.Path(args.cache_dir), scenes=args.suit_scenes,
                                  val_scenes=max(2, math.ceil(0.15 * args.suit_scenes)), epochs=args.suit_epochs,
                                  threads=args.threads, workers=args.workers, seed=args.seed, bf16=use_bf16(args),
                                  decks=args.suit_decks, device=args.device, blank=not args.suit_whole,
                                  small_share=args.suit_small)
    path = pathlib.Path(args.stats)
    figures = json.loads(path.read_text()) if path.exists() and not args.suit_only else {}
    figures["suit"] = stats
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=1))
    return 0


FRONT_GATE_SEED = 8_000_000
"""First scene seed of the crops ``--front-gate-only`` renders (no member trains or validates on them)."""


def front_gate_only(args) -> int:  # type: ignore[no-untyped-def]
    """``--front-gate-only MODEL``: crops of ``--scenes`` training and ``--val-scenes`` validation
    scenes of the ``--decks`` (first set named) decks, rendered from :data:`FRONT_GATE_SEED`, then
    :func:`add_front_gate`."""
    src = pathlib.Path(args.front_gate_only)
    if not src.exists():
        raise SystemExit(f"--front-gate-only: no model file {src}")
    if "front_gate" in _metadata(src):
        raise SystemExit(f"--front-gate-only: {src} already has a front gate")
    _require_fonts()
    decks = DECKS_FLAG[args.decks.split(",")[0]]
    x_tr, _ = make_dataset(FRONT_GATE_SEED, args.scenes, decks, args.workers, False, args.jitter)
    x_va, _ = make_dataset(FRONT_GATE_SEED + 500_000, args.val_scenes, decks, args.workers, False, args.jitter)
    stats = add_front_gate(src, pathlib.Path(args.out), x_tr, x_va, threads=args.threads, seed=args.seed,
                           device=args.device)
    pathlib.Path(args.stats).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.stats).write_text(json.dumps({"front_gate": stats, "scenes": args.scenes,
                                                    "val_scenes": args.val_scenes, "decks": args.decks}, indent=1))
    return 0


def _require_fonts() -> None:
    """Exit naming the missing fonts when a deck would be drawn in a fallback font (another deck)."""
    try:
        render.require_fonts(render.ALL_DECKS)
    except RuntimeError as e:
        raise SystemExit(f"error: {e}") from None


def _check_device(device: str) -> None:
    """``--device``: exit naming the problem when torch cannot train there (no such device, or no
    GPU that this torch can use)."""
    if device == "cpu":
        return
    try:
        import torch
    except ImportError:
        raise SystemExit("error: --device needs PyTorch (the training extra)") from None
    try:
        dev = torch.device(device)
    except RuntimeError as e:
        raise SystemExit(f"error: --device {device!r} is not a device torch knows: {e}") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise SystemExit(f"error: --device {device}: this torch sees no CUDA GPU here")
    if dev.type not in ("cpu", "cuda"):
        raise SystemExit(f"error: --device {device}: only cpu and cuda are supported")


def _metadata(path: pathlib.Path) -> dict[str, str]:
    """The metadata of the model file ``path`` (empty when there is no such file)."""
    import onnxruntime as ort

    if not path.exists():
        return {}
    return dict(ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_modelmeta().custom_metadata_map)


def _is_ensemble(path: pathlib.Path) -> bool:
    """Whether the model file ``path`` is an ensemble (its metadata says so), so that
    ``--calibrate-only`` takes the ensemble's floor by default."""
    return "ensemble" in _metadata(path)


def _share(text: str) -> float:
    """``--small-cards``, ``--suit-small``: a share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{value:g} is not a share from 0 to 1")
    return value


def _positive(text: str) -> int:
    """``--suit-scenes``, ``--suit-epochs``: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def _tolerance(text: str) -> tuple[float, float]:
    """``--scale-tolerance``: ``KEEP,REFUSE``, two shares with ``0 < KEEP <= REFUSE < 1``."""
    try:
        keep, refuse = (float(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not two numbers KEEP,REFUSE") from None
    if not 0.0 < keep <= refuse < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: KEEP and REFUSE must satisfy 0 < KEEP <= REFUSE < 1")
    return keep, refuse


def _deck_list(text: str) -> str:
    """``--decks``: one deck-set name, or several comma-separated (an ensemble)."""
    names = [t.strip() for t in text.split(",")]
    bad = [t for t in names if t not in DECKS_FLAG]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown deck set(s) {', '.join(map(repr, bad))}: "
                                         f"choose from {', '.join(DECKS_FLAG)}, comma-separated")
    return ",".join(names)


if __name__ == "__main__":
    sys.exit(main())
