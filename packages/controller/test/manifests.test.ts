// @module-tag unit

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTROLLER_VARIABLES, OAH_VARIABLES, variablesOf } from "@oah/config";
import { REPO_ROOT } from "@oah/testing";
import { loadAll } from "js-yaml";
import { describe, expect, it } from "vitest";
import { createControllerMetrics } from "../src/controller-metrics";
import type { FleetController } from "../src/fleet-controller";

const KUBERNETES_DIR = join(REPO_ROOT, "deploy/kubernetes");
const ALERTS_FILE = join(REPO_ROOT, "deploy/prometheus/oah-alerts.yaml");

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

interface Container {
  name: string;
  image: string;
  command: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  readinessProbe?: { httpGet: { path: string; port: string | number } };
}

interface PodSpec {
  containers: Container[];
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    ports?: { port: number; targetPort: string | number }[];
  };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

const read = (path: string) => readFileSync(path, "utf8");
const yamlFiles = readdirSync(KUBERNETES_DIR).filter((f) => f.endsWith(".yaml"));
const parsed = new Map(yamlFiles.map((f) => [f, loadAll(read(join(KUBERNETES_DIR, f))) as Manifest[]]));
const kustomization = parsed.get("kustomization.yaml")![0] as unknown as {
  namespace: string;
  resources: string[];
};
const manifests = [...parsed].filter(([f]) => f !== "kustomization.yaml").flatMap(([, docs]) => docs);
const all = (kind: string) => manifests.filter((m) => m.kind === kind);
const one = (kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return found;
};
const workloads = () => [...all("Deployment"), ...all("StatefulSet")];
const containerOf = (workload: Manifest) => workload.spec!.template!.spec.containers[0]!;

/** A container's environment as the kubelet makes it: its ConfigMaps and Secrets, then its own env. */
function environmentOf(container: Container): Map<string, EnvVar> {
  const env = new Map<string, EnvVar>();
  for (const from of container.envFrom ?? []) {
    const source = from.configMapRef
      ? one("ConfigMap", from.configMapRef.name).data
      : one("Secret", from.secretRef!.name).stringData;
    for (const [name, value] of Object.entries(source ?? {})) env.set(name, { name, value });
  }
  for (const variable of container.env ?? []) env.set(variable.name, variable);
  return env;
}

/** The variables the configuration schemas accept: the keys of their zod objects. */
/** Every variable oah-api, oah-sandbox and oah-controller declare. */
function acceptedNames(): Set<string> {
  return new Set([...variablesOf(OAH_VARIABLES), ...variablesOf(CONTROLLER_VARIABLES)].map((v) => v.name));
}

