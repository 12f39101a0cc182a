// The scripted scenarios of tests/scenarios/*.json played by this SDK against a real `arbiter serve`
// (one per distinct server block, every scenario's two bots on each). tests/sdk/test_scenarios.py
// plays the same files with the Python SDK; both must reach the outcomes the files expect.
// The format is described in tests/scenarios/README.md.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import {
  Backoff,
  Bot,
  Choice,
  GameName,
  MatchInfo,
  MatchSummary,
  Observation,
  Rejection,
  Session,
  TurnContext,
  actionToPb,
  checkSurgeSeed,
  isSurge,
  seatFromPb,
  stderrLogger,
} from "../src";
import { Turn, Welcome } from "../src/gen/arbiter/v1/bot_service";
import { SurgeObservation } from "../src/gen/arbiter/v1/surge";
import { Arbiter, arbiterBin, startArbiter } from "./arbiter";

const ROOT = path.resolve(__dirname, "..", "..", "..", "..");
const SCENARIOS = path.join(ROOT, "tests", "scenarios");
const SERVER_DEFAULTS = { base: 60, increment: 1, per_decision: null as number | null, on_timeout: "loss", on_illegal: "forfeit" };
const EVENTS = ["illegal", "malformed", "disconnect", "sleep"];
/** What "malformed" sends: an action of another game, which this game's codec cannot read. */
const MALFORMED: Record<GameName, [GameName, string]> = { torrent: ["surge", "1@a1"], fravan: ["surge", "1@a1"], surge: ["torrent", "pass"] };
const BACKOFF = new Backoff(0.3, 2, 1, 0.1);
const quiet = stderrLogger((process.env.ARBITER_JS_LOG as "debug" | undefined) ?? "silent");

type Seat = 1 | 2;
interface Event { turn: number; do: string; seconds: number }
interface Script { offset: number; step: number; events: Map<number, Event> }
interface SeedCheck { tamper: "none" | "seed" | "seed_and_commitment"; fails: string[] }
interface SeatExpect { rejections: string[]; askedAgain: number; reconnected: boolean; seedChecks: SeedCheck[]; colour: string | undefined }
interface Scenario {
  name: string;
  game: GameName;
  size: number | undefined;
  server: typeof SERVER_DEFAULTS;
  seats: Record<Seat, Script>;
  reasons: string[];
  winner: Seat | null | "any";
  scores: Record<Seat, number> | undefined;
  plies: number | undefined;
  expectSeats: Record<Seat, SeatExpect>;
}

function seatKey(key: string): Seat {
  if (key !== "1" && key !== "2") throw new Error(`seats are named "1" and "2", not ${JSON.stringify(key)}`);
  return Number(key) as Seat;
}

function load(file: string): Scenario {
  const raw = JSON.parse(fs.readFileSync(path.join(SCENARIOS, file), "utf8"));
  if (raw.name !== path.basename(file, ".json")) throw new Error(`${file}: "name" must be the file's stem`);
  const server = { ...SERVER_DEFAULTS, ...(raw.server ?? {}) };
  const unknown = Object.keys(server).filter((k) => !(k in SERVER_DEFAULTS));
  if (unknown.length) throw new Error(`${file}: unknown server settings ${unknown}`);
  const seats = {} as Record<Seat, Script>;
  for (const [key, script] of Object.entries<any>(raw.seats)) {
    const events = new Map<number, Event>();
    for (const e of script.events ?? []) {
      if (!EVENTS.includes(e.do)) throw new Error(`${file}: unknown event ${e.do}`);
      events.set(e.turn, { turn: e.turn, do: e.do, seconds: e.seconds ?? 0 });
    }
    seats[seatKey(key)] = { offset: script.pick?.offset ?? 0, step: script.pick?.step ?? 0, events };
  }
  assert.ok(seats[1] && seats[2], `${file}: both seats need a script`);
  const expect = raw.expect;
  const expectSeats = {} as Record<Seat, SeatExpect>;
  for (const seat of [1, 2] as const) {
    const e = expect.seats?.[String(seat)] ?? {};
    expectSeats[seat] = {
      rejections: e.rejections ?? [],
      askedAgain: e.asked_again ?? 0,
      reconnected: e.reconnected ?? false,
      seedChecks: (e.seed_checks ?? []).map((c: SeedCheck) => ({ tamper: c.tamper, fails: [...c.fails].sort() })),
      colour: e.colour,
    };
  }
  const winner = expect.winner ?? "any";
  assert.ok([1, 2, "draw", "any"].includes(winner), `${file}: "winner" is 1, 2 or "draw"`);
  return {
    name: raw.name,
    game: raw.game,
    size: raw.options?.size,
    server,
    seats,
    reasons: typeof expect.reason === "string" ? [expect.reason] : expect.reason,
    winner: winner === "draw" ? null : winner,
    scores: expect.scores ? { 1: expect.scores["1"], 2: expect.scores["2"] } : undefined,
    plies: expect.plies,
    expectSeats,
  };
}

