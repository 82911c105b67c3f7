/** The fencing identity of one execution: every write it makes is conditional on the token. */
export interface Claim {
  runId: string;
  token: string;
}
