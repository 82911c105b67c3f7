// @module-tag system

import type { PoolOverview, Rollout } from "@oah/contract";
import type { HostState } from "@oah/core";
import {
  continuousLoad,
  createTempDir,
  expectAllCompletedInOrder,
  type OahProcess,
  type SplitDeployment,
  startOah,
  startSplitDeployment,
  type TempDir,
  waitForQuiet,
} from "@oah/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { ControllerSnapshot } from "../src/fleet-controller";
import { type Kubelet, type KubeStandIn, startKubeStandIn } from "./kube-stand-in";

const NAMESPACE = "oah-test";
const NAME = "oah-sandbox";
const SESSIONS = 12;
const RUNS_PER_SESSION = 3;

/** Short decisions: a scale-up on the first sample, a scale-down after two and 3 s of quiet. */
const CONTROLLER_ENV = {
  OAH_CONTROLLER_TARGET: "kubernetes",
  OAH_K8S_NAMESPACE: NAMESPACE,
  OAH_K8S_KIND: "Deployment",
  OAH_K8S_NAME: NAME,
  OAH_CONTROLLER_INTERVAL_MS: "200",
  OAH_CONTROLLER_LEASE_TTL_MS: "2000",
  OAH_CONTROLLER_SCALE_UP_SAMPLE_WINDOW: "1",
  OAH_CONTROLLER_SCALE_DOWN_SAMPLE_WINDOW: "2",
  OAH_CONTROLLER_SCALE_UP_COOLDOWN_MS: "1000",
  OAH_CONTROLLER_SCALE_DOWN_COOLDOWN_MS: "3000",
  OAH_CONTROLLER_MIN_REPLICAS: "1",
  OAH_CONTROLLER_MAX_REPLICAS: "3",
  OAH_CONTROLLER_SANDBOX_SLOTS: "2",
};

/** The pod template's environment: two slots each, orders read and reports written every 200 ms. */
const SANDBOX_ENV = {
  OAH_WORKERS_MIN: "2",
  OAH_WORKERS_MAX: "2",
  OAH_POOL_SCALE_INTERVAL_MS: "200",
  OAH_DRAIN_TIMEOUT_MS: "15000",
};

interface Removal {
  pod: string;
  /** Its state on the pools' board when the replicas dropped. */
  state: HostState | "absent";
  /** Whether it had come up (its server listening). */
  ready: boolean;
}

/** The kubelet of the stand-in: each pod a real oah-sandbox process named by the pod. */
function sandboxKubelet(env: Record<string, string>) {
  const started = new Map<string, Promise<OahProcess | null>>();
  const exits = new Map<string, number | NodeJS.Signals>();
  const kubelet: Kubelet = {
    async start(pod) {
      const sandbox = startOah("oah-sandbox", { env: { ...env, ...SANDBOX_ENV, OAH_HOST_ID: pod } });
      started.set(
        pod,
        sandbox.catch(() => null),
      );
      await sandbox;
    },
    async stop(pod) {
      const sandbox = await started.get(pod);
      if (sandbox && !exits.has(pod)) exits.set(pod, await sandbox.stop("SIGTERM"));
    },
  };
  return { kubelet, exits };
}

/** The stand-in's Deployment, its pods real sandboxes, with what the board showed of each pod it removed. */
async function startCluster(d: SplitDeployment, replicas: number) {
  const pods = sandboxKubelet(d.env);
  const removals: Removal[] = [];
  const cluster = await startKubeStandIn({
    namespace: NAMESPACE,
    kind: "Deployment",
    name: NAME,
    replicas,
    kubelet: pods.kubelet,
    async onRemove(removed) {
      const hosts = await board(d);
      for (const { name, ready } of removed)
        removals.push({ pod: name, ready, state: hosts.find((h) => h.hostId === name)?.state ?? "absent" });
    },
  });
  return { cluster, pods, removals };
}

async function board(d: SplitDeployment): Promise<PoolOverview["hosts"]> {
  const res = await d.client.get<PoolOverview>("/api/v1/pool");
  expect(res.status).toBe(200);
  return res.body.hosts.filter((h) => h.processKind === "standalone");
}

