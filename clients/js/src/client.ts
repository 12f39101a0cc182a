// The connection to the arbiter: one Play stream, seeks or a ladder, turns, rejections, results,
// reconnects with capped exponential backoff and jitter, resumed matches, the Surge seed check.
// When the first connection brings no Welcome within connectTimeout seconds (default 30) the
// session fails with ConnectError naming the address; an address without a port means port 50051.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { ChannelCredentials, ClientDuplexStream, credentials as grpcCredentials, Metadata, ServiceError, status } from "@grpc/grpc-js";
import {
  BotServiceClient,
  EventEnded,
  EventEntered,
  EventRejected,
  IllegalActionPolicy,
  LadderRejected,
  MatchEnded,
  MatchStarted,
  MoveRejected,
  PlayRequest,
  PlayResponse,
  Redirect,
  SeekRejected,
  TimeoutPolicy,
  Turn,
  Welcome,
} from "./gen/arbiter/v1/bot_service";
import { SurgeObservation } from "./gen/arbiter/v1/surge";
import { Bot, Choice, MatchInfo, MatchSummary, Observation, Rejection, TurnContext } from "./bot";
import { withDefaultPort } from "./address";
import { ArbiterError, AuthenticationError, BadRequestError, ConnectError, Logger, ReplacedError, stderrLogger } from "./errors";
import { Rng, choice, makeRng } from "./random";
import { SeedMismatch, checkSurgeSeed } from "./seedcheck";
import {
  GameName,
  GAMES,
  actionText,
  actionToPb,
  clocksFromPb,
  colourFromPb,
  endReasonFromPb,
  legalFromPb,
  reasonOf,
  retryDelay,
  seatFromPb,
  secondsFromPb,
  specFromPb,
  specToPb,
  statusFromMetadata,
  timeControlFromPb,
  timeControlToPb,
  TimeControl,
} from "./wire";

/** The most seeks (and ladder slots) one bot may have open at once. */
export const MAX_OPEN_SEEKS = 16;
/** The call metadata key a bot names its version with. */
export const BOT_VERSION_METADATA = "arbiter-bot-version";
/** Client keepalive as the protocol asks: a ping every 20 s, dead 10 s after an unanswered one. */
export const KEEPALIVE_OPTIONS = {
  "grpc.keepalive_time_ms": 20_000,
  "grpc.keepalive_timeout_ms": 10_000,
  "grpc.keepalive_permit_without_calls": 1,
  "grpc.http2.max_pings_without_data": 0,
};
/** Redirects followed at once, one after the other, before the reconnect backoff applies again. */
const REDIRECTS_IN_A_ROW = 5;
/** Seconds the first connection may take, until the arbiter's Welcome, before the session gives up
 * with ConnectError (reconnects after a Welcome go on for as long as maxReconnects allows). */
export const CONNECT_TIMEOUT = 30;

/** Codes after which the SDK reconnects (the stream broke; the arbiter keeps the matches going). */
export const RETRYABLE_CODES: ReadonlySet<status> = new Set([
  status.UNAVAILABLE,
  status.UNKNOWN,
  status.INTERNAL,
  status.DEADLINE_EXCEEDED,
  status.RESOURCE_EXHAUSTED,
  status.CANCELLED,
]);

/** Reconnect delays: initial * factor**attempt seconds, capped at maximum, times a random factor
 * in [1 - jitter, 1 + jitter] (and capped again). */
export class Backoff {
  constructor(
    readonly initial = 0.5,
    readonly factor = 2,
    readonly maximum = 30,
    readonly jitter = 0.25,
  ) {
    if (initial <= 0 || factor < 1 || maximum < initial || jitter < 0 || jitter >= 1) {
      throw new Error(`bad backoff ${JSON.stringify(this)}`);
    }
  }

  baseDelay(attempt: number): number {
    return Math.min(this.maximum, this.initial * this.factor ** Math.min(Math.max(attempt, 0), 64));
  }

  delay(attempt: number, rng: Rng = Math.random): number {
    const base = this.baseDelay(attempt) * (1 + (rng() * 2 - 1) * this.jitter);
    return Math.min(this.maximum, base);
  }
}

