import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { duration, fullTime } from "@/lib/format";
import { type ChartPoint, dotsFor } from "@/lib/pool/history";
import { TIME_AXIS } from "./time-axis";

export function QueueWaitChart({ points }: { points: ChartPoint[] }) {
  const dots = dotsFor(points.length);
  return (
    <figure className="chart" data-testid="chart-queue-wait" data-points={points.length}>
      <figcaption>Queue wait p50 / p95</figcaption>
      <ResponsiveContainer width="100%" height={190}>
        <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
          <XAxis {...TIME_AXIS} />
          <YAxis fontSize={11} width={64} tickFormatter={(v: number) => duration(v)} />
          <Tooltip
            labelFormatter={(at) => fullTime(Number(at))}
            formatter={(v) => (typeof v === "number" ? duration(v) : "—")}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Line
            type="linear"
            dataKey="p50"
            name="p50"
            stroke="#0891b2"
            dot={dots}
            connectNulls
            isAnimationActive={false}
          />
          <Line
            type="linear"
            dataKey="p95"
            name="p95"
            stroke="#9333ea"
            dot={dots}
            connectNulls
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
