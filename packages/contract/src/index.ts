export * from "./ids";
export * from "./inputs";
export * from "./run";
export * from "./script";
