/**
 * How a run waits for a client's tool result (docs/spec.md §6): `park` saves the execution's
 * state with the run and frees its slot, the session staying exclusive, and any host resumes it
 * when the result arrives; `hold` keeps the execution, its slot and its session lock for the
 * whole wait, the run heartbeating and recovered like any executing run.
 */
export const WAIT_MODES = ["park", "hold"] as const;
export type WaitMode = (typeof WAIT_MODES)[number];
