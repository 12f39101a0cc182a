// Unit tests: the seed check (the rules' example, a consistent match, tampered seeds), the wire
// conversions, the backoff, the command line, the greedy bot's flank test.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import {
  Backoff,
  checkSurgeSeed,
  drawOrder,
  legalFromPb,
  actionToPb,
  actionText,
  parseOptions,
  usage,
  UsageError,
  stderrLogger,
  summaryLine,
  visible,
  surgePb,
  commonPb,
  flankPb,
} from "../src";
import { GreedyFlankBot } from "../src/examples/greedy_flank";
import { boardText, newState, place, scores, stateFromObservation } from "../src/engine";
import { parseBoard, pointCoords, pointName, points } from "../src/flank";

const EXAMPLE_SEED = Buffer.from([...Array(32).keys()]).toString("hex");
const BLUE = [10, 7, 2, 5, 10, 2, 1, 4, 5, 7, 3, 8, 1, 9, 3, 6, 4, 8, 6, 9];
const ORANGE = [7, 10, 2, 4, 10, 3, 5, 6, 9, 4, 5, 3, 1, 8, 2, 6, 8, 7, 9, 1];
const sha = (hex: string) => createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex");
const sorted = (v: number[]) => [...v].sort((a, b) => a - b);

/** The first observation of blue's first turn in the rules' example (docs/protocol.md). */
function firstTurn(order: number[]): surgePb.SurgeObservation {
  return surgePb.SurgeObservation.fromPartial({
    seat: commonPb.Seat.SEAT_1,
    colour: commonPb.Colour.COLOUR_BLUE,
    round: 1,
    yourTurn: true,
    hand: sorted(order.slice(0, 3)),
    supply: sorted(order.slice(3)),
    opponentHandSize: 3,
    opponentSupplySize: 17,
  });
}

/** A later observation: blue placed 10 on d2, orange's 10 is face up on d6, hands refilled. */
function laterTurn(): surgePb.SurgeObservation {
  return surgePb.SurgeObservation.fromPartial({
    seat: commonPb.Seat.SEAT_1,
    colour: commonPb.Colour.COLOUR_BLUE,
    round: 2,
    roundsPlayed: 1,
    faceUp: [
      { square: "d3", colour: commonPb.Colour.COLOUR_BLUE, value: 10 },
      { square: "d6", colour: commonPb.Colour.COLOUR_ORANGE, value: 10 },
    ],
    hand: sorted([7, 2, 5]),
    supply: sorted(BLUE.slice(4)),
    opponentHandSize: 3,
    opponentSupplySize: 16,
  });
}

