'use client';

interface ServerFields {
  host: string;
  port: number;
  tls: boolean;
  user: string;
  password: string;
}

export interface EmailFieldsValue {
  address: string;
  imap: ServerFields & { folder: string };
  smtp: ServerFields;
}

/** The form's starting values: the saved channel's (passwords never come back), else Gmail-like defaults. */
export function emailFieldsFrom(config: Record<string, unknown>): EmailFieldsValue {
  const imap = (config.imap ?? {}) as Partial<EmailFieldsValue['imap']>;
  const smtp = (config.smtp ?? {}) as Partial<EmailFieldsValue['smtp']>;
  return {
    address: String(config.address ?? ''),
    imap: { host: imap.host ?? '', port: imap.port ?? 993, tls: imap.tls ?? true, user: imap.user ?? '', password: '', folder: imap.folder ?? 'INBOX' },
    smtp: { host: smtp.host ?? '', port: smtp.port ?? 465, tls: smtp.tls ?? true, user: smtp.user ?? '', password: '' },
  };
}

/** What the API takes: SMTP signs in as the IMAP account unless told otherwise (one app password serves both). */
export function emailConfigBody(value: EmailFieldsValue, sameAccount: boolean) {
  const address = value.address.trim();
  const imap = { ...value.imap, host: value.imap.host.trim(), user: value.imap.user.trim() || address, folder: value.imap.folder.trim() || 'INBOX' };
  const smtp = sameAccount ? { ...value.smtp, host: value.smtp.host.trim(), user: imap.user, password: imap.password } : { ...value.smtp, host: value.smtp.host.trim(), user: value.smtp.user.trim() || address };
  return { address, imap, smtp };
}

const secretHint = (value: unknown) => (value ? `(set, ${String(value)}; leave empty to keep)` : '');

function ServerInputs({ label, value, onChange, savedPassword, withAccount }: { label: 'IMAP' | 'SMTP'; value: ServerFields; onChange: (next: ServerFields) => void; savedPassword: unknown; withAccount: boolean }) {
  return (
    <fieldset className="grid gap-2 rounded border border-zinc-200 p-2 sm:grid-cols-4 dark:border-zinc-800">
      <legend className="px-1 text-sm font-medium">{label === 'IMAP' ? 'Incoming mail (IMAP)' : 'Outgoing mail (SMTP submission)'}</legend>
      <label className="flex flex-col text-sm sm:col-span-2">
        Server
        <input className="field" value={value.host} onChange={(event) => onChange({ ...value, host: event.target.value })} placeholder={label === 'IMAP' ? 'imap.gmail.com' : 'smtp.gmail.com'} />
      </label>
      <label className="flex flex-col text-sm">
        Port
        <input className="field" type="number" min={1} max={65535} value={value.port} onChange={(event) => onChange({ ...value, port: Number(event.target.value) })} />
      </label>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={value.tls} onChange={(event) => onChange({ ...value, tls: event.target.checked })} /> TLS
      </label>
      {withAccount && (
        <>
          <label className="flex flex-col text-sm sm:col-span-2">
            User
            <input className="field" value={value.user} onChange={(event) => onChange({ ...value, user: event.target.value })} placeholder="the mail address, usually" autoComplete="off" />
          </label>
          <label className="flex flex-col text-sm sm:col-span-2">
            App password {secretHint(savedPassword)}
            <input className="field" type="password" autoComplete="new-password" value={value.password} onChange={(event) => onChange({ ...value, password: event.target.value })} />
          </label>
        </>
      )}
    </fieldset>
  );
}

/** An email channel's settings: the agent's address, where its mail is read, how it is sent. Passwords are write-only. */
export function EmailChannelFields({ value, onChange, saved, sameAccount, onSameAccount }: { value: EmailFieldsValue; onChange: (next: EmailFieldsValue) => void; saved: Record<string, unknown>; sameAccount: boolean; onSameAccount: (same: boolean) => void }) {
  const savedImap = (saved.imap ?? {}) as Record<string, unknown>;
  const savedSmtp = (saved.smtp ?? {}) as Record<string, unknown>;
  return (
    <div className="space-y-2">
      <p className="text-xs text-zinc-500">
        Use an app password, not the account&apos;s own (Gmail: Google Account › Security › App passwords; Fastmail: Settings › Privacy &amp; Security › App passwords). Only mail signed by the sender&apos;s domain (DKIM) is read; anything else gets a short
        reply saying why.
      </p>
      <label className="flex flex-col text-sm">
        The agent&apos;s address
        <input className="field" type="email" value={value.address} onChange={(event) => onChange({ ...value, address: event.target.value })} placeholder="assistant@example.com" />
      </label>
      <ServerInputs label="IMAP" value={value.imap} onChange={(imap) => onChange({ ...value, imap: { ...value.imap, ...imap } })} savedPassword={savedImap.password} withAccount />
      <label className="flex flex-col text-sm">
        Folder read
        <input className="field" value={value.imap.folder} onChange={(event) => onChange({ ...value, imap: { ...value.imap, folder: event.target.value } })} />
      </label>
      <ServerInputs label="SMTP" value={value.smtp} onChange={(smtp) => onChange({ ...value, smtp })} savedPassword={savedSmtp.password} withAccount={!sameAccount} />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={sameAccount} onChange={(event) => onSameAccount(event.target.checked)} /> SMTP signs in with the IMAP user and password
      </label>
    </div>
  );
}
