// The first connection (issue 19 item 5): a bot given a wrong address stops within its connect
// timeout (default 30 s) with one `error:` line naming the address and exit status 1, instead of
// reconnecting forever; an address without a port means port 50051, not gRPC's 443; reconnects
// after a first Welcome are not limited by the timeout.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import { describe, test } from "node:test";
import { Backoff, CONNECT_TIMEOUT, ConnectError, DEFAULT_PORT, Session, SessionOptions, parseOptions, stderrLogger, usage, withDefaultPort } from "../src";
import { RandomBot } from "../src/examples/random_bot";
import { Arbiter, startArbiter } from "./arbiter";

const EXAMPLE = path.join(__dirname, "..", "src", "examples", "random_bot.js");
const BOTS = { alice: "token-alice", bob: "token-bob" };
const quiet = stderrLogger("silent");
const fast = new Backoff(0.05, 2, 0.2, 0.25);

interface Ran {
  code: number | null;
  stderr: string;
  seconds: number;
}

/** The random example bot as a program: its exit status, its standard error and how long it ran. */
function runExample(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const started = performance.now();
  const child = spawn(process.execPath, [EXAMPLE, "--token", "token-x", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stderr, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** A local port where nothing listens (free a moment ago; connecting to it is refused). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("error:"));
}

function lastLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  return lines[lines.length - 1];
}

function session(server: string, name: keyof typeof BOTS, extra: Partial<SessionOptions> = {}): Session {
  return new Session(new RandomBot(name === "alice" ? 1 : 2), { server, token: BOTS[name], game: "torrent", size: 5, games: 1, backoff: fast, logger: quiet, ...extra });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("the first connection", () => {
  for (const how of ["flag", "environment"]) {
    test(`a closed port stops the bot with one line (timeout by ${how})`, async () => {
      const port = await closedPort();
      const address = `127.0.0.1:${port}`;
      const ran =
        how === "flag"
          ? await runExample(["--server", address, "--connect-timeout", "2"])
          : await runExample([], { ARBITER_SERVER: address, ARBITER_CONNECT_TIMEOUT: "2" });
      assert.equal(ran.code, 1, ran.stderr);
      assert.ok(ran.seconds < 40, String(ran.seconds));
      const errors = errorLines(ran.stderr);
      assert.equal(errors.length, 1, ran.stderr);
      assert.equal(errors[0], lastLine(ran.stderr));
      assert.match(errors[0], new RegExp(`cannot connect to the arbiter at 127\\.0\\.0\\.1:${port} within 2 s .*ECONNREFUSED`));
      assert.doesNotMatch(ran.stderr, /    at /); // no stack trace
    });
  }

  test("the default connect timeout is 30 seconds", async () => {
    assert.equal(CONNECT_TIMEOUT, 30);
    assert.equal(session("localhost", "alice").connectTimeout, 30);
    assert.equal(parseOptions([], { ARBITER_TOKEN: "t" }).connectTimeout, 30);
    assert.match(usage("bot"), /--connect-timeout S .*\$ARBITER_CONNECT_TIMEOUT; default 30\)/);
    const port = await closedPort();
    const ran = await runExample(["--server", `127.0.0.1:${port}`]);
    assert.equal(ran.code, 1, ran.stderr);
    assert.ok(ran.seconds >= 29.5 && ran.seconds < 40, String(ran.seconds));
    assert.deepEqual(errorLines(ran.stderr), [lastLine(ran.stderr)]);
    assert.ok(lastLine(ran.stderr).includes(`at 127.0.0.1:${port} within 30 s`), ran.stderr);
  });

  test("an unknown host stops the bot, and gets port 50051", async () => {
    const ran = await runExample(["--server", "no-such-host.invalid", "--connect-timeout", "2"]);
    assert.equal(ran.code, 1, ran.stderr);
    assert.ok(ran.seconds < 40);
    const errors = errorLines(ran.stderr);
    assert.equal(errors.length, 1, ran.stderr);
    assert.ok(errors[0].includes("at no-such-host.invalid:50051 within 2 s"), errors[0]);
    assert.doesNotMatch(ran.stderr, /:443/);
  });

  test("a connect timeout is checked", async () => {
    for (const bad of ["-1", "soon"]) {
      const ran = await runExample(["--connect-timeout", bad]);
      assert.equal(ran.code, 2, ran.stderr);
      assert.match(ran.stderr, /connect-timeout/);
    }
    assert.equal(parseOptions(["--connect-timeout", "0"], { ARBITER_TOKEN: "t" }).connectTimeout, null);
    assert.throws(() => session("localhost", "alice", { connectTimeout: 0 }), /connectTimeout/);
  });

  test("an address without a port gets 50051", () => {
    assert.equal(DEFAULT_PORT, 50051);
    const cases: [string, string][] = [
      ["localhost", "localhost:50051"],
      ["localhost:", "localhost:50051"],
      ["arbiter.example:7000", "arbiter.example:7000"],
      ["10.1.2.3", "10.1.2.3:50051"],
      ["[::1]", "[::1]:50051"],
      ["[::1]:7000", "[::1]:7000"],
      ["::1", "[::1]:50051"],
      ["unix:/run/arbiter.sock", "unix:/run/arbiter.sock"],
      ["dns:///arbiter.example:443", "dns:///arbiter.example:443"],
    ];
    for (const [given, target] of cases) assert.equal(withDefaultPort(given), target, given);
    assert.deepEqual(session("a.example, b.example:7000 ,c.example", "alice").addresses, ["a.example:50051", "b.example:7000", "c.example:50051"]);
  });

  test("a session's ConnectError names every seed address", async () => {
    const [one, two] = [await closedPort(), await closedPort()];
    const s = session(`127.0.0.1:${one},127.0.0.1:${two}`, "alice", { connectTimeout: 1 });
    await assert.rejects(s.run(), (err: Error) => err instanceof ConnectError && err.message.includes(`at 127.0.0.1:${one}, 127.0.0.1:${two} within 1 s`));
  });
});

