// `npm run bench`: every benchmark, printed as Markdown with the machine and versions.
// Copy the output into docs/benchmarks.md (the method is described there).
import fs from 'node:fs';
import os from 'node:os';
import { backendsTable, benchBackends } from './backends-first-token';
import { benchBrowser, browserTable } from './browser';
import { agentBrowserTable, benchAgentBrowser } from './agent-browser';
import { benchPromptCache, cacheTable } from './prompt-cache';
import { benchStreamingPath, loadTable, streamingTable } from './streaming-path';
import { benchChannels, channelsTable } from './channels';
import { benchVoice, voiceTable } from './voice';
import { benchEmail, emailTable } from './email';
import { benchDiscord, discordTable } from './discord';
import { benchSlack, slackTable } from './slack';
import { benchWhatsApp, whatsappTable } from './whatsapp';
import { backupTables, benchBackupSize, benchFirstTokenDuringBackup } from './backup';
import { benchTriggers, triggersTable } from './triggers';
import { benchToolSearch, toolSearchTable } from './tool-search';
import { benchDecisionToStart, benchSandboxStart, benchToolSteps, toolsTables } from './tools';
import { benchTaskOverhead, benchTaskTokens, tasksTables } from './tasks';
import { speedTable } from './speed';
import { benchTracingCost, tracingTable } from './traces';
import { benchDelegation, delegationTable } from './delegation';
import { defaultModelIds } from '@/lib/config/model-catalog';
import { createEmbedder } from '@/lib/memory/embeddings';
import { benchGraphValidation, capabilitiesTable } from './capabilities';
import { benchRecovery, benchStepOverhead, benchThroughput, engineTable, recoveryTable, throughputTable } from './engine';
import { benchRankingCost, benchRecallChanges, recallChangesTable } from './recall-changes';
import { benchConsolidationTokens, benchHybridLatency, benchLocomo, benchRecallLatency, memoryTables } from './memory';
import { startPostgres } from '@/test/support/postgres';
import { benchStoreTurn, storeTable } from './store';
import { capacityCurve, capacityTable } from './cluster';
import { benchImagePrep, imagePrepTable, twelveMegapixelPhoto } from './attachments';
import { benchScopedRecall, scopedRecallTable } from './people';
import { benchWebSignIn, webSignInTable } from './web-sign-in';
import { benchProvenance, provenanceTable } from './provenance';
import { allowancesTable, benchAllowances } from './allowances';
import { benchIdleMemory, idleMemoryTable } from './idle-memory';
import { ageTable, benchCycleOverhead, benchIdleHour, benchMemory, benchPromptByAge, mindTables } from './mind';

const quick = process.argv.includes('--quick');
const versions = ['@anthropic-ai/sdk', 'openai', '@anthropic-ai/claude-code', 'next', 'socket.io', 'ai', '@ai-sdk/openai-compatible'].map(
  (name) => `${name} ${(JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version}`,
);

