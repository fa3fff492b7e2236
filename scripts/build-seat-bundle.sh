#!/bin/sh
# Rebuild the seat's MQTT bundle (orbito_hw/web/static/vendor/mqtt.min.js) from the versions
# pinned in web/bundle/package-lock.json, and write the note the tests check it against
# (vendor/mqtt.min.js.json: the lock's mqtt and esbuild versions and the bundle's sha256).
# Needs node and npm at build time only: the board and CI use the committed file.
set -eu
cd "$(dirname "$0")/../web/bundle"
npm ci --no-audit --no-fund
npm run build
exec python3 - <<'PY'
import hashlib, json, pathlib
lock = json.loads(pathlib.Path("package-lock.json").read_text())["packages"]
bundle = pathlib.Path("../../orbito_hw/web/static/vendor/mqtt.min.js")
note = {
    "file": bundle.name,
    "mqtt": lock["node_modules/mqtt"]["version"],
    "mqtt_integrity": lock["node_modules/mqtt"]["integrity"],
    "esbuild": lock["node_modules/esbuild"]["version"],
    "sha256": hashlib.sha256(bundle.read_bytes()).hexdigest(),
}
path = bundle.with_name(bundle.name + ".json")
path.write_text(json.dumps(note, indent=2) + "\n")
print(f"{bundle}: mqtt {note['mqtt']}, sha256 {note['sha256']}")
PY