describe("against a real arbiter", () => {
  test("a server on port 50051 is reached by its bare host", async () => {
    // A loopback address of our own (not 127.0.0.1, where a developer's arbiter may listen).
    let arbiter: Arbiter | undefined;
    let host = "";
    for (let i = 0; i < 20 && arbiter === undefined; i++) {
      host = `127.${1 + Math.floor(Math.random() * 254)}.${1 + Math.floor(Math.random() * 254)}.1`;
      arbiter = await startArbiter(BOTS, ["--host", host, "--port", String(DEFAULT_PORT)]).catch(() => undefined);
    }
    assert.ok(arbiter, "no loopback address had port 50051 free");
    try {
      assert.equal(arbiter.address, `${host}:${DEFAULT_PORT}`);
      const [a, b] = await Promise.all([session(host, "alice").run(), session(host, "bob").run()]);
      assert.equal(a.length, 1);
      assert.equal(b.length, 1);
      assert.equal(a[0].matchId, b[0].matchId);
    } finally {
      await arbiter.stop();
    }
  });

  test("reconnects after a first Welcome go on past the connect timeout", async () => {
    const first = await startArbiter(BOTS);
    const port = first.address.split(":").pop() as string;
    const alice = session(first.address, "alice", { connectTimeout: 1 });
    let settled = false;
    const running = alice.run().finally(() => (settled = true));
    try {
      for (let i = 0; i < 600 && alice.botName === "" && !settled; i++) await sleep(100);
      assert.equal(alice.botName, "alice"); // welcomed
    } finally {
      await first.stop();
    }
    // The arbiter is gone: three times the connect timeout of reconnecting, and no ConnectError.
    await sleep(3000);
    assert.equal(settled, false, "the session ended while its arbiter was away");
    assert.ok(alice.stats.reconnects >= 3, String(alice.stats.reconnects));
    const second = await startArbiter(BOTS, ["--port", port]);
    try {
      const [a, b] = await Promise.all([running, session(second.address, "bob").run()]);
      assert.equal(a.length, 1);
      assert.equal(b.length, 1);
      assert.equal(a[0].matchId, b[0].matchId);
    } finally {
      await second.stop();
    }
  });
});
