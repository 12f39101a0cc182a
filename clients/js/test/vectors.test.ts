// The conformance cases of tests/vectors/: the Torrent/Fravan engine (src/engine.ts) reproduces
// every trace and score, and drawOrder every Surge shuffle.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { drawOrder } from "../src";
import { BLACK, WHITE, boardText, newState, place, scores } from "../src/engine";

const VECTORS = path.resolve(__dirname, "..", "..", "..", "..", "tests", "vectors");

function cases(file: string): Record<string, any>[] {
  return fs
    .readFileSync(path.join(VECTORS, file), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

for (const game of ["torrent", "fravan"]) {
  test(`${game} conformance cases`, () => {
    const all = cases(`${game}.jsonl`);
    assert.ok(all.length >= 10);
    for (const c of all) {
      let state = newState(c.options.size, game === "fravan");
      let toMove: 1 | 2 = BLACK;
      c.actions.forEach((action: string, i: number) => {
        if (action !== "pass" && action !== "swap") state = place(state, action, toMove);
        if (action !== "swap") toMove = toMove === BLACK ? WHITE : BLACK;
        else toMove = WHITE; // the swapper becomes Black; White (the first player) moves next
        if (c.trace) assert.equal(boardText(state), c.trace[i], `${c.id}: after action ${i + 1} (${action})`);
      });
      if (c.expect.board) assert.equal(boardText(state), c.expect.board, c.id);
      if (c.expect.scores) assert.deepEqual(scores(state), c.expect.scores, c.id);
      if (c.expect.to_move) assert.equal(toMove === BLACK ? "black" : "white", c.expect.to_move, c.id);
    }
  });
}

test("surge shuffle cases: drawOrder", () => {
  const all = cases("surge-shuffle.jsonl");
  assert.ok(all.length >= 1);
  for (const c of all) {
    const seed = Buffer.from(c.seed, "hex");
    assert.deepEqual(drawOrder(seed, "blue"), c.expect.blue, c.id);
    assert.deepEqual(drawOrder(seed, "orange"), c.expect.orange, c.id);
    assert.equal(createHash("sha256").update(seed).digest("hex"), c.expect.commitment, c.id);
  }
});

test("the cascade guard stops a natural flip cycle (tests/engines/test_flank_guard.py)", () => {
  const game = (
    "c7 swap g5 e9 h3 a8 i5 d6 b7 e8 f1 c4 h4 h5 h2 f5 c3 c9 e4 b5 c8 e3 b4 i4 c6 i3 a9 f2 f6 g1 " +
    "d9 a5 pass g2 a6 f7 e5 b8 a7 g3 d7 b9 f8 e2 b6 pass f3"
  ).split(" ");
  let state = newState(5, false);
  let toMove: 1 | 2 = BLACK;
  for (const action of game) {
    if (action !== "pass" && action !== "swap") state = place(state, action, toMove);
    toMove = action === "swap" ? WHITE : toMove === BLACK ? WHITE : BLACK;
  }
  assert.equal(boardText(state), "WBBBB/WWB.BW/WWWW.B./WWWW.B../BW..WWWWW/WB.W..WB/W.BWBBB/.BBWW./.WB..");
  place(state, "d8", toMove); // the game goes on
});