export interface SessionOptions {
  /** HOST:PORT of the arbiter (a HOST without a port: port 50051); several, comma-separated, for a cluster. */
  server: string;
  token: string;
  /** The game to seek (ignored with `ladder`). Default "torrent". */
  game?: GameName;
  /** Torrent/Fravan board size; default the arbiter's (7). */
  size?: number;
  /** Stop after that many finished matches; undefined: play until stopped. */
  games?: number;
  /** The clocks to seek; undefined: the arbiter's default. */
  timeControl?: TimeControl;
  /** Matches played at once (seeks kept open, or ladder slots). Default 1. */
  maxConcurrent?: number;
  /** Join this ladder instead of seeking. */
  ladder?: string;
  /** Enter this event instead of seeking: play the games the arbiter starts for it, and stop once the event
   * is over (EventEnded) and its matches have ended; `games` is then not used. */
  event?: string;
  /** The version this bot plays as (metadata arbiter-bot-version; ladders rate per version). */
  version?: string;
  /** TLS: tlsCredentials() (or grpc.credentials.createSsl()); default plain text. */
  credentials?: ChannelCredentials;
  /** Extra channel options (merged over the keepalive settings). */
  channelOptions?: Record<string, string | number>;
  backoff?: Backoff;
  /** Give up after that many reconnects in a row; undefined: never. */
  maxReconnects?: number;
  /** Seconds until the first Welcome before run() fails with ConnectError; default 30 (CONNECT_TIMEOUT),
   * null: no limit. Reconnects after a Welcome are not limited by it. */
  connectTimeout?: number | null;
  /** Re-asks of choose after refusals of one turn (reject policy) before a random untried legal action. Default 3. */
  maxRetries?: number;
  /** When choose throws: play a random legal action (default) or end the session with the error. */
  fallbackOnError?: boolean;
  /** Make a failed Surge seed check end the session with SeedMismatch (otherwise it is logged). */
  strictSeed?: boolean;
  rng?: Rng;
  logger?: Logger;
}

interface MatchState {
  info: MatchInfo;
  observations: SurgeObservation[] | undefined;
  turnId: number;
  observation: Observation | undefined;
  legal: string[];
  context: TurnContext | undefined;
  answers: Map<number, PlayRequest>;
  actions: Map<number, string>;
  inflight: Set<number>;
  rejections: Map<number, Rejection[]>;
  queued: TurnContext | undefined;
}

const TIMEOUT_POLICIES: Partial<Record<TimeoutPolicy, "loss" | "default_action">> = {
  [TimeoutPolicy.TIMEOUT_POLICY_LOSS]: "loss",
  [TimeoutPolicy.TIMEOUT_POLICY_DEFAULT_ACTION]: "default_action",
};
const ILLEGAL_POLICIES: Partial<Record<IllegalActionPolicy, "forfeit" | "reject">> = {
  [IllegalActionPolicy.ILLEGAL_ACTION_POLICY_FORFEIT]: "forfeit",
  [IllegalActionPolicy.ILLEGAL_ACTION_POLICY_REJECT]: "reject",
};

function observationOf(obs: { game?: { $case: "flank" | "surge" } & Record<string, unknown> } | undefined): Observation | undefined {
  const game = obs?.game;
  if (!game) return undefined;
  return game[game.$case] as Observation;
}

export function matchInfoFromPb(message: MatchStarted): MatchInfo {
  const { game, options } = specFromPb(message.spec);
  return {
    matchId: message.matchId,
    game,
    options,
    seat: seatFromPb(message.seat) ?? 1,
    colour: colourFromPb(message.colour),
    opponentName: message.opponentName,
    timeControl: timeControlFromPb(message.timeControl),
    seedCommitment: message.seedCommitment,
    resumed: message.resumed,
    timeoutPolicy: TIMEOUT_POLICIES[message.timeoutPolicy] ?? "loss",
    illegalActionPolicy: ILLEGAL_POLICIES[message.illegalActionPolicy] ?? "forfeit",
    clocks: clocksFromPb(message.clocks),
    observation: observationOf(message.observation),
    ladder: message.ladder,
  };
}

export function summaryFromPb(info: MatchInfo, message: MatchEnded): MatchSummary {
  const result = message.result;
  const seat = seatFromPb(message.seat) ?? info.seat;
  const winner = result ? seatFromPb(result.winnerSeat) : undefined;
  const reason = result ? endReasonFromPb(result.reason) : "unknown";
  const outcome = reason === "aborted" ? "aborted" : winner === undefined ? "draw" : winner === seat ? "win" : "loss";
  const scores = { 1: result?.seat1Score ?? 0, 2: result?.seat2Score ?? 0 } as const;
  const colours = { 1: result?.seat1Colour, 2: result?.seat2Colour } as const;
  const finalColour = colours[seat];
  return {
    matchId: message.matchId,
    game: info.game,
    options: info.options,
    seat,
    opponentName: info.opponentName,
    outcome,
    winnerSeat: winner,
    winnerColour: result ? colourFromPb(result.winnerColour) : undefined,
    colour: (finalColour !== undefined ? colourFromPb(finalColour) : undefined) ?? info.colour,
    scores,
    myScore: scores[seat],
    opponentScore: scores[seat === 1 ? 2 : 1],
    reason,
    detail: result?.detail ?? "",
    faultySeat: result ? seatFromPb(result.faultySeat) : undefined,
    finalObservation: observationOf(message.finalObservation),
    actions: [...message.actions],
    seed: message.seed,
    seedVerified: undefined,
    seedProblems: [],
  };
}

/** PEM files for TLS: the CA that signed the arbiter's certificate (default: the system's roots),
 * and this bot's certificate and key for an arbiter with mutual TLS. */
export interface TlsFiles {
  ca?: string;
  clientCert?: string;
  clientKey?: string;
}

