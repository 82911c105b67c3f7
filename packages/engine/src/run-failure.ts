import type { RunErrorCode } from "@oah/core";

/** A run that ends as `failed` with this code; anything else thrown becomes `executor_failed`. */
export class RunFailure extends Error {
  constructor(
    readonly code: RunErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "RunFailure";
  }
}
