// The parts of mailauth 4.9 (the last release for Node 20; it ships no types) the email channel
// and its tests use.
declare module 'mailauth' {
  export interface AuthenticateOptions {
    resolver?: (name: string, type: string) => Promise<unknown>;
    ip?: string;
    helo?: string;
    sender?: string;
    mta?: string;
    disableArc?: boolean;
    disableBimi?: boolean;
    disableDmarc?: boolean;
  }
  export interface AuthenticateResult {
    headers?: { parsed?: { key: string; line: string }[] };
    dkim?: { results?: { signingDomain?: string; status: { result: string; aligned?: string | false } }[] };
    dmarc?: false | { status?: { result?: string } };
  }
  export function authenticate(input: Buffer, options?: AuthenticateOptions): Promise<AuthenticateResult>;
}

declare module 'mailauth/lib/dkim/sign' {
  export function dkimSign(
    input: Buffer,
    options: { canonicalization?: string; algorithm?: string; signTime?: Date; signatureData: { signingDomain: string; selector: string; privateKey: string }[] },
  ): Promise<{ signatures: string; errors: unknown[] }>;
}