/** TLS credentials from PEM files (all optional; a client certificate needs its key). */
export function tlsCredentials(files: TlsFiles = {}): ChannelCredentials {
  if ((files.clientCert === undefined) !== (files.clientKey === undefined)) {
    throw new Error("give a client certificate and its key together");
  }
  const read = (file: string | undefined) => (file === undefined ? null : readFileSync(file));
  return grpcCredentials.createSsl(read(files.ca), read(files.clientKey), read(files.clientCert));
}

const sleep = (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));

/** One bot's session with the arbiter, across reconnects. Most bots use run() instead. */
export class Session {
  readonly game: GameName;
  readonly summaries: MatchSummary[] = [];
  botName = "";
  /** The version this connection plays as, from the last Welcome ("unversioned" without one). */
  botVersion = "";
  /** Counters for logs and tests: Play calls opened, reconnects, answers re-sent for re-sent turns,
   * resumed matches, MoveAcknowledged received. */
  readonly stats = { connections: 0, reconnects: 0, resentAnswers: 0, resumedMatches: 0, acknowledged: 0 };
  private readonly log: Logger;
  private readonly rng: Rng;
  private readonly backoff: Backoff;
  private readonly maxConcurrent: number;
  private readonly matches = new Map<string, MatchState>();
  private expected = new Set<string>();
  private finished = 0;
  private openSeeks = 0;
  private attempt = 0;
  private joined = false;
  /** EnterEvent was sent on the current connection (with `event`). */
  private eventSent = false;
  /** The event's entry and its end, once the arbiter told them (with `event`). */
  eventEntered: EventEntered | undefined;
  eventEnded: EventEnded | undefined;
  private call: ClientDuplexStream<PlayRequest, PlayResponse> | undefined;
  private stopping = false;
  private fatal: Error | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The addresses to connect to, in turn after each failure (`server` may list several nodes of
   * a cluster, comma-separated); a Redirect's address is used next once given. */
  private readonly seeds: string[];
  private seed = 0;
  private target: string;
  private joinToken: string | undefined;
  private redirected = false;
  private redirects = 0; // in a row, without a Welcome
  /** Seconds the first connection may take (null: no limit). */
  readonly connectTimeout: number | null;
  private welcomed = false;
  private deadline: number | undefined; // performance.now() milliseconds
  private lastError = "";

  constructor(
    readonly bot: Bot,
    readonly options: SessionOptions,
  ) {
    this.game = options.game ?? "torrent";
    if (!GAMES.includes(this.game)) throw new Error(`unknown game ${JSON.stringify(this.game)}; choose one of ${GAMES.join(", ")}`);
    this.maxConcurrent = options.maxConcurrent ?? 1;
    if (!(this.maxConcurrent >= 1 && this.maxConcurrent <= MAX_OPEN_SEEKS)) {
      throw new Error(`maxConcurrent must be between 1 and ${MAX_OPEN_SEEKS} (the arbiter's seek limit)`);
    }
    if (options.games !== undefined && options.games < 0) throw new Error("games must not be negative");
    if (!options.token) throw new AuthenticationError("no token given: every bot needs its token from the arbiter");
    if (options.event !== undefined && options.ladder !== undefined) throw new Error("a bot enters an event or joins a ladder, not both");
    this.log = options.logger ?? stderrLogger("info");
    this.rng = options.rng ?? Math.random;
    this.backoff = options.backoff ?? new Backoff();
    const seeds = options.server.split(",").map(withDefaultPort).filter((part) => part !== "");
    this.seeds = seeds.length > 0 ? seeds : [options.server];
    this.target = this.seeds[0];
    this.connectTimeout = options.connectTimeout === undefined ? CONNECT_TIMEOUT : options.connectTimeout;
    if (this.connectTimeout !== null && !(this.connectTimeout > 0 && Number.isFinite(this.connectTimeout))) {
      throw new Error("connectTimeout must be a positive number of seconds (null: no limit)");
    }
  }

  /** The addresses this session connects to, in turn (each with its port). */
  get addresses(): readonly string[] {
    return this.seeds;
  }

  /** Whether the requested number of matches has finished (never, when games is undefined); in an event:
   * whether the event is over and the bot's matches have ended. */
  done(): boolean {
    if (this.options.event !== undefined) return this.eventEnded !== undefined && this.active() === 0;
    return this.options.games !== undefined && this.finished >= this.options.games && this.active() === 0;
  }

  /** Play until `games` matches have finished; the summaries, in order of ending. */
  async run(): Promise<MatchSummary[]> {
    if (this.connectTimeout !== null && !this.welcomed) this.deadline = performance.now() + this.connectTimeout * 1000;
    while (!this.done()) {
      try {
        await this.connectOnce();
      } catch (err) {
        if (this.fatal) break;
        const e = err as ServiceError;
        const rich = statusFromMetadata(e.metadata);
        const reason = reasonOf(rich);
        this.checkFatal(e.code ?? status.UNKNOWN, reason, rich?.message || e.details || String(err));
        this.lastError = `${status[e.code] ?? e.code}: ${e.details || String(err)}`;
        this.log.log("warning", "stream broke", { code: status[e.code] ?? e.code, reason, message: e.details });
      }
      await this.chain.catch(() => undefined);
      if (this.fatal) throw this.fatal;
      if (this.done() || this.stopping) break;
      if (this.followRedirect()) continue;
      if (this.options.maxReconnects !== undefined && this.attempt >= this.options.maxReconnects) {
        throw new ArbiterError(`gave up after ${this.attempt} reconnect attempts to ${this.options.server}`);
      }
      const delay = Math.min(this.backoff.delay(this.attempt, this.rng), this.timeLeft());
      this.attempt += 1;
      this.stats.reconnects += 1;
      this.log.log("info", "reconnecting", { address: this.target, attempt: this.attempt, in_seconds: Math.round(delay * 100) / 100 });
      await sleep(delay);
      if (this.timeLeft() <= 0) throw this.connectError();
    }
    if (this.fatal) throw this.fatal;
    return this.summaries;
  }

