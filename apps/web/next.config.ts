import type { NextConfig } from "next";

const config: NextConfig = {
  // The console is served by `next start` from this folder; no image optimisation, no telemetry beacons.
  poweredByHeader: false,
  reactStrictMode: true,
  images: { unoptimized: true },
};

export default config;
