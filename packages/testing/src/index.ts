export * from "./paths";
export * from "./postgres";
export * from "./stores";
