// A Redirect (docs/protocol.md, "Clusters: Redirect") is followed: a stand-in node answers every
// Play call with a Redirect to a real arbiter started here, then ends the call; the bot plays there.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Server, ServerCredentials, ServerDuplexStream, status } from "@grpc/grpc-js";
import { AuthenticationError, Backoff, Session, stderrLogger } from "../src";
import { RandomBot } from "../src/examples/random_bot";
import { BotServiceService, PlayRequest, PlayResponse, RedirectReason } from "../src/gen/arbiter/v1/bot_service";
import { Arbiter, startArbiter } from "./arbiter";

const quiet = stderrLogger((process.env.ARBITER_JS_LOG as "debug" | undefined) ?? "silent");

describe("redirects", () => {
  let arbiter: Arbiter;
  let elsewhere: Server;
  let elsewhereAddress = "";
  const seen: string[] = [];
  before(async () => {
    arbiter = await startArbiter({ near: "token-near", far: "token-far" }, ["--base", "30", "--increment", "1"]);
    elsewhere = new Server();
    elsewhere.addService(BotServiceService, {
      play(call: ServerDuplexStream<PlayRequest, PlayResponse>) {
        seen.push(String(call.metadata.get("authorization")[0]));
        call.on("data", () => undefined);
        call.write({
          kind: {
            $case: "redirect",
            redirect: { address: arbiter.address, joinToken: "", joinTokenExpiresIn: { seconds: 30, nanos: 0 }, reason: RedirectReason.REDIRECT_REASON_MATCHES, ladder: "" },
          },
        });
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      elsewhere.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    elsewhereAddress = `127.0.0.1:${port}`;
  });
  after(async () => {
    elsewhere?.forceShutdown();
    await arbiter?.stop();
  });

  test("a bot sent on by a Redirect plays its match at the address given", async () => {
    const options = { game: "torrent" as const, size: 5, games: 1, maxReconnects: 5, backoff: new Backoff(0.05, 2, 0.5, 0.25), logger: quiet };
    const far = new Session(new RandomBot(1), { ...options, server: elsewhereAddress, token: "token-far" });
    const near = new Session(new RandomBot(2), { ...options, server: arbiter.address, token: "token-near" });
    const [[a], [b]] = await Promise.all([far.run(), near.run()]);
    assert.equal(a.matchId, b.matchId);
    assert.equal(a.reason, "two_passes");
    assert.deepEqual(seen, ["Bearer token-far"]); // one call there, with its own token (no join token given)
    assert.equal(far.stats.connections, 2);
  });
});

/** A node that answers its first `redirects` calls with a Redirect to `to` (join tokens jt-1,
 * jt-2, ...), then refuses the token; `seen` keeps the authorization of each call. */
class StandIn {
  readonly server = new Server();
  readonly seen: string[] = [];
  to = "";
  address = "";
  constructor(readonly redirects: number) {
    this.server.addService(BotServiceService, {
      play: (call: ServerDuplexStream<PlayRequest, PlayResponse>) => {
        this.seen.push(String(call.metadata.get("authorization")[0]));
        call.on("data", () => undefined);
        if (this.seen.length > this.redirects) {
          call.emit("error", { code: status.UNAUTHENTICATED, details: "stand-in: enough" });
          return;
        }
        const joinToken = `jt-${this.seen.length}`;
        call.write({
          kind: { $case: "redirect", redirect: { address: this.to, joinToken, joinTokenExpiresIn: { seconds: 30, nanos: 0 }, reason: RedirectReason.REDIRECT_REASON_MATCHES, ladder: "" } },
        });
        call.end();
      },
    });
  }
  async start(): Promise<void> {
    const port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    this.address = `127.0.0.1:${port}`;
  }
}

describe("redirects past the limit", () => {
  // Found by tests/cluster/test_takeover.py with 40 bots: once past the redirects it follows at
  // once, the SDK dropped each Redirect's address and went back to its seed node, which sent it
  // on again, so it never reached the node hosting its matches.
  test("the bot still goes where it is sent: after the backoff, with its own token", async () => {
    const seed = new StandIn(100); // the node the bot knows: always sends it to the other one
    const other = new StandIn(7); // sends it to itself 7 times, then refuses
    await seed.start();
    await other.start();
    seed.to = other.to = other.address;
    try {
      const session = new Session(new RandomBot(3), { server: seed.address, token: "own-token", game: "torrent", size: 5, backoff: new Backoff(0.01, 2, 0.05, 0.25), logger: quiet });
      await assert.rejects(session.run(), AuthenticationError);
    } finally {
      seed.server.forceShutdown();
      other.server.forceShutdown();
    }
    assert.deepEqual(seed.seen, ["Bearer own-token"]); // never back to the seed
    assert.deepEqual(other.seen, [
      "Bearer jt-1", // the seed's join token
      "Bearer jt-1", "Bearer jt-2", "Bearer jt-3", "Bearer jt-4", // its own, followed at once (5 in a row)
      "Bearer own-token", "Bearer own-token", "Bearer own-token", // past the limit
    ]);
  });
});
