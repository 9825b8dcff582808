'use client';

// A WhatsApp Business number on Meta's Cloud API (issue 77 §7): the steps in Meta's dashboard, the
// ids and secrets it shows (write-only here), the webhook address and verify token to paste back
// into it (Copy), and the template for words outside WhatsApp's 24-hour window.
import { useState } from 'react';

export interface WhatsAppFieldsValue {
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  apiRoot: string;
  templateName: string;
  templateLanguage: string;
}

export function whatsappFieldsFrom(config: Record<string, unknown>): WhatsAppFieldsValue {
  const template = config.template as { name?: string; language?: string } | null | undefined;
  return {
    phoneNumberId: String(config.phone_number_id ?? ''),
    accessToken: '',
    appSecret: '',
    verifyToken: String(config.verify_token ?? ''),
    apiRoot: String(config.api_root ?? 'https://graph.facebook.com'),
    templateName: template?.name ?? '',
    templateLanguage: template?.language ?? 'en',
  };
}

export function whatsappConfigBody(value: WhatsAppFieldsValue) {
  return {
    phone_number_id: value.phoneNumberId.trim(),
    access_token: value.accessToken,
    app_secret: value.appSecret,
    verify_token: value.verifyToken.trim(),
    api_root: value.apiRoot.trim(),
    template: value.templateName.trim() ? { name: value.templateName.trim(), language: value.templateLanguage.trim() || 'en' } : null,
  };
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button type="button" className="btn py-0.5 text-xs" onClick={() => navigator.clipboard.writeText(text).then(() => setCopied(true), () => setCopied(false))}>
      {copied ? 'Copied' : label}
    </button>
  );
}

export function WhatsAppFields(props: { value: WhatsAppFieldsValue; onChange: (value: WhatsAppFieldsValue) => void; saved: Record<string, unknown> }) {
  const set = (patch: Partial<WhatsAppFieldsValue>) => props.onChange({ ...props.value, ...patch });
  const hint = (value: unknown) => (value ? `(set, ${String(value)}; leave empty to keep)` : '');
  const path = typeof props.saved.webhook_path === 'string' ? props.saved.webhook_path : null;
  const webhookUrl = path && typeof window !== 'undefined' ? `${window.location.origin}${path}` : null;
  const https = typeof window !== 'undefined' && window.location.protocol === 'https:';
  return (
    <div className="space-y-2">
      <ol className="list-decimal space-y-0.5 pl-5 text-xs text-zinc-500">
        <li>
          At developers.facebook.com, <em>Create app › Business</em>, then add the <em>WhatsApp</em> product and its phone number (a test number works to start).
        </li>
        <li>
          <em>WhatsApp › API Setup</em>: the <strong>Phone number ID</strong>. <em>Business Settings › System users</em>: a permanent token with <code>whatsapp_business_messaging</code>.{' '}
          <em>App settings › Basic</em>: the <strong>App secret</strong>.
        </li>
        <li>
          Save here, then in <em>WhatsApp › Configuration › Webhook</em> paste the address and verify token below, <em>Verify and save</em>, and subscribe to the <code>messages</code> field.
        </li>
        <li>Write to the number from your phone: it answers with a pairing code to approve here. The Cloud API has no groups: each person talks from their own chat.</li>
      </ol>
      <p className={`rounded border p-2 text-xs ${https ? 'border-zinc-200 dark:border-zinc-700' : 'border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950'}`} role="note">
        Meta delivers only to a public HTTPS address: serve the app behind Caddy or Tailscale Funnel and set <code>AGENTCSD_PUBLIC_URL</code> (docs/people-on-the-web.md).
        {!https && ' This page is not on HTTPS: the address below will not be reachable by Meta as it is.'}
      </p>
      {webhookUrl ? (
        <div className="grid gap-1 text-xs sm:grid-cols-[auto_1fr_auto] sm:items-center" aria-label="What to paste into Meta">
          <span className="font-medium">Callback URL</span>
          <code className="break-all rounded bg-zinc-100 px-1 dark:bg-zinc-900">{webhookUrl}</code>
          <CopyButton text={webhookUrl} label="Copy the address" />
          <span className="font-medium">Verify token</span>
          <code className="break-all rounded bg-zinc-100 px-1 dark:bg-zinc-900">{props.value.verifyToken}</code>
          <CopyButton text={props.value.verifyToken} label="Copy the token" />
        </div>
      ) : (
        <p className="text-xs text-zinc-500">The webhook address and verify token show here once the channel is saved.</p>
      )}
      <div className="grid gap-2 sm:grid-cols-2">
        <label className="flex flex-col text-sm">
          Phone number ID
          <input className="field" inputMode="numeric" value={props.value.phoneNumberId} onChange={(event) => set({ phoneNumberId: event.target.value })} placeholder="109876543210987" />
        </label>
        <label className="flex flex-col text-sm">
          Access token {hint(props.saved.access_token)}
          <input className="field" type="password" autoComplete="off" value={props.value.accessToken} onChange={(event) => set({ accessToken: event.target.value })} placeholder="EAAG…" />
        </label>
        <label className="flex flex-col text-sm">
          App secret {hint(props.saved.app_secret)}
          <input className="field" type="password" autoComplete="off" value={props.value.appSecret} onChange={(event) => set({ appSecret: event.target.value })} />
        </label>
        <label className="flex flex-col text-sm">
          Verify token (empty: one is made)
          <input className="field" value={props.value.verifyToken} onChange={(event) => set({ verifyToken: event.target.value })} />
        </label>
        <label className="flex flex-col text-sm">
          Template for words outside the 24-hour window (optional)
          <input className="field" value={props.value.templateName} onChange={(event) => set({ templateName: event.target.value })} placeholder="an approved template with one {{1}}" />
        </label>
        <label className="flex flex-col text-sm">
          Its language
          <input className="field" value={props.value.templateLanguage} onChange={(event) => set({ templateLanguage: event.target.value })} placeholder="en" />
        </label>
        <p className="text-xs text-zinc-500 sm:col-span-2">
          WhatsApp lets the agent write freely for 24 hours after a person’s last message. Later — a reminder, a card — it goes as this template, the words as its parameter; without one it waits until they write, and this page says so.
        </p>
        <label className="flex flex-col text-sm sm:col-span-2">
          Graph API
          <input className="field" value={props.value.apiRoot} onChange={(event) => set({ apiRoot: event.target.value })} />
        </label>
      </div>
    </div>
  );
}
