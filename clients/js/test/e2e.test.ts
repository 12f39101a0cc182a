// Against a real arbiter started here (.venv/bin/arbiter serve --database none --port 0): every
// game played to the end, a reconnect mid-match, an illegal move under each policy, a bad token,
// the version metadata, an unknown ladder.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  ArbiterError,
  AuthenticationError,
  BadRequestError,
  Bot,
  MatchSummary,
  Observation,
  Rejection,
  Session,
  SessionOptions,
  TurnContext,
  tlsCredentials,
  Backoff,
  isFlank,
  stderrLogger,
} from "../src";
import { GreedyFlankBot } from "../src/examples/greedy_flank";
import { RandomBot } from "../src/examples/random_bot";
import { Arbiter, arbiterBin, startArbiter } from "./arbiter";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const BOTS: Record<string, string> = {};
for (const name of ["t1", "t2", "f1", "f2", "s1", "s2", "r1", "r2", "i1", "i2", "v1"]) BOTS[name] = `token-${name}`;
const quiet = stderrLogger((process.env.ARBITER_JS_LOG as "debug" | undefined) ?? "silent");
const fast = new Backoff(0.05, 2, 0.5, 0.25);

function session(arbiter: Arbiter, bot: Bot, name: string, extra: Partial<SessionOptions> = {}): Session {
  return new Session(bot, {
    server: arbiter.address,
    token: BOTS[name] ?? name,
    game: "torrent",
    size: 5,
    games: 1,
    maxReconnects: 5,
    backoff: fast,
    logger: quiet,
    ...extra,
  });
}

async function play(...sessions: Session[]): Promise<MatchSummary[][]> {
  return Promise.all(sessions.map((s) => s.run()));
}

function checkFinished(a: MatchSummary, b: MatchSummary, reason: string): void {
  assert.equal(a.matchId, b.matchId);
  assert.equal(a.reason, reason, a.detail);
  assert.equal(b.reason, reason, b.detail);
  assert.notEqual(a.seat, b.seat);
  const outcomes = [a.outcome, b.outcome].sort().join(",");
  assert.ok(["loss,win", "draw,draw"].includes(outcomes), outcomes);
  assert.deepEqual(a.actions, b.actions);
  assert.ok(a.actions.length > 2);
}

