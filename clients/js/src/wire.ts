// Conversions between the generated arbiter.v1 messages and the SDK's words: games, seats,
// colours, text actions ("g7", "pass", "swap", "7@c2", "skip"), durations, rich statuses.
import { Metadata } from "@grpc/grpc-js";
import { Action, LegalActions } from "./gen/arbiter/v1/bot_service";
import { Colour, EndReason, Game, GameSpec, Seat, TimeControl as PbTimeControl, Clock } from "./gen/arbiter/v1/common";
import { Duration } from "./gen/google/protobuf/duration";
import { Status } from "./gen/google/rpc/status";
import { ErrorInfo } from "./gen/google/rpc/error_details";

export type GameName = "torrent" | "fravan" | "surge";
export type ColourName = "black" | "white" | "blue" | "orange";
export type SeatNumber = 1 | 2;

export const GAMES: readonly GameName[] = ["torrent", "fravan", "surge"];
/** Board sizes each game is played on (Surge has none). */
export const SIZES: Readonly<Record<GameName, readonly number[]>> = {
  torrent: [5, 6, 7, 8, 9],
  fravan: [5, 7],
  surge: [],
};

const GAME_TO_PB: Record<GameName, Game> = {
  torrent: Game.GAME_TORRENT,
  fravan: Game.GAME_FRAVAN,
  surge: Game.GAME_SURGE,
};

export function gameFromPb(game: Game): GameName | undefined {
  return (Object.keys(GAME_TO_PB) as GameName[]).find((name) => GAME_TO_PB[name] === game);
}

export function specToPb(game: GameName, size?: number): GameSpec {
  if (game === "surge") return { game: GAME_TO_PB[game], options: { $case: "surge", surge: {} } };
  return { game: GAME_TO_PB[game], options: { $case: "flank", flank: { size: size ?? 0 } } };
}

export interface GameOptions {
  size?: number;
}

export function specFromPb(spec: GameSpec | undefined): { game: GameName; options: GameOptions } {
  const game = spec ? gameFromPb(spec.game) : undefined;
  if (game === undefined) throw new Error(`unknown game in ${JSON.stringify(spec)}`);
  const options: GameOptions = {};
  if (spec?.options?.$case === "flank" && spec.options.flank.size) options.size = spec.options.flank.size;
  return { game, options };
}

export function seatFromPb(seat: Seat): SeatNumber | undefined {
  return seat === Seat.SEAT_1 ? 1 : seat === Seat.SEAT_2 ? 2 : undefined;
}

const COLOURS: Partial<Record<Colour, ColourName>> = {
  [Colour.COLOUR_BLACK]: "black",
  [Colour.COLOUR_WHITE]: "white",
  [Colour.COLOUR_BLUE]: "blue",
  [Colour.COLOUR_ORANGE]: "orange",
};

export function colourFromPb(colour: Colour): ColourName | undefined {
  return COLOURS[colour];
}

/** End reasons as words: "two_passes", "board_empty", "timeout", "illegal_action", ... */
export function endReasonFromPb(reason: EndReason): string {
  const name = EndReason[reason];
  return name && reason !== EndReason.UNRECOGNIZED ? name.replace(/^END_REASON_/, "").toLowerCase() : "unknown";
}

/** Seconds of a Duration (undefined when unset). */
export function secondsFromPb(duration: Duration | undefined): number | undefined {
  return duration === undefined ? undefined : duration.seconds + duration.nanos / 1e9;
}

export function secondsToPb(seconds: number): Duration {
  const whole = Math.trunc(seconds);
  return { seconds: whole, nanos: Math.round((seconds - whole) * 1e9) };
}

/** A time control in seconds; absent members mean "none" (no game clock, no increment, no cap). */
export interface TimeControl {
  base?: number;
  increment?: number;
  perDecision?: number;
}

export function timeControlToPb(tc: TimeControl): PbTimeControl {
  return {
    base: tc.base ? secondsToPb(tc.base) : undefined,
    increment: tc.increment ? secondsToPb(tc.increment) : undefined,
    perDecision: tc.perDecision ? secondsToPb(tc.perDecision) : undefined,
  };
}

export function timeControlFromPb(tc: PbTimeControl | undefined): TimeControl {
  const out: TimeControl = {};
  const base = secondsFromPb(tc?.base);
  const increment = secondsFromPb(tc?.increment);
  const perDecision = secondsFromPb(tc?.perDecision);
  if (base) out.base = base;
  if (increment) out.increment = increment;
  if (perDecision) out.perDecision = perDecision;
  return out;
}

