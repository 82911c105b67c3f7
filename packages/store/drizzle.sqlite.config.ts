import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./packages/store/src/schema/sqlite.ts",
  out: "./drizzle/sqlite",
});
