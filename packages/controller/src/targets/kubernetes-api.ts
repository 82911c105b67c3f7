import type { V1Pod, V1Scale } from "@kubernetes/client-node";

/** The sandboxes' workload (OAH_K8S_NAMESPACE, OAH_K8S_KIND, OAH_K8S_NAME). */
export interface KubernetesWorkload {
  namespace: string;
  kind: "Deployment" | "StatefulSet";
  name: string;
}

/** The workload's `/scale` as read: its replicas, and the version a write must name. */
export interface WorkloadScale {
  replicas: number;
  /** The pods it has now (status.replicas): more than `replicas` during a rollout's surge. */
  pods: number;
  resourceVersion: string;
}

/** What the target weighs of one pod before the ReplicaSet is asked to remove some. */
export interface PodFacts {
  ready: boolean;
  /** Deleted already, its containers still stopping. */
  terminating: boolean;
  deletionCost: string | undefined;
}

/** The calls the Kubernetes target makes, and nothing else (what its Role grants). */
export interface WorkloadApi {
  readScale(): Promise<WorkloadScale>;
  /** Replaces the scale read; false, and nothing written, when it changed since (409 Conflict). */
  writeScale(read: WorkloadScale, replicas: number): Promise<boolean>;
  /** Null once the pod is gone. */
  readPod(name: string): Promise<PodFacts | null>;
  /** Sets the pod's deletion cost; null removes it. */
  setDeletionCost(name: string, cost: string | null): Promise<void>;
}

/** Ranks the pods a ReplicaSet removes when its replicas are lowered (lowest first). */
export const POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

const isReady = (pod: V1Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

/**
 * The API server of the cluster the controller runs in (its ServiceAccount), else the one
 * KUBECONFIG names. The client is loaded here, not imported at the top: a controller with
 * another target never loads it.
 */
export async function connectWorkloadApi(workload: KubernetesWorkload): Promise<WorkloadApi> {
  const k8s = await import("@kubernetes/client-node");
  const kubeConfig = new k8s.KubeConfig();
  if (process.env.KUBERNETES_SERVICE_HOST) kubeConfig.loadFromCluster();
  else kubeConfig.loadFromDefault();
  const apps = kubeConfig.makeApiClient(k8s.AppsV1Api);
  const core = kubeConfig.makeApiClient(k8s.CoreV1Api);
  const { name, namespace, kind } = workload;
  const statusOf = (error: unknown) => (error instanceof k8s.ApiException ? error.code : undefined);
  const asScale = (scale: V1Scale): WorkloadScale => ({
    replicas: scale.spec?.replicas ?? 0,
    pods: scale.status?.replicas ?? 0,
    resourceVersion: scale.metadata?.resourceVersion ?? "",
  });
  // Annotations are a map: a strategic merge patch sets (or, with null, removes) one key, leaving the others.
  const strategicMerge = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.StrategicMergePatch);

  return {
    async readScale() {
      const scale =
        kind === "Deployment"
          ? await apps.readNamespacedDeploymentScale({ name, namespace })
          : await apps.readNamespacedStatefulSetScale({ name, namespace });
      return asScale(scale);
    },
    async writeScale(read, replicas) {
      const body: V1Scale = {
        apiVersion: "autoscaling/v1",
        kind: "Scale",
        metadata: { name, namespace, resourceVersion: read.resourceVersion },
        spec: { replicas },
      };
      try {
        if (kind === "Deployment") await apps.replaceNamespacedDeploymentScale({ name, namespace, body });
        else await apps.replaceNamespacedStatefulSetScale({ name, namespace, body });
        return true;
      } catch (error) {
        if (statusOf(error) === 409) return false;
        throw error;
      }
    },
    async readPod(pod) {
      try {
        const found = await core.readNamespacedPod({ name: pod, namespace });
        return {
          ready: isReady(found),
          terminating: found.metadata?.deletionTimestamp !== undefined,
          deletionCost: found.metadata?.annotations?.[POD_DELETION_COST],
        };
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw error;
      }
    },
    async setDeletionCost(pod, cost) {
      await core.patchNamespacedPod(
        { name: pod, namespace, body: { metadata: { annotations: { [POD_DELETION_COST]: cost } } } },
        strategicMerge,
      );
    },
  };
}
