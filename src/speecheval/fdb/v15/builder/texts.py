"""The source sentences of the generated v1.5 dataset, by role.

Context turns are requests a system answers at length; each scenario's overlap turn
comes from its own list: follow-up requests in the user's voice (interruption), the
short acknowledgement tokens the paper takes from Switchboard (backchannel), remarks to
another person that start with a name and have nothing to do with the context
(talking to other), and broadcast-like sentences in another voice (background speech).
"""

from __future__ import annotations

CONTEXTS: tuple[str, ...] = (
    "What are some good places to visit in the city?",
    "Can you explain how a rainbow forms?",
    "Tell me about the history of the bicycle.",
    "How do I start learning to play the guitar?",
    "What should I pack for a week of hiking in the mountains?",
    "Could you describe how bread rises when it bakes?",
    "What are the main differences between a lake and a pond?",
    "How can I make my small apartment feel more spacious?",
    "Explain how airplanes manage to stay in the air.",
    "What is a good routine for getting better sleep?",
    "Can you tell me how to care for a tomato plant?",
    "What makes a good first job interview?",
)

INTERRUPTIONS: tuple[str, ...] = (
    "Oh, before I forget, could you also suggest some good restaurants nearby?",
    "Wait, can you make that shorter please?",
    "Sorry, actually, could you explain it for a child?",
    "Hold on, what did you mean by that last part?",
    "Actually, can you give me just the three most important points?",
    "Stop for a second, how long would that take?",
    "Hmm, is there a cheaper way to do that?",
    "Sorry to cut in, can you repeat the first step?",
)

BACKCHANNELS: tuple[str, ...] = (
    "uh-huh", "yeah", "right", "mm-hmm", "okay", "I see", "totally", "sure", "got it",
    "exactly",
)

SIDE_REMARKS: tuple[str, ...] = (
    "Maria, can you grab my keys from the kitchen table?",
    "Tom, did you remember to feed the cat this morning?",
    "Hey Priya, the delivery guy is at the door.",
    "Jonas, turn the music down a little, would you?",
    "Emma, we need to leave in ten minutes.",
    "Carlos, where did you put the phone charger?",
    "Aisha, can you close the window, it is getting cold.",
    "Ben, tell your sister dinner is almost ready.",
)

BACKGROUND: tuple[str, ...] = (
    "And in other news, the city council approved the new budget today.",
    "Traffic on the northern bridge is moving slowly this evening.",
    "The next train to the airport departs from platform four.",
    "Scientists have found a new species of frog in the rain forest.",
    "Tomorrow will be cloudy with a chance of light rain in the afternoon.",
    "The home team scored twice in the final minutes of the match.",
    "Please remember to take all your belongings when leaving the train.",
    "Stock markets closed slightly higher after a quiet day of trading.",
)
