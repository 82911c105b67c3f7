import type { ControllerReport } from "@oah/contract";
import { HistoryChart } from "./HistoryChart";

/** The controller's sampled history: the sandboxes it wants against those that run. */
export function ReplicasChart({ history }: { history: ControllerReport["history"] }) {
  return (
    <HistoryChart
      testId="chart-replicas"
      caption="Desired vs actual sandboxes (the controller's)"
      points={history}
      lines={[
        { dataKey: "actualReplicas", name: "actual", stroke: "#2563eb" },
        { dataKey: "desiredReplicas", name: "desired", stroke: "#6b7280", target: true },
      ]}
    />
  );
}