describe("the Kubernetes manifests", () => {
  it("parse, and the kustomization lists every one of them", () => {
    expect(manifests.length).toBeGreaterThanOrEqual(10);
    for (const m of manifests) expect(m.metadata?.name, `${m.kind} has a name`).toBeTruthy();
    expect([...kustomization.resources].sort()).toEqual(
      yamlFiles.filter((f) => f !== "kustomization.yaml").sort(),
    );
  });

  it("Services and the PodDisruptionBudget select pods that exist, on ports those pods open", () => {
    for (const service of all("Service")) {
      const selector = service.spec!.selector!;
      const target = workloads().find((w) =>
        Object.entries(selector).every(([k, v]) => w.spec!.template!.metadata.labels[k] === v),
      );
      expect(target, `the pods of Service ${service.metadata.name}`).toBeDefined();
      const ports = containerOf(target!).ports ?? [];
      for (const { targetPort } of service.spec!.ports!)
        expect(ports.some((p) => p.name === targetPort || p.containerPort === targetPort)).toBe(true);
    }
    const budget = one("PodDisruptionBudget", "oah-sandbox");
    expect(one("Deployment", "oah-sandbox").spec!.template!.metadata.labels).toMatchObject(
      budget.spec!.selector!.matchLabels!,
    );
  });

  it("every workload's selector matches its own pods", () => {
    for (const w of workloads())
      expect(w.spec!.template!.metadata.labels).toMatchObject(w.spec!.selector!.matchLabels!);
  });

  it("binds the controller's Role to the ServiceAccount its pods run as", () => {
    const binding = one("RoleBinding", "oah-controller");
    expect(binding.roleRef).toMatchObject({
      kind: "Role",
      name: one("Role", binding.roleRef!.name).metadata.name,
    });
    const [subject] = binding.subjects!;
    expect(subject).toMatchObject({ kind: "ServiceAccount", namespace: kustomization.namespace });
    one("ServiceAccount", subject!.name);
    expect(one("Deployment", "oah-controller").spec!.template!.spec.serviceAccountName).toBe(subject!.name);
  });

  it("the Role grants exactly what the Kubernetes target calls", () => {
    // kubernetes-api.ts: read and replace the workload's scale; read a pod and patch its annotation.
    const granted = one("Role", "oah-controller").rules!.flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${group}/${resource}:${verb}`)),
      ),
    );
    expect(granted.sort()).toEqual(
      [
        "apps/deployments/scale:get",
        "apps/deployments/scale:update",
        "apps/statefulsets/scale:get",
        "apps/statefulsets/scale:update",
        "/pods:get",
        "/pods:patch",
      ].sort(),
    );
  });

  it("points the controller at the sandboxes' workload, in its own namespace, with their slots", () => {
    const env = environmentOf(containerOf(one("Deployment", "oah-controller")));
    expect(env.get("OAH_CONTROLLER_TARGET")?.value).toBe("kubernetes");
    expect(env.get("OAH_K8S_NAMESPACE")?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.namespace");
    const kind = env.get("OAH_K8S_KIND")!.value!;
    const sandboxes = one(kind, env.get("OAH_K8S_NAME")!.value!);
    const sandboxEnv = environmentOf(containerOf(sandboxes));
    expect(env.get("OAH_CONTROLLER_SANDBOX_SLOTS")?.value).toBe(sandboxEnv.get("OAH_WORKERS_MAX")?.value);
    expect(one("Deployment", "oah-controller").spec!.replicas).toBe(2);
    // The controller owns the sandboxes' replicas: applying the manifests again must not reset them.
    expect(sandboxes.spec!.replicas).toBeUndefined();
  });

  it("names each sandbox by its pod, probes its readiness, and gives it the time to drain", () => {
    const sandboxes = one("Deployment", "oah-sandbox");
    const container = containerOf(sandboxes);
    const env = environmentOf(container);
    expect(env.get("OAH_HOST_ID")?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.name");
    const port = Number(env.get("OAH_SANDBOX_PORT")!.value);
    const probed = container.readinessProbe!.httpGet;
    expect(probed.path).toBe("/readyz");
    expect(
      container.ports!.find((p) => p.name === probed.port || p.containerPort === probed.port)?.containerPort,
    ).toBe(port);
    const drainMs = Number(env.get("OAH_DRAIN_TIMEOUT_MS")?.value ?? 30_000);
    expect(sandboxes.spec!.template!.spec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(drainMs);
  });

  it("runs the image's binaries, bound to every interface with a token", () => {
    // The binaries themselves, each the container's main process: the one that gets SIGTERM.
    const expected: Record<string, string[]> = {
      "oah-api": ["/app/node_modules/.bin/oah-api", "--api-only"],
      "oah-controller": ["/app/node_modules/.bin/oah-controller"],
      "oah-sandbox": ["/app/node_modules/.bin/oah-sandbox"],
    };
    for (const w of workloads()) {
      const container = containerOf(w);
      expect(container.image).toBe("ghcr.io/oah/oah:latest");
      expect(container.command).toEqual(expected[w.metadata.name]);
      const env = environmentOf(container);
      expect(env.get("OAH_HOST")?.value).toBe("0.0.0.0");
      for (const name of ["OAH_API_TOKEN", "OAH_REDIS_URL", "OAH_DATABASE_URL"])
        expect(env.has(name)).toBe(true);
    }
  });

  it("uses only variables the configuration accepts", () => {
    const accepted = acceptedNames();
    expect(accepted.size).toBeGreaterThan(50);
    const used = new Set<string>();
    for (const w of workloads()) for (const name of environmentOf(containerOf(w)).keys()) used.add(name);
    const oah = [...used].filter((name) => name.startsWith("OAH_"));
    expect(oah.length).toBeGreaterThan(15);
    expect(oah.filter((name) => !accepted.has(name))).toEqual([]);
  });
});

describe("the Prometheus alert rules", () => {
  const [file] = loadAll(read(ALERTS_FILE)) as {
    groups: { name: string; rules: { alert: string; expr: string; for: string }[] }[];
  }[];
  const rules = file!.groups.flatMap((g) => g.rules);

  it("watch the leader, a blocked scale-down, waiting sessions and late sandboxes", () => {
    expect(Object.fromEntries(rules.map((r) => [r.alert, { expr: r.expr, for: r.for }]))).toEqual({
      OahControllerNoLeader: {
        expr: "sum(oah_controller_leader) == 0 or absent(oah_controller_leader)",
        for: "1m",
      },
      OahScaleDownBlocked: { expr: "max(oah_controller_scale_down_blocked) == 1", for: "15m" },
      OahReadySessionsWaiting: { expr: "oah_controller_oldest_ready_age_seconds > 60", for: "5m" },
      OahSandboxesLate: { expr: "oah_controller_late_hosts > 0", for: "2m" },
    });
  });

  it("name only metrics the controller exports", async () => {
    const standby = {
      leading: false,
      lastDecision: undefined,
      lateHosts: 0,
      snapshot: () => ({ actualReplicas: null }),
    } as unknown as FleetController;
    const exported = new Set((await createControllerMetrics(standby).getMetricsAsJSON()).map((m) => m.name));
    const named = new Set(rules.flatMap((r) => [...r.expr.matchAll(/\boah_[a-z_]+/g)].map((m) => m[0])));
    expect(named.size).toBe(4);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });
});
