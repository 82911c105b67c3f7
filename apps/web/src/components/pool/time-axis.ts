import { shortTime } from "@/lib/format";

/** The time axis every history chart shares. */
export const TIME_AXIS = {
  dataKey: "at",
  type: "number",
  scale: "time",
  domain: ["dataMin", "dataMax"],
  tickFormatter: (at: number) => shortTime(at),
  fontSize: 11,
} as const;
