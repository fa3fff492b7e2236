"""The idle baseline for the service's CPU use: a bare lgpio program holding the same edge
callbacks on the same lines as the service (16 sensors, the button, the index), with the same
pulls and debounce, and nothing else. What the service costs above this is ours."""

from __future__ import annotations

import sys
import time
import tomllib

import lgpio


def main() -> None:
    with open(sys.argv[1], "rb") as file:
        config = tomllib.load(file)
    seconds = float(sys.argv[2])
    chip = lgpio.gpiochip_open(0)
    pins = [
        *config["sensors"]["pins"].values(),
        config["button"]["pin"],
        config["drive"]["index_pin"],
    ]
    callbacks = []
    for pin in pins:
        lgpio.gpio_claim_alert(chip, pin, lgpio.BOTH_EDGES, lgpio.SET_PULL_UP)
        callbacks.append(lgpio.callback(chip, pin, lgpio.BOTH_EDGES, lambda *args: None))
    lgpio.gpio_set_debounce_micros(
        chip, config["button"]["pin"], config["button"]["debounce_ms"] * 1000
    )
    time.sleep(seconds)


if __name__ == "__main__":
    main()
