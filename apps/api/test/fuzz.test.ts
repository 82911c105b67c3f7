// @module-tag system

import { fuzzApi, type SplitDeployment, startSplitDeployment } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Fixed, so that a failure is the same on every machine; `npm run soak` runs many more cases. */
const SEED = 20_261_201;
const RUNS = 20;

describe("every HTTP path and tRPC procedure, fuzzed from its schema", () => {
  // The API alone (Redis and PostgreSQL, no oah-sandbox): accepted runs stay queued, nothing executes.
  let d: SplitDeployment;
  beforeAll(async () => {
    d = await startSplitDeployment({ sandboxes: 0 });
  });
  afterAll(() => d?.dispose());

  it(`answers ${RUNS} valid and ${RUNS} invalid inputs of each below 500, refusals with a 4xx that writes nothing`, async () => {
    const findings = await fuzzApi({ url: d.api.url, runs: RUNS, seed: SEED });
    expect(findings).toEqual([]);
  }, 120_000);
});
