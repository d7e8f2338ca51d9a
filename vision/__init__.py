"""Overhead cameras: frame sources, card recognition, the per-seat identifiable verdict.

The path of data: ``frame -> Detection -> SeatEvidence -> SeatView``.

- :mod:`vision.sources`: ``open_source(spec)`` on a device index, video file, RTSP URL or stills.
- :mod:`vision.config`: ``CameraConfig`` / ``SeatZone`` (pydantic), ``load_camera_config(path)``;
  ``load_cameras(path)`` for a table of several cameras (``[[cameras]]``), each seeing some seats.
- :mod:`vision.light`: the card stock's colour in a frame; ``white_balance`` undoes a tinted
  light's cast before anything is read.
- :mod:`vision.detect`: classical card finding and index-corner crops (OpenCV, no model).
- :mod:`vision.recognize`: ``preprocess`` / ``OnnxRecognizer.infer`` / ``decode`` + ``combine``;
  the ``Recognizer`` protocol; ``Detection``.
- :mod:`vision.pips`: ``body_crop`` of a card with its indices blanked, for the body-suit model
  (``models/card_suit.onnx``) that confirms a card's suit and rank from its pips.
- :mod:`vision.verdict`: ``judge_seat`` / ``judge_frame`` (pure), ``StabilityFilter``,
  ``SeatView`` (frozen), ``Reason``.
- :mod:`vision.watch`: ``TableWatcher(camera, recognizer).watch(frame) -> list[SeatView]``.
- :mod:`vision.render`, :mod:`vision.demo`, :mod:`vision.train` (and
  :mod:`vision.train_suit`): synthetic scenes, the demo feed and the training script (Pillow /
  PyTorch needed only there).
"""
