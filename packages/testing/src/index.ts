export * from "./deployment";
export * from "./http";
export * from "./paths";
export * from "./postgres";
export * from "./private-servers";
export * from "./processes";
export * from "./redis";
export * from "./stores";