/** A point holding a stone (an illegal placement), from a Torrent/Fravan observation. */
function occupied(observation: Observation, legal: string[]): string | undefined {
  if (!isFlank(observation)) return undefined;
  const size = observation.size;
  const cells = observation.board.replace(/\//g, "");
  const names: string[] = [];
  for (let r = size - 1; r >= -(size - 1); r--) {
    for (let q = -(size - 1); q <= size - 1; q++) {
      if (Math.abs(q + r) <= size - 1) names.push(String.fromCharCode(97 + q + size - 1) + String(r + size));
    }
  }
  return names.find((n, i) => cells[i] !== "." && !legal.includes(n));
}

/** Plays randomly, but once answers with an occupied point (its first turn with a stone on the board). */
class IllegalOnceBot implements Bot {
  readonly inner = new RandomBot(7);
  readonly rejections: Rejection[] = [];
  readonly retried: number[] = [];
  illegal: string | undefined;

  choose(observation: Observation, legal: string[], context: TurnContext): string {
    if (context.rejections.length) this.retried.push(context.rejections.length);
    if (this.illegal === undefined) {
      const point = occupied(observation, legal);
      if (point !== undefined) {
        this.illegal = point;
        return point;
      }
    }
    return this.inner.choose(observation, legal, context);
  }

  onMoveRejected(rejection: Rejection): void {
    this.rejections.push(rejection);
  }
}

describe("against a real arbiter (forfeit policy)", () => {
  let arbiter: Arbiter;
  before(async () => {
    arbiter = await startArbiter(BOTS, ["--base", "30", "--increment", "1"]);
  });
  after(async () => arbiter?.stop());

  test("Torrent to the end: greedy against random, clocks in the context", async () => {
    const contexts: TurnContext[] = [];
    const greedy = new GreedyFlankBot(1);
    const watcher: Bot = {
      choose(observation, legal, context) {
        contexts.push(context);
        return greedy.choose(observation, legal, context);
      },
    };
    const [[a], [b]] = await play(session(arbiter, watcher, "t1"), session(arbiter, new RandomBot(2), "t2"));
    checkFinished(a, b, "two_passes");
    assert.equal(a.game, "torrent");
    assert.equal(a.options.size, 5);
    assert.equal(a.outcome, "win"); // greedy beats random (it does, by a wide margin, on size 5)
    const first = contexts[0];
    assert.deepEqual(first.info.timeControl, { base: 30, increment: 1 });
    assert.ok(first.decisionLimit !== null && first.decisionLimit > 25 && first.decisionLimit <= 31, String(first.decisionLimit));
    assert.ok(typeof first.clocks[1] === "number" && typeof first.clocks[2] === "number");
    assert.ok((first.timeLeft() ?? 0) > 0);
    assert.equal(first.info.timeoutPolicy, "loss");
    assert.equal(first.info.illegalActionPolicy, "forfeit");
    assert.ok(contexts.every((c, i) => i === 0 || c.turnId > contexts[i - 1].turnId));
  });

  test("Fravan to the end", async () => {
    const opts = { game: "fravan" as const };
    const [[a], [b]] = await play(session(arbiter, new GreedyFlankBot(3), "f1", opts), session(arbiter, new RandomBot(4), "f2", opts));
    checkFinished(a, b, "two_passes");
    assert.equal(a.game, "fravan");
  });

  test("Surge to the end, the seed check passing on both sides", async () => {
    const opts = { game: "surge" as const, size: undefined };
    const [[a], [b]] = await play(session(arbiter, new RandomBot(5), "s1", opts), session(arbiter, new RandomBot(6), "s2", opts));
    assert.equal(a.matchId, b.matchId);
    assert.equal(a.game, "surge");
    assert.notEqual(a.reason, "unknown");
    assert.match(a.seed, /^[0-9a-f]{64}$/);
    assert.equal(a.seedVerified, true, a.seedProblems.join("; "));
    assert.equal(b.seedVerified, true, b.seedProblems.join("; "));
    assert.ok(a.actions.length > 0);
  });

  test("a connection killed mid-match: the match resumes and finishes, the re-sent turn gets the same move", async () => {
    let turns = 0;
    let dropped = false;
    let sessionA: Session | undefined = undefined;
    const inner = new RandomBot(8);
    const dropper: Bot = {
      choose(observation, legal, context) {
        turns += 1;
        const move = inner.choose(observation, legal, context);
        if (turns === 3 && !dropped) {
          dropped = true;
          sessionA?.dropConnection(); // the move chosen now cannot be sent: it goes after the reconnect
        }
        return move;
      },
    };
    sessionA = session(arbiter, dropper, "r1");
    const sessionB = session(arbiter, new RandomBot(9), "r2");
    const [[a], [b]] = await play(sessionA, sessionB);
    checkFinished(a, b, "two_passes");
    assert.ok(dropped);
    assert.ok(sessionA.stats.reconnects >= 1, JSON.stringify(sessionA.stats));
    assert.equal(sessionA.stats.connections, sessionA.stats.reconnects + 1);
    assert.ok(sessionA.stats.resumedMatches >= 1, JSON.stringify(sessionA.stats));
    assert.ok(sessionA.stats.resentAnswers >= 1, JSON.stringify(sessionA.stats));
    assert.equal(sessionB.stats.reconnects, 0);
  });

  test("a connection killed right after a move: the match resumes and finishes", async () => {
    let turns = 0;
    let sessionA: Session | undefined = undefined;
    const inner = new RandomBot(12);
    const dropper: Bot = {
      choose(observation, legal, context) {
        turns += 1;
        if (turns === 4) setTimeout(() => sessionA?.dropConnection(), 0); // just after the move is written
        return inner.choose(observation, legal, context);
      },
    };
    sessionA = session(arbiter, dropper, "r1");
    const [[a], [b]] = await play(sessionA, session(arbiter, new RandomBot(13), "r2"));
    checkFinished(a, b, "two_passes");
    assert.ok(sessionA.stats.reconnects >= 1, JSON.stringify(sessionA.stats));
  });

  test("an illegal move under the forfeit policy loses the match", async () => {
    const bad = new IllegalOnceBot();
    const [[a], [b]] = await play(session(arbiter, bad, "i1"), session(arbiter, new RandomBot(10), "i2"));
    assert.ok(bad.illegal !== undefined);
    assert.equal(a.reason, "illegal_action", a.detail);
    assert.equal(a.outcome, "loss");
    assert.equal(b.outcome, "win");
    assert.equal(a.faultySeat, a.seat);
    assert.equal(bad.rejections.length, 1);
    assert.equal(bad.rejections[0].reason, "ILLEGAL_ACTION");
    assert.equal(bad.rejections[0].mayRetry, false);
    assert.equal(bad.rejections[0].action, bad.illegal);
  });

  test("a wrong token is refused and not retried", async () => {
    const s = session(arbiter, new RandomBot(), "nobody", { token: "wrong-token" });
    await assert.rejects(s.run(), AuthenticationError);
    assert.equal(s.stats.connections, 1);
  });

  test("the version metadata is echoed; an unknown ladder is a bad request", async () => {
    const s = session(arbiter, new RandomBot(), "v1", { ladder: "no-such-ladder", version: "2.1.0" });
    await assert.rejects(s.run(), (err: unknown) => err instanceof BadRequestError && err.reason === "LADDER_NOT_FOUND");
    assert.equal(s.botVersion, "2.1.0");
    assert.equal(s.botName, "v1");
  });
});

describe("against a real arbiter (reject policy)", () => {
  let arbiter: Arbiter;
  before(async () => {
    // Also one request per second beyond play (moves answering turns are play): of two seeks
    // sent at once, the second is RATE_LIMITED.
    arbiter = await startArbiter(BOTS, ["--base", "30", "--increment", "1", "--on-illegal", "reject", "--limit-requests", "1"]);
  });
  after(async () => arbiter?.stop());

  test("an illegal move under the reject policy is refused, choose is asked again, the match goes on", async () => {
    const bad = new IllegalOnceBot();
    const [[a], [b]] = await play(session(arbiter, bad, "i1"), session(arbiter, new RandomBot(11), "i2"));
    checkFinished(a, b, "two_passes");
    assert.ok(bad.illegal !== undefined);
    assert.equal(bad.rejections.length, 1);
    assert.equal(bad.rejections[0].reason, "ILLEGAL_ACTION");
    assert.equal(bad.rejections[0].mayRetry, true);
    assert.deepEqual(bad.retried, [1]);
    assert.ok(!a.actions.includes(`${bad.illegal}!`));
  });

  test("a RATE_LIMITED seek is sent again after retry_after_ms", async () => {
    const [alice, bob] = await play(
      session(arbiter, new RandomBot(31), "r1", { games: 2, maxConcurrent: 2 }),
      session(arbiter, new RandomBot(32), "r2", { games: 2, maxConcurrent: 2 }),
    );
    assert.equal(alice.length, 2);
    assert.equal(bob.length, 2);
  });
});

/** A throwaway CA with a server certificate for 127.0.0.1 and a client certificate, made by the
 * Python tests' tool (trustme, in the repository's .venv beside the arbiter). */
function makeCertificates(): { dir: string; ca: string; cert: string; key: string; clientCert: string; clientKey: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbiter-js-tls-"));
  const script = [
    "import sys, trustme",
    "d = sys.argv[1]",
    "ca = trustme.CA()",
    "ca.cert_pem.write_to_path(d + '/ca.pem')",
    "for name, hosts in (('server', ('127.0.0.1', 'localhost')), ('client', ('bot.example',))):",
    "    cert = ca.issue_cert(*hosts)",
    "    cert.private_key_pem.write_to_path(d + '/' + name + '.key')",
    "    open(d + '/' + name + '.pem', 'wb').write(b''.join(b.bytes() for b in cert.cert_chain_pems))",
  ].join("\n");
  const python = path.join(path.dirname(arbiterBin()), "python");
  const made = spawnSync(python, ["-c", script, dir], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
  const at = (f: string) => path.join(dir, f);
  return { dir, ca: at("ca.pem"), cert: at("server.pem"), key: at("server.key"), clientCert: at("client.pem"), clientKey: at("client.key") };
}

describe("against a real arbiter with mutual TLS", () => {
  let arbiter: Arbiter;
  let certs: ReturnType<typeof makeCertificates>;
  before(async () => {
    certs = makeCertificates();
    arbiter = await startArbiter(BOTS, ["--tls-cert", certs.cert, "--tls-key", certs.key, "--tls-client-ca", certs.ca]);
  });
  after(async () => {
    await arbiter?.stop();
    fs.rmSync(certs.dir, { recursive: true, force: true });
  });

  test("bots with a client certificate play a match; without one the handshake fails", async () => {
    const credentials = tlsCredentials({ ca: certs.ca, clientCert: certs.clientCert, clientKey: certs.clientKey });
    // Node's TLS takes no IP address as the server name: check the certificate's "localhost".
    const channelOptions = { "grpc.ssl_target_name_override": "localhost" };
    const [[a], [b]] = await play(
      session(arbiter, new RandomBot(21), "t1", { credentials, channelOptions }),
      session(arbiter, new RandomBot(22), "t2", { credentials, channelOptions }),
    );
    assert.equal(a.matchId, b.matchId);
    assert.ok(a.actions.length > 2);
    const without = session(arbiter, new RandomBot(), "f1", { credentials: tlsCredentials({ ca: certs.ca }), channelOptions, maxReconnects: 1 });
    await assert.rejects(without.run(), (err: unknown) => err instanceof ArbiterError && /gave up/.test(err.message));
    assert.equal(without.botName, "");  // never welcomed
  });
});
