/** A same-origin path to return to after signing in; anything else (other hosts, odd schemes) goes home. */
export function safeNextPath(value: string | null | undefined): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/storage";
  if (value.startsWith("/api/") || value.startsWith("/sign-in")) return "/storage";
  return value;
}
