// A real IMAP server for the email channel's tests (issue 47): Debian's Dovecot (.ci/run installs
// dovecot-imapd) on a loopback port with a temporary configuration — static passwords, maildirs
// in a temporary home owned by nobody, no TLS — started and stopped by the test. A test "delivers"
// a mail by IMAP APPEND to a user's INBOX, as a mail server would.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort, listening } from './loopback-ports';

export const dovecotPath = ['/usr/sbin/dovecot'].find((candidate) => fs.existsSync(candidate)) ?? null;

export interface TestImapServer {
  port: number;
  password: string;
  /** Puts a raw RFC 5322 message into the user's INBOX (or another folder), as delivery would. */
  deliver(user: string, raw: string, folder?: string): Promise<void>;
  /** Kills the server (every client sees its connection drop), and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const NOBODY = { uid: 65534, gid: 65534 };

export async function startDovecot(): Promise<TestImapServer> {
  if (!dovecotPath) throw new Error('Dovecot is not installed (apt-get install dovecot-imapd; .ci/run does it)');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'agentcsd-dovecot-'));
  fs.chmodSync(folder, 0o755);
  const home = path.join(folder, 'home');
  fs.mkdirSync(home, { mode: 0o755 });
  fs.chownSync(home, NOBODY.uid, NOBODY.gid);
  const port = await freePort();
  const password = 'app-password-1234';
  const config = path.join(folder, 'dovecot.conf');
  fs.writeFileSync(
    config,
    [
      'protocols = imap',
      'listen = 127.0.0.1',
      `base_dir = ${folder}/run`,
      `state_dir = ${folder}/state`,
      `log_path = ${folder}/dovecot.log`,
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      `passdb {\n  driver = static\n  args = password=${password}\n}`,
      `userdb {\n  driver = static\n  args = uid=nobody gid=nogroup home=${home}/%u\n}`,
      'mail_location = maildir:~/Maildir',
      `service imap-login {\n  chroot =\n  inet_listener imap {\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
      'service anvil {\n  chroot =\n}',
      'protocol imap {\n  imap_idle_notify_interval = 1 secs\n}',
      '',
    ].join('\n'),
  );
  const start = async () => {
    execFileSync(dovecotPath, ['-c', config], { stdio: 'ignore' }); // it forks: no pipe may stay open
    await listening(port, Date.now() + 10_000, 'Dovecot').catch((error: Error) => {
      throw new Error(`${error.message}: ${fs.existsSync(`${folder}/dovecot.log`) ? fs.readFileSync(`${folder}/dovecot.log`, 'utf8').slice(-2_000) : ''}`);
    });
  };
  const stopServer = () => {
    try {
      execFileSync(dovecotPath, ['-c', config, 'stop'], { stdio: 'ignore' });
    } catch {
      // already stopped
    }
  };
  await start();
  return {
    port,
    password,
    async deliver(user, raw, mailbox = 'INBOX') {
      const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false });
      await client.connect();
      try {
        if (mailbox !== 'INBOX') await client.mailboxCreate(mailbox).catch(() => undefined);
        await client.append(mailbox, raw);
      } finally {
        await client.logout();
      }
    },
    async restart() {
      stopServer();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await start();
    },
    async stop() {
      stopServer();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
