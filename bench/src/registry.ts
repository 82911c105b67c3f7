// The bench's workloads, in the order a run measures them; a selection keeps this order.
import type { Workload } from "./workload";
import { admin } from "./workloads/admin";
import { bulk } from "./workloads/bulk";
import { checkpoints } from "./workloads/checkpoints";
import { commands } from "./workloads/commands";
import { dispatch } from "./workloads/dispatch";
import { longRuns } from "./workloads/long-runs";
import { memory } from "./workloads/memory";
import { mixed } from "./workloads/mixed";
import { parked } from "./workloads/parked";
import { parts } from "./workloads/parts";
import { scale } from "./workloads/scale";
import { streams } from "./workloads/streams";
import { submit } from "./workloads/submit";
import { throughput } from "./workloads/throughput";

// parts follows throughput: it sets its ceilings beside throughput's figures.
export const WORKLOADS: readonly Workload[] = [
  throughput,
  dispatch,
  mixed,
  admin,
  memory,
  parts,
  commands,
  checkpoints,
  parked,
  submit,
  longRuns,
  scale,
  bulk,
  streams,
];