function serveArgs(s: Scenario): string[] {
  const v = s.server;
  const args = ["--base", String(v.base), "--increment", String(v.increment)];
  if (v.per_decision !== null) args.push("--per-decision", String(v.per_decision));
  return [...args, "--on-timeout", v.on_timeout, "--on-illegal", v.on_illegal];
}

const botNames = (s: Scenario): [string, string] => [`${s.name}-x`, `${s.name}-y`];
const token = (name: string) => `token-${name}`;

/** The actions a seat was offered at its earlier turns, in order of first offer; "illegal"
 * answers with the first of them not legal now. */
class Seen {
  private readonly order: string[] = [];
  private readonly known = new Set<string>();
  illegal(legal: string[]): string | undefined {
    const now = new Set(legal);
    return this.order.find((a) => !now.has(a));
  }
  add(legal: string[]): void {
    for (const a of legal) {
      if (!this.known.has(a)) {
        this.known.add(a);
        this.order.push(a);
      }
    }
  }
}

interface Call { turnId: number; askedAgain: boolean; answer: string }

/** Plays whichever seat it gets by that seat's script. */
class Player implements Bot {
  readonly calls: Call[] = [];
  readonly rejections: Rejection[] = [];
  readonly observations = new Map<number, SurgeObservation>();
  summary: MatchSummary | undefined;
  commitment = "";
  /** What went wrong inside choose (the SDK would hide it behind a random legal action). */
  readonly errors: string[] = [];
  private turns = 0;
  private lastTurn = -1;
  private readonly seen = new Seen();

  constructor(readonly scenario: Scenario) {}

  async choose(observation: Observation, legal: string[], context: TurnContext): Promise<Choice> {
    try {
      return await this.decide(observation, legal, context);
    } catch (err) {
      this.errors.push(`turn ${context.turnId}: ${String(err)}`);
      throw err;
    }
  }

  private async decide(observation: Observation, legal: string[], context: TurnContext): Promise<Choice> {
    const script = this.scenario.seats[context.seat];
    const again = context.rejections.length > 0;
    if (context.turnId !== this.lastTurn) {
      this.lastTurn = context.turnId;
      this.turns += 1;
      if (isSurge(observation)) this.observations.set(context.turnId, observation);
    }
    const n = this.turns - 1;
    const event = script.events.get(this.turns);
    let answer: Choice = legal[(script.offset + script.step * n) % legal.length];
    let text = answer;
    if (event !== undefined && !again) {
      if (event.do === "illegal") {
        const taken = this.seen.illegal(legal);
        assert.ok(taken !== undefined, `seat ${context.seat} has no illegal action at turn ${this.turns}`);
        answer = text = taken;
      } else if (event.do === "malformed") {
        const [other, otherText] = MALFORMED[this.scenario.game];
        answer = actionToPb(other, otherText); // a wire Action: the SDK sends it as it is
        text = otherText;
      } else if (event.do === "sleep") {
        await new Promise((resolve) => setTimeout(resolve, event.seconds * 1000));
      }
      // "disconnect": the session dropped the connection when this turn arrived (dropConnection
      // takes effect at once), so this answer waits for the re-sent turn.
    }
    if (!again) this.seen.add(legal);
    this.calls.push({ turnId: context.turnId, askedAgain: again, answer: text });
    return answer;
  }

