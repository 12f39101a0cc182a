#!/usr/bin/env node
// Generate the TypeScript types and the @grpc/grpc-js client of proto/arbiter/v1 into src/gen
// (committed), with ts-proto (an npm package) as the protoc plugin.
//
//   node scripts/generate.js [--check]
//
// protoc itself is the one of the Python grpcio-tools in the repository's .venv (deploy/dev sets
// it up; $PYTHON overrides the interpreter); google/rpc/status.proto and error_details.proto come
// from the googleapis-common-protos package there. With --check, generate into a temporary folder
// and exit 1 when the committed code differs.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const JS = path.resolve(__dirname, "..");
const ROOT = path.resolve(JS, "..", "..");
const PROTO = path.join(ROOT, "proto");
const TARGET = path.join(JS, "src", "gen");
const OPTIONS = [
  "outputServices=grpc-js",
  "esModuleInterop=true",
  "oneof=unions",
  "forceLong=number",
  "env=node",
  "useOptionals=messages",
  "outputJsonMethods=false",
  "outputPartialMethods=true",
  "exportCommonSymbols=false",
].join(",");

function python() {
  if (process.env.PYTHON) return process.env.PYTHON;
  const venv = path.join(ROOT, ".venv", "bin", "python");
  return fs.existsSync(venv) ? venv : "python3";
}

function includeDirs(py) {
  const code =
    "import pathlib, google.rpc.status_pb2 as s, grpc_tools\n" +
    "print(pathlib.Path(s.__file__).resolve().parent.parent.parent)\n" +
    "print(pathlib.Path(grpc_tools.__file__).parent / '_proto')\n";
  return execFileSync(py, ["-c", code], { encoding: "utf8" }).trim().split("\n");
}

function listFiles(dir, base = dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full, base));
    else out.push(path.relative(base, full));
  }
  return out.sort();
}

function generate(out) {
  const py = python();
  const plugin = path.join(JS, "node_modules", ".bin", "protoc-gen-ts_proto");
  if (!fs.existsSync(plugin)) throw new Error("ts-proto is not installed: run npm ci in clients/js");
  const protos = fs
    .readdirSync(path.join(PROTO, "arbiter", "v1"))
    .filter((f) => f.endsWith(".proto"))
    .sort()
    .map((f) => `arbiter/v1/${f}`);
  const args = [
    "-m", "grpc_tools.protoc",
    `-I${PROTO}`,
    ...includeDirs(py).map((d) => `-I${d}`),
    `--plugin=protoc-gen-ts_proto=${plugin}`,
    `--ts_proto_out=${out}`,
    `--ts_proto_opt=${OPTIONS}`,
    ...protos,
    "google/rpc/error_details.proto",
  ];
  execFileSync(py, args, { cwd: PROTO, stdio: ["ignore", "inherit", "inherit"] });
  const files = listFiles(out);
  for (const file of files) {
    const full = path.join(out, file);
    const text = fs.readFileSync(full, "utf8").replace(/^\/\/ +protoc +v.*\n/m, "//   protoc (grpcio-tools)\n");
    fs.writeFileSync(full, text);
  }
  return files;
}

function main() {
  const check = process.argv.includes("--check");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbiter-ts-gen-"));
  try {
    const files = generate(tmp);
    if (check) {
      const committed = fs.existsSync(TARGET) ? listFiles(TARGET) : [];
      const stale = files.filter(
        (f) => !fs.existsSync(path.join(TARGET, f)) ||
          !fs.readFileSync(path.join(TARGET, f)).equals(fs.readFileSync(path.join(tmp, f))),
      );
      const extra = committed.filter((f) => !files.includes(f));
      if (stale.length || extra.length) {
        console.error("generated TypeScript is stale: run npm run generate in clients/js", [...stale, ...extra]);
        process.exit(1);
      }
      console.log("generated TypeScript is up to date");
      return;
    }
    fs.rmSync(TARGET, { recursive: true, force: true });
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(TARGET, file)), { recursive: true });
      fs.copyFileSync(path.join(tmp, file), path.join(TARGET, file));
    }
    console.log(`wrote ${files.length} files to ${path.relative(ROOT, TARGET)}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main();
