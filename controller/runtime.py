"""The controller running: the table service, the reader, the cameras and the web server together.

``cardroom serve --config FILE`` runs a real table: the reader on its port (or the simulator when the
file says ``port = "sim"``), the cameras on their source, the SQLite event log and the web server.
``cardroom demo`` runs the same parts on simulated hardware and plays scripted hands on a loop
(:class:`DemoDealer`).

This module is the only place that joins the packages; the engine and the table stay pure.
"""

from __future__ import annotations

import dataclasses
import pathlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller.cards import Card
from controller.service import TableService

VISION_VARIANT = {"T": "holdem", "O": "omaha", "O/8": "omaha8", "7S": "stud", "7S/8": "stud8", "R": "razz"}


def vision_variant(code: str) -> str:
    """The camera's name for a variant code (``NT`` -> ``holdem``)."""
    return VISION_VARIANT[code[1:]]


def open_service(cfg: Any, base_dir: pathlib.Path, *, clock: Callable[[], float] = time.time) -> TableService:
    """The table service on the configured SQLite log (created if missing, verified if present)."""
    from controller.eventlog import EventLog

    path = cfg.database_path(base_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    log = EventLog(path, table_id=cfg.table.id, clock=clock, synchronous=cfg.table.durability.upper())
    service = TableService(cfg.game(), log, broadcast_delay=cfg.broadcast.delay_seconds, clock=clock)
    service.frames_dir = path.parent / f"{path.stem}-frames"
    return service


# ---------------------------------------------------------------------------------------- cameras
class CameraLink:
    """Per-seat camera verdicts into the table (R2, R3): for every live seat at showdown, the
    table learns whether the hand is tabled and 100% identifiable, and why not; the frame is kept
    with the event for surveillance. A disagreement with the reader is an alert (the table raises
    it when the cards differ)."""

    def __init__(self, service: TableService, camera: Any, recognizer: Any) -> None:
        from vision.watch import TableWatcher

        self.service = service
        self.camera = camera
        self.recognizer = recognizer
        self._watchers: dict[str, Any] = {}
        self._watcher_cls = TableWatcher
        self._focus_checks: dict[str, int] = {}
        self._blurred_checks = 0
        """Focus measures in a row that found the camera out of focus (:meth:`_check_focus`)."""
        self._frame_size: tuple[int, int] | None = None
        """The frame size its zones were last checked against (:meth:`_check_zones`)."""

    def _watcher(self, code: str) -> Any:
        variant = vision_variant(code)
        if variant not in self._watchers:
            cam = self.camera.model_copy(update={"variant": variant})
            self._watchers[variant] = self._watcher_cls(cam, self.recognizer)
        return self._watchers[variant]

    def look(self, frame: Any) -> list[Any]:
        """Judge one frame and tell the table what changed; return the views."""
        import cv2

        self._check_zones(frame)
        snap = self.service.snapshot()
        hand = snap.get("hand")
        if not hand or hand.get("pushed") or hand.get("voided") or not hand.get("complete"):
            return []
        reader = {int(s): [Card.parse(c) for c in v["cards"] if c] for s, v in hand["seats"].items()}
        watcher = self._watcher(snap["variant"])
        views = watcher.watch(frame, reader=reader)
        self._check_focus(vision_variant(snap["variant"]), watcher)
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 70])
        stored: list[int] = []

        def apply(table: Any) -> None:
            for v in views:
                seat = str(v.seat)
                if seat not in hand["seats"] or hand["seats"][seat]["folded"]:
                    continue
                if hand["seats"][seat]["status"] not in ("tabled", "waiting"):
                    continue
                reason = "" if v.identifiable else (v.detail or str(v.reason))
                event = table.camera_view(v.seat, identifiable=bool(v.identifiable), reason=reason,
                                          cards=[str(c) for c in v.cards])
                if event is not None and ok:
                    stored.append(event.seq)

        self.service.run(apply)  # the frame's views: one transaction, one commit
        for seq in stored:  # the frame is kept once the events it goes with are
            self.service.store_frame(seq, jpeg.tobytes())
        return views

    def _check_zones(self, frame: Any) -> None:
        """Alert surveillance (``camera_zone_off_frame``) for each seat whose zone lies half or more
        outside this camera's frame (a polygon given in another camera's pixels): that seat is never
        judged. Once a frame size."""
        from vision.config import zones_off_frame

        size = (int(frame.shape[1]), int(frame.shape[0]))
        if size == self._frame_size:
            return
        self._frame_size = size
        for seat, share, line in zones_off_frame(self.camera, *size, least=ZONE_OFF_FRAME_ALERT):
            self.service.alert("camera_zone_off_frame", detail=line, seat=seat, share=round(share, 2),
                               camera=self.camera.name)

    def _check_focus(self, variant: str, watcher: Any) -> None:
        """Alert surveillance (``camera_out_of_focus``) when :data:`FOCUS_ALERT_AFTER` focus measures
        in a row (:attr:`vision.watch.TableWatcher.edge_width`) find the card edges blurrier than
        the scenes the models learnt: the body checks then raise no read, so fewer hands are
        identifiable until the camera is focused. ``camera_in_focus`` when a measure finds it sharp
        again."""
        from vision import focus

        checks = getattr(watcher, "focus_checks", 0)
        if checks == self._focus_checks.get(variant, 0):
            return
        self._focus_checks[variant] = checks
        width = watcher.edge_width
        if width is None:
            return
        cards = self.camera.card_width
        if focus.blurred(width, cards):
            self._blurred_checks += 1
            if self._blurred_checks == FOCUS_ALERT_AFTER:
                self.service.alert("camera_out_of_focus", detail=focus.line(width, cards), edge_width=round(width, 2),
                                   camera=self.camera.name)
        else:
            if self._blurred_checks >= FOCUS_ALERT_AFTER:
                self.service.alert("camera_in_focus", detail=focus.line(width, cards), edge_width=round(width, 2),
                                   camera=self.camera.name)
            self._blurred_checks = 0


