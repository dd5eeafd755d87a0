"""The engineering-completeness gate (spec: 长音频工程诊断, ``engineering_completeness``).

A runner that says ``succeeded``, an HTTP 2xx or a provider job ``completed`` only means the
call ended; whether the whole recording was transcribed is decided here, from the saved raw
output alone: the last valid timestamp against the sample's frozen last-speech boundary, the
stop reason, whether the raw tail parses as complete segments, exact adjacent repeats, the
timeline's legality and the speaker labels' structure over the recording's thirds.
"""
