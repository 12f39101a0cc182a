// The Surge seed check (docs/protocol.md, "The Surge seed commitment"): SHA-256 of the revealed
// seed must be the commitment, and both draw orders recomputed by the rules' algorithm must
// explain every observation the bot received.
import { createHash } from "node:crypto";
import { Colour } from "./gen/arbiter/v1/common";
import { SurgeObservation } from "./gen/arbiter/v1/surge";

export const TOTAL_STONES = 20;
export const HAND_SIZE = 3;
const HEX64 = /^[0-9a-f]{64}$/;

/** The draw order of `player` ("blue" or "orange") for a 32-byte match seed, per the rules:
 * the byte stream SHA-256(seed || player || counter) for counter = 0, 1, ... (4-byte big-endian),
 * read as 8-byte big-endian integers x; for i from 19 down to 1 swap items i and x mod (i + 1) of
 * [1, 1, 2, 2, ..., 10, 10]. */
export function drawOrder(seed: Uint8Array, player: "blue" | "orange"): number[] {
  const blocks: Buffer[] = [];
  for (let counter = 0; counter < 5; counter++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    blocks.push(createHash("sha256").update(seed).update(player, "ascii").update(c).digest());
  }
  const stream = Buffer.concat(blocks);
  const order: number[] = [];
  for (let v = 1; v <= 10; v++) order.push(v, v);
  let offset = 0;
  for (let i = 19; i >= 1; i--) {
    const x = stream.readBigUInt64BE(offset);
    offset += 8;
    const j = Number(x % BigInt(i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

function counts(values: Iterable<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

function sameMultiset(a: number[], b: number[]): boolean {
  return [...a].sort((x, y) => x - y).join(",") === [...b].sort((x, y) => x - y).join(",");
}

const fmt = (values: number[]): string => `[${values.join(", ")}]`;

/** Everything that does not match, as sentences; an empty list means the seed checks out.
 * `colour` is this bot's colour ("blue" for seat 1, "orange" for seat 2); `matchId` is hashed
 * after the seed on a leg of a duplicate pair (docs/protocol.md). */
export function checkSurgeSeed(
  seedHex: string,
  commitment: string,
  colour: "blue" | "orange",
  observations: Iterable<SurgeObservation>,
  matchId = "",
): string[] {
  const problems: string[] = [];
  const hex = seedHex.trim();
  if (!HEX64.test(hex)) return [`the revealed seed ${JSON.stringify(hex)} is not 64 lowercase hex digits`];
  const seed = Buffer.from(hex, "hex");
  const digest = createHash("sha256").update(seed).digest("hex");
  const legDigest = createHash("sha256").update(seed).update(matchId, "ascii").digest("hex");
  const given = commitment.trim().toLowerCase();
  if (given !== digest && given !== legDigest) {
    problems.push(`SHA-256 of the revealed seed is ${digest}, but the commitment was ${JSON.stringify(commitment)}`);
  }
  const enemy = colour === "blue" ? "orange" : "blue";
  const mine = drawOrder(seed, colour);
  const theirs = drawOrder(seed, enemy);
  const myPb = colour === "blue" ? Colour.COLOUR_BLUE : Colour.COLOUR_ORANGE;
  for (const obs of observations) {
    const where = `round ${obs.round}${obs.over ? " (final)" : ""}`;
    const drawn = TOTAL_STONES - obs.supply.length;
    if (drawn < HAND_SIZE || drawn > TOTAL_STONES) {
      problems.push(`${where}: supply of ${obs.supply.length} stones is impossible`);
      continue;
    }
    const onBoard = [...obs.faceUp, ...obs.faceDown].filter((s) => s.colour === myPb).map((s) => s.value);
    const removed = colour === "blue" ? obs.removedBlue : obs.removedOrange;
    const seen = [...obs.hand, ...onBoard, ...removed];
    if (!sameMultiset(seen, mine.slice(0, drawn))) {
      problems.push(
        `${where}: own hand ${fmt(obs.hand)} + board ${fmt(onBoard)} + removed ${fmt(removed)} ` +
          `is not the first ${drawn} stones of the order ${fmt(mine)}`,
      );
    }
    if (!sameMultiset(obs.supply, mine.slice(drawn))) {
      problems.push(`${where}: own supply ${fmt(obs.supply)} is not the rest of the order ${fmt(mine.slice(drawn))}`);
    }
    if (obs.hand.length > HAND_SIZE) problems.push(`${where}: own hand ${fmt(obs.hand)} holds more than ${HAND_SIZE} stones`);
    const enemyDrawn = TOTAL_STONES - obs.opponentSupplySize;
    if (enemyDrawn < HAND_SIZE || enemyDrawn > TOTAL_STONES) {
      problems.push(`${where}: opponent supply size ${obs.opponentSupplySize} is impossible`);
      continue;
    }
    const revealed = [
      ...obs.faceUp.filter((s) => s.colour !== myPb).map((s) => s.value),
      ...(enemy === "orange" ? obs.removedOrange : obs.removedBlue),
    ];
    const available = counts(theirs.slice(0, enemyDrawn));
    const extra: number[] = [];
    for (const [value, n] of counts(revealed)) {
      for (let k = available.get(value) ?? 0; k < n; k++) extra.push(value);
    }
    if (extra.length) {
      problems.push(
        `${where}: opponent stones ${fmt(extra.sort((a, b) => a - b))} were revealed but are not among the first ` +
          `${enemyDrawn} stones of the opponent's order ${fmt(theirs)}`,
      );
    }
    const hidden = obs.faceDown.filter((s) => s.colour !== myPb).length;
    const accounted = revealed.length + hidden + obs.opponentHandSize;
    if (accounted !== enemyDrawn) {
      problems.push(
        `${where}: the opponent drew ${enemyDrawn} stones but ${accounted} are accounted for (revealed, face-down and in hand)`,
      );
    }
  }
  return problems;
}

/** The seed check failed: the arbiter's draws do not match its commitment. */
export class SeedMismatch extends Error {
  constructor(
    readonly matchId: string,
    readonly problems: readonly string[],
  ) {
    super(`match ${matchId}: Surge seed check failed: ${problems.join("; ")}`);
    this.name = "SeedMismatch";
  }
}