ZONE_OFF_FRAME_ALERT = 0.5
"""The share of a seat zone outside the camera's frame from which :class:`CameraLink` alerts."""

FOCUS_ALERT_AFTER = 3
"""Focus measures in a row out of focus before :class:`CameraLink` alerts surveillance (one blurred
frame, a hand passing over the cards, is no reason)."""


class CameraRunner:
    """Reads a frame source (device, video file, stream, stills) on a thread and feeds
    :class:`CameraLink` a few frames a second. A source that ends or drops is reopened (a video
    file loops; a camera that comes back is picked up again, tried every ``retry`` seconds). Each
    camera of a table runs its own. Surveillance gets one alert naming the camera (``camera``: its
    name in the table file) when it goes offline (``camera_offline``) and one when it delivers
    frames again (``camera_online``), not one a retry; a frame the link cannot judge is a
    ``camera_error``, once until a frame is judged again. A source that fails in the middle of a read
    (an image file caught while it is being written) is offline and tried again, like one that
    cannot be opened: the camera's thread goes on. Its state (starting, live, offline), its
    frames and the time of its last one go to :meth:`~controller.service.TableService.camera_status`
    for the surveillance page."""

    def __init__(self, link: CameraLink, spec: str, fps: float = 4.0, retry: float = 5.0) -> None:
        from vision.sources import redact

        self.link = link
        self.spec = spec
        self.name = link.camera.name
        self.period = 1.0 / fps
        self.retry = retry
        self.frames = 0
        self._offline = False
        self._error: str | None = None
        """The last ``camera_error`` alerted, until a frame is judged again."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"camera {self.name}", daemon=True)
        self._report(state="starting", source=redact(spec), seats=sorted(z.seat for z in link.camera.zones),
                     frames=0, last_frame=None, error=None)

    def start(self) -> CameraRunner:
        self._thread.start()
        return self

    def _report(self, **fields: Any) -> None:
        self.link.service.camera_status(self.name, **fields)

    def _alert(self, kind: str, detail: str) -> None:
        self.link.service.alert(kind, detail=detail, camera=self.name)

    def _went_offline(self, detail: str) -> None:
        if not self._offline:  # the state first: the alert's event pushes the views that show it
            self._offline = True
            self._report(state="offline", error=detail, since=self.link.service.clock())
            self._alert("camera_offline", detail)
        else:
            self._report(error=detail)

    def _run(self) -> None:
        from vision.sources import SourceError, open_source, redact

        while not self._stop.is_set():
            try:
                source = open_source(self.spec)
            except SourceError as exc:
                self._went_offline(str(exc))
                self._stop.wait(self.retry)
                continue
            frames = 0
            failed = None
            try:
                for _, frame in source:
                    if self._stop.is_set():
                        break
                    frames += 1
                    self.frames += 1
                    now = self.link.service.clock()
                    if self._offline or self.frames == 1:  # live from now (the state before the alert)
                        self._report(state="live", since=now, error=None)
                        if self._offline:
                            self._alert("camera_online", f"{redact(self.spec)}: frames again")
                        self._offline = False
                    error = None
                    try:
                        self.link.look(frame)
                    except Exception as exc:  # a bad frame must not stop the camera
                        error = str(exc)
                        if error != self._error:
                            self._alert("camera_error", error)
                    self._error = error
                    self._report(frames=self.frames, last_frame=now, error=error)
                    self._stop.wait(self.period)
            except SourceError as exc:  # a frame the source cannot give (an image caught mid-write)
                failed = str(exc)
            finally:
                source.close()
            if failed is not None:
                self._went_offline(failed)
                self._stop.wait(self.retry)
            elif not self._stop.is_set() and (frames == 0 or not pathlib.Path(self.spec).is_file()):
                self._went_offline(f"{redact(self.spec)}: no more frames; reopening")
                self._stop.wait(min(2.0, self.retry))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


# ------------------------------------------------------------------------------------------- demo
@dataclasses.dataclass(frozen=True)
class DemoHand:
    """One scripted hand: the game, the players, the cards and the dealer's entries."""

    title: str
    game: Mapping[str, Any]
    stacks: Mapping[int, int]
    button: int
    hole: Mapping[int, str]
    board: Sequence[str] = ()
    actions: Sequence[tuple[str, int, int | None]] = ()
    """(command, seat, amount), in order; dealing happens whenever the table waits for cards."""
    covered: int | None = None
    """A seat whose tabled hand a chip covers: the camera cannot identify it at first."""


