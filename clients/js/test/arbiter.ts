// Start a real arbiter for the tests: `arbiter serve --database none --port 0 --bot NAME=TOKEN ...`
// (from the repository's .venv, or $ARBITER_BIN), reading the port from its first stdout line.
import { ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";

const ROOT = path.resolve(__dirname, "..", "..", "..", "..");

export interface Arbiter {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
  log(): string;
}

export function arbiterBin(): string {
  return process.env.ARBITER_BIN ?? path.join(ROOT, ".venv", "bin", "arbiter");
}

export async function startArbiter(bots: Record<string, string>, extra: string[] = []): Promise<Arbiter> {
  const records = fs.mkdtempSync(path.join(os.tmpdir(), "arbiter-js-records-"));
  const args = ["serve", "--database", "none", "--port", "0", "--grace", "0.5", "--records", records, "--log-level", "warning"];
  for (const [name, token] of Object.entries(bots)) args.push("--bot", `${name}=${token}`);
  args.push(...extra);
  const child = spawn(arbiterBin(), args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines = createInterface({ input: child.stdout! });
  const started = new Promise<string>((resolve, reject) => {
    // Generous: on a loaded machine starting Python and importing grpc alone can take many seconds.
    const timer = setTimeout(() => reject(new Error(`the arbiter did not start in 120 s:\n${stderr}`)), 120_000);
    child.once("exit", (code) => reject(new Error(`the arbiter exited (${code}) before listening:\n${stderr}`)));
    child.once("error", reject);
    lines.once("line", (line) => {
      clearTimeout(timer);
      const m = /^listening on (\S+)/.exec(line);
      if (m) resolve(m[1]);
      else reject(new Error(`unexpected first line from the arbiter: ${line}`));
    });
  });
  let address: string;
  try {
    address = await started;
  } catch (err) {
    child.kill("SIGKILL"); // an arbiter that never said where it listens must not keep the tests alive
    fs.rmSync(records, { recursive: true, force: true });
    throw err;
  }
  child.removeAllListeners("exit");
  lines.on("line", () => undefined); // keep draining
  return {
    address,
    process: child,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(records, { recursive: true, force: true });
    },
  };
}
