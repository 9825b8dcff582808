// The email channel's IMAP server harness (issue 47): a real Dovecot on loopback, IDLE included —
// an APPEND by "delivery" reaches a client waiting in IDLE, and survives a restart of the server.
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDovecot, type TestImapServer } from '@/test/support/dovecot';

let imap: TestImapServer;
beforeAll(async () => {
  imap = await startDovecot();
}, 30_000);
afterAll(() => imap?.stop());

const mail = (subject: string) => `From: Ada <ada@example.org>\r\nTo: agent@example.org\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@example.org>\r\nDate: ${new Date().toUTCString()}\r\n\r\nHello from ${subject}.\r\n`;

describe('the Dovecot harness', () => {
  it('a client in IDLE hears a delivered mail; after a restart the mail is still there', async () => {
    const client = new ImapFlow({ host: '127.0.0.1', port: imap.port, secure: false, auth: { user: 'agent', pass: imap.password }, logger: false });
    await client.connect();
    const lock = await client.getMailboxLock('INBOX');
    const heard = new Promise<number>((resolve) => client.on('exists', (data: { count: number }) => resolve(data.count)));
    const idle = client.idle();
    await imap.deliver('agent', mail('first'));
    expect(await heard).toBe(1);
    lock.release();
    await client.logout().catch(() => undefined);
    void idle.catch(() => undefined);
    await imap.restart();
    const again = new ImapFlow({ host: '127.0.0.1', port: imap.port, secure: false, auth: { user: 'agent', pass: imap.password }, logger: false });
    await again.connect();
    const box = await again.mailboxOpen('INBOX');
    expect(box.exists).toBe(1);
    const [message] = await again.fetchAll('1:*', { envelope: true, uid: true });
    expect(message!.envelope!.subject).toBe('first');
    await again.logout();
  }, 30_000);
});
