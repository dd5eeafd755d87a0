"""Running sessions: the plan (agent, options, clock), the virtual-clock and real-clock
runners, the turn scheduler and the turn audio; each session ends as a recording."""
