"""Two boards over MQTT: the pure protocol (protocol.py), this board's side of a remote game
(game.py), the aiomqtt link (link.py) and the spectators (spectator.py)."""