def _game(code: str, **stakes: int) -> dict[str, Any]:
    return {"table_id": "demo-1", "variant": code, "seats": 9, "tournament": False,
            "stakes": stakes, "smallest_chip": stakes.get("small_blind") or stakes.get("ante") or 1,
            "see_hand": "tda", "enforce_show_order": False, "dispute_window_s": 60.0}


NLHE = _game("NT", small_blind=1, big_blind=2)
DEMO_HANDS: tuple[DemoHand, ...] = (
    DemoHand(
        "Hold'em: three-way all-in, two side pots", NLHE,
        {1: 60, 2: 150, 3: 250, 4: 400}, 4,
        {1: "AsAh", 2: "KdKc", 3: "QsQd", 4: "6c5c"},
        ("Jh", "8d", "3c", "9s", "4h"),
        (("all_in", 3, None), ("check_call", 4, None), ("all_in", 1, None), ("all_in", 2, None)),
    ),
    DemoHand(
        "Omaha hi/lo: the pot splits with an odd chip", _game("PO/8", small_blind=1, big_blind=2),
        {1: 101, 2: 101, 3: 101}, 3,
        {1: "AdKd2c3h", 2: "KcKsQsJs", 3: "9h9c8h8c"},
        ("4s", "7d", "Kh", "5c", "Td"),
        (("check_call", 3, None), ("bet_raise_to", 1, 6), ("check_call", 2, None), ("check_call", 3, None),
         ("bet_raise_to", 1, 5), ("check_call", 2, None), ("check_call", 3, None),
         ("bet_raise_to", 1, 10), ("check_call", 2, None), ("fold", 3, None),
         ("bet_raise_to", 1, 20), ("check_call", 2, None)),
    ),
    DemoHand(
        "Seven-card stud", _game("F7S", ante=1, bring_in=2, small_bet=5, big_bet=10),
        {1: 200, 2: 200, 3: 200}, 3,
        {1: "AhAc5d" "9s" "Kd" "Kc" "2h", 2: "Ts9d4c" "Js" "Qh" "8d" "3s", 3: "7s7d2d" "7h" "6c" "3d" "4s"},
        (),
        (),
    ),
    DemoHand(
        "Won without a showdown", NLHE,
        {1: 200, 2: 200, 3: 200}, 1,
        {1: "9c9d", 2: "AsKs", 3: "6h5h"},
        ("Ac", "8s", "2d"),
        (("bet_raise_to", 1, 6), ("check_call", 2, None), ("fold", 3, None),
         ("check_call", 2, None), ("bet_raise_to", 1, 10), ("fold", 2, None)),
    ),
    DemoHand(
        "A covered card: not identifiable until the chip is moved", NLHE,
        {1: 200, 2: 200}, 2,
        {1: "QcQh", 2: "JdTd"},
        ("Qs", "7c", "2s", "Kh", "3d"),
        (),
        covered=1,
    ),
)
"""The scripted hands the demo plays on a loop (issue: three-way all-in with two side pots, an Omaha
hi/lo split with an odd chip, a stud hand, a hand won without a showdown, a covered card)."""


