import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./packages/store/src/schema/pg.ts",
  out: "./drizzle/pg",
});
