// Issue 41 §1, §2, §5: who a sender is and how sure the app can be — pure decisions.
import { describe, expect, it } from 'vitest';
import { deliveryAddress, isWeakIdentity, pairingOrigin } from './channel-identity';
import { holderIsTarget, parseIrcAddress } from './irc-channel';

describe('IRC identities', () => {
  it('an account is strong; a mask, whatever its ident, is weak; Telegram is not IRC', () => {
    expect(isWeakIdentity('irc:alice/alice')).toBe(false);
    expect(isWeakIdentity('irc:alice!~alice@127.0.0.1')).toBe(true);
    expect(isWeakIdentity('irc:alice!alice@host.example')).toBe(true);
    expect(isWeakIdentity('telegram:12345')).toBe(false);
  });

  it('deliveries go to the identity, not the nick', () => {
    expect(deliveryAddress({ sender: 'irc:alice!~alice@127.0.0.1', address: 'alice' })).toBe('alice!~alice@127.0.0.1');
    expect(deliveryAddress({ sender: 'telegram:12345', address: '12345' })).toBe('12345');
    expect(parseIrcAddress('alice!~alice@127.0.0.1')).toEqual({ nick: 'alice', ident: '~alice', host: '127.0.0.1' });
    expect(parseIrcAddress('alice/alice-account')).toEqual({ nick: 'alice', account: 'alice-account' });
    expect(parseIrcAddress('alice')).toBeNull(); // a pairing from before: cannot be verified
  });

  it('only the paired identity holds the nick: the mask exactly, or the account', () => {
    const masked = parseIrcAddress('alice!~alice@127.0.0.1')!;
    expect(holderIsTarget(masked, { nick: 'Alice', ident: '~alice', hostname: '127.0.0.1' })).toBe(true);
    expect(holderIsTarget(masked, { nick: 'alice', ident: '~mallory', hostname: '127.0.0.1' })).toBe(false);
    expect(holderIsTarget(masked, { nick: 'alice', ident: '~alice', hostname: '10.0.0.9' })).toBe(false);
    expect(holderIsTarget(masked, { nick: 'alice', error: 'not_found' })).toBe(false);
    const account = parseIrcAddress('alice/alice')!;
    expect(holderIsTarget(account, { nick: 'alice', ident: '~x', hostname: 'anywhere', account: 'alice' })).toBe(true);
    expect(holderIsTarget(account, { nick: 'alice', ident: '~alice', hostname: '127.0.0.1' })).toBe(false); // no account now
    expect(holderIsTarget(account, { nick: 'alice', account: 'mallory' })).toBe(false);
  });

  it('strangers are counted by host or account on IRC, by sender elsewhere', () => {
    expect(pairingOrigin('irc:spam1!~x@10.1.1.1')).toBe(pairingOrigin('irc:spam2!~y@10.1.1.1'));
    expect(pairingOrigin('irc:spam1!~x@10.1.1.1')).not.toBe(pairingOrigin('irc:ana!~ana@10.1.1.2'));
    expect(pairingOrigin('irc:a/acct')).toBe(pairingOrigin('irc:b/ACCT'));
    expect(pairingOrigin('telegram:1')).not.toBe(pairingOrigin('telegram:2'));
  });
});
