import type { ChartPoint } from "@/lib/pool/history";
import { HistoryChart } from "./HistoryChart";

export function CapacityChart({ points }: { points: ChartPoint[] }) {
  return (
    <HistoryChart
      testId="chart-capacity"
      caption="Ready sessions vs busy and idle workers vs desired capacity"
      points={points}
      lines={[
        { dataKey: "ready", name: "ready sessions", stroke: "#2563eb" },
        { dataKey: "busy", name: "busy workers", stroke: "#d97706" },
        { dataKey: "idle", name: "idle workers", stroke: "#16a34a" },
        { dataKey: "desired", name: "desired", stroke: "#6b7280", target: true },
      ]}
    />
  );
}
