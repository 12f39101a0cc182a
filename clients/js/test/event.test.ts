// An event played by SDK bots against a real arbiter on a SQLite store: `arbiter events add`, the
// bots enter with the `event` option (EnterEvent), the host runs `arbiter events start`, the bots
// play the games the arbiter starts and stop once it tells them the event ended; what they are told
// equals `arbiter events show --json`.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { Backoff, Session, stderrLogger } from "../src";
import { EventStatus } from "../src/gen/arbiter/v1/bot_service";
import { RandomBot } from "../src/examples/random_bot";
import { arbiterBin } from "./arbiter";
import { parseOptions } from "../src/cli";

const quiet = stderrLogger((process.env.ARBITER_JS_LOG as "debug" | undefined) ?? "silent");

function arbiter(...args: string[]): string {
  const done = spawnSync(arbiterBin(), args, { encoding: "utf8" });
  assert.equal(done.status, 0, `${args.join(" ")}: ${done.stderr}`);
  return done.stdout;
}

async function until(check: () => boolean, seconds: number, what: string): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("--event NAME and ARBITER_EVENT name the event to enter; not with a ladder", () => {
  assert.equal(parseOptions(["--token", "t", "--event", "cup"], {}).event, "cup");
  assert.equal(parseOptions(["--token", "t"], { ARBITER_EVENT: "spring" }).event, "spring");
  assert.throws(() => parseOptions(["--token", "t", "--event", "cup", "--ladder", "main"], {}), /not both/);
});

test("bots enter an event, play it to its end and are told their places", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbiter-js-event-"));
  const db = `sqlite:///${path.join(dir, "arbiter.db")}`;
  arbiter("db", "upgrade", "--database", db);
  const names = ["js-a", "js-b", "js-c"];
  const tokens: Record<string, string> = {};
  for (const name of names) {
    const said = arbiter("bots", "add", name, "--database", db);
    tokens[name] = /token \(shown only now\): (\S+)/.exec(said)![1];
  }
  arbiter("events", "add", "cup", "--game", "torrent", "--size", "5", "--format", "round-robin", "--base", "30", "--database", db);
  const child = spawn(arbiterBin(), ["serve", "--database", db, "--port", "0", "--log-level", "warning", "--event-grace", "5"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the arbiter did not start:\n${stderr}`)), 120_000);
      createInterface({ input: child.stdout! }).once("line", (line) => {
        clearTimeout(timer);
        const m = /^listening on (\S+)/.exec(line);
        if (m) resolve(m[1]);
        else reject(new Error(`unexpected first line: ${line}`));
      });
    });
    const sessions = names.map(
      (name, i) =>
        new Session(new RandomBot(i + 1), {
          server: address,
          token: tokens[name],
          game: "torrent",
          size: 5,
          event: "cup",
          backoff: new Backoff(0.05, 2, 0.5, 0.25),
          logger: quiet,
        }),
    );
    const runs = sessions.map((s) => s.run());
    await until(() => sessions.every((s) => s.eventEntered !== undefined), 60, "the entries");
    assert.deepEqual(sessions.map((s) => s.eventEntered!.seed).sort(), [1, 2, 3]);
    arbiter("events", "start", "cup", "--database", db);
    const played = await Promise.all(runs);
    // Three bots: three rounds, one game and one bye each; every bot plays two games.
    assert.deepEqual(played.map((summaries) => summaries.length), [2, 2, 2]);
    const report = JSON.parse(arbiter("events", "show", "cup", "--json", "--database", db));
    assert.equal(report.status, "finished");
    for (const [i, name] of names.entries()) {
      const ended = sessions[i].eventEnded!;
      assert.equal(ended.status, EventStatus.EVENT_STATUS_FINISHED);
      const standing = report.standings.find((s: { bot: string }) => s.bot === name);
      assert.equal(ended.place, standing.place);
      assert.equal(ended.points, standing.score);
      assert.equal(ended.entrants, 3);
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(null)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
