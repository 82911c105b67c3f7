/** A workspace's ready sessions (claimable, or waiting for its cap), for reports. */
export interface WorkspaceReadySessions {
  workspaceId: string;
  readySessions: number;
}

/** The order of `SessionQueue.readyByWorkspace`: most ready sessions first, ties by workspace id. */
export const byReadySessions = (a: WorkspaceReadySessions, b: WorkspaceReadySessions): number =>
  b.readySessions - a.readySessions ||
  (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0);
