// @module-tag unit

import { describe, expect, it } from "vitest";
import { bodyIsNotJson, hostNameOf, originRefusal } from "../src/http/request-guard";

describe("the request guard of a token-less API", () => {
  it.each([
    ["127.0.0.1:8787", "127.0.0.1"],
    ["LOCALHOST:3000", "localhost"],
    ["[::1]:8787", "::1"],
    ["[::1]", "::1"],
    ["evil.example", "evil.example"],
    ["127.0.0.1.nip.io:8787", "127.0.0.1.nip.io"],
  ])("reads the host name of %s as %s", (host, name) => {
    expect(hostNameOf(host)).toBe(name);
  });

  it.each([
    ["a program on this machine", { host: "127.0.0.1:8787" }, null],
    ["a program calling localhost", { host: "localhost:8787" }, null],
    ["a program over IPv6 loopback", { host: "[::1]:8787" }, null],
    ["127.0.0.2", { host: "127.0.0.2:8787" }, null],
    ["a same-origin page (the API's own)", { host: "127.0.0.1:8787", "sec-fetch-site": "same-origin" }, null],
    ["a typed-in address", { host: "127.0.0.1:8787", "sec-fetch-site": "none" }, null],
    ["its own origin", { host: "127.0.0.1:8787", origin: "http://127.0.0.1:8787" }, null],
    ["no Host at all", {}, /loopback name only/],
    ["a rebound name", { host: "evil.example:8787" }, /loopback name only/],
    ["a name that only looks like loopback", { host: "127.0.0.1.nip.io:8787" }, /loopback name only/],
    ["the machine's own address", { host: "10.0.0.5:8787" }, /loopback name only/],
    ["a cross-site page", { host: "127.0.0.1:8787", "sec-fetch-site": "cross-site" }, /web pages/],
    [
      "a same-site page on another port",
      { host: "127.0.0.1:8787", "sec-fetch-site": "same-site" },
      /web pages/,
    ],
    [
      "another origin",
      { host: "127.0.0.1:8787", origin: "http://localhost:3000" },
      /Origin http:\/\/localhost:3000/,
    ],
    ["another port", { host: "127.0.0.1:8787", origin: "http://127.0.0.1:3000" }, /web pages/],
    ["an opaque origin", { host: "127.0.0.1:8787", origin: "null" }, /Origin null/],
    [
      "its own page under no-referrer (Origin null, Sec-Fetch-Site same-origin)",
      { host: "127.0.0.1:8787", origin: "null", "sec-fetch-site": "same-origin" },
      null,
    ],
    [
      "another site claiming no Sec-Fetch-Site but its Origin",
      { host: "127.0.0.1:8787", origin: "http://evil.example" },
      /Origin http:\/\/evil.example/,
    ],
  ] as const)("%s: %j → %s", (_who, headers, refusal) => {
    const result = originRefusal(headers);
    if (refusal === null) expect(result).toBeNull();
    else expect(result).toMatch(refusal);
  });

  it.each([
    ["JSON", { "content-type": "application/json", "content-length": "2" }, false],
    [
      "JSON with a charset",
      { "content-type": "Application/JSON; charset=utf-8", "content-length": "2" },
      false,
    ],
    ["no body", { "content-length": "0" }, false],
    ["no body, no length", {}, false],
    ["a body with no type (no-cors fetch, sendBeacon of a Blob)", { "content-length": "12" }, true],
    ["text", { "content-type": "text/plain", "content-length": "12" }, true],
    ["a form", { "content-type": "application/x-www-form-urlencoded", "content-length": "3" }, true],
    [
      "a type that only starts like JSON",
      { "content-type": "application/jsonp", "content-length": "3" },
      true,
    ],
    ["a chunked body with no type", { "transfer-encoding": "chunked" }, true],
  ] as const)("a request with %s: refused %s", (_what, headers, refused) => {
    expect(bodyIsNotJson(headers)).toBe(refused);
  });
});
