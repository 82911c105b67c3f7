// @module-tag system

import { execFileSync } from "node:child_process";
import {
  createHostNetwork,
  type FakeModel,
  type HostNetwork,
  type PrivatePostgres,
  type PrivateRedis,
  parseReachability,
  reachabilityProbe,
  type StandInServer,
  startFakeModel,
  startPrivatePostgres,
  startPrivateRedis,
  startStandInServer,
} from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

/**
 * What a step of oah-api reaches over the network. oah's own Redis and PostgreSQL live on a
 * host of their own (a network namespace on a bridge, as on a split deployment); "the internet"
 * is another; this host's loopback has oah's API, a console, and the machine's own Redis and
 * PostgreSQL. Shell steps and the agent's shell tool are tried alike.
 */
describe("the network of a step", () => {
  let network: HostNetwork;
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let internet: StandInServer;
  let consoleServer: StandInServer;
  let model: FakeModel;
  let t: ApiUnderTest | undefined;
  /** Each probe in a session of its own: an agent's session carries its conversation to its next run. */
  let probes = 0;

  beforeAll(async () => {
    network = createHostNetwork();
    const services = network.addHost("services");
    const outside = network.addHost("internet");
    [redis, postgres, internet, consoleServer, model] = await Promise.all([
      startPrivateRedis({ host: services.address, netns: services.namespace }),
      startPrivatePostgres({ host: services.address, netns: services.namespace, clients: network.subnet }),
      startStandInServer(outside.address, outside.namespace),
      startStandInServer("127.0.0.1"),
      startFakeModel(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await t?.dispose();
    await Promise.all([
      redis?.stop(),
      postgres?.stop(),
      internet?.stop(),
      consoleServer?.stop(),
      model?.close(),
    ]);
    network?.dispose();
  });

  const targets = (api: ApiUnderTest) => ({
    "oah-api": { host: "127.0.0.1", port: Number(new URL(api.api.url).port) },
    console: { host: "127.0.0.1", port: consoleServer.port },
    "loopback-redis": { host: "127.0.0.1", port: 6379 },
    "loopback-postgres": { host: "127.0.0.1", port: 5432 },
    "oah-redis": { host: new URL(redis.url).hostname, port: Number(new URL(redis.url).port) },
    "oah-postgres": { host: new URL(postgres.url).hostname, port: Number(new URL(postgres.url).port) },
    internet: { host: internet.address, port: internet.port },
  });

  /** oah-api on oah's Redis and PostgreSQL elsewhere, with the model stand-in, and this step network. */
  async function restartWith(stepNetwork: "on" | "off"): Promise<ApiUnderTest> {
    await t?.dispose();
    t = await startApi("sqlite", {
      OAH_REDIS_URL: redis.url,
      OAH_DATABASE_URL: postgres.url,
      OAH_MODEL_BASE_URL: model.url,
      OAH_STEP_NETWORK: stepNetwork,
    });
    return t;
  }

  /** What the probe reaches from a shell step, and from the agent's shell tool as the model saw it. */
  async function reachedFromSteps(
    api: ApiUnderTest,
  ): Promise<{ shell: Record<string, string>; agent: Record<string, string> }> {
    const probe = reachabilityProbe(targets(api));
    const shellRun = (
      await api.oah.submit(`probe-${++probes}`, { input: { steps: [{ type: "shell", command: probe }] } })
    ).run;
    expect((await api.oah.wait(shellRun.id)).status).toBe("completed");
    const step = (await api.oah.steps(shellRun.id)).find((s) => s.kind === "tool")!;
    const shell = parseReachability((step.output as { stdout: string }).stdout);

    model.reply(
      { toolCalls: [{ id: "call_probe", name: "shell", arguments: { command: probe } }] },
      { content: "done" },
    );
    const asked = model.requests.length;
    const agentRun = (
      await api.oah.submit(`probe-agent-${++probes}`, {
        executor: "agent",
        input: { prompt: "probe", tools: { shell: true } },
      })
    ).run;
    expect((await api.oah.wait(agentRun.id)).status).toBe("completed");
    // What came back to the model after its shell call: the tool's answer in the second request.
    const toolMessage = model.requests[asked + 1]!.body.messages.findLast((m) => m.role === "tool")!;
    const agent = parseReachability(JSON.parse(toolMessage.content!).stdout);
    return { shell, agent };
  }

  it("from this host itself every target answers: what a step cannot reach, the jail refuses", async () => {
    const api = await restartWith("on");
    const reached = parseReachability(
      execFileSync("bash", ["-c", reachabilityProbe(targets(api))], { encoding: "utf8" }),
    );
    expect(reached).toEqual({
      console: "200",
      internet: "200",
      "loopback-postgres": "connected",
      "loopback-redis": "connected",
      "oah-api": "403",
      "oah-postgres": "connected",
      "oah-redis": "connected",
    });
  });

  it("with the network on (the default), a step reaches the internet and nothing of oah or of this host", async () => {
    const { shell, agent } = await reachedFromSteps(await restartWith("on"));
    const expected = {
      console: "ECONNREFUSED",
      internet: "200",
      "loopback-postgres": "ECONNREFUSED",
      "loopback-redis": "ECONNREFUSED",
      "oah-api": "ECONNREFUSED",
      "oah-postgres": "EACCES",
      "oah-redis": "EACCES",
    };
    expect(shell).toEqual(expected);
    expect(agent).toEqual(expected);
  });

  it("with OAH_STEP_NETWORK=off, a step reaches nothing", async () => {
    const { shell, agent } = await reachedFromSteps(await restartWith("off"));
    for (const reached of [shell, agent]) {
      expect(Object.keys(reached).sort()).toEqual(Object.keys(targets(t!)).sort());
      expect(
        Object.entries(reached).filter(([, result]) => result === "200" || result === "connected"),
      ).toEqual([]);
    }
  });
});
