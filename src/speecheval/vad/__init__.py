"""Speech detection behind one protocol (:class:`speecheval.vad.base.Vad`): the energy
detector of the session spec and Silero (ONNX, no torch)."""
