import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fullTime } from "@/lib/format";
import { dotsFor } from "@/lib/pool/history";
import { TIME_AXIS } from "./time-axis";

export interface HistoryLine {
  dataKey: string;
  name: string;
  stroke: string;
  /** A target held until the next decision (desired capacity, replicas): drawn as steps, dashed. */
  target?: boolean;
}

/**
 * A history chart of the pool section: lines over the shared time axis, one dot per sampled
 * instant while they stay readable. Counts are whole numbers; `format` draws other figures.
 */
export function HistoryChart({
  testId,
  caption,
  points,
  lines,
  format,
}: {
  testId: string;
  caption: string;
  points: { at: number }[];
  lines: HistoryLine[];
  format?: (value: number) => string;
}) {
  const dots = dotsFor(points.length);
  return (
    <figure className="chart" data-testid={testId} data-points={points.length}>
      <figcaption>{caption}</figcaption>
      <ResponsiveContainer width="100%" height={190}>
        <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: format ? 0 : -16 }}>
          <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
          <XAxis {...TIME_AXIS} />
          {format ? (
            <YAxis fontSize={11} width={64} tickFormatter={format} />
          ) : (
            <YAxis allowDecimals={false} fontSize={11} />
          )}
          <Tooltip
            labelFormatter={(at) => fullTime(Number(at))}
            formatter={format ? (v) => (typeof v === "number" ? format(v) : "—") : undefined}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {lines.map((line) => (
            <Line
              key={line.dataKey}
              type={line.target ? "stepAfter" : "linear"}
              dataKey={line.dataKey}
              name={line.name}
              stroke={line.stroke}
              strokeDasharray={line.target ? "5 3" : undefined}
              dot={dots}
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