  onMatchStart(info: MatchInfo): void {
    this.commitment = info.seedCommitment;
  }

  onMoveRejected(rejection: Rejection): void {
    this.rejections.push(rejection);
  }

  onMatchEnd(summary: MatchSummary): void {
    this.summary = summary;
  }
}

/** The SDK's Session, watched: Welcomes counted, Turns recorded, the scripted drop made when the
 * disconnect turn arrives (before the bot answers it). */
class Watched {
  readonly session: Session;
  welcomes = 0;
  /** [turn id, Welcomes so far] for every Turn received, re-sent ones included. */
  readonly turnsReceived: [number, number][] = [];
  droppedTurn: number | undefined;
  private readonly newTurns = new Set<number>();

  constructor(readonly player: Player, address: string, name: string, scenario: Scenario) {
    const session = new Session(player, {
      server: address,
      token: token(name),
      game: scenario.game,
      size: scenario.size,
      games: 1,
      backoff: BACKOFF,
      maxReconnects: 5,
      logger: quiet,
    });
    const inner = session as unknown as { onTurn(turn: Turn): void; onWelcome(welcome: Welcome): Promise<void> };
    const onTurn = inner.onTurn.bind(session);
    const onWelcome = inner.onWelcome.bind(session);
    inner.onWelcome = (welcome) => {
      this.welcomes += 1;
      return onWelcome(welcome);
    };
    inner.onTurn = (turn) => {
      this.turnsReceived.push([turn.turnId, this.welcomes]);
      if (!this.newTurns.has(turn.turnId)) {
        this.newTurns.add(turn.turnId);
        const seat = seatFromPb(turn.seat) as Seat;
        const event = scenario.seats[seat].events.get(this.newTurns.size);
        if (event?.do === "disconnect" && this.droppedTurn === undefined) {
          this.droppedTurn = turn.turnId;
          session.dropConnection();
        }
      }
      onTurn(turn);
    };
    this.session = session;
  }
}

function failures(problems: string[]): string[] {
  return [...new Set(problems.map((p) => (p.includes("SHA-256") ? "commitment" : "draws")))].sort();
}

function tampered(seed: string, commitment: string, how: SeedCheck["tamper"]): [string, string] {
  if (how === "none") return [seed, commitment];
  if (how === "seed") return [seed.slice(0, -1) + (seed.endsWith("0") ? "1" : "0"), commitment];
  const other = createHash("sha256").update(Buffer.from(seed, "hex")).digest("hex");
  return [other, createHash("sha256").update(Buffer.from(other, "hex")).digest("hex")];
}

function isSubsequence(part: string[], whole: string[]): boolean {
  let i = 0;
  for (const x of whole) if (i < part.length && part[i] === x) i++;
  return i === part.length;
}

function count<T>(items: T[]): Map<T, number> {
  const out = new Map<T, number>();
  for (const x of items) out.set(x, (out.get(x) ?? 0) + 1);
  return out;
}