  /** Seconds left for the first connection (Infinity once a Welcome came, or without a limit). */
  private timeLeft(): number {
    if (this.welcomed || this.deadline === undefined) return Infinity;
    return Math.max(0, (this.deadline - performance.now()) / 1000);
  }

  private connectError(): ConnectError {
    // One line, without grpc-js's empty "Resolution note:" at the end.
    const last = this.lastError.split(/\s+/).join(" ").trim().replace(/ ?Resolution note:$/, "");
    return new ConnectError(
      `cannot connect to the arbiter at ${this.seeds.join(", ")} within ${this.connectTimeout} s` +
        `${last ? ` (${last})` : ""}: is the address right and the arbiter running?`,
      status.UNAVAILABLE,
    );
  }

  /** Close the current stream at once; the session reconnects after the backoff delay and the
   * arbiter resumes its matches (what a network failure does; for tests and experiments). */
  dropConnection(): void {
    const call = this.call;
    this.call = undefined; // nothing more goes out on it: answers wait for the re-sent turns
    call?.cancel();
  }

  /** Stop: close the stream and let run() return the summaries so far. */
  stop(): void {
    this.stopping = true;
    this.call?.cancel();
  }

  /** Whether to connect again at once, where a Redirect sent the bot (at most REDIRECTS_IN_A_ROW
   * in a row without a Welcome; past that the bot still goes there, after the usual backoff and
   * with its own token, since a join token could expire during the wait). After anything but a
   * Redirect, the next seed address. */
  private followRedirect(): boolean {
    if (!this.redirected) {
      this.nextSeed();
      return false;
    }
    this.redirected = false;
    if (this.redirects <= REDIRECTS_IN_A_ROW) return true;
    this.joinToken = undefined;
    return false;
  }

  /** After a failure, the next seed address (the redirect's node may be the one that failed). */
  private nextSeed(): void {
    this.joinToken = undefined;
    if (this.target === this.seeds[this.seed]) this.seed = (this.seed + 1) % this.seeds.length;
    this.target = this.seeds[this.seed];
  }

  private checkFatal(code: status, reason: string | undefined, message: string): void {
    const text = `${message} (${status[code] ?? code}${reason ? ", " + reason : ""})`;
    if (code === status.UNAUTHENTICATED || code === status.PERMISSION_DENIED) {
      throw new AuthenticationError(`the arbiter refused the token: ${text}`, code, reason);
    }
    if (code === status.ABORTED && (reason === "REPLACED" || reason === undefined)) {
      throw new ReplacedError(`another connection with this token replaced this one: ${text}`, code, reason);
    }
    if (code === status.INVALID_ARGUMENT || reason === "BAD_REQUEST") {
      throw new BadRequestError(`the arbiter refused a request: ${text}`, code, reason);
    }
    if (!RETRYABLE_CODES.has(code) && code !== status.ABORTED) {
      throw new ArbiterError(`the arbiter ended the session: ${text}`, code, reason);
    }
  }

