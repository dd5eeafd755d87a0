"""Speech detection: Silero (ONNX, no torch) and, later, the energy StreamingVad."""
