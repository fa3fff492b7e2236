"""The real board's link to the broker, from ``[remote]``: its side of a remote game and
the credentials it proves itself with. aiomqtt is imported only once a link starts."""

from __future__ import annotations

from dataclasses import replace

from orbito_hw.app.config import RemoteConfig
from orbito_hw.control.events import EventListener
from orbito_hw.remote.game import RemoteGame
from orbito_hw.remote.link import Credentials, MqttLink
from orbito_hw.remote.protocol import parse_broker_url


def credentials_of(remote: RemoteConfig) -> Credentials:
    """The credentials ``[remote]`` gives."""
    return Credentials(remote.user, remote.password, remote.ca_file, remote.cert_file,
                       remote.key_file)  # fmt: skip


def remote_game(config: RemoteConfig, emit: EventListener) -> tuple[RemoteGame, MqttLink]:
    """The board's remote game from ``[remote]`` (enabled, so broker and game are set):
    its side of the game and the link, to start on the controller's loop."""
    assert config.broker is not None and config.game is not None
    url = replace(parse_broker_url(config.broker, need_game=False), game=config.game)
    # board_id None: the install's own, kept in the state directory (read once attached).
    game = RemoteGame(config.game, config.plays, config.starts, config.board_id, emit)
    game.publish_events = config.publish_events
    return game, MqttLink(game, url, credentials_of(config))
