import { duration } from "@/lib/format";
import type { ChartPoint } from "@/lib/pool/history";
import { HistoryChart } from "./HistoryChart";

export function QueueWaitChart({ points }: { points: ChartPoint[] }) {
  return (
    <HistoryChart
      testId="chart-queue-wait"
      caption="Queue wait p50 / p95"
      points={points}
      lines={[
        { dataKey: "p50", name: "p50", stroke: "#0891b2" },
        { dataKey: "p95", name: "p95", stroke: "#9333ea" },
      ]}
      format={duration}
    />
  );
}
