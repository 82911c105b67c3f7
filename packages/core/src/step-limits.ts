/** Resource limits of one command's jail (OAH_STEP_*). */
export interface StepLimits {
  /** Processes and threads of the whole jail at once. */
  maxProcs: number;
  /** The largest file a process may write; also the size of the jail's own /tmp. */
  maxFileBytes: number;
  /** CPU time of each process. */
  cpuSeconds: number;
  /** Data (heap and private writable memory) of each process. */
  memoryBytes: number;
  /** Output (stdout and stderr) of the whole command: past it the command is stopped. */
  maxOutputBytes: number;
}

/**
 * What network a command's jail has (OAH_STEP_NETWORK): `on`, egress through a user-mode
 * network stack in a network namespace of its own, never the host's loopback nor oah's own
 * services; `off`, none at all (a loopback of its own); `host`, the host's own network, loopback
 * included (the old behaviour, for a machine of one's own).
 */
export const STEP_NETWORK_MODES = ["on", "off", "host"] as const;
export type StepNetwork = (typeof STEP_NETWORK_MODES)[number];
