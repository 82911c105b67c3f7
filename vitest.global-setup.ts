import { execFileSync } from "node:child_process";

/** The process tests run the built binaries: build them from the current sources first. */
export default function setup(): void {
  for (const app of ["apps/api"]) {
    execFileSync(process.execPath, ["build.mjs"], { cwd: app, stdio: "inherit" });
  }
}