/** Seat -> seconds left on its game clock (null: no game clock). */
export type Clocks = Partial<Record<SeatNumber, number | null>>;

export function clocksFromPb(clocks: Clock[]): Clocks {
  const out: Clocks = {};
  for (const clock of clocks) {
    const seat = seatFromPb(clock.seat);
    if (seat !== undefined) out[seat] = secondsFromPb(clock.remaining) ?? null;
  }
  return out;
}

// --- actions as text -------------------------------------------------------------------------

const POINT = /^[a-z](0|[1-9][0-9]*)$/;
const STONE = /^(0|[1-9][0-9]*)@([a-z](?:0|[1-9][0-9]*))$/;

/** The legal actions of a turn as text, in the arbiter's order: Torrent/Fravan every empty point,
 * then "pass" and "swap" where allowed; Surge every value in hand with every empty home square
 * ("7@c2"), values ascending, then squares in the arbiter's order. */
export function legalFromPb(legal: LegalActions | undefined): string[] {
  const game = legal?.game;
  if (game?.$case === "flank") {
    const out = [...game.flank.points];
    if (game.flank.canPass) out.push("pass");
    if (game.flank.canSwap) out.push("swap");
    return out;
  }
  if (game?.$case === "surge") {
    return game.surge.values.flatMap((value) => game.surge.squares.map((square) => `${value}@${square}`));
  }
  return [];
}

/** A text action of `game` as a wire Action; throws on text that is no action at all. */
export function actionToPb(game: GameName, text: string): Action {
  if (game === "surge") {
    if (text === "skip") return { game: { $case: "surge", surge: { kind: { $case: "skip", skip: {} } } } };
    const m = STONE.exec(text);
    if (!m) throw new Error(`not a Surge action: ${JSON.stringify(text)} (expected "VALUE@SQUARE" such as "7@c2")`);
    return {
      game: { $case: "surge", surge: { kind: { $case: "place", place: { value: Number(m[1]), square: m[2] } } } },
    };
  }
  if (text === "pass") return { game: { $case: "flank", flank: { kind: { $case: "pass", pass: {} } } } };
  if (text === "swap") return { game: { $case: "flank", flank: { kind: { $case: "swap", swap: {} } } } };
  if (!POINT.test(text)) {
    throw new Error(`not a ${game} action: ${JSON.stringify(text)} (expected a point such as "e5", "pass" or "swap")`);
  }
  return { game: { $case: "flank", flank: { kind: { $case: "place", place: { point: text } } } } };
}

/** The text of a wire Action ("g7", "pass", "swap", "7@c2", "skip"). */
export function actionText(action: Action | undefined): string {
  const game = action?.game;
  if (game?.$case === "flank") {
    const kind = game.flank.kind;
    return kind?.$case === "place" ? kind.place.point : kind?.$case ?? "";
  }
  if (game?.$case === "surge") {
    const kind = game.surge.kind;
    return kind?.$case === "place" ? `${kind.place.value}@${kind.place.square}` : kind?.$case ?? "";
  }
  return "";
}

// --- rich statuses ----------------------------------------------------------------------------

const ERROR_INFO_URL = "type.googleapis.com/google.rpc.ErrorInfo";

/** The ErrorInfo reason of a google.rpc.Status ("ILLEGAL_ACTION", ...), if it has one. */
export function reasonOf(status: Status | undefined): string | undefined {
  for (const detail of status?.details ?? []) {
    if (detail.typeUrl === ERROR_INFO_URL) {
      try {
        return ErrorInfo.decode(detail.value).reason || undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Seconds to wait before sending a RATE_LIMITED request again: ErrorInfo metadata
 * "retry_after_ms" (docs/protocol.md, Rate limits); undefined when the status has none. */
export function retryDelay(status: Status | undefined): number | undefined {
  for (const detail of status?.details ?? []) {
    if (detail.typeUrl === ERROR_INFO_URL) {
      try {
        const ms = Number(ErrorInfo.decode(detail.value).metadata["retry_after_ms"]);
        return Number.isFinite(ms) && ms > 0 ? ms / 1000 : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** The rich status in a call's trailers (grpc-status-details-bin), if any. */
export function statusFromMetadata(metadata: Metadata | undefined): Status | undefined {
  const value = metadata?.get("grpc-status-details-bin")?.[0];
  if (value === undefined) return undefined;
  try {
    return Status.decode(typeof value === "string" ? Buffer.from(value, "base64") : value);
  } catch {
    return undefined;
  }
}
