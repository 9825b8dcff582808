// A Discord bot on discord.js 14 (issue 47, ARCHITECTURE §25). Direct messages are the
// conversation; the guild channels the owner picks are groups (channel-groups.ts: joined with
// `/join <persona>`, answering when mentioned or replied to). Slash commands /status, /pause,
// /resume, /stop and /new are the chat commands. Replies keep their Markdown (Discord renders it),
// split at 2,000 characters, with mentions disarmed; a card carries buttons whose custom ids are
// signed per channel (card-callback.ts), and a press decides only the card sent to that person's
// own chat. discord.js's REST queue honours rate limits (429 retry_after, buckets); the outbox keeps
// the order. The Gateway resumes after a drop; a bad token stops with the reason.
import { scrubSecret } from './channel-secrets';
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, Client, DiscordAPIError, Events, GatewayIntentBits, MessageFlags, Partials, REST, Routes, SlashCommandBuilder, type Interaction, type Message } from 'discord.js';
import type { OutboxPayload } from '@/lib/store/channels-repository';
import { ChannelSendError, type ChannelAdapter, type InboundHandlers } from './channel-types';
import type { DiscordConfig } from './discord-config';
import { signCallback } from './card-callback';
import { discordVoice } from './discord-files';
import { toDiscordMessages } from './format';

const RETRY_MS = [1_000, 5_000, 15_000, 30_000, 60_000];
/** GATEWAY_MESSAGE_CONTENT and its limited form: the application may read what guild messages say. */
const MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19);

const COMMANDS = [
  new SlashCommandBuilder().setName('status').setDescription('What the session is doing'),
  new SlashCommandBuilder().setName('pause').setDescription('Pause the session'),
  new SlashCommandBuilder().setName('resume').setDescription('Resume the session'),
  new SlashCommandBuilder().setName('stop').setDescription('Stop the reply being written'),
  new SlashCommandBuilder()
    .setName('new')
    .setDescription('Start a new session')
    .addStringOption((option) => option.setName('persona').setDescription('The persona (default: this chat’s)').setRequired(false)),
].map((command) => command.toJSON());

