// Lua scripts are imported as text (esbuild's text loader; a Vitest plugin in tests).
declare module "*.lua" {
  const source: string;
  export default source;
}