class DemoDealer:
    """Plays :data:`DEMO_HANDS` through the simulated reader and the table, forever or N times.

    Cards go through the reader simulator (shoe to seat, board, burn) and reach the table via the
    bridge; betting goes through the same commands as the dealer's console; at showdown the
    camera frame is rendered from the table's state and judged by the real recognizer.
    """

    def __init__(self, service: TableService, simulator: Any, *, camera_link: CameraLink | None = None,
                 pause: float = 1.0, log: Callable[[str], None] = print) -> None:
        self.service = service
        self.sim = simulator
        self.camera = camera_link
        self.pause = pause
        self.say = log
        self._stop = threading.Event()
        self._burned: list[str] = []
        self.hands_done = 0
        self._frames = 0
        if camera_link is not None:  # surveillance's Cameras panel: a camera rendered at each showdown
            service.camera_status(camera_link.camera.name, state="rendered", source="rendered from the table (demo)",
                                  seats=sorted(z.seat for z in camera_link.camera.zones), frames=0, last_frame=None,
                                  error=None)

    # ---------------------------------------------------------------- plumbing
    def _wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end and not self._stop.is_set():
            snap = self.service.snapshot()
            if pred(snap):
                return snap
            time.sleep(0.02)
        raise TimeoutError("the table did not reach the expected state (is the reader running?)")

    def _cmd(self, command: str, **args: Any) -> None:
        self.service.command(command, args)
        if self.pause:
            self._stop.wait(self.pause)

    def _deal(self, card: str, place: str) -> None:
        if place == "burn":
            self._burned.append(card)
        self.sim.submit(f"deal {card} {place}")

    def stop(self) -> None:
        self._stop.set()

    # ---------------------------------------------------------------- one hand
    def play(self, hand: DemoHand) -> None:
        svc = self.service
        self.say(f"demo: {hand.title}")
        svc.run(lambda t: t.configure(hand.game))
        for seat, stack in hand.stacks.items():
            current = svc.snapshot()["players"].get(str(seat))
            if current is None:
                self._cmd("seat_player", seat=seat, name=DEMO_NAMES[seat], stack=stack)
            elif current["stack"] < stack:
                self._cmd("add_chips", seat=seat, amount=stack - current["stack"])
        for seat in [int(s) for s in svc.snapshot()["players"]]:
            if seat not in hand.stacks:
                svc.command("remove_player", {"seat": seat})
        self._cmd("start_hand", button=hand.button)
        dealt = {seat: 0 for seat in hand.hole}
        board = list(hand.board)
        actions = list(hand.actions)
        while not self._stop.is_set():
            snap = svc.snapshot()
            h = snap["hand"]
            if h["complete"]:
                break
            if h["actor"] is not None:
                if actions:
                    name, seat, amount = actions.pop(0)
                else:  # unscripted rounds: check or call it down
                    name, seat, amount = "check_call", h["actor"], None
                    if h["street"] == "third street" and svc.table.can(seat, "bring_in"):
                        name = "post_bring_in"
                args: dict[str, Any] = {"seat": seat}
                if amount is not None:
                    args["amount"] = amount
                self._cmd(name, **args)
                continue
            # The table waits for cards: deal what it needs through the reader.
            hole_due, board_due = svc.table.hand.state.pending_deal()
            before = self._cards_on_table(h)
            if hole_due:
                state = svc.table.hand.state
                spec = state.streets[state.street]
                if state.street > 0:  # stud: a burn before every street after third street
                    self._deal(_next_burn(h, hand), "burn")
                for i in hole_due:
                    seat = svc.table.hand.seat(i)
                    for _ in range(spec.hole):
                        card = hand.hole[seat][2 * dealt[seat]: 2 * dealt[seat] + 2]
                        dealt[seat] += 1
                        self._deal(card, f"seat{seat}")
                want = before + sum(spec.hole for _ in hole_due)
            else:
                self._deal(_next_burn(h, hand), "burn")
                for _ in range(board_due):
                    self._deal(board.pop(0), "board")
                want = before + board_due
            self._wait(lambda s: self._cards_on_table(s["hand"]) >= want)
            if self.pause:
                self._stop.wait(self.pause / 2)
        self._showdown(hand)
        self._scoop()
        self.hands_done += 1

    @staticmethod
    def _cards_on_table(h: dict[str, Any]) -> int:
        return len(h["board"]) + sum(len([c for c in v["cards"] if c]) for v in h["seats"].values())

    def _showdown(self, hand: DemoHand) -> None:
        svc = self.service
        snap = svc.snapshot()
        sd = snap["hand"]["showdown"]
        if sd["uncontested"]:
            self._cmd("push")
            return
        for entry in sd["order"]:
            self._cmd("table_hand", seat=entry["seat"])
            self._camera(hand, covered=hand.covered)
        # The camera must identify every winner before the push (R2, R3); a covered card keeps
        # the hand unidentifiable until the chip is moved.
        if hand.covered is not None:
            self._stop.wait(self.pause * 2)
            self.say(f"demo: the chip over seat {hand.covered}'s card is moved")
            self._camera(hand, covered=None)
        self._verify_unreadable_winners()
        self._cmd("muck_losers")
        self._cmd("push")

    def _scoop(self) -> None:
        """Every card on the felt goes to the muck and off the table for the shuffle."""
        snap = self.service.snapshot()
        h = snap["hand"]
        if not h:
            return
        places = [(c, "board") for c in h["board"]]
        places += [(c, f"seat{s}") for s, v in h["seats"].items() for c in v["cards"] if c]
        for card, place in places:
            self.sim.submit(f"move {card} {place} muck")
        for card, _ in places:
            self.sim.submit(f"remove {card} muck")
        for card in self._burned:
            self.sim.submit(f"remove {card} burn")
        self._burned.clear()

    def _camera(self, hand: DemoHand, covered: int | None) -> None:
        if self.camera is None:
            return
        frame = render_table_frame(self.service.snapshot(), covered=covered)
        for _ in range(self.camera.camera.stable_frames):
            self.camera.look(frame)
            self._frames += 1
            self.service.camera_status(self.camera.camera.name, frames=self._frames, last_frame=self.service.clock())

    def _verify_unreadable_winners(self) -> None:
        """A winner the camera cannot read (model unsure): the floor looks and confirms, as
        surveillance would, and the event says so."""
        snap = self.service.snapshot()
        for seat, v in snap["hand"]["seats"].items():
            if v["status"] == "tabled" and v["identifiable"] is not True:
                self.service.run(lambda t, s=int(seat), why=v["why_not"]: t.camera_view(
                    s, identifiable=True, reason=f"verified by the floor (camera: {why or 'no verdict'})"))

    def run(self, hands: int | None = None) -> None:
        if self.service.table.hand_in_progress:
            # The log continues a demo stopped mid-hand: that hand is void, as after a real misdeal.
            self.service.command("misdeal", {"reason": "the demo was restarted in the middle of the hand"})
        k = 0
        while not self._stop.is_set() and (hands is None or k < hands):
            self.play(DEMO_HANDS[k % len(DEMO_HANDS)])
            k += 1
            self._stop.wait(self.pause * 3)


