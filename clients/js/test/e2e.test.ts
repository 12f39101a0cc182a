// Against a real arbiter started here (.venv/bin/arbiter serve --database none --port 0): every
// game played to the end, a reconnect mid-match, an illegal move under each policy, a bad token,
// the version metadata, an unknown ladder.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AuthenticationError,
  BadRequestError,
  Bot,
  MatchSummary,
  Observation,
  Rejection,
  Session,
  SessionOptions,
  TurnContext,
  Backoff,
  isFlank,
  stderrLogger,
} from "../src";
import { GreedyFlankBot } from "../src/examples/greedy_flank";
import { RandomBot } from "../src/examples/random_bot";
import { Arbiter, startArbiter } from "./arbiter";

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
    arbiter = await startArbiter(BOTS, ["--base", "30", "--increment", "1", "--on-illegal", "reject"]);
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
});
