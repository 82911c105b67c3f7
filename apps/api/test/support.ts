import type { Run } from "@oah/contract";
import {
  ApiClient,
  createStoreEnv,
  createTestRedis,
  type OahProcess,
  type StoreEnv,
  type StoreKind,
  startOah,
  waitFor,
} from "@oah/testing";

/** Where oah-api keeps its queue and runs: in process on SQLite or PostgreSQL, or on Redis and PostgreSQL. */
export type Backend = StoreKind | "redis";
export const BACKENDS: Backend[] = ["sqlite", "postgres", "redis"];

export interface ApiUnderTest {
  api: OahProcess;
  client: ApiClient;
  place: StoreEnv;
  env: Record<string, string>;
  /** Starts another oah-api on the same store (after a stop). */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

/** A real oah-api process (API and workers) on a fresh store and, for "redis", a Redis prefix of its own. */
export async function startApi(backend: Backend, env: Record<string, string> = {}): Promise<ApiUnderTest> {
  const place = await createStoreEnv(backend === "redis" ? "postgres" : backend);
  const redis = backend === "redis" ? await createTestRedis() : undefined;
  const fullEnv = {
    ...place.env,
    ...(redis ? { OAH_REDIS_URL: redis.url, OAH_REDIS_PREFIX: redis.prefix } : {}),
    ...env,
  };
  const self: ApiUnderTest = {
    api: await startOah("oah-api", { env: fullEnv }),
    client: undefined as unknown as ApiClient,
    place,
    env: fullEnv,
    async restart() {
      self.api = await startOah("oah-api", { env: fullEnv });
      self.client = new ApiClient(self.api.url, env.OAH_API_TOKEN);
    },
    async dispose() {
      await self.api.stop("SIGKILL");
      await redis?.dispose();
      await place.dispose();
    },
  };
  self.client = new ApiClient(self.api.url, env.OAH_API_TOKEN);
  return self;
}

export type Step = Record<string, unknown>;

export async function submit(
  client: ApiClient,
  sessionId: string,
  steps: Step[],
  extra: Record<string, unknown> = {},
): Promise<Run> {
  const res = await client.post<{ run: Run }>(`/api/v1/sessions/${encodeURIComponent(sessionId)}/runs`, {
    input: { steps },
    ...extra,
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run;
}

export async function getRun(client: ApiClient, runId: string): Promise<Run> {
  const res = await client.get<{ run: Run }>(`/api/v1/runs/${runId}`);
  if (res.status !== 200) throw new Error(`get failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run;
}

export function waitForStatus(
  client: ApiClient,
  runId: string,
  accept: (run: Run) => boolean,
  timeoutMs = 20_000,
): Promise<Run> {
  return waitFor(
    `run ${runId}`,
    async () => {
      const run = await getRun(client, runId);
      return accept(run) ? run : undefined;
    },
    timeoutMs,
  );
}

export const isTerminal = (run: Run) =>
  ["completed", "failed", "cancelled", "timed_out"].includes(run.status);

export async function sessionRuns(client: ApiClient, sessionId: string): Promise<Run[]> {
  const res = await client.get<{ items: Run[] }>(`/api/v1/sessions/${encodeURIComponent(sessionId)}/runs`);
  return res.body.items;
}

export async function eventTypes(client: ApiClient, runId: string): Promise<string[]> {
  const res = await client.get<{ items: { type: string }[] }>(`/api/v1/runs/${runId}/events`);
  return res.body.items.map((e) => e.type);
}