  private connectOnce(): Promise<void> {
    const o = this.options;
    const client = new BotServiceClient(this.target, o.credentials ?? grpcCredentials.createInsecure(), {
      ...KEEPALIVE_OPTIONS,
      ...(o.channelOptions ?? {}),
    });
    const metadata = new Metadata();
    metadata.set("authorization", `Bearer ${this.joinToken ?? o.token}`); // a join token is used once
    this.joinToken = undefined;
    if (o.version) metadata.set(BOT_VERSION_METADATA, o.version);
    const call = client.play(metadata);
    this.call = call;
    this.stats.connections += 1;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      // The first connection's time is up before a Welcome: end this attempt and the session.
      const left = this.timeLeft();
      const giveUp =
        left === Infinity
          ? undefined
          : setTimeout(() => {
              if (this.welcomed) return;
              this.fatal = this.connectError();
              call.cancel();
            }, left * 1000);
      const finish = (err?: Error) => {
        if (settled) return;
        if (giveUp !== undefined) clearTimeout(giveUp);
        call.removeAllListeners("data");
        settled = true;
        if (this.call === call) this.call = undefined;
        client.close();
        const cancelledByUs = (err as ServiceError | undefined)?.code === status.CANCELLED && (this.stopping || this.done() || this.fatal);
        if (err && !cancelledByUs) reject(err);
        else resolve();
      };
      call.on("data", (response: PlayResponse) => {
        if (this.call !== call) return; // a dropped call's late messages
        this.chain = this.chain
          .then(() => this.handle(response))
          .catch((err: unknown) => {
            this.fatal = err instanceof Error ? err : new Error(String(err));
            this.stopNow();
          });
      });
      call.on("error", (err: Error) => finish(err)); // every status but OK
      call.on("status", (s: { code: status }) => {
        if (s.code !== status.OK || settled) return;
        if (!this.done() && !this.fatal && !this.stopping) this.log.log("warning", "the arbiter closed the stream");
        finish();
      });
    });
  }

  private stopNow(): void {
    this.call?.cancel();
  }

  private send(request: PlayRequest): boolean {
    const call = this.call;
    if (call === undefined || call.destroyed || call.writableEnded) return false;
    call.write(request);
    return true;
  }

  private active(): number {
    return new Set([...this.matches.keys(), ...this.expected]).size;
  }

  /** Call fn after `seconds`, unless the connection of now has ended by then. */
  private later(seconds: number, fn: () => void): void {
    const call = this.call;
    setTimeout(() => {
      if (call !== undefined && this.call === call) fn();
    }, seconds * 1000);
  }

  private topUpSeeks(): void {
    if (this.call === undefined) return;
    if (this.options.event !== undefined) {
      this.enterEvent(this.options.event);
      return;
    }
    if (this.options.ladder !== undefined) {
      this.ladderMembership();
      return;
    }
    const active = this.active();
    let want = this.maxConcurrent - active - this.openSeeks;
    if (this.options.games !== undefined) want = Math.min(want, this.options.games - this.finished - active - this.openSeeks);
    for (let i = 0; i < want; i++) {
      this.send(
        PlayRequest.fromPartial({
          kind: {
            $case: "seek",
            seek: {
              spec: specToPb(this.game, this.options.size),
              timeControl: this.options.timeControl ? timeControlToPb(this.options.timeControl) : undefined,
            },
          },
        }),
      );
      this.openSeeks += 1;
      this.log.log("info", "seeking a match", { game: this.game, size: this.options.size, open_seeks: this.openSeeks });
    }
  }

  /** In an event: enter once per connection (answered again when entered already), until it is over. */
  private enterEvent(event: string): void {
    if (this.eventSent || this.eventEnded !== undefined) return;
    this.eventSent = true;
    this.send(PlayRequest.fromPartial({ kind: { $case: "enterEvent", enterEvent: { event, spec: specToPb(this.game, this.options.size) } } }));
    this.log.log("info", "entering event", { event });
  }

  private onEventEntered(message: EventEntered): void {
    if (message.event !== this.options.event) return;
    this.eventEntered = message;
    this.log.log("info", "entered event", { event: message.event, seed: message.seed, entrants: message.entrants, status: message.status });
  }

  private onEventEnded(message: EventEnded): void {
    if (message.event !== this.options.event) return;
    this.eventEnded = message;
    this.log.log("info", "event ended", { event: message.event, status: message.status, place: message.place, points: message.points, entrants: message.entrants });
    if (this.done()) this.stopNow();
  }

  private onEventRejected(message: EventRejected): void {
    const reason = reasonOf(message.status);
    this.log.log("error", "event request refused", { event: message.event, reason, message: message.status?.message });
    if (reason === "SHUTTING_DOWN") return; // entered again on the next connection
    if (reason === "RATE_LIMITED") {
      this.eventSent = false;
      this.later(retryDelay(message.status) ?? 1, () => this.topUpSeeks());
      return;
    }
    this.fatal = new BadRequestError(
      `the arbiter refused event ${JSON.stringify(message.event)}: ${message.status?.message} (${reason})`,
      reason === "EVENT_NOT_FOUND" ? status.NOT_FOUND : status.FAILED_PRECONDITION,
      reason,
    );
    this.stopNow();
  }

  private ladderMembership(): void {
    const ladder = this.options.ladder as string;
    const games = this.options.games;
    const enough = games !== undefined && this.finished + this.active() >= games;
    if (!this.joined && !enough) {
      this.send(PlayRequest.fromPartial({ kind: { $case: "joinLadder", joinLadder: { ladder, maxConcurrent: this.maxConcurrent } } }));
      this.joined = true;
      this.log.log("info", "joining ladder", { ladder, max_concurrent: this.maxConcurrent });
    } else if (this.joined && enough) {
      this.send(PlayRequest.fromPartial({ kind: { $case: "leaveLadder", leaveLadder: { ladder } } }));
      this.joined = false;
      this.log.log("info", "leaving ladder", { ladder, reason: "enough matches" });
    }
  }

  private async hook<K extends "onMatchStart" | "onMatchEnd" | "onMoveRejected">(name: K, arg: Parameters<NonNullable<Bot[K]>>[0]): Promise<void> {
    const fn = this.bot[name] as ((a: typeof arg) => void | Promise<void>) | undefined;
    if (!fn) return;
    try {
      await fn.call(this.bot, arg);
    } catch (err) {
      this.log.log("error", "bot hook failed", { hook: name, error: String((err as Error)?.stack ?? err) });
    }
  }

  // --- messages ---------------------------------------------------------------------------------

  private async handle(response: PlayResponse): Promise<void> {
    const kind = response.kind;
    switch (kind?.$case) {
      case "welcome":
        return this.onWelcome(kind.welcome);
      case "matchStarted":
        return this.onMatchStarted(kind.matchStarted);
      case "turn":
        return this.onTurn(kind.turn);
      case "moveRejected":
        return this.onRejected(kind.moveRejected);
      case "moveAcknowledged":
        this.stats.acknowledged += 1;
        this.log.log("debug", "duplicate move acknowledged", { match_id: kind.moveAcknowledged.matchId, turn_id: kind.moveAcknowledged.turnId });
        return;
      case "matchEnded":
        return this.onMatchEnded(kind.matchEnded);
      case "seekRejected":
        return this.onSeekRejected(kind.seekRejected);
      case "seekPending":
        this.log.log("info", "waiting for an opponent", { waiting: kind.seekPending.waiting });
        return;
      case "ladderJoined": {
        const j = kind.ladderJoined;
        this.log.log("info", "joined ladder", { ladder: j.ladder, version: j.botVersion, rated: j.rated, resumed_from_pause: j.resumedFromPause || undefined });
        return;
      }
      case "ladderRejected":
        return this.onLadderRejected(kind.ladderRejected);
      case "eventEntered":
        return this.onEventEntered(kind.eventEntered);
      case "eventEnded":
        return this.onEventEnded(kind.eventEnded);
      case "eventRejected":
        return this.onEventRejected(kind.eventRejected);
      case "eventWithdrawn":
        this.log.log("info", "withdrew from event", { event: kind.eventWithdrawn.event });
        return;
      case "redirect":
        return this.onRedirect(kind.redirect);
      default:
        this.log.log("warning", "unknown message from the arbiter (newer protocol?)");
    }
  }

  /** A cluster sends the bot to another node: connect there at once (the matches go on there). */
  private onRedirect(redirect: Redirect): void {
    this.log.log("info", "redirected", { to: redirect.address, reason: redirect.reason, ladder: redirect.ladder || undefined });
    if (redirect.address) this.target = withDefaultPort(redirect.address);
    this.joinToken = redirect.joinToken || undefined;
    this.redirected = true;
    this.redirects += 1;
    this.stopNow();
  }

  private async onWelcome(welcome: Welcome): Promise<void> {
    this.welcomed = true;
    this.attempt = 0;
    this.redirects = 0;
    this.botName = welcome.botName;
    this.botVersion = welcome.botVersion;
    const resumed = new Set(welcome.resumedMatchIds);
    const ended = new Set(welcome.endedMatchIds);
    for (const [matchId, match] of [...this.matches]) {
      if (resumed.has(matchId) || ended.has(matchId)) continue;
      this.matches.delete(matchId);
      this.log.log("warning", "match ended while disconnected; result unknown", { match_id: matchId });
      const info = match.info;
      const summary: MatchSummary = {
        matchId, game: info.game, options: info.options, seat: info.seat, opponentName: info.opponentName,
        outcome: "unknown", winnerSeat: undefined, winnerColour: undefined, colour: info.colour, scores: {},
        myScore: undefined, opponentScore: undefined, reason: "unknown", detail: "the match ended while the bot was disconnected",
        faultySeat: undefined, finalObservation: undefined, actions: [], seed: "", seedVerified: undefined, seedProblems: [],
      };
      this.finished += 1;
      this.summaries.push(summary);
      await this.hook("onMatchEnd", summary);
    }
    this.expected = new Set([...resumed].filter((id) => !this.matches.has(id)));
    this.openSeeks = 0; // seeks belong to the stream that sent them
    this.joined = false; // and so do ladder memberships
    this.eventSent = false; // and event entries
    for (const pause of welcome.ladderPauses) {
      this.log.log("warning", "paused on a ladder (joining resumes)", { ladder: pause.ladder, reason: pause.reason });
    }
    this.log.log("info", "connected", { bot: welcome.botName, version: welcome.botVersion, resumed: [...resumed], address: this.target });
    this.topUpSeeks();
    if (this.done()) this.stopNow();
  }

  private async onMatchStarted(message: MatchStarted): Promise<void> {
    const info = matchInfoFromPb(message);
    if (!message.resumed) this.openSeeks = Math.max(0, this.openSeeks - 1);
    this.expected.delete(info.matchId);
    const known = this.matches.get(info.matchId);
    if (known) {
      known.info = info;
      this.stats.resumedMatches += 1;
      this.log.log("info", "match resumed", { match_id: info.matchId });
      return;
    }
    this.matches.set(info.matchId, {
      info,
      observations: info.game === "surge" ? [] : undefined,
      turnId: -1,
      observation: undefined,
      legal: [],
      context: undefined,
      answers: new Map(),
      actions: new Map(),
      inflight: new Set(),
      rejections: new Map(),
      queued: undefined,
    });
    if (this.options.ladder !== undefined) this.ladderMembership();
    this.log.log("info", "match started", {
      match_id: info.matchId, game: info.game, options: info.options, seat: info.seat, colour: info.colour,
      opponent: info.opponentName, time_control: info.timeControl, resumed: info.resumed,
    });
    await this.hook("onMatchStart", info);
  }

  private onTurn(turn: Turn): void {
    const match = this.matches.get(turn.matchId);
    if (!match) {
      this.log.log("warning", "turn for a match the bot does not know", { match_id: turn.matchId, turn_id: turn.turnId });
      return;
    }
    const tid = turn.turnId;
    const answer = match.answers.get(tid);
    if (answer) {
      // The arbiter re-sent a turn we answered (after a reconnect): the same answer again.
      this.log.log("info", "re-sending the answer to a repeated turn", { match_id: turn.matchId, turn_id: tid });
      this.stats.resentAnswers += 1;
      this.send(answer);
      return;
    }
    if (match.inflight.has(tid) || tid < match.turnId) return;
    const info = match.info;
    const observation = observationOf(turn.observation);
    if (match.observations && observation) match.observations.push(observation as SurgeObservation);
    const receivedAt = performance.now();
    const limit = secondsFromPb(turn.decisionLimit) ?? null;
    const deadline = limit === null ? null : receivedAt + limit * 1000;
    const context: TurnContext = {
      matchId: turn.matchId,
      turnId: tid,
      game: info.game,
      options: info.options,
      seat: seatFromPb(turn.seat) ?? info.seat,
      colour: colourFromPb(turn.colour) ?? info.colour,
      opponentName: info.opponentName,
      clocks: clocksFromPb(turn.clocks),
      decisionLimit: limit,
      receivedAt,
      deadline,
      timeLeft: () => (deadline === null ? null : (deadline - performance.now()) / 1000),
      rejections: [],
      info,
    };
    match.turnId = tid;
    match.observation = observation;
    match.legal = legalFromPb(turn.legal);
    match.context = context;
    match.answers.clear();
    match.actions.clear();
    match.rejections.clear();
    if (match.inflight.size) {
      match.queued = context; // choose is still busy with an older turn: never two at once per match
      return;
    }
    this.startDecision(match, context);
  }

  private startDecision(match: MatchState, context: TurnContext): void {
    match.inflight.add(context.turnId);
    void this.decide(match, context);
  }

  private async decide(match: MatchState, context: TurnContext): Promise<void> {
    const tid = context.turnId;
    const game = match.info.game;
    const started = performance.now();
    try {
      let text: string;
      let request: PlayRequest;
      try {
        if (match.observation === undefined) throw new Error("the turn carried no observation");
        const chosen: Choice = await this.bot.choose(match.observation, [...match.legal], context);
        const action = typeof chosen === "string" ? actionToPb(game, chosen) : chosen;
        text = typeof chosen === "string" ? chosen : actionText(chosen);
        request = PlayRequest.fromPartial({ kind: { $case: "move", move: { matchId: context.matchId, turnId: tid, action } } });
      } catch (err) {
        if (this.options.fallbackOnError === false) {
          this.fatal = err instanceof Error ? err : new Error(String(err));
          this.stopNow();
          return;
        }
        this.log.log("error", "bot.choose failed; playing a random legal action", { match_id: context.matchId, error: String((err as Error)?.stack ?? err) });
        if (!match.legal.length) return;
        text = choice(this.rng, match.legal);
        request = PlayRequest.fromPartial({
          kind: { $case: "move", move: { matchId: context.matchId, turnId: tid, action: actionToPb(game, text) } },
        });
      }
      if (this.matches.get(context.matchId) !== match || match.turnId !== tid) return; // ended or moved on
      match.answers.set(tid, request);
      match.actions.set(tid, text);
      const sent = this.send(request);
      this.log.log("debug", "move", { match_id: context.matchId, turn_id: tid, action: text, think_ms: Math.round(performance.now() - started), sent });
    } finally {
      match.inflight.delete(tid);
      const queued = match.queued;
      if (queued && !match.inflight.size) {
        match.queued = undefined;
        if (this.matches.get(queued.matchId) === match && match.turnId === queued.turnId) this.startDecision(match, queued);
      }
    }
  }

  private async onRejected(message: MoveRejected): Promise<void> {
    const reason = reasonOf(message.status) ?? "UNSPECIFIED";
    const match = this.matches.get(message.matchId);
    const rejection: Rejection = {
      matchId: message.matchId,
      turnId: message.turnId,
      reason,
      code: message.status?.code ?? 0,
      message: message.status?.message ?? "",
      mayRetry: message.mayRetry,
      action: match?.actions.get(message.turnId),
    };
    this.log.log("warning", "move rejected", {
      match_id: message.matchId, turn_id: message.turnId, reason, message: rejection.message, may_retry: message.mayRetry,
    });
    await this.hook("onMoveRejected", rejection);
    if (!match || match.turnId !== message.turnId) return;
    const tid = message.turnId;
    match.answers.delete(tid);
    if (!message.mayRetry || reason === "CLOCK_EXPIRED" || match.inflight.has(tid) || !match.context) return;
    const earlier = match.rejections.get(tid) ?? [];
    earlier.push(rejection);
    match.rejections.set(tid, earlier);
    if (earlier.length <= (this.options.maxRetries ?? 3)) {
      this.startDecision(match, { ...match.context, rejections: [...earlier] });
      return;
    }
    // The bot keeps repeating itself: answer with a legal action it has not tried.
    const tried = new Set(earlier.map((r) => r.action));
    const choices = match.legal.filter((a) => !tried.has(a));
    const pool = choices.length ? choices : match.legal;
    if (!pool.length) return;
    const text = choice(this.rng, pool);
    this.log.log("warning", "too many rejections; playing a random legal action", { match_id: match.info.matchId, turn_id: tid });
    const request = PlayRequest.fromPartial({
      kind: { $case: "move", move: { matchId: match.info.matchId, turnId: tid, action: actionToPb(match.info.game, text) } },
    });
    match.answers.set(tid, request);
    match.actions.set(tid, text);
    this.send(request);
  }

  private onSeekRejected(message: SeekRejected): void {
    this.openSeeks = Math.max(0, this.openSeeks - 1);
    const reason = reasonOf(message.status);
    this.log.log("error", "seek rejected", { reason, message: message.status?.message });
    if (reason === "SHUTTING_DOWN" || reason === "RESOURCE_EXHAUSTED") return;
    if (reason === "RATE_LIMITED") {
      // Too many seeks for now: seek again once the arbiter's wait is over.
      this.later(retryDelay(message.status) ?? 1, () => this.topUpSeeks());
      return;
    }
    this.fatal = new BadRequestError(`the arbiter refused the seek: ${message.status?.message} (${reason})`, status.INVALID_ARGUMENT, reason);
    this.stopNow();
  }

  private onLadderRejected(message: LadderRejected): void {
    const reason = reasonOf(message.status);
    this.log.log("error", "ladder request refused", { ladder: message.ladder, reason, message: message.status?.message });
    if (reason === "SHUTTING_DOWN" || reason === "CHALLENGE_REFUSED" || reason === "RESOURCE_EXHAUSTED") return;
    if (reason === "RATE_LIMITED") {
      // Too many requests for now: join again once the arbiter's wait is over.
      this.joined = false;
      this.later(retryDelay(message.status) ?? 1, () => this.topUpSeeks());
      return;
    }
    this.fatal = new BadRequestError(
      `the arbiter refused ladder ${JSON.stringify(message.ladder)}: ${message.status?.message} (${reason})`,
      reason === "LADDER_NOT_FOUND" ? status.NOT_FOUND : status.INVALID_ARGUMENT,
      reason,
    );
    this.stopNow();
  }

  private async onMatchEnded(message: MatchEnded): Promise<void> {
    const match = this.matches.get(message.matchId);
    this.matches.delete(message.matchId);
    this.expected.delete(message.matchId);
    if (!match) {
      this.log.log("warning", "result of a match the bot does not know", { match_id: message.matchId });
      return;
    }
    const summary = summaryFromPb(match.info, message);
    if (match.observations) {
      if (summary.finalObservation) match.observations.push(summary.finalObservation as SurgeObservation);
      const colour = match.info.colour === "orange" || (match.info.colour === undefined && match.info.seat === 2) ? "orange" : "blue";
      if (!summary.seed) {
        summary.seedProblems = ["the arbiter revealed no seed"];
      } else if (!match.info.seedCommitment) {
        summary.seedVerified = false;
        summary.seedProblems = ["the arbiter sent no seed commitment for this Surge match"];
      } else {
        summary.seedProblems = checkSurgeSeed(
          summary.seed, match.info.seedCommitment, colour, match.observations, match.info.matchId,
        );
        summary.seedVerified = summary.seedProblems.length === 0;
      }
      if (summary.seedVerified === false) {
        const mismatch = new SeedMismatch(summary.matchId, summary.seedProblems);
        this.log.log("error", "SEED CHECK FAILED: the arbiter's draws do not match its commitment", { error: mismatch.message });
        if (this.options.strictSeed) this.fatal = mismatch;
      } else if (summary.seedVerified) {
        this.log.log("info", "seed verified", { match_id: summary.matchId });
      }
    }
    this.finished += 1;
    this.summaries.push(summary);
    this.log.log("info", "match ended", { match_id: summary.matchId, outcome: summary.outcome, reason: summary.reason, scores: summary.scores, detail: summary.detail || undefined });
    await this.hook("onMatchEnd", summary);
    if (this.fatal || this.done()) {
      this.stopNow();
      return;
    }
    this.topUpSeeks();
  }
}

/** Play `games` matches (undefined: until stopped) as `bot`; the match summaries. Rejects with
 * AuthenticationError, ReplacedError, BadRequestError, ArbiterError or SeedMismatch (strictSeed)
 * when the session ends for good, ConnectError when the first connection brings no Welcome within
 * connectTimeout seconds; a broken connection is retried with backoff. */
export function run(bot: Bot, options: SessionOptions): Promise<MatchSummary[]> {
  return new Session(bot, options).run();
}
