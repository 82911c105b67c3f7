import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";

/** What runs a pod's container: the stand-in's kubelet. */
export interface Kubelet {
  /** Starts the pod; resolves once it is ready (its server listens). */
  start(pod: string): Promise<void>;
  /** Stops it as Kubernetes does (SIGTERM); resolves once it has exited. */
  stop(pod: string): Promise<void>;
}

export interface StandInPod {
  name: string;
  ready: boolean;
  annotations: Record<string, string>;
  createdAt: number;
  /** Set once the pod is removed; the pod is gone once its container has stopped. */
  deletedAt: number | null;
}

export interface KubeStandInOptions {
  namespace: string;
  kind: "Deployment" | "StatefulSet";
  name: string;
  replicas: number;
  kubelet: Kubelet;
  /** Called with the pods a lower replica count removes (as they were), before they are stopped. */
  onRemove?(pods: StandInPod[]): Promise<void>;
}

export interface KubeStandIn {
  readonly url: string;
  /** The scale's replicas now. */
  readonly replicas: number;
  /** 409 Conflict answers given to scale writes. */
  readonly conflicts: number;
  /** Every request, `METHOD path`, in order. */
  readonly requests: string[];
  /** Failures of the kubelet, which the test reports. */
  readonly errors: string[];
  pods(): StandInPod[];
  /** A pod beyond the replicas, as a rolling update's surge makes: removed at the next change. */
  surge(): void;
  /** Someone else writes the workload after the scale is read: never, every other read, or every read. */
  raceReads(mode: "never" | "every-other" | "always"): void;
  /** Writes a kubeconfig that points at this server, with the token it asks for. */
  writeKubeconfig(dir: string): string;
  /** Until every pod that was asked for has started, or failed to. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** ReplicaSets name their pods <deployment>-<template hash>-<suffix>: one template, one hash. */
const TEMPLATE_HASH = "7d9f8b6c4";
const suffix = () => Array.from(randomBytes(5), (b) => "bcdfghjklmnpqrstvwxz2456789"[b % 27]).join("");

const status = (code: number, reason: string, message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason,
  code,
});

const cost = (pod: StandInPod) => Number(pod.annotations["controller.kubernetes.io/pod-deletion-cost"] ?? 0);

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/**
 * An API server for one workload, speaking what the Kubernetes target calls of apps/v1 and
 * core/v1: the workload's `/scale` (GET, and PUT that answers 409 Conflict to a stale
 * resourceVersion) and its pods (GET, PATCH). It plays the ReplicaSet and the kubelet too: a
 * higher replica count starts pods; a lower one removes, for a Deployment, the unready pods
 * first, then those of the lowest deletion cost, then the newest; for a StatefulSet, the
 * highest ordinals.
 */