export class DiscordChannel implements ChannelAdapter {
  private client: Client | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly channelId: string,
    private readonly config: DiscordConfig,
  ) {}

  /** Any text from the provider, with the token taken out. */
  private scrub(text: string): string {
    return scrubSecret(text, this.config.token);
  }

  async test(): Promise<string> {
    if (!this.config.token) throw new Error('the token cannot be opened (sealed under another secret key, or never set): enter it again');
    const rest = new REST({ api: this.config.api_root }).setToken(this.config.token);
    try {
      const me = (await rest.get(Routes.user())) as { username: string };
      const application = (await rest.get(Routes.currentApplication()).catch(() => null)) as { flags?: number } | null;
      const content = application?.flags === undefined ? '' : (application.flags & MESSAGE_CONTENT_FLAGS) !== 0 ? '; Message Content intent on' : '; Message Content intent OFF — guild messages arrive empty (Developer Portal › Bot › Privileged Gateway Intents)';
      return `@${me.username}${content}`;
    } catch (error) {
      throw new Error(this.scrub(describe(error)));
    }
  }

  async start(handlers: InboundHandlers): Promise<void> {
    this.stopped = false;
    void this.login(handlers, 0);
  }

  private async login(handlers: InboundHandlers, failures: number): Promise<void> {
    if (this.stopped) return;
    handlers.state({ kind: 'connecting' });
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent],
      partials: [Partials.Channel],
      rest: { api: this.config.api_root },
      allowedMentions: { parse: [] },
    });
    this.client = client;
    client.once(Events.ClientReady, (ready) => {
      handlers.state({ kind: 'connected', detail: `@${ready.user.username}` });
      ready.application.commands.set(COMMANDS).catch((error: unknown) => console.error('[channels] discord: slash commands not registered:', this.scrub(describe(error))));
    });
    client.on(Events.ShardDisconnect, () => handlers.state({ kind: 'connecting', reason: 'the Gateway connection closed' }));
    client.on(Events.ShardReconnecting, () => handlers.state({ kind: 'connecting', reason: 'reconnecting to the Gateway' }));
    client.on(Events.ShardResume, () => handlers.state({ kind: 'connected', detail: `@${client.user?.username ?? ''}` }));
    client.on(Events.Error, (error) => console.error('[channels] discord:', this.scrub(error.message)));
    client.on(Events.MessageCreate, (message) => void this.onMessage(client, message, handlers).catch((error: unknown) => console.error('[channels] discord message failed:', this.scrub(describe(error)))));
    client.on(Events.InteractionCreate, (interaction) => void this.onInteraction(interaction, handlers).catch((error: unknown) => console.error('[channels] discord interaction failed:', this.scrub(describe(error)))));
    try {
      await client.login(this.config.token);
    } catch (error) {
      void client.destroy();
      if (this.stopped) return;
      const reason = this.scrub(describe(error));
      // A refused token never starts working by itself: it waits for the owner.
      if (/TokenInvalid|invalid token|401|4004|Authentication failed/i.test(reason)) return handlers.state({ kind: 'failed', reason: `the bot token was refused (${reason})` });
      const waitMs = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
      handlers.state({ kind: 'connecting', retryAt: new Date(Date.now() + waitMs).toISOString(), reason });
      this.retryTimer = setTimeout(() => void this.login(handlers, failures + 1), waitMs);
    }
  }

  private async onMessage(client: Client, message: Message, handlers: InboundHandlers): Promise<void> {
    const me = client.user;
    if (!me || message.author.bot || message.webhookId || message.system) return;
    const sender = `discord:${message.author.id}`;
    const senderName = `@${message.author.username}`;
    const replyTo = message.reference?.messageId;
    if (!message.guildId) {
      // A voice message (or an audio file) in a DM is heard (issue 76 §2).
      const voice = await discordVoice(message, this.config.api_root);
      return handlers.message({ sender, senderName, address: `user:${message.author.id}`, text: message.content, ...(replyTo && { replyTo }), ...(voice && { voice }) });
    }
    if (!this.config.guild_channels.includes(message.channelId)) return; // a channel the owner did not pick
    const addressed = message.mentions.users.has(me.id) || message.mentions.repliedUser?.id === me.id;
    const title = 'name' in message.channel && typeof message.channel.name === 'string' ? `#${message.channel.name}` : `#${message.channelId}`;
    await handlers.message({
      sender,
      senderName,
      address: `channel:${message.channelId}`,
      text: message.content.replace(new RegExp(`<@!?${me.id}>\\s*`, 'g'), '').trim(),
      group: { id: `channel:${message.channelId}`, title, addressed },
      ...(replyTo && { replyTo }),
    });
  }

  private async onInteraction(interaction: Interaction, handlers: InboundHandlers): Promise<void> {
    const sender = `discord:${interaction.user.id}`;
    const inGuild = Boolean(interaction.guildId);
    if (inGuild && !this.config.guild_channels.includes(interaction.channelId ?? '')) return;
    const address = inGuild ? `channel:${interaction.channelId}` : `user:${interaction.user.id}`;
    if (interaction.isButton()) {
      return handlers.button({ sender, address, data: interaction.customId, answer: async (text) => void (await interaction.reply({ content: text, flags: MessageFlags.Ephemeral })) });
    }
    if (!interaction.isChatInputCommand()) return;
    const persona = interaction.options.getString('persona');
    const text = `/${interaction.commandName}${persona ? ` ${persona}` : ''}`;
    // Acknowledged at once (Discord waits 3 s); the answer comes as the chat's next message.
    await interaction.reply({ content: `${text} — the answer follows.`, flags: MessageFlags.Ephemeral });
    await handlers.message({ sender, senderName: `@${interaction.user.username}`, address, text, ...(inGuild && { group: { id: address, title: `#${interaction.channelId}`, addressed: true } }) });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.destroy();
  }

  async send(address: string, payload: OutboxPayload & { outboxId: number }): Promise<string | null> {
    const client = this.client;
    if (!client?.isReady()) throw new ChannelSendError('not connected to Discord', 5_000);
    const [kind, id] = [address.slice(0, address.indexOf(':')), address.slice(address.indexOf(':') + 1)];
    if (kind === 'channel' && payload.card) throw new ChannelSendError('a card is never sent to a guild channel', null, true);
    const parts = toDiscordMessages(payload.text);
    let first: string | null = null;
    for (const [index, content] of parts.entries()) {
      try {
        const target = kind === 'user' ? await client.users.createDM(id) : await client.channels.fetch(id);
        if (!target || !('send' in target) || typeof target.send !== 'function') throw new ChannelSendError(`no channel ${address} to write to`, null, true);
        const last = index === parts.length - 1;
        const sent = await target.send({ content: content || ' ', allowedMentions: { parse: [] }, ...(payload.card && last && { components: [this.cardButtons(payload.outboxId)] }) });
        first ??= sent.id;
      } catch (error) {
        if (error instanceof ChannelSendError) throw error;
        const status = error instanceof DiscordAPIError ? error.status : 0;
        const reason = this.scrub(describe(error));
        // Part of it is out: sent again later it would repeat that part, so the rest is given up.
        if (index > 0) throw new ChannelSendError(`${index} of ${parts.length} messages sent; the rest not: ${reason}`, null, true);
        // 4xx (not 429, which discord.js waits out): the user blocks DMs, the channel is gone — never.
        throw new ChannelSendError(reason, status >= 400 && status < 500 ? null : 15_000, status >= 400 && status < 500);
      }
    }
    return first;
  }

  private cardButtons(outboxId: number) {
    const secret = this.config.callback_secret ?? '';
    const button = (label: string, decision: 'approve' | 'always' | 'deny', style: ButtonStyle) => new ButtonBuilder().setLabel(label).setStyle(style).setCustomId(signCallback(secret, this.channelId, outboxId, decision));
    return new ActionRowBuilder<ButtonBuilder>().addComponents(button('Approve', 'approve', ButtonStyle.Success), button('Always for this session', 'always', ButtonStyle.Primary), button('Deny', 'deny', ButtonStyle.Danger));
  }
}

function describe(error: unknown): string {
  if (error instanceof DiscordAPIError) return `${error.status} ${error.message}`;
  return error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : String(error);
}
