import { createClient, type OahClient } from "@oah/client";
import {
  ApiClient,
  createStoreEnv,
  createTestRedis,
  type FakeModel,
  type OahProcess,
  type StartOptions,
  type StoreEnv,
  type StoreKind,
  startFakeModel,
  startOah,
} from "@oah/testing";
import { afterAll, afterEach, beforeAll } from "vitest";

/** Where oah-api keeps its queue and runs: in process on SQLite or PostgreSQL, or on Redis and PostgreSQL. */
export type Backend = StoreKind | "redis";
export const BACKENDS: Backend[] = ["sqlite", "postgres", "redis"];

export interface ApiUnderTest {
  api: OahProcess;
  /** Raw HTTP, for what a test looks at answer by answer (statuses, headers, refusals). */
  client: ApiClient;
  oah: OahClient;
  place: StoreEnv;
  env: Record<string, string>;
  /** Starts another oah-api on the same store (after a stop). */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A real oah-api process (API and workers) on a fresh store and, for "redis", a Redis prefix of
 * its own; `start` adds what the process is started with (descriptors it inherits).
 */
export async function startApi(
  backend: Backend,
  env: Record<string, string> = {},
  start: Pick<StartOptions, "fds"> = {},
): Promise<ApiUnderTest> {
  const place = await createStoreEnv(backend === "redis" ? "postgres" : backend);
  const redis = backend === "redis" ? await createTestRedis() : undefined;
  const fullEnv = {
    ...place.env,
    ...(redis ? { OAH_REDIS_URL: redis.url, OAH_REDIS_PREFIX: redis.prefix } : {}),
    ...env,
  };
  const connect = () => {
    self.client = new ApiClient(self.api.url, env.OAH_API_TOKEN);
    self.oah = createClient({ baseUrl: self.api.url, token: env.OAH_API_TOKEN });
  };
  const self: ApiUnderTest = {
    api: await startOah("oah-api", { env: fullEnv, ...start }),
    client: undefined as unknown as ApiClient,
    oah: undefined as unknown as OahClient,
    place,
    env: fullEnv,
    async restart() {
      self.api = await startOah("oah-api", { env: fullEnv, ...start });
      connect();
    },
    async dispose() {
      await self.api.stop("SIGKILL");
      await redis?.dispose();
      await place.dispose();
    },
  };
  connect();
  return self;
}

/**
 * For a file whose tests each start an oah-api of their own on `backend` against one model
 * stand-in: the stand-in (started before the file, closed after it), and `start`, whose API is
 * disposed after its test, the stand-in's requests forgotten.
 */
export function apiPerTestWithModel(backend: Backend, env: Record<string, string> = {}) {
  const self = {
    model: undefined as unknown as FakeModel,
    t: undefined as ApiUnderTest | undefined,
    async start(more: Record<string, string> = {}): Promise<ApiUnderTest> {
      self.t = await startApi(backend, {
        OAH_MODEL_BASE_URL: self.model.url,
        OAH_MODEL_NAME: "fake-1",
        ...env,
        ...more,
      });
      return self.t;
    },
  };
  beforeAll(async () => {
    self.model = await startFakeModel();
  });
  afterAll(() => self.model.close());
  afterEach(async () => {
    await self.t?.dispose();
    self.t = undefined;
    self.model.requests.splice(0);
  });
  return self;
}

/** The token of a named test token: `${name}-token-…`, long enough for OAH_API_TOKENS. */
export const namedToken = (name: string) => `${name}-token-0123456789abcdefghijklmnop`;

export interface NamedCallAnswer<T> {
  status: number;
  retryAfter: string | null;
  /** The answer's length in characters. */
  bytes: number;
  body: T;
}

/** One HTTP call to `url` with the named token `as` (see namedToken), a JSON body if any. */
export async function callAs<T = Record<string, unknown>>(
  url: string,
  as: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<NamedCallAnswer<T>> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${namedToken(as)}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    bytes: text.length,
    body: JSON.parse(text) as T,
  };
}
