import { CONTROLLER_TARGETS } from "@oah/core";
import { z } from "zod";
import { type Declared, readDeclared, section } from "./declare";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const name = z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, {
  error: "must be a Kubernetes name (lower-case letters, digits, - and .)",
});

const controller = section("The controller (oah-controller)");

/** The controller's variables, placed where they land in its configuration (`ControllerConfig`). */
export const CONTROLLER_VARIABLES = {
  target: controller("OAH_CONTROLLER_TARGET", z.enum(CONTROLLER_TARGETS), {
    default: "process",
    description: `where the sandboxes are scaled: ${CONTROLLER_TARGETS.map((t) => `\`${t}\``).join(", ")}`,
  }),
  port: controller("OAH_CONTROLLER_PORT", int(0, 65_535), {
    default: 8790,
    description: "the controller's port (`--port` overrides)",
  }),
  minReplicas: controller("OAH_CONTROLLER_MIN_REPLICAS", int(0, 1_000), {
    default: 1,
    description: "the fewest sandboxes of the fleet",
  }),
  maxReplicas: controller("OAH_CONTROLLER_MAX_REPLICAS", int(1, 1_000), {
    default: 8,
    description: "the most sandboxes of the fleet",
  }),
  slotsPerSandbox: controller("OAH_CONTROLLER_SANDBOX_SLOTS", int(1, 1_024), {
    default: 8,
    description: "slots of each sandbox the controller starts (`--slots`) or assumes",
  }),
  leaseTtlMs: controller("OAH_CONTROLLER_LEASE_TTL_MS", int(1_000), {
    default: 10_000,
    description: "the leader lease; a standby takes over within 2 × this",
  }),
  intervalMs: controller("OAH_CONTROLLER_INTERVAL_MS", int(100), {
    default: 1_000,
    description: "the decision period, at most a third of the lease TTL",
  }),
  hysteresis: {
    upSampleWindow: controller("OAH_CONTROLLER_SCALE_UP_SAMPLE_WINDOW", int(1, 1_000), {
      default: 2,
      description: "agreeing decisions needed to grow the fleet",
    }),
    downSampleWindow: controller("OAH_CONTROLLER_SCALE_DOWN_SAMPLE_WINDOW", int(1, 1_000), {
      default: 5,
      description: "agreeing decisions needed to shrink the fleet",
    }),
    upCooldownMs: controller("OAH_CONTROLLER_SCALE_UP_COOLDOWN_MS", int(0), {
      default: 5_000,
      description: "time since the last change before growing the fleet again",
    }),
    downCooldownMs: controller("OAH_CONTROLLER_SCALE_DOWN_COOLDOWN_MS", int(0), {
      default: 60_000,
      description: "time since the last change before shrinking the fleet again",
    }),
  },
  kubernetes: {
    namespace: controller("OAH_K8S_NAMESPACE", name, {
      description: "the namespace of the sandboxes' workload, for the `kubernetes` target",
    }),
    kind: controller("OAH_K8S_KIND", z.enum(["Deployment", "StatefulSet"]), {
      default: "Deployment",
      description: "the kind of the sandboxes' workload",
    }),
    name: controller("OAH_K8S_NAME", name, {
      description:
        "the name of the sandboxes' workload; the API server comes from the in-cluster config or `KUBECONFIG`",
    }),
  },
};

/** The controller's configuration: its variables, the Kubernetes workload only with that target. */
export type ControllerConfig = Omit<Declared<typeof CONTROLLER_VARIABLES>, "kubernetes"> & {
  kubernetes: { namespace: string; kind: "Deployment" | "StatefulSet"; name: string } | null;
};

/** Reads the controller's variables; a bad or missing one is an Error naming it. */
export function loadControllerConfig(env: NodeJS.ProcessEnv = process.env): ControllerConfig {
  const read = readDeclared(CONTROLLER_VARIABLES, env);
  if (!read.ok) throw new Error(`invalid configuration:\n${read.problems.join("\n")}`);
  const { kubernetes, ...e } = read.values;
  if (e.minReplicas > e.maxReplicas)
    throw new Error(
      `OAH_CONTROLLER_MIN_REPLICAS (${e.minReplicas}) is above OAH_CONTROLLER_MAX_REPLICAS (${e.maxReplicas})`,
    );
  // The leader renews on every decision: at least three chances within one lease.
  if (e.intervalMs * 3 > e.leaseTtlMs)
    throw new Error(
      `OAH_CONTROLLER_INTERVAL_MS (${e.intervalMs}) must be at most a third of OAH_CONTROLLER_LEASE_TTL_MS (${e.leaseTtlMs})`,
    );
  if (e.target !== "kubernetes") return { ...e, kubernetes: null };
  if (!kubernetes.namespace || !kubernetes.name)
    throw new Error(
      "OAH_CONTROLLER_TARGET=kubernetes needs OAH_K8S_NAMESPACE and OAH_K8S_NAME (the sandboxes' workload)",
    );
  return {
    ...e,
    kubernetes: { namespace: kubernetes.namespace, kind: kubernetes.kind, name: kubernetes.name },
  };
}
