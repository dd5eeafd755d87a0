"""Scoring a v1.5 tree (``fdb15 score``): the timing of every trial per scenario
(``trials``) and the behaviour and prosody sections beside it (``sections``);
``report`` writes their files."""