console.log(`# AgentCSD benchmarks — ${new Date().toISOString()}`);
console.log(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`);
console.log(`Versions: ${versions.join(', ')}\n`);
console.log('## Backends: time to first text delta, same fake server, interleaved\n');
console.log(backendsTable(await benchBackends({ samples: quick ? 50 : 400, cliSamples: quick ? 5 : 20 })));

console.log('\n## The reply path: first token and per-token delay against a direct SDK call and the AI SDK, interleaved\n');
const streaming = await benchStreamingPath({
  samples: quick ? 15 : 100,
  loads: [0, 5, 20],
  loadSamples: quick ? 10 : 40,
  tokensPerReply: 40,
  tokensPerSecond: 200,
  firstDeltaDelayMs: 200,
  ports: { ours: 3330, peer: 3331, background: 3332 },
});
console.log(streamingTable(streaming));
console.log('\n### While other sessions cycle continuously in the same server (the peer streams beside them)\n');
console.log(loadTable(streaming));

console.log('\n## Channels: a message from a chat against one from the page; the outbox against a throttling Bot API\n');
console.log(channelsTable(await benchChannels({ samples: quick ? 10 : 40, outboxMessages: 300 })));

console.log('\n## Voice: a voice note on Telegram against the same words typed\n');
console.log(voiceTable(await benchVoice({ samples: quick ? 5 : 15 })));

console.log('\n## Email: a signed mail against a message from the page; replies to the SMTP server\n');
console.log(emailTable(await benchEmail({ samples: quick ? 10 : 30, mails: 300 })));

console.log('\n## Discord: a DM against a message from the page; a 429 storm\n');
console.log(discordTable(await benchDiscord({ samples: quick ? 10 : 30, stormMessages: 100 })));

console.log('\n## Slack: a message in the AI side panel against one from the page, the reply streamed\n');
console.log(slackTable(await benchSlack({ samples: quick ? 10 : 30 })));

console.log('\n## WhatsApp: a message by Meta\'s webhook against one from the page\n');
console.log(whatsappTable(await benchWhatsApp({ samples: quick ? 10 : 30 })));

console.log('\n## Schedules: slot to model call, and 1,000 schedules waiting\n');
console.log(triggersTable(await benchTriggers({ reminders: quick ? 10 : 30, schedules: 1_000, idleMs: quick ? 10_000 : 20_000 })));

console.log('\n## MCP tool search: 10 and 200 tools, with and without search (prompt tokens, cache, first token)\n');
console.log(toolSearchTable(await benchToolSearch()));

console.log('\n## Tools: orchestration per tool step, sandbox start, decision to start\n');
const toolSteps = await benchToolSteps({ steps: 10, turns: quick ? 5 : 30, port: 3333 });
const sandbox = await benchSandboxStart({ samples: quick ? 20 : 100 });
console.log(toolsTables({ steps: toolSteps, sandbox, decision: await benchDecisionToStart({ samples: quick ? 10 : 40, port: 3334 }) }));

console.log('\n## Tasks: orchestration per task step, a 50-step task, tokens per step with the prompt cache\n');
const taskOverhead = await benchTaskOverhead({ steps: 50, runs: quick ? 1 : 5, port: 3335 });
console.log(tasksTables({ overhead: taskOverhead, tokens: await benchTaskTokens({ steps: 10, port: 3336 }) }));

console.log('\n## The hot path against its goals (issue 64), from the figures above\n');
console.log(speedTable({ streaming, toolSteps, sandbox, tasks: taskOverhead }));

console.log('\n## Traces: what OpenTelemetry tracing costs, off and on (issue 65)\n');
console.log(tracingTable(await benchTracingCost({ turns: quick ? 5 : 20, samples: quick ? 10 : 30 })));

console.log('\n## Specialists: what a delegation round trip adds over the specialist\'s own model time\n');
console.log(delegationTable(await benchDelegation({ runs: quick ? 5 : 20, firstTokenMs: 100, port: 3346 })));

console.log('\n## Memory: recall quality on LoCoMo, recall latency, consolidation tokens\n');
// The same recall with the store on PostgreSQL (issue 19), on a server this run starts.
const memoryPostgres = await startPostgres();
console.log(
  memoryTables({
    locomo: await benchLocomo(),
    postgresLocomo: await benchLocomo({ postgresUrl: memoryPostgres.url }),
    // Hybrid quality needs a real embedding model: give its endpoint to measure it.
    hybridLocomo: process.env.AGENTCSD_BENCH_EMBEDDINGS_URL
      ? await benchLocomo({ embedder: createEmbedder({ endpoint: process.env.AGENTCSD_BENCH_EMBEDDINGS_URL, model: process.env.AGENTCSD_BENCH_EMBEDDINGS_MODEL ?? 'nomic-embed-text' }) })
      : null,
    latency: [
      ...(await benchHybridLatency({ size: 10_000, queries: quick ? 50 : 200 })),
      await benchRecallLatency({ size: 10_000, queries: quick ? 50 : 200, postgresUrl: memoryPostgres.url }),
      ...(quick ? [] : [await benchRecallLatency({ size: 100_000, queries: 200 }), await benchRecallLatency({ size: 100_000, queries: 200, postgresUrl: memoryPostgres.url })]),
    ],
    consolidation: await benchConsolidationTokens(),
  }),
);
console.log('\n## Recall, change by change: what was said ranked as a conversation (issue 49)\n');
console.log(
  recallChangesTable(
    await benchRecallChanges({ postgresUrl: memoryPostgres.url }),
    await benchRankingCost({ postgresUrl: memoryPostgres.url, queries: quick ? 50 : 200, quick }),
  ),
);
console.log('\n## People: recall scoped to one person\'s conversation beside the persona\'s all\n');
console.log(
  scopedRecallTable([
    await benchScopedRecall({ size: 10_000, people: 50, queries: quick ? 50 : 200 }),
    await benchScopedRecall({ size: 10_000, people: 50, queries: quick ? 50 : 200, postgresUrl: memoryPostgres.url }),
  ]),
);

console.log('\n## Backups: time and size for 100k messages on each store, and the reply path while one runs (issue 63)\n');
console.log(
  backupTables(
    [await benchBackupSize({ messages: 100_000, runs: quick ? 1 : 3 }), await benchBackupSize({ messages: 100_000, runs: quick ? 1 : 3, postgresUrl: memoryPostgres.url })],
    await benchFirstTokenDuringBackup({ samples: quick ? 6 : 20, messages: 100_000 }),
  ),
);

console.log('\n## People on the web: a signed-in person against the owner\'s token path, and a passkey sign-in (issue 61)\n');
console.log(webSignInTable(await benchWebSignIn({ samples: quick ? 200 : 1_000 })));
console.log('\n## Provenance: the untrusted checks of a turn and of an outbound step (issue 44)\n');
console.log(
  provenanceTable([
    await benchProvenance({ size: 10_000, queries: quick ? 50 : 200 }),
    await benchProvenance({ size: 10_000, queries: quick ? 50 : 200, postgresUrl: memoryPostgres.url }),
  ]),
);
console.log('\n## Allowances: the check per model call (issue 48)\n');
console.log(allowancesTable([await benchAllowances({ calls: quick ? 100 : 500 }), await benchAllowances({ calls: quick ? 100 : 500, postgresUrl: memoryPostgres.url })]));
console.log('\n## The store: SQLite and PostgreSQL side by side (a turn\'s writes)\n');
console.log(storeTable([await benchStoreTurn({ turns: quick ? 100 : 500 }), await benchStoreTurn({ turns: quick ? 100 : 500, postgresUrl: memoryPostgres.url })]));
await memoryPostgres.stop();

console.log('\n## Capabilities: validating a 1,000-node agent graph\n');
console.log(capabilitiesTable(benchGraphValidation({ size: 1_000, runs: quick ? 50 : 200 })));

console.log('\n## Execution engines: per-step overhead, in-memory and DBOS on PostgreSQL\n');
console.log(engineTable(await benchStepOverhead({ steps: 200, runs: quick ? 3 : 10 })));
console.log('');
console.log(recoveryTable(await benchRecovery({ rounds: quick ? 1 : 5 })));
console.log('');
const throughputOptions = { runs: 24, steps: 4, stepMs: 60, repetitions: quick ? 1 : 3 };
console.log(throughputTable(await benchThroughput(throughputOptions), throughputOptions));

console.log('\n## More processes: the capacity curve (one, two, three processes on this machine)\n');
console.log(capacityTable(await capacityCurve({ processes: [1, 2, 3], loads: quick ? [0, 20] : [0, 50, 100, 200, 400], probes: quick ? 10 : 30, windowMs: quick ? 5_000 : 30_000, messageEveryMs: 10_000 })));

console.log('\n## Attachments: a 12-megapixel photo made ready for a model\n');
console.log(imagePrepTable(await benchImagePrep({ samples: quick ? 5 : 20 })));

console.log('\n## An idle production server: resident memory with no session and with idle sessions\n');
console.log(idleMemoryTable(await benchIdleMemory({ sessions: 20, port: 3347 })));

console.log('\n## The mind: cycle overhead, memory, idle-hour tokens\n');
const overhead = await benchCycleOverhead({ blockSize: 50, blocks: quick ? 4 : 20, storedMessages: 10_000 });
const memory = await benchMemory({ cycles: quick ? 2_000 : 10_000 });
const idle = [await benchIdleHour('continuous'), await benchIdleHour('adaptive')];
console.log(mindTables({ overhead, memory, idle }));

console.log('\n## Anthropic prompt caching: a simulated 90 minutes (45 talking, 45 idle), steady state after minute 10\n');
const minutes = quick ? { talk: 20, idle: 10 } : { talk: 45, idle: 45 };
console.log(
  cacheTable([
    // The catalog's current models: a benchmark never runs on one the provider is retiring.
    await benchPromptCache({ label: 'default window (200k)', sModel: defaultModelIds.anthropic!.s_model, minutes }),
    await benchPromptCache({ label: '16k window', sModel: defaultModelIds.anthropic!.s_model, sContextWindow: 16_384, minutes }),
    // Issue 33: 20 messages, every 4th with a 12-megapixel photo (5 images), then 10 idle minutes; every call counted.
    await benchPromptCache({ label: '20 turns, 5 photos', sModel: defaultModelIds.anthropic!.s_model, minutes: { talk: 30, idle: 10 }, photos: { bytes: await twelveMegapixelPhoto(), every: 4 }, countFromMinute: 0 }),
    await benchPromptCache({ label: '20 turns, no photos', sModel: defaultModelIds.anthropic!.s_model, minutes: { talk: 30, idle: 10 }, countFromMinute: 0 }),
    // Issue 34: the same 20 turns with 30 skills installed (their list in the cached system prompt).
    await benchPromptCache({ label: '20 turns, 30 skills', sModel: defaultModelIds.anthropic!.s_model, minutes: { talk: 30, idle: 10 }, countFromMinute: 0, skills: 30 }),
  ]),
);

console.log('\n### Prompt assembly and size against session age (8,192-token window, summaries every 10 cycles)\n');
console.log(ageTable(await benchPromptByAge(quick ? [100, 1_000] : [100, 1_000, 10_000])));

console.log('\n## The session page in Chromium: opening at 10,000 messages, token to paint\n');
console.log(browserTable(await benchBrowser({ openSamples: quick ? 4 : 12, turns: quick ? 2 : 5, tokensPerTurn: 200 })));
console.log('\n## The agent\'s browser: open → snapshot against Playwright directly, cold start, memory (issue 45)\n');
console.log(agentBrowserTable(await benchAgentBrowser({ samples: quick ? 10 : 40 })));
