// What a bot author writes against: the Bot interface and the records it is handed.
import { FlankObservation } from "./gen/arbiter/v1/flank";
import { SurgeObservation } from "./gen/arbiter/v1/surge";
import { Action } from "./gen/arbiter/v1/bot_service";
import { Clocks, ColourName, GameName, GameOptions, SeatNumber, TimeControl } from "./wire";

/** The position as the bot may see it: the generated FlankObservation (Torrent, Fravan) or
 * SurgeObservation, exactly as on the wire (see proto/arbiter/v1/flank.proto and surge.proto). */
export type Observation = FlankObservation | SurgeObservation;

export type TimeoutPolicyName = "loss" | "default_action";
export type IllegalPolicyName = "forfeit" | "reject";

/** A match as announced by MatchStarted (given to onMatchStart). */
export interface MatchInfo {
  matchId: string;
  game: GameName;
  options: GameOptions;
  seat: SeatNumber;
  /** The colour now: at the start, or after a swap when the match is resumed. */
  colour: ColourName | undefined;
  opponentName: string;
  timeControl: TimeControl;
  /** Surge: SHA-256 of the match seed, lowercase hex (empty for other games). */
  seedCommitment: string;
  resumed: boolean;
  timeoutPolicy: TimeoutPolicyName;
  illegalActionPolicy: IllegalPolicyName;
  clocks: Clocks;
  /** The position when the message was sent (after a reconnect while the opponent thinks, the
   * only way to learn it before the next turn). */
  observation: Observation | undefined;
  /** The ladder this match is played on ("" for a match from seeks). */
  ladder: string;
}

/** A refused move (MoveRejected): why, and whether the same turn may be answered again. */
export interface Rejection {
  matchId: string;
  turnId: number;
  /** The ErrorInfo reason: "ILLEGAL_ACTION", "MALFORMED_ACTION", "CLOCK_EXPIRED", "STALE_TURN", ... */
  reason: string;
  /** The gRPC status code (grpc-js `status` numbers). */
  code: number;
  message: string;
  mayRetry: boolean;
  /** The action that was refused, as text, when the SDK knows it. */
  action: string | undefined;
}

/** Facts about a decision beyond the observation. */
export interface TurnContext {
  matchId: string;
  turnId: number;
  game: GameName;
  options: GameOptions;
  seat: SeatNumber;
  /** The colour now (a Torrent/Fravan swap changes it). */
  colour: ColourName | undefined;
  opponentName: string;
  /** Seat -> seconds left when the turn was sent (null: no game clock). */
  clocks: Clocks;
  /** The most this decision may take, in seconds (null: untimed). */
  decisionLimit: number | null;
  /** performance.now() (milliseconds) when the turn arrived. */
  receivedAt: number;
  /** performance.now() by which the answer must reach the arbiter (null: untimed; no margin). */
  deadline: number | null;
  /** Seconds left for this decision now (null: untimed); network time not included. */
  timeLeft(): number | null;
  /** Earlier refusals of this same turn (only under the reject policy), oldest first. */
  rejections: readonly Rejection[];
  info: MatchInfo;
}

export type Outcome = "win" | "loss" | "draw" | "aborted" | "unknown";

/** How a match ended, from this bot's point of view (given to onMatchEnd). */
export interface MatchSummary {
  matchId: string;
  game: GameName;
  options: GameOptions;
  seat: SeatNumber;
  opponentName: string;
  outcome: Outcome;
  winnerSeat: SeatNumber | undefined;
  winnerColour: ColourName | undefined;
  /** This bot's colour at the end. */
  colour: ColourName | undefined;
  /** Seat -> score. */
  scores: Partial<Record<SeatNumber, number>>;
  myScore: number | undefined;
  opponentScore: number | undefined;
  /** "two_passes", "board_empty", "timeout", "illegal_action", "malformed_action", "aborted", ... */
  reason: string;
  detail: string;
  faultySeat: SeatNumber | undefined;
  finalObservation: Observation | undefined;
  /** Every action of the match, as text. */
  actions: string[];
  /** Surge: the revealed seed, and the verdict of the seed check (undefined for other games). */
  seed: string;
  seedVerified: boolean | undefined;
  seedProblems: string[];
}

/** What choose may return: a text action ("g7", "pass", "swap", "7@c2") or a wire Action. */
export type Choice = string | Action;

/** A bot: one method, choose; the hooks are optional.
 *
 * `legal` lists the legal actions as text, in the arbiter's order (Torrent/Fravan: every empty
 * point, then "pass" and "swap" where allowed; Surge: "VALUE@SQUARE" for every value in hand and
 * empty home square). choose may return a Promise: the stream keeps flowing while it waits. A
 * synchronous choose blocks Node's event loop while it runs, so keep it well inside the decision
 * limit (or await something now and then). Returning an action that is not in `legal` is allowed:
 * the arbiter judges it under the match's illegal-action policy. */
export interface Bot {
  /** A name for logs; the arbiter knows the bot by its token, not by this. */
  readonly name?: string;
  choose(observation: Observation, legal: string[], context: TurnContext): Choice | Promise<Choice>;
  /** A match begins (or, in a fresh process after a reconnect, resumes: info.resumed). */
  onMatchStart?(info: MatchInfo): void | Promise<void>;
  /** A match ended. */
  onMatchEnd?(summary: MatchSummary): void | Promise<void>;
  /** The arbiter refused a move (logged by the SDK either way). */
  onMoveRejected?(rejection: Rejection): void | Promise<void>;
}

export function isFlank(observation: Observation | undefined): observation is FlankObservation {
  return observation !== undefined && "board" in observation;
}

export function isSurge(observation: Observation | undefined): observation is SurgeObservation {
  return observation !== undefined && "hand" in observation;
}
