export * from "./admin";
export * from "./agent";
export * from "./ids";
export * from "./inputs";
export * from "./json";
export * from "./pool";
export * from "./run";
export * from "./script";
