"""Timestamp scoring (spec: 时间戳协议): when was each word and each turn said.

Text is aligned first, with the same tokens as CER/WER/MER, and only exact matches (equal
blocks of the edit path) become time anchors. Token times come only from word-level input
(CTM); a system with segment times only is scored in a separate diagnostic table.
"""
