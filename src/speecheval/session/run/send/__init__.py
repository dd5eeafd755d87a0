"""The send path: the scenario's conditions (echo, noise, codec, network) applied to the
user's audio frame by frame on its way to the agent."""