export async function startKubeStandIn(options: KubeStandInOptions): Promise<KubeStandIn> {
  const { namespace, kind, name, kubelet } = options;
  const token = randomBytes(12).toString("hex");
  const resource = kind === "Deployment" ? "deployments" : "statefulsets";
  const scalePath = `/apis/apps/v1/namespaces/${namespace}/${resource}/${name}/scale`;
  const podPrefix = `/api/v1/namespaces/${namespace}/pods/`;
  const pods = new Map<string, StandInPod>();
  const starts = new Set<Promise<void>>();
  const requests: string[] = [];
  const errors: string[] = [];
  let replicas = options.replicas;
  let resourceVersion = 1;
  let reads = 0;
  let conflicts = 0;
  let racing: "never" | "every-other" | "always" = "never";
  let closed = false;

  const live = () => [...pods.values()].filter((p) => p.deletedAt === null);

  const create = (podName: string) => {
    const pod: StandInPod = {
      name: podName,
      ready: false,
      annotations: {},
      createdAt: Date.now(),
      deletedAt: null,
    };
    pods.set(pod.name, pod);
    const started = kubelet
      .start(pod.name)
      .then(() => {
        pod.ready = pod.deletedAt === null;
      })
      .catch((error: Error) => {
        errors.push(`${pod.name} did not start: ${error.message}`);
      })
      .finally(() => starts.delete(started));
    starts.add(started);
  };

  const remove = (victims: StandInPod[]) => {
    if (victims.length === 0) return;
    const before = victims.map((pod) => ({ ...pod, annotations: { ...pod.annotations } }));
    for (const pod of victims) {
      pod.deletedAt = Date.now();
      pod.ready = false;
    }
    const names = victims.map((p) => p.name);
    void (options.onRemove?.(before) ?? Promise.resolve())
      .then(() => Promise.all(names.map((pod) => kubelet.stop(pod))))
      .catch((error: Error) => errors.push(`removing ${names.join(", ")}: ${error.message}`))
      .finally(() => {
        for (const pod of names) pods.delete(pod);
        follow();
      });
  };

  const ordinalOf = (pod: StandInPod) => Number(pod.name.slice(name.length + 1));

  /** What the ReplicaSet (or the StatefulSet's controller) does after a change of replicas or pods. */
  const follow = () => {
    if (closed) return;
    const running = live();
    if (kind === "StatefulSet") {
      // Each ordinal below the replicas, once its previous pod has gone; the highest removed first.
      for (let ordinal = 0; ordinal < replicas; ordinal++)
        if (!pods.has(`${name}-${ordinal}`)) create(`${name}-${ordinal}`);
      remove(running.filter((p) => ordinalOf(p) >= replicas));
      return;
    }
    for (let i = running.length; i < replicas; i++) create(`${name}-${TEMPLATE_HASH}-${suffix()}`);
    const ranked = running.sort(
      (a, b) => Number(a.ready) - Number(b.ready) || cost(a) - cost(b) || b.createdAt - a.createdAt,
    );
    remove(ranked.slice(0, Math.max(0, running.length - replicas)));
  };

  const scaleObject = () => ({
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name,
      namespace,
      uid: "6f1c2a4e-0b1d-4c55-9a37-2f7f3d0c9e10",
      resourceVersion: String(resourceVersion),
      creationTimestamp: "2026-12-01T00:00:00Z",
    },
    spec: { replicas },
    status: { replicas: live().length, selector: `app.kubernetes.io/name=${name}` },
  });

  const podObject = (pod: StandInPod) => ({
    kind: "Pod",
    apiVersion: "v1",
    metadata: {
      name: pod.name,
      namespace,
      resourceVersion: String(resourceVersion),
      creationTimestamp: new Date(pod.createdAt).toISOString(),
      ...(pod.deletedAt !== null ? { deletionTimestamp: new Date(pod.deletedAt).toISOString() } : {}),
      labels: { "app.kubernetes.io/name": name },
      annotations: pod.annotations,
    },
    spec: { containers: [{ name: "sandbox", image: "ghcr.io/oah/oah:latest" }] },
    status: {
      phase: pod.ready || pod.deletedAt !== null ? "Running" : "Pending",
      conditions: [{ type: "Ready", status: pod.ready ? "True" : "False" }],
    },
  });

  const send = (res: ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://stand-in").pathname;
    requests.push(`${req.method} ${path}`);
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(res, 401, status(401, "Unauthorized", "Unauthorized"));
    if (path === scalePath && req.method === "GET") {
      reads++;
      const answer = scaleObject();
      // Another writer (the workload's own controller updating its status) moves the version on.
      if (racing === "always" || (racing === "every-other" && reads % 2 === 1)) resourceVersion++;
      return send(res, 200, answer);
    }
    if (path === scalePath && req.method === "PUT") {
      const body = (await bodyOf(req)) as {
        metadata?: { resourceVersion?: string };
        spec?: { replicas?: number };
      };
      const asked = body.metadata?.resourceVersion;
      if (asked && asked !== String(resourceVersion)) {
        conflicts++;
        return send(
          res,
          409,
          status(
            409,
            "Conflict",
            `Operation cannot be fulfilled on ${resource}.apps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          ),
        );
      }
      replicas = body.spec?.replicas ?? replicas;
      resourceVersion++;
      send(res, 200, scaleObject());
      follow();
      return;
    }
    if (path.startsWith(podPrefix)) {
      const pod = pods.get(path.slice(podPrefix.length));
      if (!pod)
        return send(res, 404, status(404, "NotFound", `pods "${path.slice(podPrefix.length)}" not found`));
      if (req.method === "GET") return send(res, 200, podObject(pod));
      if (req.method === "PATCH") {
        const type = req.headers["content-type"] ?? "";
        if (!["application/strategic-merge-patch+json", "application/merge-patch+json"].includes(type))
          return send(
            res,
            415,
            status(415, "UnsupportedMediaType", `the body of the request was in ${type}`),
          );
        const patch = (await bodyOf(req)) as { metadata?: { annotations?: Record<string, string | null> } };
        for (const [key, value] of Object.entries(patch.metadata?.annotations ?? {})) {
          if (value === null) delete pod.annotations[key];
          else pod.annotations[key] = value;
        }
        resourceVersion++;
        return send(res, 200, podObject(pod));
      }
    }
    send(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => send(res, 500, status(500, "InternalError", error.message)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  follow();

  return {
    url,
    get replicas() {
      return replicas;
    },
    get conflicts() {
      return conflicts;
    },
    requests,
    errors,
    pods: () => [...pods.values()],
    surge() {
      create(`${name}-${TEMPLATE_HASH}-${suffix()}`);
    },
    raceReads(mode) {
      racing = mode;
    },
    writeKubeconfig(dir) {
      const path = join(dir, "kubeconfig.yaml");
      writeFileSync(
        path,
        [
          "apiVersion: v1",
          "kind: Config",
          "clusters:",
          "  - name: stand-in",
          // Plain HTTP on loopback: the client allows it only with TLS verification off.
          `    cluster: { server: "${url}", insecure-skip-tls-verify: true }`,
          "users:",
          "  - name: oah-controller",
          `    user: { token: "${token}" }`,
          "contexts:",
          "  - name: stand-in",
          `    context: { cluster: stand-in, user: oah-controller, namespace: ${namespace} }`,
          "current-context: stand-in",
          "",
        ].join("\n"),
      );
      return path;
    },
    async settled() {
      await Promise.all([...starts]);
    },
    async close() {
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...starts]);
      await Promise.all([...pods.keys()].map((pod) => kubelet.stop(pod)));
    },
  };
}
