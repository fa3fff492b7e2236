"""The real-time ``--mock`` worlds on top of sim/, web/ and remote/, each wired in worlds.py."""
