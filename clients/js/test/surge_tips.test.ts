// The Surge example bot: its tips on hand-made positions, and full matches against a real arbiter.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Backoff, MatchSummary, Session, TurnContext, stderrLogger } from "../src";
import { Colour } from "../src/gen/arbiter/v1/common";
import { SurgeObservation } from "../src/gen/arbiter/v1/surge";
import { RandomBot } from "../src/examples/random_bot";
import { SurgeTipsBot, hiddenGuess } from "../src/examples/surge_tips";
import { Arbiter, startArbiter } from "./arbiter";

function observation(partial: Partial<SurgeObservation>): SurgeObservation {
  return SurgeObservation.fromPartial({
    colour: Colour.COLOUR_BLUE,
    firstPlacer: Colour.COLOUR_BLUE,
    round: 1,
    hand: [2, 5, 9],
    supply: [],
    opponentHandSize: 3,
    opponentSupplySize: 17,
    ...partial,
  });
}

const legalFor = (o: SurgeObservation, squares: string[]) => o.hand.flatMap((v) => squares.map((s) => `${v}@${s}`));

describe("SurgeTipsBot's tips", () => {
  test("on an empty board: the biggest stone, on the front home row", () => {
    const o = observation({});
    const legal = legalFor(o, ["a1", "a2", "d1", "d2"]);
    const bot = new SurgeTipsBot(1);
    const values = bot.evaluate(o, legal);
    const best = [...values].sort((x, y) => y[1] - x[1])[0][0];
    assert.match(best, /^9@[ad]2$/);
    assert.ok((values.get("9@a2") ?? 0) > (values.get("9@a1") ?? 0));
    assert.ok((values.get("9@a1") ?? 0) > (values.get("2@a2") ?? 0));
  });

  test("placing second: it answers the column of the opponent's face-down stone", () => {
    const o = observation({
      colour: Colour.COLOUR_ORANGE,
      firstPlacer: Colour.COLOUR_BLUE,
      faceDown: [{ square: "c2", colour: Colour.COLOUR_BLUE, value: 0 }],
    });
    const legal = legalFor(o, ["a7", "c7", "f7"]);
    const values = new SurgeTipsBot(2).evaluate(o, legal);
    assert.ok((values.get("9@c7") ?? 0) > (values.get("9@a7") ?? 0));
    assert.ok((values.get("9@c7") ?? 0) > (values.get("9@f7") ?? 0));
  });

  test("it keeps out of a column it would lose and backs up its own lines when placing first", () => {
    const o = observation({
      faceUp: [
        { square: "b3", colour: Colour.COLOUR_ORANGE, value: 10 },
        { square: "b4", colour: Colour.COLOUR_ORANGE, value: 10 },
        { square: "e2", colour: Colour.COLOUR_BLUE, value: 3 },
      ],
      removedOrange: [],
    });
    const values = new SurgeTipsBot(3).evaluate(o, legalFor(o, ["b2", "e1", "g2"]));
    assert.ok((values.get("5@b2") ?? 0) < (values.get("5@g2") ?? 0), "a lost fight in column b");
    assert.ok((values.get("5@e1") ?? 0) > (values.get("5@g2") ?? 0), "behind its own stone on e2");
  });

  test("a hidden stone counts as the average of the values not yet revealed", () => {
    const none = observation({});
    assert.equal(hiddenGuess(none, Colour.COLOUR_ORANGE), 5.5);
    const seen = observation({ faceUp: [{ square: "a7", colour: Colour.COLOUR_ORANGE, value: 10 }], removedOrange: [10] });
    assert.equal(hiddenGuess(seen, Colour.COLOUR_ORANGE), 90 / 18);
  });

  test("it always answers with a legal placement", () => {
    const o = observation({ hand: [1, 4] });
    const legal = legalFor(o, ["a1", "h2"]);
    const bot = new SurgeTipsBot(4);
    for (let i = 0; i < 20; i++) assert.ok(legal.includes(bot.choose(o, legal, {} as TurnContext)));
  });
});

describe("SurgeTipsBot against a real arbiter", () => {
  let arbiter: Arbiter;
  const bots = { tips: "token-tips", rand: "token-rand" };
  before(async () => {
    arbiter = await startArbiter(bots, ["--base", "30", "--increment", "1"]);
  });
  after(async () => arbiter?.stop());

  test("plays full Surge matches against the random bot, the seed verified each time", async () => {
    const quiet = stderrLogger("silent");
    const common = { server: arbiter.address, game: "surge" as const, games: 2, backoff: new Backoff(0.05, 2, 0.5, 0.25), logger: quiet, strictSeed: true };
    const [tips, rand]: MatchSummary[][] = await Promise.all([
      new Session(new SurgeTipsBot(5), { ...common, token: bots.tips }).run(),
      new Session(new RandomBot(6), { ...common, token: bots.rand }).run(),
    ]);
    assert.equal(tips.length, 2);
    assert.deepEqual(tips.map((s) => s.seat).sort(), [1, 2]); // seats alternate between the two bots
    for (const [mine, theirs] of tips.map((s) => [s, rand.find((r) => r.matchId === s.matchId)] as const)) {
      assert.ok(theirs, "both bots played the same matches");
      assert.ok(["board_empty", "round_limit", "no_change_no_stones", "no_change_nobody_placed"].includes(mine.reason), mine.reason);
      assert.equal(mine.seedVerified, true, mine.seedProblems.join("; "));
      assert.deepEqual(mine.actions, theirs.actions);
      assert.ok(mine.actions.some((a) => /^\d+@[a-h][1-8]$/.test(a)));
    }
  });
});
