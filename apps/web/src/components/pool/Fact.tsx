import type { ReactNode } from "react";

/** One figure of a facts list, with what it means in its tooltip. */
export function Fact({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div title={hint}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
