const HOME = "/storage";
// Anything a browser strips or rewrites before it follows a URL (tabs, newlines, NUL, …), and `\`,
// which it reads as `/`: a path holding one may lead elsewhere than it looks.
const unsafe = (value: string): boolean =>
  [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || c === "\\");

/**
 * A path of the console's own to return to after signing in: parsed as a URL against the
 * console's origin, it must stay on that origin (so `//evil.example` and `/%09/evil.example`,
 * which a browser turns into `//evil.example`, go home), and it must not lead back to the API
 * or the sign-in page. Returns the path, query and fragment, or `/storage`.
 */
export function safeNextPath(value: string | null | undefined): string {
  if (!value?.startsWith("/") || unsafe(value)) return HOME;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return HOME;
  }
  if (unsafe(decoded) || decoded.startsWith("//")) return HOME;
  const base = "http://console.invalid";
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return HOME;
  }
  if (url.origin !== base) return HOME;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (path.startsWith("//") || path.startsWith("/api/") || path.startsWith("/sign-in")) return HOME;
  return path;
}
