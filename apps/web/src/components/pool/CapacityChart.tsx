import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fullTime } from "@/lib/format";
import { type ChartPoint, dotsFor } from "@/lib/pool/history";
import { TIME_AXIS } from "./time-axis";

export function CapacityChart({ points }: { points: ChartPoint[] }) {
  const dots = dotsFor(points.length);
  return (
    <figure className="chart" data-testid="chart-capacity" data-points={points.length}>
      <figcaption>Ready sessions vs busy and idle workers vs desired capacity</figcaption>
      <ResponsiveContainer width="100%" height={190}>
        <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: -16 }}>
          <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
          <XAxis {...TIME_AXIS} />
          <YAxis allowDecimals={false} fontSize={11} />
          <Tooltip labelFormatter={(at) => fullTime(Number(at))} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Line
            type="linear"
            dataKey="ready"
            name="ready sessions"
            stroke="#2563eb"
            dot={dots}
            isAnimationActive={false}
          />
          <Line
            type="linear"
            dataKey="busy"
            name="busy workers"
            stroke="#d97706"
            dot={dots}
            isAnimationActive={false}
          />
          <Line
            type="linear"
            dataKey="idle"
            name="idle workers"
            stroke="#16a34a"
            dot={dots}
            isAnimationActive={false}
          />
          <Line
            type="stepAfter"
            dataKey="desired"
            name="desired"
            stroke="#6b7280"
            strokeDasharray="5 3"
            dot={dots}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