DEMO_NAMES = {1: "Ann", 2: "Bo", 3: "Cy", 4: "Dee", 5: "Eli", 6: "Fay", 7: "Gus", 8: "Hal", 9: "Ivy"}


def _next_burn(h: dict[str, Any], hand: DemoHand) -> str:
    used = set(h["board"]) | {c for v in h["seats"].values() for c in v["cards"] if c}
    used |= {c for cards in hand.hole.values() for c in (cards[i:i + 2] for i in range(0, len(cards), 2))}
    used |= set(hand.board)
    for rank in "23456789TJQKA":
        for suit in "cdhs":
            if rank + suit not in used:
                return rank + suit
    raise RuntimeError("no card left to burn")


def render_table_frame(snapshot: dict[str, Any], covered: int | None = None, seed: int = 11) -> Any:
    """An overhead frame of the table as it stands: tabled hands face up, other live hands face
    down; ``covered``: a chip over both index corners of that seat's first card."""
    import cv2
    import numpy as np

    from vision import render

    hand = snapshot["hand"]
    sizes, deal, flags = [], [], []
    for seat in range(1, 11):
        v = hand["seats"].get(str(seat)) if hand else None
        if v is None or v["folded"] or v["status"] in ("mucked", "killed"):
            sizes.append(0)
            continue
        cards = [c for c in v["cards"] if c]
        sizes.append(len(cards))
        deal.extend(cards)
        flags.extend([v["status"] == "tabled"] * len(cards))
    scene = render.render_table(np.random.default_rng(seed), [render.TRAIN_DECKS[0]], variant_cards=sizes,
                                hard=False, deal=deal, face_up=flags, p_face_down=0.0)
    image = scene.image.copy()
    if covered is not None:
        for truth in scene.cards:
            if truth.seat == covered:
                w = scene.card_width
                for corner in (truth.corners[0], truth.corners[2]):
                    c = np.array(truth.center) * 0.2 + np.array(corner) * 0.8
                    cv2.circle(image, (int(c[0]), int(c[1])), int(w * 0.38), (40, 40, 170), -1)
                    cv2.circle(image, (int(c[0]), int(c[1])), int(w * 0.28), (230, 230, 230), 3)
                break
    return image
