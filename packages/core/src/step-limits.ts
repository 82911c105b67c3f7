/** Resource limits of one command's sandbox (OAH_STEP_*). */
export interface StepLimits {
  /** Processes and threads of the whole sandbox at once. */
  maxProcs: number;
  /** The largest file a process may write; also the size of the sandbox's own /tmp. */
  maxFileBytes: number;
  /** CPU time of each process. */
  cpuSeconds: number;
  /** Data (heap and private writable memory) of each process. */
  memoryBytes: number;
  /** Output (stdout and stderr) of the whole command: past it the command is stopped. */
  maxOutputBytes: number;
}
