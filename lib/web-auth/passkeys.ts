// Passkey ceremonies (issue 61 §1, WebAuthn through @simplewebauthn/server): a person makes a
// passkey from an invite (or, signed in, another one for a new device) and signs in with it.
// Passkeys are discoverable (the phone offers them, nobody types a name); each answer is checked
// against a challenge this process handed out for that very ceremony, used once.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { findPerson, type PersonRecord } from '@/lib/store/people-repository';
import { addPasskey, findPasskey, openInvite, passkeysOf, passkeyUsed, useInvite } from '@/lib/store/web-auth-repository';
import { Challenges, challengeOf, type Ceremony } from './challenges';
import type { RelyingParty } from './relying-party';
import { errorText } from '@/lib/errors/error-text';

/** A ceremony that cannot go on, in words a person can act on (the route answers 400/404 with it). */
export class PasskeyRefused extends Error {
  constructor(
    readonly code: 'invalid_invite' | 'not_verified' | 'unknown_passkey' | 'expired_challenge',
    message: string,
  ) {
    super(message);
  }
}

const APP_NAME = 'AgentCSD';

export class PasskeyCeremonies {
  constructor(private readonly challenges = new Challenges()) {}

  /** Options to make a passkey: for the person an invite names, or for the signed-in person. */
  async registrationOptions(input: { rp: RelyingParty; invite?: string; personId?: string; now: Date }): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; person: Pick<PersonRecord, 'id' | 'name'> }> {
    const person = await this.personFor(input);
    const existing = await passkeysOf(person.id);
    const options = await generateRegistrationOptions({
      rpName: APP_NAME,
      rpID: input.rp.id,
      userID: new TextEncoder().encode(person.id),
      userName: person.name,
      userDisplayName: person.name,
      attestationType: 'none',
      excludeCredentials: existing.map((key) => ({ id: key.id, transports: key.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    this.challenges.remember(options.challenge, { purpose: 'register', personId: person.id, ...(input.invite && { invite: input.invite }) });
    return { options, person: { id: person.id, name: person.name } };
  }

  /** Checks the browser's new passkey and keeps it; an invite is used up by it. */
  async register(input: { rp: RelyingParty; response: RegistrationResponseJSON; name: string; personId?: string; now: Date }): Promise<{ personId: string; passkeyId: string; fromInvite: boolean }> {
    const ceremony = this.ceremonyOf(input.response, 'register');
    if (ceremony.purpose !== 'register') throw new PasskeyRefused('expired_challenge', 'This sign-up has expired: start again');
    // Signed in, a person adds a device to themselves only.
    if (!ceremony.invite && ceremony.personId !== input.personId) throw new PasskeyRefused('expired_challenge', 'This sign-up has expired: start again');
    const verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challengeOf(input.response)!,
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.id,
      requireUserVerification: false,
    }).catch((error: unknown) => {
      throw new PasskeyRefused('not_verified', `The passkey could not be checked: ${errorText(error)}`);
    });
    if (!verified.verified) throw new PasskeyRefused('not_verified', 'The passkey could not be checked');
    if (ceremony.invite && !(await useInvite(ceremony.invite, input.now))) throw new PasskeyRefused('invalid_invite', 'This invite was used or has expired: ask for a new one');
    const { credential } = verified.registrationInfo;
    await addPasskey({
      id: credential.id,
      personId: ceremony.personId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: input.name,
    });
    return { personId: ceremony.personId, passkeyId: credential.id, fromInvite: Boolean(ceremony.invite) };
  }

  /** Options to sign in: any passkey of this site the browser holds (discoverable). */
  async authenticationOptions(input: { rp: RelyingParty }): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({ rpID: input.rp.id, userVerification: 'preferred' });
    this.challenges.remember(options.challenge, { purpose: 'login' });
    return options;
  }

  /** Checks a sign-in: the person it signs in and the passkey used. */
  async authenticate(input: { rp: RelyingParty; response: AuthenticationResponseJSON; now: Date }): Promise<{ person: PersonRecord; passkeyId: string }> {
    const ceremony = this.ceremonyOf(input.response, 'login');
    if (ceremony.purpose !== 'login') throw new PasskeyRefused('expired_challenge', 'This sign-in has expired: try again');
    const passkey = typeof input.response.id === 'string' ? await findPasskey(input.response.id) : null;
    if (!passkey) throw new PasskeyRefused('unknown_passkey', 'This passkey is not known here (it may have been removed): ask the owner for an invite');
    const verified = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: challengeOf(input.response)!,
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.id,
      credential: { id: passkey.id, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: false,
    }).catch((error: unknown) => {
      throw new PasskeyRefused('not_verified', `The passkey could not be checked: ${errorText(error)}`);
    });
    if (!verified.verified) throw new PasskeyRefused('not_verified', 'The passkey could not be checked');
    const person = await findPerson(passkey.personId);
    if (!person) throw new PasskeyRefused('unknown_passkey', 'This passkey is not known here');
    await passkeyUsed(passkey.id, verified.authenticationInfo.newCounter, input.now);
    return { person, passkeyId: passkey.id };
  }

  private async personFor(input: { invite?: string; personId?: string; now: Date }): Promise<PersonRecord> {
    const personId = input.invite ? await openInvite(input.invite, input.now) : input.personId;
    const person = personId ? await findPerson(personId) : null;
    if (!person) throw new PasskeyRefused('invalid_invite', input.invite ? 'This invite is not valid: it was used, has expired, or never existed. Ask for a new one.' : 'Sign in first');
    return person;
  }

  private ceremonyOf(response: RegistrationResponseJSON | AuthenticationResponseJSON, purpose: Ceremony['purpose']): Ceremony {
    const challenge = challengeOf(response);
    const ceremony = challenge ? this.challenges.take(challenge) : undefined;
    if (!ceremony || ceremony.purpose !== purpose) throw new PasskeyRefused('expired_challenge', purpose === 'login' ? 'This sign-in has expired: try again' : 'This sign-up has expired: start again');
    return ceremony;
  }
}
