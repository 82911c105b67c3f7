// @module-tag system

import { readdirSync, readFileSync } from "node:fs";
import {
  createHostNetwork,
  type HostNetwork,
  parseReachability,
  reachabilityProbe,
  type StandInServer,
  startStandInServer,
} from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JailedCommands } from "../src";
import { createTestRoot, openJail, run, type TestRoot } from "./support";

/**
 * What a step reaches over the network, per OAH_STEP_NETWORK: "the internet" is a server in a
 * network namespace of its own, reached through this host's routes; "a service of oah" is
 * another such host, named in the jail's refused addresses (as OAH_REDIS_URL's would be);
 * this host's own services listen on its loopback and on all its addresses.
 */
describe("the step's network", () => {
  let t: TestRoot;
  let network: HostNetwork;
  const servers: StandInServer[] = [];
  let targets: Record<string, { host: string; port: number }>;
  let jails: Record<"on" | "off" | "host", JailedCommands>;
  let internetHost: string;
  let internetAddress: string;

  beforeAll(async () => {
    t = await createTestRoot();
    network = createHostNetwork();
    const internet = network.addHost("internet");
    internetHost = internet.namespace;
    internetAddress = internet.address;
    const service = network.addHost("service");
    const [web, redis, loopback, everywhere] = await Promise.all([
      startStandInServer(internet.address, internet.namespace),
      startStandInServer(service.address, service.namespace),
      startStandInServer("127.0.0.1"),
      startStandInServer("0.0.0.0"),
    ]);
    servers.push(web!, redis!, loopback!, everywhere!);
    targets = {
      internet: { host: web!.address, port: web!.port },
      "oah-service": { host: redis!.address, port: redis!.port },
      "host-loopback": { host: "127.0.0.1", port: loopback!.port },
      "host-address": { host: network.bridgeAddress, port: everywhere!.port },
      "host-via-gateway": { host: "10.0.2.2", port: everywhere!.port },
    };
    const refusedAddresses = [service.address];
    jails = {
      on: await openJail(t, { network: "on", refusedAddresses }),
      off: await openJail(t, { network: "off", refusedAddresses }),
      host: await openJail(t, { network: "host", refusedAddresses }),
    };
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    network?.dispose();
    t?.remove();
  });

  it("host: the host's own network, loopback included: every target answers, so what the others miss their jail refuses", async () => {
    const reached = parseReachability((await run(jails.host, t, reachabilityProbe(targets))).stdout);
    // 10.0.2.2 is slirp4netns's gateway: it exists only inside a jail with the network on.
    expect({ ...reached, "host-via-gateway": "-" }).toEqual({
      internet: "200",
      "oah-service": "200",
      "host-loopback": "200",
      "host-address": "200",
      "host-via-gateway": "-",
    });
  });

  it("on: the internet is reached, this host's own addresses and oah's services are not", async () => {
    const r = await run(jails.on, t, reachabilityProbe(targets));
    expect(parseReachability(r.stdout)).toEqual({
      internet: "200",
      "oah-service": "EACCES",
      "host-loopback": "ECONNREFUSED",
      "host-address": "EACCES",
      "host-via-gateway": "ENETUNREACH",
    });
  });

  it("off: nothing is reached", async () => {
    const r = await run(jails.off, t, reachabilityProbe(targets));
    const reached = parseReachability(r.stdout);
    expect(Object.keys(reached).sort()).toEqual(Object.keys(targets).sort());
    expect(Object.entries(reached).filter(([, result]) => result === "200")).toEqual([]);
  });

  it("on: leaves the host's mounts as they were (ip netns still enters its namespaces)", async () => {
    await run(jails.on, t, "true");
    // slirp4netns's own confinement, unconfined, unmounts the host's /run/netns entries.
    expect(await network.tryConnect(internetHost, internetAddress, servers[0]!.port)).toBe("connected");
  });

  it("on: each jail has a network of its own, gone with it", async () => {
    const netns = "ls -l /proc/self/ns/net | sed 's/.*-> //'; ip -o -4 addr show tap0 | awk '{print $4}'";
    const [a, b] = await Promise.all([run(jails.on, t, netns), run(jails.on, t, netns)]);
    const [aNs, aAddress] = a.stdout.trim().split("\n");
    const [bNs, bAddress] = b.stdout.trim().split("\n");
    expect(aNs).toMatch(/^net:\[\d+\]$/);
    expect(bNs).toMatch(/^net:\[\d+\]$/);
    expect(aNs).not.toBe(bNs);
    expect([aAddress, bAddress]).toEqual(["10.0.2.100/24", "10.0.2.100/24"]);
    await expect.poll(() => slirpProcesses(), { timeout: 3_000 }).toEqual([]);
  });
});

/** The slirp4netns processes this test process started. */
function slirpProcesses(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "slirp4netns";
      } catch {
        return false;
      }
    })
    .map(Number);
}
