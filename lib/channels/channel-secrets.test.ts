// Every channel's secrets sealed alike (red-team round 4): a new one sealed, a masked one kept, a
// plain one saved before sealing read as it is and sealed by sealedLegacyConfig, one mask, one scrubber.
import { describe, expect, it } from 'vitest';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { openChannelConfig, publicChannelConfig, sealedLegacyConfig, type IrcConfig, type TelegramConfig } from './channel-config';
import { isSealed, keepOrSeal, MASK, maskedSecret, openSecret, scrubSecret } from './channel-secrets';

useTempAppDirs();
const TOKEN = '123456789:AAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('channel secrets', () => {
  it('a new secret is sealed for its channel and field; the mask or nothing keeps the stored one', () => {
    const sealed = keepOrSeal('c1', 'token', TOKEN, undefined);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(TOKEN.slice(10));
    expect(openSecret('c1', 'token', sealed)).toBe(TOKEN);
    expect(openSecret('c2', 'token', sealed)).toBe(''); // bound to its channel: another row's value opens nothing
    expect(keepOrSeal('c1', 'token', `${MASK}bbbb`, sealed)).toBe(sealed);
    expect(keepOrSeal('c1', 'token', '', sealed)).toBe(sealed);
    expect(maskedSecret('c1', 'token', sealed)).toMatch(/^••••.{4}$/);
    expect(scrubSecret(`GET /bot${TOKEN}/getMe failed`, TOKEN)).toBe('GET /bot•••/getMe failed');
  });

  it('a Telegram token or IRC password saved in plain text before is read as it is, then sealed at start', () => {
    const telegram = { id: 't1', kind: 'telegram' as const, config: { token: TOKEN, api_root: 'https://api.telegram.org' } as TelegramConfig };
    expect(openChannelConfig('t1', 'telegram', telegram.config).token).toBe(TOKEN);
    const sealed = sealedLegacyConfig(telegram)!;
    expect(isSealed(sealed.token as string)).toBe(true);
    expect(openChannelConfig('t1', 'telegram', sealed as TelegramConfig).token).toBe(TOKEN);
    expect(sealedLegacyConfig({ ...telegram, config: sealed as TelegramConfig })).toBeNull(); // once
    const irc = { id: 'i1', kind: 'irc' as const, config: { host: 'irc.example', port: 6697, tls: true, nick: 'iris', password: 'hunter2222' } as unknown as IrcConfig };
    const ircSealed = sealedLegacyConfig(irc)!;
    expect(JSON.stringify(ircSealed)).not.toContain('hunter2222');
    expect(openChannelConfig('i1', 'irc', ircSealed as unknown as IrcConfig).password).toBe('hunter2222');
    const shown = publicChannelConfig({ ...irc, config: ircSealed, name: 'x', enabled: true, createdAt: new Date(), updatedAt: new Date() } as never);
    expect(shown.password).toBe('••••2222');
  });
});
