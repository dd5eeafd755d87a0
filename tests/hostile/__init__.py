"""Misbehaving counterparts for tests: agent, ASR and judge servers that attack a run.

Each module holds one kind of hostility (deep or huge JSON, audio floods, servers that
echo the secrets they are sent, handshakes that never answer), written as real servers on
loopback sockets so that the code under test meets them over the same wire a real system
would use. Tests in any family import them from here.
"""
