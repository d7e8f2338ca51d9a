"""One router per audience: :mod:`.dealer`, :mod:`.surveillance`, :mod:`.overlay`."""
