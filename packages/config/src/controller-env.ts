import { CONTROLLER_TARGETS, type ControllerTarget, type HysteresisConfig } from "@oah/core";
import { z } from "zod";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const name = z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, {
  error: "must be a Kubernetes name (lower-case letters, digits, - and .)",
});

/** The controller's own variables (the issue's Contract, and a few of ours, marked). */
const controllerEnvSchema = z.object({
  OAH_CONTROLLER_TARGET: z.enum(CONTROLLER_TARGETS).default("process"),
  OAH_CONTROLLER_PORT: int(0, 65_535).default(8790),
  OAH_CONTROLLER_MIN_REPLICAS: int(0, 1_000).default(1),
  OAH_CONTROLLER_MAX_REPLICAS: int(1, 1_000).default(8),
  OAH_CONTROLLER_SANDBOX_SLOTS: int(1, 1_024).default(8),
  OAH_CONTROLLER_LEASE_TTL_MS: int(1_000).default(10_000),
  // Ours: how often the leader decides, and its hysteresis (the pool's, with a slower scale-down).
  OAH_CONTROLLER_INTERVAL_MS: int(100).default(1_000),
  OAH_CONTROLLER_SCALE_UP_SAMPLE_WINDOW: int(1, 1_000).default(2),
  OAH_CONTROLLER_SCALE_DOWN_SAMPLE_WINDOW: int(1, 1_000).default(5),
  OAH_CONTROLLER_SCALE_UP_COOLDOWN_MS: int(0).default(5_000),
  OAH_CONTROLLER_SCALE_DOWN_COOLDOWN_MS: int(0).default(60_000),
  OAH_K8S_NAMESPACE: name.optional(),
  OAH_K8S_KIND: z.enum(["Deployment", "StatefulSet"]).default("Deployment"),
  OAH_K8S_NAME: name.optional(),
});

export interface ControllerConfig {
  target: ControllerTarget;
  port: number;
  minReplicas: number;
  maxReplicas: number;
  slotsPerSandbox: number;
  leaseTtlMs: number;
  intervalMs: number;
  hysteresis: HysteresisConfig;
  kubernetes: { namespace: string; kind: "Deployment" | "StatefulSet"; name: string } | null;
}

/** Reads the controller's variables; a bad or missing one is an Error naming it. */
export function loadControllerConfig(env: NodeJS.ProcessEnv = process.env): ControllerConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(
      ([k, v]) => (k.startsWith("OAH_CONTROLLER_") || k.startsWith("OAH_K8S_")) && v !== "",
    ),
  );
  const parsed = controllerEnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  if (e.OAH_CONTROLLER_MIN_REPLICAS > e.OAH_CONTROLLER_MAX_REPLICAS)
    throw new Error(
      `OAH_CONTROLLER_MIN_REPLICAS (${e.OAH_CONTROLLER_MIN_REPLICAS}) is above OAH_CONTROLLER_MAX_REPLICAS (${e.OAH_CONTROLLER_MAX_REPLICAS})`,
    );
  // The leader renews on every decision: at least three chances within one lease.
  if (e.OAH_CONTROLLER_INTERVAL_MS * 3 > e.OAH_CONTROLLER_LEASE_TTL_MS)
    throw new Error(
      `OAH_CONTROLLER_INTERVAL_MS (${e.OAH_CONTROLLER_INTERVAL_MS}) must be at most a third of OAH_CONTROLLER_LEASE_TTL_MS (${e.OAH_CONTROLLER_LEASE_TTL_MS})`,
    );
  let kubernetes: ControllerConfig["kubernetes"] = null;
  if (e.OAH_CONTROLLER_TARGET === "kubernetes") {
    if (!e.OAH_K8S_NAMESPACE || !e.OAH_K8S_NAME)
      throw new Error(
        "OAH_CONTROLLER_TARGET=kubernetes needs OAH_K8S_NAMESPACE and OAH_K8S_NAME (the sandboxes' workload)",
      );
    kubernetes = { namespace: e.OAH_K8S_NAMESPACE, kind: e.OAH_K8S_KIND, name: e.OAH_K8S_NAME };
  }
  return {
    target: e.OAH_CONTROLLER_TARGET,
    port: e.OAH_CONTROLLER_PORT,
    minReplicas: e.OAH_CONTROLLER_MIN_REPLICAS,
    maxReplicas: e.OAH_CONTROLLER_MAX_REPLICAS,
    slotsPerSandbox: e.OAH_CONTROLLER_SANDBOX_SLOTS,
    leaseTtlMs: e.OAH_CONTROLLER_LEASE_TTL_MS,
    intervalMs: e.OAH_CONTROLLER_INTERVAL_MS,
    hysteresis: {
      upSampleWindow: e.OAH_CONTROLLER_SCALE_UP_SAMPLE_WINDOW,
      downSampleWindow: e.OAH_CONTROLLER_SCALE_DOWN_SAMPLE_WINDOW,
      upCooldownMs: e.OAH_CONTROLLER_SCALE_UP_COOLDOWN_MS,
      downCooldownMs: e.OAH_CONTROLLER_SCALE_DOWN_COOLDOWN_MS,
    },
    kubernetes,
  };
}
