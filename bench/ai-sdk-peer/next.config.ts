import type { NextConfig } from 'next';

// A standalone app, built and started only by bench/streaming-path.ts.
const nextConfig: NextConfig = { poweredByHeader: false };

export default nextConfig;