describe("the Surge seed check", () => {
  test("draw orders and commitment of the rules' example", () => {
    const seed = Buffer.from(EXAMPLE_SEED, "hex");
    assert.deepEqual(drawOrder(seed, "blue"), BLUE);
    assert.deepEqual(drawOrder(seed, "orange"), ORANGE);
    assert.equal(sha(EXAMPLE_SEED), "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
  });

  test("a consistent match passes", () => {
    const problems = checkSurgeSeed(EXAMPLE_SEED, sha(EXAMPLE_SEED), "blue", [firstTurn(BLUE), laterTurn()]);
    assert.deepEqual(problems, []);
  });

  test("a tampered seed fails the commitment", () => {
    const tampered = "ff" + EXAMPLE_SEED.slice(2);
    const problems = checkSurgeSeed(tampered, sha(EXAMPLE_SEED), "blue", [firstTurn(BLUE)]);
    assert.ok(problems.some((p) => p.includes("commitment")), problems.join("\n"));
    assert.ok(problems.some((p) => p.includes("first 3 stones")), problems.join("\n"));
  });

  test("a seed that matches its commitment but not the draws fails", () => {
    const other = "ab".repeat(32);
    const problems = checkSurgeSeed(other, sha(other), "blue", [firstTurn(BLUE), laterTurn()]);
    assert.ok(problems.length > 0);
    assert.ok(!problems.some((p) => p.includes("commitment")));
  });

  test("an opponent stone that was never drawn fails", () => {
    const obs = laterTurn();
    obs.faceUp[1].value = 1; // orange's first four are 7, 10, 2, 4: no 1 among them
    const problems = checkSurgeSeed(EXAMPLE_SEED, sha(EXAMPLE_SEED), "blue", [obs]);
    assert.ok(problems.some((p) => p.includes("opponent stones [1]")), problems.join("\n"));
  });

  test("a seed that is not 64 hex digits fails", () => {
    assert.equal(checkSurgeSeed("xyz", sha(EXAMPLE_SEED), "blue", []).length, 1);
  });
});

describe("wire conversions", () => {
  test("legal actions as text, in the arbiter's order", () => {
    const flank = legalFromPb({ game: { $case: "flank", flank: { points: ["a9", "e5"], canPass: true, canSwap: true } } });
    assert.deepEqual(flank, ["a9", "e5", "pass", "swap"]);
    const surge = legalFromPb({ game: { $case: "surge", surge: { values: [2, 7], squares: ["a1", "a2"] } } });
    assert.deepEqual(surge, ["2@a1", "2@a2", "7@a1", "7@a2"]);
  });

  test("text actions round-trip; text that is no action throws", () => {
    for (const text of ["g7", "pass", "swap"]) assert.equal(actionText(actionToPb("torrent", text)), text);
    for (const text of ["7@c2", "skip"]) assert.equal(actionText(actionToPb("surge", text)), text);
    assert.throws(() => actionToPb("torrent", "E5"));
    assert.throws(() => actionToPb("surge", "7@C2"));
  });
});

test("backoff: capped exponential delays with jitter", () => {
  const b = new Backoff();
  assert.deepEqual([0, 1, 2, 3, 10].map((a) => b.baseDelay(a)), [0.5, 1, 2, 4, 30]);
  for (let a = 0; a < 12; a++) {
    const d = b.delay(a);
    assert.ok(d >= b.baseDelay(a) * 0.75 - 1e-9 && d <= Math.min(30, b.baseDelay(a) * 1.25) + 1e-9);
  }
  assert.throws(() => new Backoff(0));
});

describe("the command line", () => {
  test("--help lines up every option's description in one column", () => {
    for (const games of [undefined, ["surge"] as const]) {
      const lines = usage("bot", "A bot.", games).split("\n").filter((line) => line.startsWith("  --"));
      assert.ok(lines.length >= 15);
      const columns = new Set(lines.map((line) => line.search(/\S\s{2,}\S/) + line.match(/\S\s{2,}\S/)![0].length - 1));
      assert.equal(columns.size, 1, lines.join("\n"));
      assert.ok(lines.some((line) => line.includes("--game torrent|fravan|surge") || line.includes("--game surge")));
    }
  });
  test("options from the environment, the command line winning", () => {
    const env = { ARBITER_SERVER: "h:1", ARBITER_TOKEN: "t", ARBITER_GAME: "fravan", ARBITER_SIZE: "5", ARBITER_GAMES: "3" };
    const o = parseOptions(["--games", "4", "--ladder=main", "--version", "2.1.0"], env);
    assert.equal(o.server, "h:1");
    assert.equal(o.token, "t");
    assert.equal(o.game, "fravan");
    assert.equal(o.size, 5);
    assert.equal(o.games, 4);
    assert.equal(o.ladder, "main");
    assert.equal(o.version, "2.1.0");
    assert.equal(o.timeControl, undefined);
    const t = parseOptions(["--token", "x", "--base", "60", "--increment", "1", "--per-decision", "5"], {});
    assert.deepEqual(t.timeControl, { base: 60, increment: 1, perDecision: 5 });
    assert.equal(t.server, "localhost:50051");
    assert.equal(t.game, "torrent");
    assert.equal(parseOptions(["--token", "x", "--game", "surge"], { ARBITER_SIZE: "7" }).size, undefined);
    assert.equal(parseOptions([], { ARBITER_TOKEN: "x", ARBITER_LADDER: "l", ARBITER_BOT_VERSION: "v1" }).version, "v1");
  });

  test("TLS options: --tls, --ca (implying TLS), client certificates, their variables", () => {
    assert.equal(parseOptions(["--token", "x"], {}).tls, false);
    assert.equal(parseOptions(["--token", "x", "--tls"], {}).tls, true);
    const ca = parseOptions(["--token", "x", "--ca", "ca.pem"], {});
    assert.equal(ca.tls, true);
    assert.equal(ca.ca, "ca.pem");
    const env = parseOptions([], { ARBITER_TOKEN: "x", ARBITER_TLS: "yes", ARBITER_CLIENT_CERT: "c.pem", ARBITER_CLIENT_KEY: "c.key" });
    assert.equal(env.tls, true);
    assert.equal(env.ca, undefined);
    assert.deepEqual([env.clientCert, env.clientKey], ["c.pem", "c.key"]);
    assert.equal(parseOptions([], { ARBITER_TOKEN: "x", ARBITER_TLS: "0" }).tls, false);
    assert.throws(() => parseOptions(["--token", "x", "--client-cert", "c.pem"], {}), UsageError);
  });

  test("bad input is a usage error", () => {
    assert.throws(() => parseOptions([], {}), UsageError); // no token
    assert.throws(() => parseOptions(["--token", "x", "--size", "6", "--game", "fravan"], {}), UsageError);
    assert.throws(() => parseOptions(["--token", "x", "--increment", "1"], {}), UsageError);
    assert.throws(() => parseOptions(["--token", "x", "--games", "-1"], {}), UsageError);
    assert.throws(() => parseOptions(["--token", "x", "--nope"], {}), UsageError);
    assert.throws(() => parseOptions(["--token", "x"], { ARBITER_GAMES: "many" }), UsageError);
  });
});

describe("flank geometry", () => {
  test("point names and board-text order", () => {
    assert.equal(points(5).length, 61);
    assert.equal(pointName(5, 0, 0), "e5");
    assert.deepEqual(pointCoords(5, "e5"), [0, 0]);
    assert.equal(pointName(5, ...points(5)[0]), "a9");
    assert.equal(pointName(5, ...points(5)[60]), "i1");
  });

  test("the engine resumes from an observation (events, the next event number)", () => {
    // Worked example 6 of the rules: d5 e5 pass e4 pass e6 f5, then d6 pass f4 (Torrent).
    let s = newState(5, false);
    const moves: [string, number][] = [["d5", 1], ["e5", 2], ["e4", 2], ["e6", 2], ["f5", 1], ["d6", 2]];
    for (const [p, c] of moves) s = place(s, p, c as 1 | 2);
    const obs = flankPb.FlankObservation.fromPartial({ size: 5, board: boardText(s), events: [...s.events] });
    const resumed = stateFromObservation(obs, false);
    assert.equal(boardText(place(resumed, "f4", 2)), boardText(place(s, "f4", 2)));
    assert.deepEqual(scores(place(resumed, "f4", 2)), { black: 2, white: 5 });
  });

  test("the greedy bot takes the flip and passes only to win", () => {
    // Row 5 (a5..i5) reads "..BW....": Black on e5 flips d5 (margin 3 - 0).
    const obs = flankPb.FlankObservation.fromPartial({
      size: 5,
      colour: commonPb.Colour.COLOUR_BLACK,
      board: "...../....../......./......../..BW...../......../......./....../.....",
      events: Array.from({ length: 61 }, (_, i) => (i === 28 ? 1 : i === 29 ? 2 : 0)),
      blackScore: 1,
      whiteScore: 1,
      lastAction: { kind: { $case: "pass", pass: {} } },
      firstPassColour: commonPb.Colour.COLOUR_WHITE,
    });
    const bot = new GreedyFlankBot(1);
    const values = bot.evaluate(obs, ["e5", "f5", "pass"], false);
    assert.equal(values.get("e5"), 3);
    assert.equal(values.get("pass"), -10_000); // equal scores, White passed first: passing loses
  });
});

describe("text from outside is shown with its control characters made visible", () => {
  test("visible() escapes controls, bidi and zero-width characters and keeps the rest", () => {
    assert.equal(visible("ann"), "ann");
    assert.equal(visible("é ü 名前"), "é ü 名前");
    assert.equal(visible("x\u001b[2Jy\u0007\u007f"), "x\\x1b[2Jy\\x07\\x7f");
    assert.equal(visible("a\u202eb\u200bc"), "a\\u202eb\\u200bc");
    assert.equal(visible("\u{e0001}"), "\\U000e0001");
  });
  test("the summary line and the log escape an opponent's name", () => {
    const line = summaryLine({
      matchId: "m1",
      outcome: "win",
      myScore: 3,
      opponentScore: 1,
      opponentName: "evil\u001b]0;pwned\u0007",
      game: "torrent",
      reason: "two_passes",
    } as unknown as Parameters<typeof summaryLine>[0]);
    assert.ok(!/[\u0000-\u001f\u007f]/.test(line), line);
    assert.match(line, /vs evil\\x1b\]0;pwned\\x07 /);
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      written.push(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      stderrLogger("info").log("info", "match started", { opponent: "x\u001b[31m", list: ["\u202e"] });
    } finally {
      process.stderr.write = original;
    }
    assert.equal(written.length, 1);
    assert.ok(written[0].includes("opponent=x\\x1b[31m"), written[0]);
    assert.ok(written[0].includes('list=["\\u202e"]'), written[0]);
  });
});
