import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native and adapter packages must be loaded by Node, not bundled.
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', 'execa'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
