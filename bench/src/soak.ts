// The soak test of the recovery issue: for N minutes, under continuous load, a
// random sandbox is killed (kill -9) every few seconds and replaced; then every
// run is checked: one terminal status each, FIFO and no overlap per session,
// nothing lost. Not part of `npm test`; run with `npm run soak -- --minutes 10`.
import { createClient, OahApiError } from "@oah/client";
import { fuzzApi, type SplitDeployment, startSplitDeployment, waitFor } from "@oah/testing";
import { positiveInteger, positiveNumber, readCommandLine } from "./command-line";
import { unfinishedRuns } from "./oah";

const USAGE = `Usage: npm run soak -- [options]

A split deployment under continuous load while a random sandbox is killed (kill -9)
every few seconds and replaced; then every run is checked: one terminal status each,
in order and without overlap per session, nothing lost; then every HTTP path and
tRPC procedure is fuzzed from its schema (the suite's property test, with many more
cases and a new seed). Exits 1 on any problem.

  --minutes N     how long the load and the kills go on (10)
  --rate N        runs submitted per second (40)
  --sessions N    sessions the runs are spread over (100)
  --sandboxes N   sandboxes kept running (3)
  --fuzz-runs N   cases per path and property of the fuzzing (300)
  --seed N        the fuzzing's seed (else a new one, printed)
  -h, --help      this
`;

const { minutes, ratePerSecond, sessionCount, sandboxCount, fuzzRuns, seed } = readCommandLine(
  USAGE,
  {
    options: {
      minutes: { type: "string", default: "10" },
      rate: { type: "string", default: "40" },
      sessions: { type: "string", default: "100" },
      sandboxes: { type: "string", default: "3" },
      "fuzz-runs": { type: "string", default: "300" },
      seed: { type: "string" },
    },
  },
  (values) => ({
    minutes: positiveNumber("minutes", values.minutes),
    ratePerSecond: positiveNumber("rate", values.rate),
    sessionCount: positiveInteger("sessions", values.sessions),
    sandboxCount: positiveInteger("sandboxes", values.sandboxes),
    fuzzRuns: positiveInteger("fuzz-runs", values["fuzz-runs"]),
    seed:
      values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : positiveInteger("seed", values.seed),
  }),
);

const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const random = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

const env = {
  OAH_LOG_LEVEL: "error",
  OAH_SESSION_LOCK_TTL_MS: "3000",
  OAH_RUN_HEARTBEAT_INTERVAL_MS: "500",
  OAH_STALE_RUN_AFTER_MS: "5000",
  OAH_RECOVERY_SCAN_INTERVAL_MS: "1000",
  OAH_STALE_RUN_RECOVERY_MAX_ATTEMPTS: "10",
};

async function submitLoad(d: SplitDeployment, until: number, submitted: string[]): Promise<void> {
  const oah = createClient({ baseUrl: d.api.url, token: d.env.OAH_API_TOKEN });
  const intervalMs = 1000 / ratePerSecond;
  let next = Date.now();
  let i = 0;
  const inFlight = new Set<Promise<void>>();
  while (Date.now() < until) {
    const n = i++;
    const p = (async () => {
      const steps =
        n % 5 === 0
          ? [{ type: "shell" as const, command: "true" }]
          : [{ type: "sleep" as const, ms: random(5, 200) }];
      for (;;) {
        try {
          const { run, created } = await oah.submit(`soak-${n % sessionCount}`, {
            input: { steps },
            idempotencyKey: `soak-${n}`,
          });
          if (created) submitted.push(run.id);
          return;
        } catch (error) {
          // Refusals while the chaos has a process down are tried again; not reaching the API is not.
          if (!(error instanceof OahApiError)) throw error;
        }
        await sleep(200);
      }
    })().finally(() => inFlight.delete(p));
    inFlight.add(p);
    next += intervalMs;
    await sleep(Math.max(0, next - Date.now()));
  }
  await Promise.all(inFlight);
}

