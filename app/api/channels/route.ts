import { randomUUID } from 'node:crypto';
import { handle, readJsonBody } from '@/lib/http/route-helpers';
import { getOrchestrator } from '@/lib/orchestrator/orchestrator';
import { channelInputSchema, mergeChannelConfig } from '@/lib/channels/channel-config';
import { describeChannel } from '@/lib/http/channel-json';
import { findChannel, listChannels, saveChannel } from '@/lib/store/channels-repository';
import { ApiError } from '@/lib/http/api-error';
import type { EmailConfig } from '@/lib/channels/email-config';
import type { SlackConfig } from '@/lib/channels/slack-config';
import type { WhatsAppConfig } from '@/lib/channels/whatsapp-config';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  return Response.json({ channels: await Promise.all((await listChannels()).map(describeChannel)) });
});

/** Adds a channel (no id) or changes one; secrets left empty or masked keep the stored ones. It (re)connects at once. */
export const PUT = handle(async (request) => {
  const input = await readJsonBody(request, channelInputSchema);
  const previous = input.id ? await findChannel(input.id) : null;
  if (input.id && !previous) throw new ApiError('not_found', `No channel ${input.id}`);
  if (previous && previous.kind !== input.kind) throw new ApiError('conflict', `Channel ${input.id} is a ${previous.kind} channel; add a new one for ${input.kind}`);
  const id = input.id ?? randomUUID();
  const config = mergeChannelConfig({ ...input, id }, previous);
  if (input.kind === 'telegram' && !(config as { token: string }).token) throw new ApiError('validation_failed', 'Invalid body: config.token is required (from @BotFather)');
  if (input.kind === 'discord' && !(config as { token: string }).token) throw new ApiError('validation_failed', 'Invalid body: config.token is required (the Developer Portal › Bot › Reset Token)');
  if (input.kind === 'slack') {
    const missing = (['app_token', 'bot_token'] as const).find((field) => !(config as SlackConfig)[field]);
    if (missing) throw new ApiError('validation_failed', `Invalid body: config.${missing} is required (docs/channels.md › Slack says where Slack shows it)`);
  }
  if (input.kind === 'whatsapp') {
    const missing = (['access_token', 'app_secret'] as const).find((field) => !(config as WhatsAppConfig)[field]);
    if (missing) throw new ApiError('validation_failed', `Invalid body: config.${missing} is required (docs/channels.md › WhatsApp says where Meta shows it)`);
  }
  if (input.kind === 'email') {
    const missing = (['imap', 'smtp'] as const).filter((part) => !(config as EmailConfig)[part].password);
    if (missing.length > 0) throw new ApiError('validation_failed', `Invalid body: config.${missing[0]}.password is required (an app password of the mail account)`);
  }
  const channel = await saveChannel({ id, kind: input.kind, name: input.name, enabled: input.enabled, config });
  await getOrchestrator().channels?.reload(channel.id);
  return Response.json(await describeChannel(channel), { status: previous ? 200 : 201 });
});