function checkSeat(scenario: Scenario, w: Watched, summary: MatchSummary): void {
  const player = w.player;
  assert.deepEqual(player.errors, []);
  const seat = summary.seat;
  const expect = scenario.expectSeats[seat];
  assert.deepEqual(player.rejections.map((r) => r.reason), expect.rejections, `seat ${seat} rejections`);
  assert.equal(player.calls.filter((c) => c.askedAgain).length, expect.askedAgain, `seat ${seat} asked again`);
  // choose: once per turn, once more per refusal that may be answered again.
  const calls = count(player.calls.map((c) => c.turnId));
  const retryable = count(player.rejections.filter((r) => r.mayRetry).map((r) => r.turnId));
  for (const [t, n] of calls) assert.equal(n, 1 + (retryable.get(t) ?? 0), `choose asked ${n} times for turn ${t}`);
  // Every answer the arbiter did not refuse was played, in order.
  const refused = count(player.rejections.map((r) => r.turnId));
  const last = new Map<number, string>();
  for (const c of player.calls) last.set(c.turnId, c.answer);
  const played = [...last].sort(([a], [b]) => a - b).filter(([t]) => (calls.get(t) ?? 0) > (refused.get(t) ?? 0)).map(([, a]) => a);
  assert.ok(played.length && isSubsequence(played, summary.actions), `played ${played} not in ${summary.actions}`);
  if (expect.colour !== undefined) assert.equal(summary.colour, expect.colour, `seat ${seat} colour at the end`);
  if (expect.reconnected) {
    assert.ok(w.welcomes >= 2, "the session never reconnected");
    assert.ok(w.droppedTurn !== undefined);
    const afterDrop = w.turnsReceived.filter(([, welcomes]) => welcomes >= 2).map(([t]) => t);
    assert.equal(afterDrop[0], w.droppedTurn, "the pending turn was not re-sent first");
    assert.equal(calls.get(w.droppedTurn), 1, "choose was asked again for the re-sent turn");
    assert.ok(w.session.stats.resentAnswers >= 1, JSON.stringify(w.session.stats));
  } else {
    assert.equal(w.welcomes, 1, `seat ${seat} reconnected`);
  }
  if (scenario.game === "surge") {
    assert.equal(summary.seedVerified, true, summary.seedProblems.join("; "));
    assert.match(summary.seed, /^[0-9a-f]{64}$/);
    assert.equal(player.commitment, createHash("sha256").update(Buffer.from(summary.seed, "hex")).digest("hex"));
    const observations = [...player.observations.values()];
    if (isSurge(summary.finalObservation)) observations.push(summary.finalObservation);
    const colour = summary.colour === "orange" || (summary.colour === undefined && seat === 2) ? "orange" : "blue";
    for (const c of expect.seedChecks) {
      const [seed, committed] = tampered(summary.seed, player.commitment, c.tamper);
      const problems = checkSurgeSeed(seed, committed, colour, observations);
      assert.deepEqual(failures(problems), c.fails, `${c.tamper}: ${problems.join("; ")}`);
    }
  }
}

/** What both seats of a match must agree on (the Python bot of a mixed match reports the same). */
interface Facts {
  matchId: string;
  seat: Seat;
  actions: string[];
  scores: Record<string, number>;
  reason: string;
  winnerSeat: Seat | undefined;
  outcome: string;
  faultySeat: Seat | undefined;
}

function factsOf(s: MatchSummary): Facts {
  return {
    matchId: s.matchId, seat: s.seat, actions: s.actions, scores: { 1: s.scores[1] ?? 0, 2: s.scores[2] ?? 0 },
    reason: s.reason, winnerSeat: s.winnerSeat, outcome: s.outcome, faultySeat: s.faultySeat,
  };
}

function checkMatch(scenario: Scenario, a: Facts, b: Facts): void {
  assert.equal(a.matchId, b.matchId);
  assert.deepEqual([a.seat, b.seat].sort(), [1, 2]);
  assert.deepEqual(a.actions, b.actions);
  assert.deepEqual(a.scores, b.scores);
  assert.equal(a.reason, b.reason);
  assert.ok(scenario.reasons.includes(a.reason), a.reason);
  assert.equal(a.winnerSeat, b.winnerSeat);
  if (scenario.winner !== "any") assert.equal(a.winnerSeat ?? null, scenario.winner);
  for (const s of [a, b]) {
    assert.equal(s.outcome, s.winnerSeat === undefined ? "draw" : s.winnerSeat === s.seat ? "win" : "loss");
    if (["illegal_action", "malformed_action", "timeout"].includes(s.reason)) {
      assert.ok(s.winnerSeat !== undefined && s.faultySeat === 3 - s.winnerSeat);
    }
  }
  if (scenario.scores) assert.deepEqual(a.scores, { 1: scenario.scores[1], 2: scenario.scores[2] });
  if (scenario.plies !== undefined) assert.equal(a.actions.length, scenario.plies);
}

