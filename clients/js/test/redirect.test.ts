// A Redirect (docs/protocol.md, "Clusters: Redirect") is followed: a stand-in node answers every
// Play call with a Redirect to a real arbiter started here, then ends the call; the bot plays there.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Server, ServerCredentials, ServerDuplexStream } from "@grpc/grpc-js";
import { Backoff, Session, stderrLogger } from "../src";
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
