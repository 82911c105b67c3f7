import { createTempDir, type OahProcess, startOah } from "@oah/testing";
import { afterAll, beforeAll } from "vitest";
import { createClient, type OahClient } from "../src";

/** The error a call rejects with (and fails the test if it resolves). */
export async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/**
 * An embedded `oah-api` that takes `token`, started before the suite's tests and stopped after
 * them, and a client of it: read `url` and `client` inside the tests.
 */
export function embeddedApi(token: string): { readonly url: string; readonly client: OahClient } {
  const dir = createTempDir();
  let api: OahProcess | undefined;
  let client: OahClient | undefined;
  beforeAll(async () => {
    api = await startOah("oah-api", { env: { OAH_DATA_DIR: dir.path, OAH_API_TOKEN: token } });
    client = createClient({ baseUrl: api.url, token });
  });
  afterAll(async () => {
    await api?.stop();
    dir.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the embedded oah-api is not started yet");
    return value;
  };
  return {
    get url() {
      return started(api).url;
    },
    get client() {
      return started(client);
    },
  };
}
