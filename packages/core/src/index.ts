export * from "./claim-ahead";
export * from "./error-codes";
export * from "./events";
export * from "./ids";
export * from "./pool-sizing";
export * from "./queue-entry";
export * from "./recovery";
export * from "./run-status";
