// Who a chat's sender is, and how sure the app can be (issue 41 §1, §2, §5). A Telegram id is
// given by Telegram; on IRC, an account (SASL, services) is the network's word, but a bare
// `nick!ident@host` is chosen by the client: on a shared host or behind NAT anyone can wear it.
// Such a binding is *weak*: it converses, but cards are never sent to it nor decided from it (the
// owner decides on the page). Deliveries on IRC go to the identity, not the nick (the adapter
// checks at send time who holds the nick), and strangers' pairing codes are limited by where they
// come from — a host or an account — since one connection can change nick at will.
import type { BindingRecord } from '@/lib/store/channels-repository';

const IRC_ACCOUNT = /^irc:[^/!@\s]+\/[^/!@\s]+$/;

/** An IRC sender paired without an account: its mask proves nothing. */
export function isWeakIdentity(sender: string): boolean {
  return sender.startsWith('irc:') && !IRC_ACCOUNT.test(sender);
}

/** Why a weak binding gets no cards, in the words a person reads. */
export const WEAK_IDENTITY_REASON = 'this IRC identity has no account (SASL or services), so a nick!ident@host is all that says it is you — anyone on the same host could take it';

/** Where messages for a binding go: an IRC binding's identity (delivered only to it), else its address. */
export function deliveryAddress(binding: Pick<BindingRecord, 'sender' | 'address'>): string {
  return binding.sender.startsWith('irc:') ? binding.sender.slice('irc:'.length) : binding.address;
}

/** What strangers' open pairings are counted by: an IRC host or account, else the sender itself. */
export function pairingOrigin(sender: string): string {
  if (!sender.startsWith('irc:')) return sender;
  if (IRC_ACCOUNT.test(sender)) return `irc-account:${sender.slice(sender.indexOf('/') + 1).toLowerCase()}`;
  return `irc-host:${sender.slice(sender.lastIndexOf('@') + 1).toLowerCase()}`;
}
