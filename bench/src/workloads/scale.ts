// (l) Sessions scale: the same no-op drain as (a) on oah Redis+PG, with the runs spread
// over many sessions of one run each or over few sessions of many, beside the shape of (a);
// the figures are the ratios of their throughput to that shape's.
import { log } from "../log";
import { summarize } from "../stats";
import { add, type Workload } from "../workload";
import { throughputOnce } from "./throughput";

/** Each shape's runs/s by `${sessions}x${runsPerSession}`, in the order of the repetitions. */
type ScaleRaw = Map<string, number[]>;

const shapeName = ([sessions, runsPerSession]: [number, number]) => `${sessions}x${runsPerSession}`;

export const scale: Workload<ScaleRaw> = {
  name: "scale",
  alias: "l",
  measures: "sessions scale: no-op runs as 10,000 sessions × 1 and 100 × 100, beside 500 × 20",
  systems: { own: "oah Redis+PG (embedded pool), 8 slots" },
  writes: {
    scale: ["unit", "slots", "runsPerSecond", "ratios"],
  },
  async run({ plan, withPeer }) {
    const { slots, shapes } = plan.scale;
    const raw: ScaleRaw = new Map();
    for (let rep = 1; rep <= plan.reps; rep++)
      for (const [sessions, runsPerSession] of shapes) {
        log(`(l) ${sessions}×${runsPerSession} no-op runs, ${slots} slots, repetition ${rep}/${plan.reps}`);
        const r = await withPeer("oahRedisPg", (p) => throughputOnce(p, sessions, runsPerSession, slots));
        add(raw, shapeName([sessions, runsPerSession]), r.runsPerSecond);
      }
    return raw;
  },
  report(raw, plan) {
    const { slots, shapes } = plan.scale;
    const [base, ...others] = shapes.map(shapeName);
    const byShape = Object.fromEntries([...raw].map(([shape, xs]) => [shape, summarize(xs)]));
    const ratios = Object.fromEntries(
      others.map((shape) => [
        shape,
        Math.round((byShape[shape]!.median / byShape[base!]!.median) * 100) / 100,
      ]),
    );
    const scale = {
      unit: "runs/s of oah Redis+PG (embedded pool), completed / (last end − first start); the ratios against the first shape",
      slots,
      runsPerSecond: byShape,
      ratios,
    };
    return {
      sections: { scale },
      absolute: others.map((shape) => ({
        figure: `sessions scale, oah Redis+PG, ${slots} slots: ${shape} / ${base} (throughput ratio)`,
        value: String(ratios[shape]!),
      })),
    };
  },
};
