import { execFileSync } from "node:child_process";
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, startSplitDeployment } from "@oah/testing";
import type { FullConfig } from "@playwright/test";
import { CHROMIUM_PATH } from "./chromium";
import { type ConsoleProcess, startConsole } from "./support/console";
import { startModel } from "./support/model";
import { FAST_ENV, seed } from "./support/seed";
import type { E2EState } from "./support/state";

const log = (message: string) => process.stdout.write(`[e2e] ${message}\n`);

/**
 * One deployment for the whole suite: oah-api --api-only and two oah-sandbox processes on a fresh
 * PostgreSQL database and Redis prefix, runs produced by the real engine, and the built console
 * (`next start`) pointed at the API; agent runs ask a model stand-in (support/model.ts). Fails,
 * never skips, when Chromium, PostgreSQL or Redis is missing.
 */
export default async function globalSetup(_config: FullConfig) {
  const started = Date.now();
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium is required by the end-to-end tests and is missing at ${CHROMIUM_PATH}. ` +
        "Install Debian's package (apt-get install -y chromium; .ci/run does) or set OAH_E2E_CHROMIUM.",
    );
  }

  // biome-ignore lint/suspicious/noUndeclaredEnvVars: read by the test runner, not by a turbo task
  if (process.env.OAH_E2E_SKIP_BUILD !== "1") {
    // Up to date after `npm test`'s own build: turbo replays it from its cache in a second or two.
    execFileSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], {
      cwd: REPO_ROOT,
      stdio: "inherit",
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", NEXT_TELEMETRY_DISABLED: "1" },
    });
    log(`build checked in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  const model = await startModel();
  const deployment = await startSplitDeployment({
    sandboxes: 2,
    env: { ...FAST_ENV, OAH_MODEL_BASE_URL: model.url, OAH_MODEL_NAME: "fake-1" },
  });
  let web: ConsoleProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), "oah-e2e-"));
  // The sandbox user must reach the workspaces under it, as on a host.
  chmodSync(dir, 0o711);
  try {
    const t = Date.now();
    const runs = await seed(deployment);
    log(`seeded real runs in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    web = await startConsole({ OAH_API_URL: deployment.api.url });
    const state: E2EState = { apiUrl: deployment.api.url, consoleUrl: web.url, env: deployment.env, runs };
    const file = join(dir, "state.json");
    writeFileSync(file, JSON.stringify(state, null, 2));
    process.env.OAH_E2E_STATE = file;
    log(
      `ready in ${((Date.now() - started) / 1000).toFixed(1)} s: console ${web.url}, api ${deployment.api.url}`,
    );
  } catch (error) {
    await web?.stop();
    await deployment.dispose();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return async () => {
    await web?.stop();
    await deployment.dispose();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