/**
 * The most pods of the workload at once that serve or are on their way up (drained ones
 * aside), seen every 100 ms until stopped. The pods are read before the board: a pod asked for
 * once another was seen drained then finds that one drained there.
 */
function watchServingPods(d: SplitDeployment, cluster: KubeStandIn) {
  let most = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const live = cluster.pods().filter((p) => p.deletedAt === null);
      const drained = new Set((await board(d)).filter((h) => h.state === "drained").map((h) => h.hostId));
      most = Math.max(most, live.filter((p) => !drained.has(p.name)).length);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  // Ended by a failed test's teardown too: what went wrong is told by stop(), if reached.
  watch.catch(() => {});
  return {
    async stop() {
      watching = false;
      await watch;
      return most;
    },
  };
}

async function snapshot(controller: OahProcess): Promise<ControllerSnapshot> {
  return (await fetch(`${controller.url}/snapshot`).then((r) => r.json())) as ControllerSnapshot;
}

describe("oah-controller with the Kubernetes target, against a stand-in API server", () => {
  let d: SplitDeployment | undefined;
  let standIn: KubeStandIn | undefined;
  let controller: OahProcess | undefined;
  let dir: TempDir | undefined;

  afterEach(async () => {
    await controller?.stop("SIGTERM");
    await standIn?.close();
    await d?.dispose();
    dir?.remove();
    controller = standIn = d = dir = undefined;
  });

  it("follows the decisions up and down, retries lost races, and removes only drained pods", async () => {
    const deployment = await startSplitDeployment({ sandboxes: 0 });
    d = deployment;
    dir = createTempDir();
    const { cluster, pods, removals } = await startCluster(deployment, 0);
    standIn = cluster;
    // The workload's own controller writes it too: every other read of the scale is stale by its write.
    cluster.raceReads("every-other");
    controller = await startOah("oah-controller", {
      env: { ...deployment.env, ...CONTROLLER_ENV, KUBECONFIG: cluster.writeKubeconfig(dir.path) },
    });

    // The minimum: one pod, serving.
    await expect.poll(() => cluster.replicas, { timeout: 30_000 }).toBe(1);
    await expect
      .poll(async () => (await board(deployment)).filter((h) => h.state === "active").length, {
        timeout: 30_000,
      })
      .toBe(1);

    for (let s = 0; s < SESSIONS; s++)
      for (let r = 0; r < RUNS_PER_SESSION; r++) {
        const res = await deployment.client.post(`/api/v1/sessions/k8s-burst-${s}/runs`, {
          executor: "script",
          input: { steps: [{ type: "sleep", ms: 1000 }] },
        });
        expect(res.status).toBe(202);
      }

    // The burst asks for the maximum, and three pods serve it.
    const leader = controller;
    await expect.poll(async () => (await snapshot(leader)).desiredReplicas, { timeout: 30_000 }).toBe(3);
    await expect.poll(() => cluster.replicas, { timeout: 30_000 }).toBe(3);
    await expect
      .poll(async () => (await board(deployment)).filter((h) => h.state === "active").length, {
        timeout: 30_000,
      })
      .toBe(3);

    // Once the runs are done and the cooldown has passed: back to one pod, the others drained first.
    // (The fleet may have shrunk and grown again on the way, as the ready sessions came and went.)
    await waitForQuiet(deployment, 60_000);
    await expect.poll(() => cluster.replicas, { timeout: 60_000 }).toBe(1);
    await expect.poll(() => cluster.pods().length, { timeout: 30_000 }).toBe(1);
    expect(cluster.errors).toEqual([]);
    expect(cluster.conflicts).toBeGreaterThanOrEqual(1);
    expect(removals.length).toBeGreaterThanOrEqual(2);
    // Every pod removed had drained, but one taken back before it ever came up (never on the board).
    expect(removals.filter((r) => r.state !== "drained" && !(r.state === "absent" && !r.ready))).toEqual([]);
    expect(pods.exits.size).toBe(removals.length);
    expect([...pods.exits.values()].filter((code) => code !== 0)).toEqual([]);
    expect((await board(deployment)).map((h) => h.state)).toEqual(["active"]);

    // Every run completed, once.
    const { rows } = await deployment.db.query<{ status: string; attempt: number; terminal: number }>(`
      SELECT r.status, r.attempt,
        (SELECT count(*) FROM run_events e WHERE e.run_id = r.id
          AND e.type IN ('run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'))::int AS terminal
      FROM runs r`);
    expect(rows).toHaveLength(SESSIONS * RUNS_PER_SESSION);
    expect(rows.filter((r) => r.status !== "completed" || r.attempt !== 1 || r.terminal !== 1)).toEqual([]);

    expect(await snapshot(controller)).toMatchObject({
      leader: true,
      target: "kubernetes",
      desiredReplicas: 1,
      actualReplicas: 1,
    });
  }, 180_000);

  it("replaces every pod one at a time under continuous load with a rolling restart, nothing lost or run twice", async () => {
    const deployment = await startSplitDeployment({ sandboxes: 0 });
    d = deployment;
    dir = createTempDir();
    const { cluster, pods, removals } = await startCluster(deployment, 2);
    standIn = cluster;
    controller = await startOah("oah-controller", {
      env: {
        ...deployment.env,
        ...CONTROLLER_ENV,
        OAH_CONTROLLER_MIN_REPLICAS: "2",
        OAH_CONTROLLER_MAX_REPLICAS: "2",
        KUBECONFIG: cluster.writeKubeconfig(dir.path),
      },
    });
    await expect
      .poll(async () => (await board(deployment)).filter((h) => h.state === "active").length, {
        timeout: 30_000,
      })
      .toBe(2);
    const before = (await board(deployment)).map((h) => h.hostId).sort();
    expect(before).toEqual(
      cluster
        .pods()
        .map((p) => p.name)
        .sort(),
    );

    const serving = watchServingPods(deployment, cluster);
    const load = continuousLoad(deployment, "k8s-roll", { sessions: 12, ms: 150, pauseMs: 300 });
    const asked = await deployment.client.post<{ rolloutId: string }>("/api/v1/fleet/rollout", {
      requestedBy: "test",
    });
    expect(asked.status).toBe(202);
    let rollout: Rollout | undefined;
    await expect
      .poll(
        async () => {
          rollout = (await deployment.client.get<Rollout>(`/api/v1/fleet/rollout/${asked.body.rolloutId}`))
            .body;
          return rollout.state;
        },
        { timeout: 150_000, interval: 250 },
      )
      .toBe("done");
    const submitted = await load.stop();

    expect(rollout).toMatchObject({ total: 2, replaced: 2, requestedBy: "local", claimedBy: "test" });
    expect(rollout!.steps.map((s) => s.hostId).sort()).toEqual(before);
    expect(rollout!.steps.every((s) => s.state === "replaced" && s.replacementId !== null)).toBe(true);
    const replacements = rollout!.steps.map((s) => s.replacementId!).sort();
    // The last old pod is removed after the rollout is done, once its drained state is seen.
    await expect
      .poll(async () => (await board(deployment)).map((h) => `${h.hostId} ${h.state}`).sort(), {
        timeout: 30_000,
      })
      .toEqual(replacements.map((pod) => `${pod} active`));
    await expect
      .poll(
        () =>
          cluster
            .pods()
            .map((p) => p.name)
            .sort(),
        { timeout: 30_000 },
      )
      .toEqual(replacements);
    expect(cluster.replicas).toBe(2);
    // One pod at a time: a surge of one, the drained pods still there aside.
    expect(await serving.stop()).toBe(3);
    expect(cluster.errors).toEqual([]);
    // Each original pod, and only those, removed once it had drained; each sandbox stopped cleanly.
    expect(removals.map((r) => r.pod).sort()).toEqual(before);
    expect(removals.filter((r) => r.state !== "drained")).toEqual([]);
    expect([...pods.exits.keys()].sort()).toEqual(before);
    expect([...pods.exits.values()].filter((code) => code !== 0)).toEqual([]);

    // Every run completed once, in order per session, and on its first attempt: none went to recovery.
    await waitForQuiet(deployment, 60_000);
    const rows = await expectAllCompletedInOrder(deployment, submitted);
    expect(rows.filter((r) => r.attempt !== 1)).toEqual([]);

    expect(await snapshot(controller)).toMatchObject({
      leader: true,
      target: "kubernetes",
      desiredReplicas: 2,
      actualReplicas: 2,
    });
  }, 240_000);
});
