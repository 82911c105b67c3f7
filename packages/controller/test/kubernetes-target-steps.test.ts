// @module-tag unit

import type { FleetHost, HostOrder, HostState } from "@oah/core";
import { createTempDir, type TempDir } from "@oah/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DRAINED_POD_DELETION_COST,
  KubernetesTarget,
  POD_DELETION_COST,
} from "../src/targets/kubernetes-target";
import type { LeaderActs } from "../src/targets/scale-target";
import { type Kubelet, type KubeStandIn, startKubeStandIn } from "./kube-stand-in";

const NAMESPACE = "oah-test";
const NAME = "oah-sandbox";

const host = (hostId: string, state: HostState = "active", busySlots = 0): FleetHost => ({
  hostId,
  state,
  healthy: true,
  busySlots,
});

/** Pods that start at once, or, while held, stay pending until released. */
function instantKubelet() {
  let held = false;
  const waiting: (() => void)[] = [];
  const kubelet: Kubelet = {
    start: () => (held ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve()),
    stop: async () => {},
  };
  return {
    kubelet,
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

function fakeLeader() {
  const orders: [string, HostOrder | null][] = [];
  let leading = true;
  const acts: LeaderActs = {
    stillLeads: async () => leading,
    order: async (hostId, order) => {
      if (!leading) return false;
      orders.push([hostId, order]);
      return true;
    },
  };
  return {
    acts,
    orders,
    depose() {
      leading = false;
    },
  };
}

function recordingLogger() {
  const lines: { level: string; msg: string | undefined }[] = [];
  const at =
    (level: string) =>
    (_obj: object, msg?: string): void => {
      lines.push({ level, msg });
    };
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

const writes = (standIn: KubeStandIn) => standIn.requests.filter((r) => !r.startsWith("GET "));
const livePods = (standIn: KubeStandIn) =>
  standIn
    .pods()
    .filter((p) => p.deletedAt === null)
    .map((p) => p.name)
    .sort();

describe("the Kubernetes target, one step at a time against a stand-in API server", () => {
  let dir: TempDir;
  let standIn: KubeStandIn | undefined;
  let release: (() => void) | undefined;
  const kubeconfigBefore = process.env.KUBECONFIG;

  beforeEach(() => {
    dir = createTempDir();
  });

  afterEach(async () => {
    release?.();
    await standIn?.close();
    standIn = undefined;
    dir.remove();
    if (kubeconfigBefore === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = kubeconfigBefore;
  });

  async function setUp(kind: "Deployment" | "StatefulSet", replicas: number) {
    const pods = instantKubelet();
    release = pods.release;
    standIn = await startKubeStandIn({
      namespace: NAMESPACE,
      kind,
      name: NAME,
      replicas,
      kubelet: pods.kubelet,
    });
    await standIn.settled();
    process.env.KUBECONFIG = standIn.writeKubeconfig(dir.path);
    const log = recordingLogger();
    const target = await KubernetesTarget.fromConfig({ namespace: NAMESPACE, kind, name: NAME }, log.logger);
    return { standIn, target, leader: fakeLeader(), log, pods, names: livePods(standIn) };
  }

  it("raises the replicas by what the fleet lacks, reading the scale again after a 409 Conflict", async () => {
    const { standIn, target, leader, log, names } = await setUp("Deployment", 1);
    standIn.raceReads("every-other");
    expect(await target.reconcile(3, [host(names[0]!)], leader.acts)).toBe(3);
    expect(standIn.replicas).toBe(3);
    expect(standIn.conflicts).toBe(1);
    const scale = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${NAME}/scale`;
    expect(standIn.requests).toEqual([`GET ${scale}`, `PUT ${scale}`, `GET ${scale}`, `PUT ${scale}`]);
    expect(log.lines.filter((l) => l.msg?.includes("409 Conflict"))).toHaveLength(1);
  });

  it("gives up a tick after a few conflicts in a row, and converges on the next", async () => {
    const { standIn, target, leader, log, names } = await setUp("Deployment", 1);
    standIn.raceReads("always");
    expect(await target.reconcile(3, [host(names[0]!)], leader.acts)).toBe(1);
    expect(standIn.replicas).toBe(1);
    expect(standIn.conflicts).toBe(4);
    expect(log.lines.filter((l) => l.level === "warn")).toHaveLength(1);
    standIn.raceReads("never");
    expect(await target.reconcile(3, [host(names[0]!)], leader.acts)).toBe(3);
    expect(standIn.replicas).toBe(3);
  });

  it("writes nothing to the API server once it no longer leads", async () => {
    const { standIn, target, leader, names } = await setUp("Deployment", 2);
    leader.depose();
    await target.reconcile(3, [host(names[0]!), host(names[1]!)], leader.acts);
    await target.reconcile(1, [host(names[0]!), host(names[1]!, "drained")], leader.acts);
    expect(writes(standIn)).toEqual([]);
    expect(standIn.replicas).toBe(2);
  });

  it("drains a Deployment's pod first, marks it once drained, and lowers the replicas so that it is the one removed", async () => {
    const { standIn, target, leader, names } = await setUp("Deployment", 3);
    const [a, b, c] = names as [string, string, string];
    const busy = new Map([
      [a, 1],
      [b, 0],
      [c, 2],
    ]);
    const board = (states: Record<string, HostState> = {}) =>
      names.map((id) => host(id, states[id] ?? "active", busy.get(id)));

    expect(await target.reconcile(2, board(), leader.acts)).toBe(3);
    expect(leader.orders).toEqual([[b, "drain"]]);
    expect(writes(standIn)).toEqual([]);

    expect(await target.reconcile(2, board({ [b]: "draining" }), leader.acts)).toBe(2);
    expect(leader.orders).toHaveLength(1);
    expect(writes(standIn)).toEqual([]);

    await target.reconcile(2, board({ [b]: "drained" }), leader.acts);
    expect(writes(standIn)).toEqual([`PATCH /api/v1/namespaces/${NAMESPACE}/pods/${b}`]);
    expect(standIn.pods().find((p) => p.name === b)?.annotations).toEqual({
      [POD_DELETION_COST]: DRAINED_POD_DELETION_COST,
    });
    expect(standIn.replicas).toBe(3);

    // An unready pod would be removed before the drained one: the replicas wait for it.
    const other = standIn.pods().find((p) => p.name === a)!;
    other.ready = false;
    await target.reconcile(2, board({ [b]: "drained" }), leader.acts);
    expect(standIn.replicas).toBe(3);
    other.ready = true;

    expect(await target.reconcile(2, board({ [b]: "drained" }), leader.acts)).toBe(2);
    expect(standIn.replicas).toBe(2);
    expect(livePods(standIn)).toEqual([a, c].sort());

    // Still on the board while it stops: on its way out, so nothing more is written.
    const before = writes(standIn).length;
    expect(await target.reconcile(2, board({ [b]: "drained" }), leader.acts)).toBe(2);
    expect(writes(standIn)).toHaveLength(before);
  });

  it("clears the mark of a pod that serves again before lowering the replicas", async () => {
    const { standIn, target, leader, names } = await setUp("Deployment", 2);
    const [a, b] = names as [string, string];
    // Marked when it had drained, then uncordoned by an operator: it would tie with the drained pod.
    standIn.pods().find((p) => p.name === a)!.annotations[POD_DELETION_COST] = DRAINED_POD_DELETION_COST;
    const board = [host(a), host(b, "drained")];

    await target.reconcile(1, board, leader.acts);
    await target.reconcile(1, board, leader.acts);
    expect(standIn.pods().find((p) => p.name === a)?.annotations).toEqual({});
    expect(standIn.replicas).toBe(2);

    await target.reconcile(1, board, leader.acts);
    expect(standIn.replicas).toBe(1);
    expect(livePods(standIn)).toEqual([a]);
  });

  it("shrinks nothing while the workload has more pods than replicas (a rollout's surge)", async () => {
    const { standIn, target, leader, names } = await setUp("Deployment", 2);
    standIn.surge();
    await standIn.settled();
    const all = livePods(standIn);
    expect(all).toHaveLength(3);
    expect(
      await target.reconcile(
        2,
        all.map((id) => host(id)),
        leader.acts,
      ),
    ).toBe(3);
    expect(
      await target.reconcile(
        2,
        [...names.map((id) => host(id)), host(all.find((id) => !names.includes(id))!, "drained")],
        leader.acts,
      ),
    ).toBe(2);
    expect(leader.orders).toEqual([]);
    expect(writes(standIn)).toEqual([]);
  });

  it("takes back pods that have not come up before any that serve", async () => {
    const { standIn, target, leader, pods, names } = await setUp("Deployment", 1);
    pods.hold();
    expect(await target.reconcile(3, [host(names[0]!)], leader.acts)).toBe(3);
    expect(livePods(standIn)).toHaveLength(3);
    // One on the board but not ready yet may be removed in their stead: wait for it.
    const serving = standIn.pods().find((p) => p.name === names[0])!;
    serving.ready = false;
    expect(await target.reconcile(1, [host(names[0]!)], leader.acts)).toBe(3);
    expect(standIn.replicas).toBe(3);
    serving.ready = true;
    expect(await target.reconcile(1, [host(names[0]!)], leader.acts)).toBe(1);
    expect(standIn.replicas).toBe(1);
    expect(livePods(standIn)).toEqual(names);
    expect(leader.orders).toEqual([]);
  });

  it("carries out rolling restarts of a Deployment, and refuses those of a StatefulSet, saying why", async () => {
    expect((await setUp("Deployment", 1)).target.rolloutRefusal).toBeNull();
    release?.();
    await standIn?.close();
    expect((await setUp("StatefulSet", 1)).target.rolloutRefusal).toMatch(/kubectl rollout restart/);
  });

  it("drains and removes a StatefulSet's highest ordinals, whatever their load", async () => {
    const { standIn, target, leader, names } = await setUp("StatefulSet", 3);
    expect(names).toEqual([`${NAME}-0`, `${NAME}-1`, `${NAME}-2`]);
    const board = (top: HostState) => [host(`${NAME}-0`), host(`${NAME}-1`), host(`${NAME}-2`, top, 2)];

    await target.reconcile(2, board("active"), leader.acts);
    expect(leader.orders).toEqual([[`${NAME}-2`, "drain"]]);
    await target.reconcile(2, board("draining"), leader.acts);
    expect(standIn.replicas).toBe(3);

    expect(await target.reconcile(2, board("drained"), leader.acts)).toBe(2);
    expect(standIn.replicas).toBe(2);
    expect(writes(standIn)).toEqual([`PUT /apis/apps/v1/namespaces/${NAMESPACE}/statefulsets/${NAME}/scale`]);
    expect(livePods(standIn)).toEqual([`${NAME}-0`, `${NAME}-1`]);
  });
});