/** One seat played by the Python SDK (tests/sdk/scenario_bot.py), from the repository's .venv. */
function pythonSeat(file: string, address: string, name: string): { child: ChildProcess; facts: Promise<Facts> } {
  const python = process.env.ARBITER_PYTHON ?? path.resolve(path.dirname(arbiterBin()), "python");
  const env = { ...process.env, PYTHONPATH: [ROOT, path.join(ROOT, "server"), path.join(ROOT, "clients", "python")].join(path.delimiter) };
  const child = spawn(python, ["-m", "tests.sdk.scenario_bot", path.join(SCENARIOS, file), address, name], { cwd: ROOT, env });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const facts = new Promise<Facts>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      let report: { ok: boolean; error?: string; summary?: Record<string, any> };
      try {
        report = JSON.parse(line);
      } catch {
        reject(new Error(`the Python seat exited (${code}) without a report:\n${out}\n${err.slice(-4000)}`));
        return;
      }
      if (!report.ok || !report.summary) {
        reject(new Error(`the Python seat failed: ${report.error}`));
        return;
      }
      const s = report.summary;
      resolve({
        matchId: s.match_id, seat: s.seat, actions: s.actions, scores: { 1: s.scores["1"], 2: s.scores["2"] }, reason: s.reason,
        winnerSeat: s.winner_seat ?? undefined, outcome: s.outcome, faultySeat: s.faulty_seat ?? undefined,
      });
    });
  });
  return { child, facts };
}

const files = fs.readdirSync(SCENARIOS).filter((f) => f.endsWith(".json")).sort();
const scenarios = files.map(load);

describe("the scripted scenarios (tests/scenarios)", () => {
  const arbiters = new Map<string, Promise<Arbiter>>();
  const bots: Record<string, string> = {};
  for (const s of scenarios) for (const name of botNames(s)) bots[name] = token(name);
  const arbiterFor = (s: Scenario): Promise<Arbiter> => {
    const key = JSON.stringify(s.server, Object.keys(s.server).sort());
    if (!arbiters.has(key)) arbiters.set(key, startArbiter(bots, serveArgs(s)));
    return arbiters.get(key) as Promise<Arbiter>;
  };
  after(async () => {
    const started = await Promise.allSettled(arbiters.values());
    await Promise.all(started.map((r) => (r.status === "fulfilled" ? r.value.stop() : undefined)));
  });

  test("the set loads and every scenario has its own name", () => {
    assert.ok(scenarios.length >= 12);
    assert.equal(new Set(scenarios.map((s) => s.name)).size, scenarios.length);
  });

  for (const scenario of scenarios) {
    test(scenario.name, { timeout: 180_000 }, async () => {
      const arbiter = await arbiterFor(scenario);
      const watched = botNames(scenario).map((name) => new Watched(new Player(scenario), arbiter.address, name, scenario));
      await Promise.all(watched.map((w) => w.session.run()));
      const [a, b] = watched.map((w) => w.player.summary);
      assert.ok(a && b, "a bot saw no end of its match");
      checkMatch(scenario, factsOf(a), factsOf(b));
      for (const w of watched) checkSeat(scenario, w, w.player.summary as MatchSummary);
    });
  }

  // The same files with one seat of each SDK in one match (the seats alternate between the two
  // bots, so here each bot gets the seat it did not have above).
  scenarios.forEach((scenario, i) => {
    test(`${scenario.name}: TypeScript and Python in one match`, { timeout: 180_000 }, async () => {
      const arbiter = await arbiterFor(scenario);
      const [tsName, pyName] = botNames(scenario);
      const ts = new Watched(new Player(scenario), arbiter.address, tsName, scenario);
      const python = pythonSeat(files[i], arbiter.address, pyName);
      const [, py] = await Promise.all([
        ts.session.run().catch((err: unknown) => {
          python.child.kill();
          throw err;
        }),
        python.facts.catch((err: unknown) => {
          ts.session.stop(); // no opponent will come
          throw err;
        }),
      ]);
      const mine = ts.player.summary;
      assert.ok(mine, "the TypeScript bot saw no end of its match");
      checkMatch(scenario, factsOf(mine), py);
      checkSeat(scenario, ts, mine);
    });
  });
});
