// A WebAuthn authenticator in software (issue 61), protocol-faithful as far as a relying party can
// tell: an ES256 key per credential, "none" attestation with the credential's COSE key in CBOR,
// client data as a browser writes it, signatures over authenticator data and the client data's
// hash, a signature counter. For unit tests and the benchmark (the e2e run uses Chromium's own).
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** Minimal CBOR (RFC 8949) for what an attestation object holds: maps, ints, byte and text strings. */
function cbor(value: unknown): Buffer {
  const head = (major: number, length: number) => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 256) return Buffer.from([(major << 5) | 24, length]);
    const bytes = Buffer.alloc(3);
    bytes[0] = (major << 5) | 25;
    bytes.writeUInt16BE(length, 1);
    return bytes;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, entry]) => [cbor(key), cbor(entry)])]);
  throw new Error(`cbor: ${typeof value}`);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64 = (bytes: Buffer) => bytes.toString('base64url');

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  userHandle: string;
  counter: number;
}

export class SoftAuthenticator {
  private readonly credentials: Credential[] = [];

  constructor(private readonly origin: string) {}

  /** The answer `navigator.credentials.create()` gives for these options (a new discoverable credential). */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential: Credential = { id: randomBytes(16), privateKey, publicKey, userHandle: options.user.id, counter: 0 };
    this.credentials.push(credential);
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    const cose = new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), length, credential.id, cbor(cose)]);
    const clientData = this.clientData('webauthn.create', options.challenge);
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: { clientDataJSON: b64(clientData), attestationObject: b64(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** The answer `navigator.credentials.get()` gives: the newest credential for this site, signed. */
  authenticate(options: { challenge: string; rpId?: string }, which = this.credentials.length - 1): Record<string, unknown> {
    const credential = this.credentials[which];
    if (!credential) throw new Error('no credential');
    credential.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(options.rpId ?? new URL(this.origin).hostname), Buffer.from([0x05]), counter]);
    const clientData = this.clientData('webauthn.get', options.challenge);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    return {
      id: b64(credential.id),
      rawId: b64(credential.id),
      type: 'public-key',
      response: { clientDataJSON: b64(clientData), authenticatorData: b64(authData), signature: b64(signature), userHandle: credential.userHandle },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