async function chaos(d: SplitDeployment, until: number): Promise<number> {
  let kills = 0;
  while (Date.now() < until) {
    await sleep(random(3_000, 8_000));
    const alive = d.sandboxes.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
    const victim = alive[random(0, alive.length - 1)];
    if (!victim) continue;
    victim.child.kill("SIGKILL");
    kills++;
    await d.addSandbox();
  }
  return kills;
}

interface Row {
  id: string;
  session_id: string;
  seq: number;
  status: string;
  attempt: number;
  recovery_state: string | null;
  started_at: number | null;
  ended_at: number | null;
  terminal_events: number;
}

async function main(): Promise<void> {
  log(
    `soak: ${minutes} min, ${ratePerSecond} runs/s over ${sessionCount} sessions, ${sandboxCount} sandboxes`,
  );
  const d = await startSplitDeployment({
    sandboxes: sandboxCount,
    env,
    sandboxEnv: { OAH_WORKERS_MIN: "2", OAH_WORKERS_MAX: "4" },
  });
  try {
    const started = Date.now();
    const until = started + minutes * 60_000;
    const submitted: string[] = [];
    const [, kills] = await Promise.all([submitLoad(d, until, submitted), chaos(d, until)]);
    log(`load stopped: ${submitted.length} runs submitted, ${kills} sandboxes killed; draining`);
    await waitFor("the last runs to end", async () => (await unfinishedRuns(d)) === 0, 180_000, 1_000);

    const { rows } = await d.db.query<Row>(`
      SELECT r.id, r.session_id, r.seq, r.status, r.attempt, r.recovery_state, r.started_at, r.ended_at,
        (SELECT count(*) FROM run_events e WHERE e.run_id = r.id
          AND e.type IN ('run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'))::int AS terminal_events
      FROM runs r ORDER BY r.session_id, r.seq`);
    const problems: string[] = [];
    if (rows.length !== submitted.length)
      problems.push(`${submitted.length} submitted but ${rows.length} stored`);
    const known = new Set(rows.map((r) => r.id));
    const lost = submitted.filter((id) => !known.has(id));
    if (lost.length > 0) problems.push(`${lost.length} submitted runs missing`);
    for (const r of rows) {
      if (r.terminal_events !== 1) problems.push(`${r.id}: ${r.terminal_events} terminal events`);
    }
    let overlaps = 0;
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      if (a.session_id === b.session_id && Number(b.started_at) < Number(a.ended_at)) overlaps++;
    }
    if (overlaps > 0)
      problems.push(`${overlaps} runs started before the previous run of their session ended`);
    const count = (f: (r: Row) => boolean) => rows.filter(f).length;
    const figures = {
      minutes,
      submitted: submitted.length,
      stored: rows.length,
      completed: count((r) => r.status === "completed"),
      failed: count((r) => r.status === "failed"),
      quarantined: count((r) => r.recovery_state === "quarantined"),
      reExecuted: count((r) => r.attempt > 1),
      maxAttempt: Math.max(...rows.map((r) => r.attempt)),
      sandboxesKilled: kills,
      runsPerSecond: Math.round((rows.length / ((Date.now() - started) / 1000)) * 10) / 10,
    };
    log(`figures: ${JSON.stringify(figures)}`);
    log(`fuzzing every path and procedure: ${fuzzRuns} cases each, seed ${seed}`);
    for (const finding of await fuzzApi({ url: d.api.url, runs: fuzzRuns, seed })) {
      problems.push(`fuzz: ${finding.target}: ${finding.property}: ${finding.counterexample}`);
    }
    if (problems.length > 0) {
      log(`FAILED: ${problems.length} problems\n  ${problems.slice(0, 20).join("\n  ")}`);
      process.exitCode = 1;
    } else {
      log(
        "OK: every run has one terminal status, sessions ran in order without overlap, nothing was lost; " +
          "the fuzzing found nothing",
      );
    }
  } finally {
    await d.dispose();
  }
}

await main();
