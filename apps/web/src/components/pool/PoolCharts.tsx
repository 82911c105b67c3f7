import type { ChartPoint } from "@/lib/pool/history";
import { CapacityChart } from "./CapacityChart";
import { QueueWaitChart } from "./QueueWaitChart";

export function PoolCharts({ points }: { points: ChartPoint[] }) {
  if (points.length === 0) {
    return (
      <p className="state muted">
        No samples yet: hosts record one every 5 s, so the charts fill in within a few seconds.
      </p>
    );
  }
  return (
    <div className="charts">
      <CapacityChart points={points} />
      <QueueWaitChart points={points} />
    </div>
  );
}
