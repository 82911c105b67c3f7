import { execFileSync } from "node:child_process";

/** The process tests run the built binaries: build them from the current sources first. */
export default function setup(): void {
  for (const app of ["apps/api", "apps/sandbox", "apps/controller"]) {
    execFileSync(process.execPath, ["../../scripts/bundle-app.mjs"], { cwd: app, stdio: "inherit" });
  }
}
