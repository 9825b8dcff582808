// Making a passkey in this browser (issue 61 §1): from an invite, or for the signed-in person adding
// a device. A refusal by the server keeps its words; the browser's own is said as "No passkey was made".
import { startRegistration } from '@simplewebauthn/browser';
import { ApiRequestError, apiFetch } from '@/components/api-client';
import { errorText } from '@/lib/errors/error-text';

export async function makePasskey(name: string, invite?: string): Promise<void> {
  try {
    const { options } = await apiFetch<{ options: Parameters<typeof startRegistration>[0]['optionsJSON'] }>('/api/auth/passkey/register/options', { method: 'POST', body: invite ? { invite } : {} });
    const credential = await startRegistration({ optionsJSON: options });
    await apiFetch('/api/auth/passkey/register/verify', { method: 'POST', body: { credential, name } });
  } catch (caught) {
    throw new Error(caught instanceof ApiRequestError ? caught.message : `No passkey was made: ${errorText(caught)}`, { cause: caught });
  }
}
