// Runs the firmware logic's self-checks under MicroPython (the WebAssembly port) in Node.
// Usage: node micropython_selfcheck.mjs NODE_MODULES_DIR FIRMWARE_DIR
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, firmware] = process.argv.slice(2);
const entry = join(modules, "@micropython/micropython-webassembly-pyscript/micropython.mjs");
const { loadMicroPython } = await import(pathToFileURL(entry).href);
const lines = [];
const mp = await loadMicroPython({ stdout: (l) => lines.push(l), stderr: (l) => lines.push(l) });
mp.FS.mkdir("/fw");
mp.FS.mkdir("/fw/orbito_fw");
for (const name of readdirSync(join(firmware, "orbito_fw"))) {
  if (name.endsWith(".py")) {
    mp.FS.writeFile("/fw/orbito_fw/" + name, readFileSync(join(firmware, "orbito_fw", name)));
  }
}
let status = 0;
try {
  mp.runPython(
    "import sys\nsys.path.insert(0, '/fw')\nimport orbito_fw.selfcheck\n" +
      "print(sys.implementation.name, orbito_fw.selfcheck.run())",
  );
} catch (err) {
  lines.push(err.message);
  status = 1;
}
console.log(lines.join("\n"));
process.exit(status);
